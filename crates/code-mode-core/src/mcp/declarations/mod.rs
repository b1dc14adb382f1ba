//! TypeScript-style declarations of the `MCP` namespace: `mcp/index.d.ts`,
//! one `mcp/<server>.d.ts` per server, and the headers `$api` returns
//! (`docs/mcp.md`, "What the declarations express").
//!
//! A server file stands alone: it declares the two result interfaces it uses
//! (interfaces with the same members in every file, which TypeScript merges,
//! so server files also compile together) and one `declare namespace
//! MCP.<server>` block. Each tool is a function of one input object whose
//! type comes from the tool's JSON Schema (`render.rs`); its comment carries
//! the description, `@param` lines, the notes code mode has about the tool,
//! and what the schema says that the type cannot (`lost.rs`).

#[cfg(test)]
mod bound_tests;
#[cfg(test)]
mod file_tests;
mod lost;
mod render;
mod shape;
mod text;
mod ty;
#[cfg(test)]
mod type_tests;
mod writer;

use std::fmt::{self, Write as _};

use serde_json::Value;

use super::{McpServer, McpTool, Operation};
use crate::messages;
use writer::Writer;

/// The types every server file uses, declared at its top.
const RESULT_TYPES: &str = "\
interface McpApiHeader {
  kind: \"mcp_api\";
  scope: \"root\" | \"server\" | \"tool\";
  header: string;
  servers?: { identifier: string; serverName: string; toolCount: number }[];
  server?: { identifier: string; serverName: string };
  tools?: { method: string; path: string[]; mcpTool: string; operation: string; description: string }[];
  schemas?: Record<string, unknown>;
  note?: string;
}

interface McpToolResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}
";

/// A server's `$api` function, after its comment.
const SERVER_API: &str =
    "  function $api(toolName?: string, options?: { schema?: boolean }): Promise<McpApiHeader>;\n";

/// The groups of resource and prompt operations, in file order.
const GROUPS: [&str; 2] = ["resources", "prompts"];

/// The declaration file of `server`, with only `tools` (all of the server's
/// for its file, the selected ones for a `$api(selector)` answer).
pub fn server_declaration(server: &McpServer, tools: &[&McpTool]) -> String {
    ServerDeclaration { server, tools }.to_string()
}

/// [`server_declaration`] as it is displayed: written a tool at a time, so
/// that a `$api` answer holds one tool's declaration at a time, not the
/// whole text.
pub struct ServerDeclaration<'a> {
    pub server: &'a McpServer,
    pub tools: &'a [&'a McpTool],
}

impl fmt::Display for ServerDeclaration<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (server, tools) = (self.server, self.tools);
        out.write_str(RESULT_TYPES)?;
        out.write_char('\n')?;
        let mut lines = vec![messages::mcp_server_comment(
            &text::quoted(&server.server_name),
            &server.identifier,
        )];
        lines.extend(
            server
                .notes
                .iter()
                .map(|n| text::one_line(n, crate::limits::DECLARATION_LINE_CHARS)),
        );
        out.write_str(&text::doc_comment("", &lines))?;
        writeln!(out, "declare namespace MCP.{} {{", server.identifier)?;
        writeln!(out, "  /** {} */", messages::MCP_SERVER_API_COMMENT)?;
        out.write_str(SERVER_API)?;
        for tool in tools.iter().filter(|t| t.operation == Operation::Tool) {
            out.write_char('\n')?;
            out.write_str(&function(server, tool, "  "))?;
        }
        for group in GROUPS {
            let in_group = |t: &&&McpTool| {
                t.operation != Operation::Tool && t.path.first().is_some_and(|g| g == group)
            };
            if !tools.iter().any(|t| in_group(&t)) {
                continue;
            }
            writeln!(out, "\n  namespace {group} {{")?;
            for (n, tool) in tools.iter().filter(in_group).enumerate() {
                if n > 0 {
                    out.write_char('\n')?;
                }
                out.write_str(&function(server, tool, "    "))?;
            }
            out.write_str("  }\n")?;
        }
        out.write_str("}\n")
    }
}

/// The root declaration: `MCP.$api()` and each server's namespace.
pub fn root_header(servers: &[McpServer]) -> String {
    RootHeader(servers).to_string()
}

/// [`root_header`] as it is displayed, a server at a time.
pub struct RootHeader<'a>(pub &'a [McpServer]);

impl fmt::Display for RootHeader<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str("declare const MCP: {\n")?;
        writeln!(out, "  /** {} */", messages::MCP_ROOT_API_COMMENT)?;
        out.write_str("  $api(): Promise<McpApiHeader>;\n")?;
        for server in self.0 {
            let comment = messages::mcp_root_server_comment(
                &text::comment_safe(&text::quoted(&server.server_name)),
                server.tools.len(),
            );
            write!(
                out,
                "  /** {comment} */\n  readonly {id}: typeof MCP.{id};\n",
                id = server.identifier
            )?;
        }
        out.write_str("};\n")
    }
}

