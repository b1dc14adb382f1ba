//! Tests of the model-visible surface.

use super::*;
use crate::catalog::ToolSource;

const JS_TS: [Language; 2] = [Language::Javascript, Language::Typescript];

fn tool(name: &str, direct_only: bool) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        label: None,
        description: format!("{name} tool"),
        parameters: None,
        source: ToolSource::Openclaw,
        source_name: None,
        direct_only,
        replay_safe: false,
        mcp: None,
    }
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

fn context() -> DescriptionContext {
    DescriptionContext {
        languages: JS_TS.to_vec(),
        ..DescriptionContext::default()
    }
}

fn issues() -> NamespacePrompt {
    NamespacePrompt {
        global_name: "Issues".into(),
        description: Some("GitHub issue helpers.".into()),
        prompt: Some("Use Issues.list(params) and Issues.update(number, patch).".into()),
    }
}

fn languages(languages: &[Language]) -> DescriptionContext {
    DescriptionContext {
        languages: languages.to_vec(),
        ..DescriptionContext::default()
    }
}

#[test]
fn exec_schema_is_flat_and_lists_enabled_languages_in_config_order() {
    let expected = |names: &[&str]| {
        json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": messages::exec_code_param(names, false, &[])},
                "command": {"type": "string", "description": messages::EXEC_COMMAND_PARAM},
                "language": {
                    "type": "string",
                    "enum": names,
                    "description": messages::exec_language_param(names),
                },
                "restartSafe": {"type": "boolean", "description": messages::EXEC_RESTART_SAFE_PARAM},
            },
            "additionalProperties": false,
        })
    };
    let both = exec_parameters(&context());
    assert_eq!(both, expected(&["javascript", "typescript"]));
    assert_eq!(exec_parameters(&languages(&[])), both);
    assert_eq!(
        exec_parameters(&languages(&[Language::Typescript, Language::Javascript])),
        expected(&["typescript", "javascript"])
    );
    assert_eq!(
        exec_parameters(&languages(&[Language::Typescript])),
        expected(&["typescript"])
    );
    let text = both.to_string();
    assert!(!text.contains("required") && !text.contains("oneOf") && !text.contains("anyOf"));
}

