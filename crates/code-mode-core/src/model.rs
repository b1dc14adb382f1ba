//! The model-visible surface (SPEC section 4, rules 14.3, 14.4 and 14.24): the
//! `exec` and `wait` definitions and descriptions, the tool list a run shows the
//! model, the provider-payload check and the hook metadata.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::{json, Value};

use crate::catalog::{is_legacy_control, ToolSpec};
use crate::config::Language;
use crate::messages;

pub const EXEC: &str = "exec";
pub const WAIT: &str = "wait";
pub const EXEC_TOOL_KIND: &str = "code_mode_exec";
pub const WAIT_TOOL_KIND: &str = "code_mode_wait";

/// A tool definition as the provider payload carries it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelTool {
    pub name: String,
    pub description: String,
    /// A JSON Schema.
    pub parameters: Value,
    /// `code_mode_exec` or `code_mode_wait` on the two controls, else absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_kind: Option<&'static str>,
}

/// What the exec description depends on in one run.
#[derive(Clone, Debug, Default)]
pub struct DescriptionContext {
    /// The run catalog has MCP entries.
    pub has_mcp: bool,
    /// Identifiers of the visible MCP servers, as the `MCP` namespace names them.
    pub mcp_servers: Vec<String>,
    /// The plugin namespaces visible in this run.
    pub namespaces: Vec<NamespacePrompt>,
    /// The enabled languages in config order.
    pub languages: Vec<Language>,
}

#[derive(Clone, Debug, Default)]
pub struct NamespacePrompt {
    pub global_name: String,
    pub description: Option<String>,
    pub prompt: Option<String>,
}

/// The exec input schema: `code` or `command` (neither is `required`, one of
/// them must be given), a flat `language` enum of the enabled languages, and
/// `restartSafe`.
pub fn exec_parameters(languages: &[Language]) -> Value {
    let names: Vec<&str> = enabled(languages).iter().map(|l| l.as_str()).collect();
    json!({
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": messages::EXEC_CODE_PARAM},
            "command": {"type": "string", "description": messages::EXEC_COMMAND_PARAM},
            "language": {
                "type": "string",
                "enum": names,
                "description": messages::EXEC_LANGUAGE_PARAM,
            },
            "restartSafe": {"type": "boolean", "description": messages::EXEC_RESTART_SAFE_PARAM},
        },
        "additionalProperties": false,
    })
}

/// The wait input schema (`run_id` is accepted at runtime but not advertised).
pub fn wait_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "runId": {"type": "string", "description": messages::WAIT_RUN_ID_PARAM},
        },
        "required": ["runId"],
        "additionalProperties": false,
    })
}

/// The exec description, in the order SPEC 4 gives: `return`; no modules;
/// `tools.*`; MCP (only with MCP tools); plugin namespaces (only when visible);
/// `language`; how to resume a `waiting` result; then, after a blank line, the
/// namespace prompt (only with visible namespaces or MCP servers).
pub fn exec_description(ctx: &DescriptionContext) -> String {
    let mut lines: Vec<String> = [
        messages::EXEC_INTRO,
        messages::EXEC_NO_MODULES,
        messages::EXEC_CATALOG,
    ]
    .map(str::to_owned)
    .to_vec();
    if ctx.has_mcp {
        lines.push(messages::EXEC_MCP.to_owned());
    }
    if !ctx.namespaces.is_empty() {
        lines.push(messages::EXEC_NAMESPACES.to_owned());
    }
    lines.push(language_line(&ctx.languages));
    lines.push(messages::EXEC_WAITING.to_owned());
    let mut text = lines.join("\n");
    let prompt = namespace_prompt(ctx);
    if !prompt.is_empty() {
        text.push_str("\n\n");
        text.push_str(&prompt);
    }
    text
}

pub fn wait_description() -> String {
    messages::WAIT_DESCRIPTION.to_owned()
}

/// The enabled languages, JavaScript first (the default), for the description.
fn language_line(languages: &[Language]) -> String {
    let enabled = enabled(languages);
    let names: Vec<&str> = [Language::Javascript, Language::Typescript]
        .into_iter()
        .filter(|language| enabled.contains(language))
        .map(Language::as_str)
        .collect();
    messages::exec_language(&names)
}

