//! The namespace built from a catalog, and the answers given from it.

use serde_json::{json, Value};

use super::{declarations, ApiRefusal, McpNamespace, McpTool, Operation, PARSER_NUL};
use crate::catalog::testing::{core, mcp, mcp_without_meta};
use crate::catalog::{Catalog, McpMeta, Schema, ToolSpec};

/// No bound on an answer's length.
const ANY: usize = usize::MAX;

/// The message of a refused `API` or `$api` call.
fn rejected(answer: Result<String, ApiRefusal>) -> String {
    match answer {
        Err(ApiRefusal::Rejected(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
}

fn tool(server: &str, name: &str) -> ToolSpec {
    ToolSpec {
        parameters: Some(schema().into()),
        ..mcp(&format!("{server}__{name}"), server, name)
    }
}

fn operation(server: &str, name: &str, op: &str) -> ToolSpec {
    let mut spec = tool(server, name);
    spec.mcp = Some(McpMeta {
        server: server.into(),
        tool: name.into(),
        operation: Some(op.into()),
    });
    spec
}

fn namespace(tools: &[ToolSpec]) -> McpNamespace {
    McpNamespace::build(&Catalog::build(tools))
}

fn methods(ns: &McpNamespace) -> Vec<(String, Vec<String>)> {
    ns.servers
        .iter()
        .map(|s| {
            let methods = s.tools.iter().map(|t| t.method.clone()).collect();
            (s.identifier.clone(), methods)
        })
        .collect()
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn servers_and_tools_get_camel_case_identifiers_in_a_stable_order() {
    let tools = [
        tool("github", "list_issues"),
        core("read"),
        tool("chrome-devtools", "take_snapshot"),
        tool("github", "create_issue"),
        operation("github", "resources/read", "resources_read"),
        operation("github", "prompts/get", "prompts_get"),
    ];
    let ns = namespace(&tools);
    let expected = [
        ("chromeDevtools".to_owned(), vec!["takeSnapshot".to_owned()]),
        (
            "github".to_owned(),
            ["createIssue", "listIssues", "prompts.get", "resources.read"]
                .map(str::to_owned)
                .to_vec(),
        ),
    ];
    assert_eq!(methods(&ns), expected);
    let mut reversed = tools.to_vec();
    reversed.reverse();
    assert_eq!(methods(&namespace(&reversed)), expected);
    let read = &ns.servers[1].tools[3];
    assert_eq!(read.path, ["resources", "read"]);
    assert_eq!(read.operation, Operation::ResourcesRead);
    assert_eq!(read.id, "mcp:github:resources/read");
    assert!(ns.problems.is_empty(), "{:?}", ns.problems);
    assert_eq!(ns.server_identifiers(), ["chromeDevtools", "github"]);
}

#[test]
fn collisions_after_camel_casing_get_a_suffix_and_are_reported() {
    let ns = namespace(&[
        tool("gh", "create_issue"),
        tool("gh", "create-issue"),
        tool("gh", "constructor"),
        tool("g-h", "x"),
    ]);
    assert_eq!(
        methods(&ns),
        [
            ("gH".to_owned(), vec!["x".to_owned()]),
            (
                "gh".to_owned(),
                ["constructor2", "createIssue", "createIssue2"]
                    .map(str::to_owned)
                    .to_vec()
            ),
        ]
    );
    // `-` sorts before `_`: create-issue came first and kept the plain name.
    let second = &ns.servers[1].tools[2];
    assert_eq!(second.mcp_tool, "create_issue");
    assert_eq!(
        second.notes,
        ["Called createIssue2, not createIssue: createIssue is reserved or taken by another tool of this server."]
    );
    assert_eq!(ns.problems.len(), 2, "{:?}", ns.problems);
    assert!(ns
        .problems
        .iter()
        .any(|p| p.contains("\"create_issue\" (mcp:gh:create_issue) is MCP.gh.createIssue2")));
    assert!(ns
        .problems
        .iter()
        .any(|p| p.contains("\"constructor\" (mcp:gh:constructor) is MCP.gh.constructor2")));

    let servers = namespace(&[tool("tools", "a"), tool("Tools", "b")]);
    assert_eq!(servers.server_identifiers(), ["tools2", "tools3"]);
    assert_eq!(servers.problems.len(), 2);
    assert!(servers.servers[0].notes[0].contains("MCP.tools2"));
}

#[test]
fn odd_tools_are_reported_and_never_stop_the_others() {
    let mut no_schema = mcp("a__none", "a", "none");
    no_schema.parameters = None;
    let mut not_object = mcp("a__str", "a", "str");
    not_object.parameters = Some(json!({"type": "string"}).into());
    let mut not_a_schema = mcp("a__num", "a", "num");
    not_a_schema.parameters = Some(json!(7).into());
    let ns = namespace(&[
        no_schema,
        not_object,
        not_a_schema,
        operation("a", "sub", "resources_subscribe"),
        operation("a", "r1", "resources_list"),
        operation("a", "r2", "resources_list"),
        mcp_without_meta("stray", Some("a")),
        tool("b", "fine"),
    ]);
    assert_eq!(
        methods(&ns),
        [
            (
                "a".to_owned(),
                ["none", "num", "resources.list", "str"]
                    .map(str::to_owned)
                    .to_vec()
            ),
            ("b".to_owned(), vec!["fine".to_owned()]),
        ]
    );
    let problems = ns.problems.join("\n");
    for expected in [
        "MCP tool \"stray\" (mcp:a:stray) has no mcp metadata",
        "MCP tool \"none\" (mcp:a:none) has no input schema; MCP.a.none passes its input object on unchecked.",
        "MCP tool \"str\" (mcp:a:str) has an input schema that does not describe an object",
        "MCP tool \"num\" (mcp:a:num) has an input schema that does not describe an object",
        "MCP tool \"sub\" (mcp:a:sub) has mcp.operation \"resources_subscribe\", which code mode does not support",
        "MCP tool \"r2\" (mcp:a:r2) is not under MCP: server \"a\" already has a run tool with mcp.operation \"resources_list\"",
    ] {
        assert!(problems.contains(expected), "{expected}\nin\n{problems}");
    }
    assert_eq!(ns.problems.len(), 6);
    assert_eq!(ns.refusals.len(), 1);
    assert_eq!(ns.refusals[0].path, ["sub"]);
    assert!(ns.refusals[0]
        .message
        .starts_with("MCP.a.sub cannot be called: the gateway gave its MCP tool (mcp:a:sub) the operation \"resources_subscribe\""));
    let none = &ns.servers[0].tools[0];
    assert_eq!(*none.parameters, Value::Null);
    assert_eq!(
        none.notes,
        ["The server gave no input schema: the input object is passed on as it is."]
    );
    // Tools without a usable schema pass inputs through untouched.
    assert_eq!(
        ns.rules(0, 0).unwrap().apply("{\"x\":1}".into()),
        Ok("{\"x\":1}".into())
    );
}

#[test]
fn a_run_without_mcp_tools_has_an_empty_namespace() {
    let ns = namespace(&[core("read")]);
    assert!(ns.is_empty());
    assert!(ns.files.is_empty());
    assert_eq!(
        parse(&ns.api_list(None, ANY).unwrap()),
        json!({"files": []})
    );
    assert_eq!(parse(&ns.root_api(ANY).unwrap())["servers"], json!([]));
}

#[test]
fn api_files_are_listed_and_read_by_path() {
    let ns = namespace(&[tool("github", "create_issue"), tool("docs", "search")]);
    let paths = |prefix: Option<&str>| -> Vec<String> {
        parse(&ns.api_list(prefix, ANY).unwrap())["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = ["mcp/index.d.ts", "mcp/docs.d.ts", "mcp/github.d.ts"];
    assert_eq!(paths(None), all);
    for prefix in ["", "mcp", "mcp/"] {
        assert_eq!(paths(Some(prefix)), all, "{prefix:?}");
    }
    assert_eq!(paths(Some("mcp/github.d.ts")), ["mcp/github.d.ts"]);
    assert!(paths(Some("mc")).is_empty());
    assert!(paths(Some("other")).is_empty());
    for bad in ["./mcp", "mcp/..", "../etc", "/mcp", "mcp//x"] {
        let error = rejected(ns.api_list(Some(bad), ANY));
        assert!(
            error.starts_with(&format!("API path {bad} is not allowed")),
            "{error}"
        );
    }

    let file = parse(&ns.api_read("mcp/github.d.ts", ANY).unwrap());
    let content = file["content"].as_str().unwrap();
    assert_eq!(file["path"], "mcp/github.d.ts");
    assert_eq!(file["bytes"], content.len());
    assert!(content.contains("MCP.github"));
    let listed = parse(&ns.api_list(Some("mcp/github.d.ts"), ANY).unwrap());
    assert_eq!(listed["files"][0]["bytes"], file["bytes"]);
    assert_eq!(listed["files"][0]["description"], file["description"]);
    assert_eq!(
        rejected(ns.api_read("mcp/nope.d.ts", ANY)),
        "Unknown API file: mcp/nope.d.ts. API.list() lists the files."
    );
    for bad in ["mcp/../mcp/index.d.ts", "./mcp/index.d.ts", "mcp/", ""] {
        assert!(
            rejected(ns.api_read(bad, ANY)).starts_with("API path"),
            "{bad:?}"
        );
    }
    assert!(rejected(ns.api_read("mcp", ANY)).starts_with("Unknown API file"));
}

#[test]
fn api_answers_select_tools_by_method_or_mcp_name() {
    let ns = namespace(&[
        tool("github", "create_issue"),
        tool("github", "list_issues"),
        operation("github", "resources/read", "resources_read"),
    ]);
    let root = parse(&ns.root_api(ANY).unwrap());
    assert_eq!(root["kind"], "mcp_api");
    assert_eq!(root["scope"], "root");
    assert_eq!(
        root["servers"],
        json!([{"identifier": "github", "serverName": "github", "toolCount": 3}])
    );
    let server = parse(&ns.server_api(0, None, false, ANY).unwrap());
    assert_eq!(server["scope"], "server");
    assert_eq!(server["tools"].as_array().unwrap().len(), 3);
    assert!(server.get("schemas").is_none());
    for selector in ["createIssue", "create_issue", " createIssue "] {
        let one = parse(&ns.server_api(0, Some(selector), true, ANY).unwrap());
        assert_eq!(one["scope"], "tool");
        assert_eq!(
            one["tools"],
            json!([{"method": "createIssue", "path": ["createIssue"], "mcpTool": "create_issue",
                    "operation": "tool", "description": "github__create_issue tool"}])
        );
        assert_eq!(one["schemas"], json!({"createIssue": schema()}));
    }
    let read = parse(
        &ns.server_api(0, Some("resources.read"), false, ANY)
            .unwrap(),
    );
    assert_eq!(read["tools"][0]["path"], json!(["resources", "read"]));
    assert_eq!(
        rejected(ns.server_api(0, Some("nope"), false, ANY)),
        "MCP.github has no method nope; its methods: createIssue, listIssues, resources.read. Call MCP.github.$api() for the whole header."
    );
}

#[test]
fn unknown_method_lists_are_capped() {
    let tools: Vec<ToolSpec> = (0..30).map(|i| tool("s", &format!("t{i:02}"))).collect();
    let ns = namespace(&tools);
    let error = rejected(ns.server_api(0, Some("x"), false, ANY));
    assert!(error.contains("t19, and 10 more."), "{error}");
    assert!(!error.contains("t20"));
}

/// An MCP tool whose schema is JSON text, as `prepareRun` hands it over.
fn text_tool(server: &str, name: &str, text: &str) -> ToolSpec {
    let raw = serde_json::value::RawValue::from_string(text.to_owned()).unwrap();
    ToolSpec {
        parameters: Some(Schema::from_json(raw)),
        ..mcp(&format!("{server}__{name}"), server, name)
    }
}

/// `$api` as it was answered before answers were bounded: the whole answer
/// built as values (each schema cloned), then written out. The oracle for
/// the answers written piece by piece.
fn server_api_as_values(
    ns: &McpNamespace,
    s: usize,
    selector: Option<&str>,
    schema: bool,
) -> String {
    let server = &ns.servers[s];
    let selector = selector.map(str::trim).filter(|s| !s.is_empty());
    let tools: Vec<&McpTool> = match selector {
        None => server.tools.iter().collect(),
        Some(selector) => server
            .tools
            .iter()
            .filter(|tool| tool.method == selector || tool.mcp_tool == selector)
            .collect(),
    };
    let scope = if selector.is_some() && tools.len() == 1 {
        "tool"
    } else {
        "server"
    };
    let listed: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({"method": tool.method, "path": tool.path, "mcpTool": tool.mcp_tool,
                   "operation": tool.operation.as_str(), "description": tool.description})
        })
        .collect();
    let mut answer = json!({
        "kind": "mcp_api",
        "scope": scope,
        "server": {"identifier": server.identifier, "serverName": server.server_name},
        "header": match selector {
            None => ns.file_content(&ns.files[s + 1]).to_owned(),
            Some(_) => declarations::server_declaration(server, &tools),
        },
        "tools": listed,
    });
    if schema {
        let schemas: serde_json::Map<String, Value> = tools
            .iter()
            .map(|tool| (tool.method.clone(), (*tool.parameters).clone()))
            .collect();
        answer["schemas"] = Value::Object(schemas);
    }
    answer["note"] = json!("Call tools with one object argument, for example MCP.<server>.<tool>({ requiredKey: value }); $api(method, { schema: true }) adds the full JSON Schema.");
    answer.to_string()
}

#[test]
fn api_answers_written_piece_by_piece_are_the_answers_built_as_values() {
    // Schema texts as JSON.stringify writes them (which serde_json writes
    // the same way), one missing, one that is not an object.
    let mut none = mcp("gh__none", "gh", "none");
    none.parameters = None;
    let ns = namespace(&[
        text_tool(
            "gh",
            "create_issue",
            r#"{"type":"object","properties":{"title":{"type":"string","description":"The \"title\"\n\u0001é"},"n":{"type":"integer","default":3}},"required":["title"]}"#,
        ),
        text_tool(
            "gh",
            "list",
            r##"{"type":"object","properties":{"state":{"enum":["open","closed"]},"x":{"anyOf":[{"type":"number"},{"$ref":"#/$defs/d"}]}},"$defs":{"d":{"type":"boolean"}}}"##,
        ),
        text_tool("gh", "str", r#"{"type":"string"}"#),
        none,
        operation("gh", "res", "resources_read"),
        operation("gh", "bad", "resources_subscribe"),
        text_tool("other", "t", r#"{}"#),
    ]);
    for (s, selector) in [
        (0, None),
        (0, Some("createIssue")),
        (0, Some("create_issue")),
        (0, Some("resources.read")),
        (0, Some("none")),
        (0, Some("str")),
        (1, None),
        (1, Some("t")),
    ] {
        for schema in [false, true] {
            assert_eq!(
                ns.server_api(s, selector, schema, ANY).unwrap(),
                server_api_as_values(&ns, s, selector, schema),
                "server {s}, {selector:?}, schema {schema}"
            );
        }
    }
    let root = json!({
        "kind": "mcp_api",
        "scope": "root",
        "header": declarations::root_header(&ns.servers),
        "servers": ns.servers.iter().map(|server| json!({"identifier": server.identifier,
            "serverName": server.server_name, "toolCount": server.tools.len()})).collect::<Vec<_>>(),
        "note": "Call MCP.<server>.$api() for a server's TypeScript-style header, or API.read(\"mcp/<server>.d.ts\"); call its tools with one object argument.",
    });
    assert_eq!(ns.root_api(ANY).unwrap(), root.to_string());
    let file = &ns.files[1];
    let read = json!({"path": file.path, "content": ns.file_content(file),
                      "description": file.description, "bytes": ns.file_content(file).len()});
    assert_eq!(ns.api_read(&file.path, ANY).unwrap(), read.to_string());
}

#[test]
fn schemas_are_copied_from_their_text() {
    // JSON.stringify writes 1e21 as 1e+21; a value written out again would
    // say 1e21. The text is copied as it came.
    let text = r#"{"type":"object","properties":{"n":{"type":"number","maximum":1e+21}}}"#;
    let ns = namespace(&[text_tool("s", "t", text)]);
    let answer = ns.server_api(0, Some("t"), true, ANY).unwrap();
    assert!(
        answer.contains(&format!(r#""schemas":{{"t":{text}}}"#)),
        "{answer}"
    );
    assert_eq!(
        parse(&answer)["schemas"]["t"]["properties"]["n"]["maximum"],
        1e21
    );
}

/// A server of `count` tools with schemas of about `bytes` bytes each.
fn big_server(count: usize, bytes: usize) -> McpNamespace {
    let tools: Vec<ToolSpec> = (0..count)
        .map(|i| {
            let text = format!(
                r#"{{"type":"object","description":"{}"}}"#,
                "x".repeat(bytes)
            );
            text_tool("big", &format!("t{i:04}"), &text)
        })
        .collect();
    namespace(&tools)
}

#[test]
fn an_answer_is_measured_to_its_bound_and_held_at_its_exact_length() {
    let ns = big_server(50, 1000);
    let whole = ns.server_api(0, None, true, ANY).unwrap();
    let len = whole.len();
    // At the bound: the answer, in a buffer of its length and the NUL the
    // VM's parser appends (so handing it over never grows it).
    let at = ns.server_api(0, None, true, len).unwrap();
    assert_eq!(at, whole);
    assert!(
        at.capacity() <= len + PARSER_NUL,
        "{} for {len}",
        at.capacity()
    );
    // One byte under: refused, written nowhere.
    assert_eq!(
        ns.server_api(0, None, true, len - 1),
        Err(ApiRefusal::TooLarge)
    );
    // The same for every other answer.
    type Answer = fn(&McpNamespace, usize) -> Result<String, ApiRefusal>;
    let answers: [Answer; 4] = [
        |ns, max| ns.root_api(max),
        |ns, max| ns.api_list(None, max),
        |ns, max| ns.api_read("mcp/big.d.ts", max),
        |ns, max| ns.server_api(0, Some("t0001"), false, max),
    ];
    for answer in answers {
        let whole = answer(&ns, ANY).unwrap();
        let len = whole.len();
        let at = answer(&ns, len).unwrap();
        assert_eq!(at, whole);
        assert!(at.capacity() <= len + PARSER_NUL);
        assert_eq!(answer(&ns, len - 1), Err(ApiRefusal::TooLarge));
    }
    // A refusal is still a refusal, whatever the bound.
    assert!(matches!(
        ns.server_api(0, Some("nope"), true, 10),
        Err(ApiRefusal::Rejected(_))
    ));
}

#[test]
fn measuring_stops_at_the_first_piece_past_the_bound() {
    // 2000 schemas of 10 KB: 20 MB of answer. With a 64 KiB bound the
    // measure stops after the seventh schema, having been offered at most
    // the bound and one piece.
    let ns = big_server(2000, 10_000);
    super::api::OFFERED.with(|offered| offered.set(0));
    assert_eq!(
        ns.server_api(0, None, true, 64 * 1024),
        Err(ApiRefusal::TooLarge)
    );
    let offered = super::api::OFFERED.with(|offered| offered.get());
    assert!(offered <= 64 * 1024 + 10_100, "{offered} bytes offered");
}