/// `mcp/index.d.ts`: a reference to each server file, then the root.
pub fn index_file(servers: &[McpServer]) -> String {
    let mut out = String::new();
    for server in servers {
        out.push_str(&format!(
            "/// <reference path=\"./{}.d.ts\" />\n",
            server.identifier
        ));
    }
    out.push('\n');
    out.push_str(&root_header(servers));
    out
}

/// One tool as a function declaration at `indent`, with its comment.
fn function(server: &McpServer, tool: &McpTool, indent: &str) -> String {
    let method = text::quoted(&tool.method);
    let mut sections: Vec<Vec<String>> = Vec::new();
    sections.push(text::description_lines(
        &tool.description,
        &messages::mcp_whole_description(&server.identifier, &method),
    ));
    sections.push(
        tool.notes
            .iter()
            .map(|n| text::one_line(n, crate::limits::DECLARATION_LINE_CHARS))
            .collect(),
    );
    let input = if tool.object_schema {
        let mut writer = Writer::new(&tool.parameters);
        let ty = writer.input(indent.len());
        sections.push(lost_lines(
            &writer,
            &messages::mcp_full_schema(&server.identifier, &method),
        ));
        sections.push(
            writer
                .params
                .iter()
                .map(|(key, note)| format!("@param {key} {note}"))
                .collect(),
        );
        let optional = if writer.input_required { "" } else { "?" };
        format!("input{optional}: {}", ty.text)
    } else {
        "input?: Record<string, unknown>".to_owned()
    };
    let mut lines: Vec<String> = Vec::new();
    for section in sections.into_iter().filter(|s| !s.is_empty()) {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(section);
    }
    let name = tool.path.last().map_or("tool", String::as_str);
    format!(
        "{}{indent}function {name}({input}): Promise<{}>;\n",
        text::doc_comment(indent, &lines),
        result_type(tool.operation)
    )
}

/// The TypeScript signature of a catalog tool, as `tools.describe` gives it
/// (`declaration`): its description, what the types leave out, `@param`
/// lines, and `name(input: {...}): Promise<unknown>;`, written by the same
/// renderer as the MCP declaration files. `name` is quoted when it is not an
/// identifier; `id` names the tool in the comment's pointers.
pub fn tool_signature(
    name: &str,
    id: &str,
    description: &str,
    parameters: &Value,
    has_parameters: bool,
) -> String {
    let mut sections: Vec<Vec<String>> = vec![text::description_lines(
        description,
        &messages::tool_whole_description(&text::quoted(id)),
    )];
    let object_schema = has_parameters
        && parameters
            .as_object()
            .is_some_and(|map| match map.get("type") {
                None => true,
                Some(Value::String(kind)) => kind == "object",
                Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
                Some(_) => false,
            });
    let input = if object_schema {
        let mut writer = Writer::new(parameters);
        let ty = writer.input(0);
        sections.push(lost_lines(&writer, messages::TOOL_FULL_SCHEMA));
        sections.push(
            writer
                .params
                .iter()
                .map(|(key, note)| format!("@param {key} {note}"))
                .collect(),
        );
        let optional = if writer.input_required { "" } else { "?" };
        format!("input{optional}: {}", ty.text)
    } else if has_parameters {
        sections.push(vec![messages::TOOL_SCHEMA_NOT_OBJECT.to_owned()]);
        "input?: unknown".to_owned()
    } else {
        "input?: Record<string, unknown>".to_owned()
    };
    let mut lines: Vec<String> = Vec::new();
    for section in sections.into_iter().filter(|s| !s.is_empty()) {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(section);
    }
    let shown = if crate::identifiers::is_identifier(name) {
        name.to_owned()
    } else {
        text::quoted(name)
    };
    format!(
        "{}{shown}({input}): Promise<unknown>;\n",
        text::doc_comment("", &lines)
    )
}

/// What a call resolves to, as MCP answers each operation.
fn result_type(operation: Operation) -> &'static str {
    match operation {
        Operation::Tool => "McpToolResult",
        Operation::ResourcesList => "{ resources?: unknown[]; nextCursor?: string }",
        Operation::ResourcesRead => "{ contents?: unknown[] }",
        Operation::PromptsList => "{ prompts?: unknown[]; nextCursor?: string }",
        Operation::PromptsGet => "{ description?: string; messages?: unknown[] }",
    }
}

/// The comment lines that list what the types leave out, with `whole`
/// saying where the whole schema is.
fn lost_lines(writer: &Writer, whole: &str) -> Vec<String> {
    if writer.lost.is_empty() && !writer.cut {
        return Vec::new();
    }
    let mut lines = vec![messages::not_expressed(whole)];
    for lost in &writer.lost {
        lines.push(format!("- {}: {}", lost.path, lost.what.join(", ")));
    }
    if writer.more_lost > 0 {
        lines.push(messages::more_lost_features(writer.more_lost));
    }
    if writer.cut {
        lines.push(messages::DECLARATION_CUT.to_owned());
    }
    lines
}