/// Per visible namespace `- <globalName>: <description>` and its prompt on the
/// following line(s); then the MCP servers. Blank texts count as absent.
fn namespace_prompt(ctx: &DescriptionContext) -> String {
    let text = |value: &Option<String>| {
        value
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    let mut lines = Vec::new();
    for namespace in &ctx.namespaces {
        let description = text(&namespace.description);
        lines.push(messages::namespace_prompt_line(
            &namespace.global_name,
            description.as_deref(),
        ));
        lines.extend(text(&namespace.prompt));
    }
    if !ctx.mcp_servers.is_empty() {
        lines.push(messages::mcp_servers_prompt(&ctx.mcp_servers));
    }
    lines.join("\n")
}

/// The configuration never yields an empty list; treat one as both, like it does.
fn enabled(languages: &[Language]) -> Vec<Language> {
    if languages.is_empty() {
        vec![Language::Javascript, Language::Typescript]
    } else {
        languages.to_vec()
    }
}

/// The tools the model sees.
///
/// Inactive: every input tool unchanged, as a definition (a tool without a schema
/// gets `{"type":"object","properties":{}}`). A run that intentionally has no
/// tools (`disableTools`, or an empty list) shows none (SPEC 14.3): callers pass
/// an empty `tools` for it.
///
/// Active: `exec`, `wait`, then the direct-only tools in input order. Legacy
/// tool-search controls are dropped even when direct-only, and so is a
/// direct-only tool named `exec` or `wait`, which the payload could not carry
/// next to the controls.
pub fn model_tools(
    active: bool,
    tools: &[ToolSpec],
    exec_description: String,
    languages: &[Language],
) -> Vec<ModelTool> {
    if !active {
        return tools.iter().map(definition).collect();
    }
    let controls = [
        ModelTool {
            name: EXEC.to_owned(),
            description: exec_description,
            parameters: exec_parameters(languages),
            tool_kind: Some(EXEC_TOOL_KIND),
        },
        ModelTool {
            name: WAIT.to_owned(),
            description: wait_description(),
            parameters: wait_parameters(),
            tool_kind: Some(WAIT_TOOL_KIND),
        },
    ];
    let direct = tools.iter().filter(|tool| {
        tool.direct_only && !is_legacy_control(&tool.name) && tool.name != EXEC && tool.name != WAIT
    });
    controls.into_iter().chain(direct.map(definition)).collect()
}

fn definition(tool: &ToolSpec) -> ModelTool {
    ModelTool {
        name: tool.name.clone(),
        description: tool.description.clone(),
        parameters: tool
            .parameters
            .clone()
            .filter(|schema| !schema.is_null())
            .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
        tool_kind: None,
    }
}

/// SPEC 14.4. `allowed` is, when active, the run's direct-only model tools and,
/// when inactive, the run's unchanged tool names. Active: `exec` and `wait`
/// exactly once each, every other name allowed and at most once; inactive: every
/// name allowed and at most once. Order does not matter; allowed tools may be
/// absent. The error names every offending name.
pub fn assert_provider_payload(
    names: &[String],
    active: bool,
    allowed: &[String],
) -> Result<(), String> {
    let allowed: HashSet<&str> = allowed.iter().map(String::as_str).collect();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for name in names {
        let count = counts.entry(name.as_str()).or_insert(0);
        if *count == 0 {
            order.push(name);
        }
        *count += 1;
    }
    let is_control = |name: &str| active && (name == EXEC || name == WAIT);
    let (mut unexpected, mut duplicate) = (Vec::new(), Vec::new());
    for name in order {
        if !is_control(name) && !allowed.contains(name) {
            unexpected.push(name);
        } else if counts[name] > 1 {
            duplicate.push(name);
        }
    }
    let missing: Vec<&str> = if active {
        [EXEC, WAIT]
            .into_iter()
            .filter(|control| !counts.contains_key(control))
            .collect()
    } else {
        Vec::new()
    };
    if unexpected.is_empty() && missing.is_empty() && duplicate.is_empty() {
        return Ok(());
    }
    Err(messages::provider_payload_not_allowed(
        &unexpected,
        &missing,
        &duplicate,
    ))
}

/// `codeModeHookMetadata(input)` (SPEC 14.24): the kind of an exec call for hooks.
/// No language (absent, `null`, or a non-object input) is JavaScript; an unknown
/// language leaves `toolInputKind` out.
pub fn hook_metadata(input: &Value) -> Value {
    let language = match input.get("language") {
        None | Some(Value::Null) => Some(Language::Javascript),
        Some(Value::String(name)) => Language::parse(name),
        Some(_) => None,
    };
    let mut metadata = json!({"toolKind": EXEC_TOOL_KIND});
    if let Some(language) = language {
        metadata["toolInputKind"] = json!(language.as_str());
    }
    metadata
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn exec_schema_is_flat_and_lists_enabled_languages_in_config_order() {
        let expected = |languages: Value| {
            json!({
                "type": "object",
                "properties": {
                    "code": {"type": "string", "description": messages::EXEC_CODE_PARAM},
                    "command": {"type": "string", "description": messages::EXEC_COMMAND_PARAM},
                    "language": {
                        "type": "string",
                        "enum": languages,
                        "description": messages::EXEC_LANGUAGE_PARAM,
                    },
                    "restartSafe": {"type": "boolean", "description": messages::EXEC_RESTART_SAFE_PARAM},
                },
                "additionalProperties": false,
            })
        };
        let both = exec_parameters(&JS_TS);
        assert_eq!(both, expected(json!(["javascript", "typescript"])));
        assert_eq!(exec_parameters(&[]), both);
        assert_eq!(
            exec_parameters(&[Language::Typescript, Language::Javascript]),
            expected(json!(["typescript", "javascript"]))
        );
        assert_eq!(
            exec_parameters(&[Language::Typescript]),
            expected(json!(["typescript"]))
        );
        let text = both.to_string();
        assert!(!text.contains("required") && !text.contains("oneOf") && !text.contains("anyOf"));
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
        assert!(
            text.contains("suspended") && text.contains("`runId`") && text.contains("`waiting`")
        );
    }

    #[test]
    fn inactive_runs_show_their_tools_unchanged() {
        let mut read = tool("read", false);
        read.parameters = Some(json!({"type": "object", "required": ["path"]}));
        let tools = [read, tool("tool_search", false), tool("computer", true)];
        let shown = model_tools(false, &tools, "unused".into(), &JS_TS);
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
        assert!(model_tools(false, &[], "unused".into(), &JS_TS).is_empty());
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
        let shown = model_tools(
            true,
            &tools,
            "the exec text".into(),
            &[Language::Javascript],
        );
        let names: Vec<&str> = shown.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["exec", "wait", "computer", "canvas"]);
        assert_eq!(shown[0].description, "the exec text");
        assert_eq!(
            shown[0].parameters,
            exec_parameters(&[Language::Javascript])
        );
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
                "code mode provider payload is not allowed: unexpected tool(s) tool_search."
                    .to_owned()
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
}
