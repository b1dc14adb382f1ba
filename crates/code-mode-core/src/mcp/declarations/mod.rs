//! TypeScript-style declarations of the `MCP` namespace: `mcp/index.d.ts`,
//! one `mcp/<server>.d.ts` per server, and the headers `$api` returns.

use super::{McpServer, McpTool};

/// Placeholder until the renderer lands (branch `mcp-declarations`).
pub fn server_declaration(server: &McpServer, tools: &[&McpTool]) -> String {
    let names: Vec<&str> = tools.iter().map(|t| t.method.as_str()).collect();
    format!(
        "declare namespace MCP.{} {{ /* {} */ }}",
        server.identifier,
        names.join(", ")
    )
}

/// Placeholder until the renderer lands.
pub fn root_header(servers: &[McpServer]) -> String {
    let names: Vec<&str> = servers.iter().map(|s| s.identifier.as_str()).collect();
    format!("declare const MCP: {{ {} }};", names.join(", "))
}

/// Placeholder until the renderer lands.
pub fn index_file(servers: &[McpServer]) -> String {
    root_header(servers)
}
