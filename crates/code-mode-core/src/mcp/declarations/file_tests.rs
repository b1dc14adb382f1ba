//! The files: layout, comments, notes, groups, the index and the root.

use serde_json::json;

use crate::catalog::testing::mcp;
use crate::catalog::{Catalog, McpMeta, ToolSpec};
use crate::mcp::McpNamespace;

fn with_schema(server: &str, name: &str, description: &str, schema: serde_json::Value) -> ToolSpec {
    ToolSpec {
        description: description.to_owned(),
        parameters: Some(schema.into()),
        ..mcp(&format!("{server}__{name}"), server, name)
    }
}

fn file(ns: &McpNamespace, path: &str) -> String {
    ns.files
        .iter()
        .find(|f| f.path == path)
        .map(|f| ns.file_content(f).to_owned())
        .unwrap_or_else(|| panic!("no {path}"))
}

fn namespace(tools: &[ToolSpec]) -> McpNamespace {
    McpNamespace::build(&Catalog::build(tools))
}

#[test]
fn a_server_file_declares_its_result_types_and_one_namespace() {
    let ns = namespace(&[with_schema(
        "git-hub",
        "create_issue",
        "Create an issue.",
        json!({"type": "object", "properties": {"title": {"type": "string", "description": "Title"}}, "required": ["title"]}),
    )]);
    let text = file(&ns, "mcp/gitHub.d.ts");
    assert!(text.starts_with("interface McpApiHeader {\n"), "{text}");
    assert!(text.contains("\ninterface McpToolResult {\n"));
    let body = &text[text.find("/** The MCP server").unwrap()..];
    assert_eq!(
        body,
        "/** The MCP server \"git-hub\": call its tools as MCP.gitHub.<tool>({ ... }). */
declare namespace MCP.gitHub {
  /** Return this TypeScript-style API header. */
  function $api(toolName?: string, options?: { schema?: boolean }): Promise<McpApiHeader>;

  /**
   * Create an issue.
   *
   * @param title Title
   */
  function createIssue(input: {
    title: string;
  }): Promise<McpToolResult>;
}
"
    );
}

#[test]
fn notes_about_tools_and_servers_reach_the_comments() {
    let mut no_schema = mcp("s__raw", "s", "raw");
    no_schema.description = "Raw.".into();
    let not_object = with_schema("s", "text", "Text.", json!({"type": "string"}));
    let odd = ToolSpec {
        mcp: Some(McpMeta {
            server: "s".into(),
            tool: "watch".into(),
            operation: Some("subscribe".into()),
        }),
        ..mcp("s__watch", "s", "watch")
    };
    let ns = namespace(&[no_schema, not_object, odd]);
    let text = file(&ns, "mcp/s.d.ts");
    assert!(
        text.contains(
            "watch (watch) cannot be called: its mcp.operation \"subscribe\" is not supported."
        ),
        "{text}"
    );
    assert!(text.contains(
        "   * Raw.\n   *\n   * The server gave no input schema: the input object is passed on as it is.\n   */\n  function raw(input?: Record<string, unknown>)"
    ), "{text}");
    assert!(text.contains(
        "   * Called text2, not text: text is reserved or taken by another tool of this server.\n   * The server's input schema does not describe an object: the input object is passed on as it is.\n   */\n  function text2(input?: Record<string, unknown>)"
    ), "{text}");
}

#[test]
fn descriptions_cannot_close_the_comment_and_keep_twelve_lines() {
    let long: String = (1..=30).map(|n| format!("Line {n} */ end\n")).collect();
    let ns = namespace(&[with_schema(
        "s",
        "t",
        &long,
        json!({"type": "object", "properties": {"a": {"description": "x */ y"}}}),
    )]);
    let text = file(&ns, "mcp/s.d.ts");
    let comment =
        &text[text.find("  /**\n   * Line 1").unwrap()..text.find("function t(").unwrap()];
    assert_eq!(comment.matches("*/").count(), 1, "{comment}");
    assert!(comment.contains("Line 11 *\\/ end\n"));
    assert!(!comment.contains("Line 12"));
    assert!(comment.contains("(19 more lines: MCP.s.$api(\"t\") has the whole description)"));
    assert!(comment.contains("@param a x *\\/ y"));
}

#[test]
fn lost_features_name_the_call_that_shows_the_whole_schema() {
    let ns = namespace(&[with_schema(
        "s",
        "list_items",
        "List.",
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}),
    )]);
    let text = file(&ns, "mcp/s.d.ts");
    assert!(text.contains(
        "   * Not expressed in these types (MCP.s.$api(\"listItems\", { schema: true }) has the full schema):\n   * - n: integer, minimum 1\n"
    ), "{text}");
}

#[test]
fn groups_hold_the_resource_and_prompt_operations() {
    let op = |name: &str, operation: &str| ToolSpec {
        mcp: Some(McpMeta {
            server: "docs".into(),
            tool: name.into(),
            operation: Some(operation.into()),
        }),
        ..with_schema(
            "docs",
            name,
            name,
            json!({"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]}),
        )
    };
    let ns = namespace(&[
        op("read", "resources_read"),
        op("get", "prompts_get"),
        with_schema("docs", "search", "Search.", json!({})),
    ]);
    let text = file(&ns, "mcp/docs.d.ts");
    let tools = text.find("function search(").unwrap();
    let resources = text.find("\n  namespace resources {\n    /** read */\n    function read(input: {\n      uri: string;\n    }): Promise<{ contents?: unknown[] }>;\n  }\n").unwrap();
    let prompts = text
        .find("\n  namespace prompts {\n    /** get */\n    function get(")
        .unwrap();
    assert!(tools < resources && resources < prompts, "{text}");
    assert!(!text.contains("function resources"));
}

#[test]
fn the_index_references_every_server_and_declares_the_root() {
    let ns = namespace(&[
        with_schema("b", "t", "T.", json!({})),
        with_schema("a", "t", "T.", json!({})),
        with_schema("a", "u", "U.", json!({})),
    ]);
    assert_eq!(
        file(&ns, "mcp/index.d.ts"),
        "/// <reference path=\"./a.d.ts\" />
/// <reference path=\"./b.d.ts\" />

declare const MCP: {
  /** List the MCP servers; MCP.<server>.$api() describes one. */
  $api(): Promise<McpApiHeader>;
  /** The MCP server \"a\" (2 tools). */
  readonly a: typeof MCP.a;
  /** The MCP server \"b\" (1 tool). */
  readonly b: typeof MCP.b;
};
"
    );
}

#[test]
fn a_selector_header_declares_only_the_selected_tool() {
    let ns = namespace(&[
        with_schema("s", "one", "One.", json!({})),
        with_schema("s", "two", "Two.", json!({})),
    ]);
    let answer: serde_json::Value =
        serde_json::from_str(&ns.server_api(0, Some("two"), false, usize::MAX).unwrap()).unwrap();
    let header = answer["header"].as_str().unwrap();
    assert!(header.contains("function two("));
    assert!(!header.contains("function one("));
}