#[test]
fn exec_property_descriptions_teach_the_model_what_is_true_for_this_run() {
    let code = |ctx: &DescriptionContext| {
        exec_parameters(ctx)["properties"]["code"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let language = |ctx: &DescriptionContext| {
        exec_parameters(ctx)["properties"]["language"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let plain = code(&context());
    assert_eq!(
        plain,
        "JavaScript or TypeScript program: the body of an async function (top-level await; `return` the result). \
         Call tools via `tools.search`, `tools.describe`, `tools.call` or `tools.<name>(input)`; `ALL_TOOLS` lists them. \
         Modules are unavailable (no `require`/`import`); `setTimeout`/`setInterval` work."
    );
    assert!(!plain.contains("MCP") && !plain.contains("API") && !plain.contains("namespace"));
    let with_mcp = code(&DescriptionContext {
        has_mcp: true,
        ..context()
    });
    assert!(with_mcp
        .ends_with(" MCP tools: `MCP.<server>.<tool>(input)`; declarations via `API.read`."));
    let with_namespaces = code(&DescriptionContext {
        namespaces: vec![issues()],
        ..context()
    });
    assert!(with_namespaces.ends_with(" Plugin namespaces (globals): `Issues`."));
    assert!(!with_namespaces.contains("MCP"));
    assert!(code(&languages(&[Language::Javascript])).starts_with("JavaScript program:"));
    assert!(code(&languages(&[Language::Typescript])).starts_with("TypeScript program:"));
    assert_eq!(
        language(&context()),
        "`javascript` (default) or `typescript` (types stripped, not checked)."
    );
    assert_eq!(
        language(&languages(&[Language::Javascript])),
        "Only `javascript`."
    );
    assert_eq!(
        language(&languages(&[Language::Typescript])),
        "Only `typescript` (types stripped, not checked); pass it on every call."
    );
}

#[test]
fn wait_schema_requires_run_id() {
    assert_eq!(
        wait_parameters(),
        json!({
            "type": "object",
            "properties": {"runId": {"type": "string", "description": messages::WAIT_RUN_ID_PARAM}},
            "required": ["runId"],
            "additionalProperties": false,
        })
    );
}

#[test]
fn exec_description_without_mcp_or_namespaces() {
    assert_eq!(
        exec_description(&context()),
        "Run a JavaScript or TypeScript program in an isolated sandbox to use this run's tools. \
The code is the body of an async function: top-level await works; use `return` for the final value \
(with no return the run completes with `null`).\n\
Node modules, `require` and `import` are not available; there is no file system, network or \
environment access except through tools.\n\
Tools live in a catalog: `tools.search(query)` finds tools, `tools.describe(id)` returns one with \
its input schema, `tools.call(id, input)` calls it (an exact id or a unique name); `ALL_TOOLS` lists \
the catalog. Produce output with `text(value)`, `json(value)` or `console.log(...)`.\n\
`language` accepts only \"javascript\" or \"typescript\" (default \"javascript\").\n\
A result with status `waiting` is not finished: call `wait` with its `runId` to resume it."
    );
}

#[test]
fn exec_description_parts_come_in_contract_order() {
    let ctx = DescriptionContext {
        has_mcp: true,
        mcp_servers: strings(&["github", "chromeDevtools"]),
        namespaces: vec![
            issues(),
            NamespacePrompt {
                global_name: "Fictions".into(),
                description: None,
                prompt: Some("  Use Fictions.riskAudit().\n".into()),
            },
        ],
        languages: vec![Language::Typescript, Language::Javascript],
    };
    let text = exec_description(&ctx);
    let markers = [
        "use `return`",
        "`require` and `import`",
        "`tools.search(query)`",
        "`API.list(prefix?)` and `API.read(path)`",
        "`MCP.<server>.<tool>({...})`",
        "are globals, also reachable as `namespaces.<globalName>`",
        "`language` accepts only \"javascript\" or \"typescript\"",
        "call `wait` with its `runId`",
        "\n\n- Issues: GitHub issue helpers.\n\
Use Issues.list(params) and Issues.update(number, patch).\n\
- Fictions\nUse Fictions.riskAudit().\n\
MCP servers: github, chromeDevtools",
    ];
    let positions: Vec<usize> = markers
        .iter()
        .map(|marker| {
            text.find(marker)
                .unwrap_or_else(|| panic!("missing {marker:?}"))
        })
        .collect();
    assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{text}");
    assert!(text.ends_with("MCP servers: github, chromeDevtools"));
    assert_eq!(text.matches("\n\n").count(), 1);
}

#[test]
fn exec_description_conditional_parts() {
    let plain = exec_description(&context());
    assert!(!plain.contains("MCP") && !plain.contains("API.") && !plain.contains("namespaces"));
    assert!(!plain.contains("\n\n"));

    let mcp_only = exec_description(&DescriptionContext {
        has_mcp: true,
        mcp_servers: strings(&["docs"]),
        ..context()
    });
    assert!(mcp_only.contains(messages::EXEC_MCP));
    assert!(!mcp_only.contains(messages::EXEC_NAMESPACES));
    assert!(mcp_only.ends_with("resume it.\n\nMCP servers: docs"));

    let namespaces_only = exec_description(&DescriptionContext {
        namespaces: vec![issues()],
        ..context()
    });
    assert!(!namespaces_only.contains(messages::EXEC_MCP));
    assert!(namespaces_only.contains(messages::EXEC_NAMESPACES));
    assert!(namespaces_only.ends_with(
        "resume it.\n\n- Issues: GitHub issue helpers.\nUse Issues.list(params) and Issues.update(number, patch)."
    ));
}

#[test]
fn exec_description_names_only_enabled_languages() {
    let only = |language| {
        exec_description(&DescriptionContext {
            languages: vec![language],
            ..context()
        })
    };
    assert!(only(Language::Javascript)
        .contains("`language` accepts only \"javascript\" (default \"javascript\")."));
    assert!(only(Language::Typescript)
        .contains("`language` accepts only \"typescript\"; pass it on every call."));
}

#[test]
fn wait_description_mentions_run_id_of_waiting_results() {
    let text = wait_description();
    assert!(text.contains("suspended") && text.contains("`runId`") && text.contains("`waiting`"));
}

#[test]
fn inactive_runs_show_their_tools_unchanged() {
    let mut read = tool("read", false);
    read.parameters = Some(json!({"type": "object", "required": ["path"]}).into());
    let tools = [read, tool("tool_search", false), tool("computer", true)];
    let shown = model_tools(false, &tools, "unused".into(), &context());
    let names: Vec<&str> = shown.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["read", "tool_search", "computer"]);
    assert_eq!(
        shown[0].parameters,
        json!({"type": "object", "required": ["path"]})
    );
    assert_eq!(
        shown[1].parameters,
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(shown[2].description, "computer tool");
    assert!(shown.iter().all(|t| t.tool_kind.is_none()));
    assert!(model_tools(false, &[], "unused".into(), &context()).is_empty());
}

#[test]
fn active_runs_show_exec_wait_and_direct_only_tools() {
    let tools = [
        tool("read", false),
        tool("computer", true),
        tool("tool_call", true),
        tool("exec", false),
        tool("wait", true),
        tool("canvas", true),
    ];
    let js = languages(&[Language::Javascript]);
    let shown = model_tools(true, &tools, "the exec text".into(), &js);
    let names: Vec<&str> = shown.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["exec", "wait", "computer", "canvas"]);
    assert_eq!(shown[0].description, "the exec text");
    assert_eq!(shown[0].parameters, exec_parameters(&js));
    assert_eq!(shown[1].parameters, wait_parameters());
    assert_eq!(shown[1].description, wait_description());
    assert_eq!(
        serde_json::to_value(&shown[1]).unwrap(),
        json!({
            "name": "wait",
            "description": wait_description(),
            "parameters": wait_parameters(),
            "toolKind": "code_mode_wait",
        })
    );
    assert_eq!(shown[0].tool_kind, Some("code_mode_exec"));
    assert_eq!(
        serde_json::to_string(&shown[2]).unwrap(),
        r#"{"name":"computer","description":"computer tool","parameters":{"type":"object","properties":{}}}"#
    );
}

#[test]
fn active_payloads_must_be_exec_wait_and_allowed_direct_tools() {
    let allowed = strings(&["computer", "canvas"]);
    let check = |names: &[&str]| assert_provider_payload(&strings(names), true, &allowed);
    assert_eq!(check(&["exec", "wait"]), Ok(()));
    assert_eq!(check(&["canvas", "wait", "exec", "computer"]), Ok(()));
    assert_eq!(check(&["exec", "wait", "computer"]), Ok(()));
    assert_eq!(
        check(&["exec", "read", "search", "exec", "read"]),
        Err(
            "code mode provider payload is not allowed: unexpected tool(s) read, search; \
missing wait; duplicate exec."
                .to_owned()
        )
    );
    assert_eq!(
        check(&["exec", "wait", "computer", "computer"]),
        Err("code mode provider payload is not allowed: duplicate computer.".to_owned())
    );
    assert_eq!(
        check(&[]),
        Err("code mode provider payload is not allowed: missing exec, wait.".to_owned())
    );
    assert_eq!(
        check(&["exec", "wait", "tool_search"]),
        Err(
            "code mode provider payload is not allowed: unexpected tool(s) tool_search.".to_owned()
        )
    );
}

#[test]
fn inactive_payloads_accept_only_the_runs_tools() {
    let allowed = strings(&["read", "write"]);
    let check = |names: &[&str]| assert_provider_payload(&strings(names), false, &allowed);
    assert_eq!(check(&["write", "read"]), Ok(()));
    assert_eq!(check(&["read"]), Ok(()));
    assert_eq!(check(&[]), Ok(()));
    assert_eq!(
        check(&["read", "exec", "wait", "read"]),
        Err(
            "code mode provider payload is not allowed: unexpected tool(s) exec, wait; \
duplicate read."
                .to_owned()
        )
    );
}

#[test]
fn hook_metadata_reports_the_input_language() {
    let js = json!({"toolKind": "code_mode_exec", "toolInputKind": "javascript"});
    let ts = json!({"toolKind": "code_mode_exec", "toolInputKind": "typescript"});
    let unknown = json!({"toolKind": "code_mode_exec"});
    assert_eq!(hook_metadata(&json!({"code": "1"})), js);
    assert_eq!(hook_metadata(&json!({"language": null})), js);
    assert_eq!(hook_metadata(&Value::Null), js);
    assert_eq!(hook_metadata(&json!("code")), js);
    assert_eq!(hook_metadata(&json!([1])), js);
    assert_eq!(hook_metadata(&json!({"language": "javascript"})), js);
    assert_eq!(hook_metadata(&json!({"language": "typescript"})), ts);
    assert_eq!(hook_metadata(&json!({"language": "python"})), unknown);
    assert_eq!(hook_metadata(&json!({"language": "TypeScript"})), unknown);
    assert_eq!(hook_metadata(&json!({"language": 1})), unknown);
}
