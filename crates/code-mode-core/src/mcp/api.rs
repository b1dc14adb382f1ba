//! Answers given on the worker, with no tool call: `API.list`, `API.read`,
//! `MCP.$api()` and `MCP.<server>.$api(selector, {schema})`, each as JSON
//! text for the guest.

use serde_json::{json, Value};

use super::declarations;
use super::{ApiFile, McpNamespace, McpTool};
use crate::messages;

/// How many method names an unknown-method error lists.
const LISTED_METHODS: usize = 20;

const ROOT_NOTE: &str = "Call MCP.<server>.$api() for a server's TypeScript-style header, or API.read(\"mcp/<server>.d.ts\"); call its tools with one object argument.";
const SERVER_NOTE: &str = "Call tools with one object argument, for example MCP.<server>.<tool>({ requiredKey: value }); $api(method, { schema: true }) adds the full JSON Schema.";

impl McpNamespace {
    /// `API.list(prefix?)`: `{files: [{path, description, bytes}]}` for the
    /// files at or under `prefix` (a trailing slash is fine).
    pub fn api_list(&self, prefix: Option<&str>) -> Result<String, String> {
        let prefix = match prefix {
            None => "",
            Some(prefix) => {
                let trimmed = prefix.strip_suffix('/').unwrap_or(prefix);
                if !trimmed.is_empty() && !clean_path(trimmed) {
                    return Err(messages::api_bad_path(prefix));
                }
                trimmed
            }
        };
        let files: Vec<Value> = self
            .files
            .iter()
            .filter(|file| under(&file.path, prefix))
            .map(|file| {
                json!({
                    "path": file.path,
                    "description": file.description,
                    "bytes": self.file_content(file).len(),
                })
            })
            .collect();
        Ok(json!({ "files": files }).to_string())
    }

    /// `API.read(path)`: `{path, content, description, bytes}`.
    pub fn api_read(&self, path: &str) -> Result<String, String> {
        if !clean_path(path) {
            return Err(messages::api_bad_path(path));
        }
        let file: &ApiFile = self
            .files
            .iter()
            .find(|file| file.path == path)
            .ok_or_else(|| messages::api_unknown_file(path))?;
        let content = self.file_content(file);
        Ok(json!({
            "path": file.path,
            "content": content,
            "description": file.description,
            "bytes": content.len(),
        })
        .to_string())
    }

    /// `MCP.$api()`: the root header and the servers.
    pub fn root_api(&self) -> String {
        let servers: Vec<Value> = self
            .servers
            .iter()
            .map(|server| {
                json!({
                    "identifier": server.identifier,
                    "serverName": server.server_name,
                    "toolCount": server.tools.len(),
                })
            })
            .collect();
        json!({
            "kind": "mcp_api",
            "scope": "root",
            "header": declarations::root_header(&self.servers),
            "servers": servers,
            "note": ROOT_NOTE,
        })
        .to_string()
    }

    /// `MCP.<server>.$api(selector?, {schema?})`: the header of the server, or
    /// of the tools the selector names (a method such as `createIssue` or
    /// `resources.read`, or the MCP tool's own name); with `schema`, each
    /// tool's JSON Schema by method.
    pub fn server_api(
        &self,
        server: usize,
        selector: Option<&str>,
        schema: bool,
    ) -> Result<String, String> {
        let Some(server) = self.servers.get(server) else {
            return Err(messages::INTERNAL.to_owned());
        };
        let selector = selector.map(str::trim).filter(|s| !s.is_empty());
        let tools: Vec<&McpTool> = match selector {
            None => server.tools.iter().collect(),
            Some(selector) => server
                .tools
                .iter()
                .filter(|tool| tool.method == selector || tool.mcp_tool == selector)
                .collect(),
        };
        if let Some(selector) = selector.filter(|_| tools.is_empty()) {
            let mut methods: Vec<String> = server
                .tools
                .iter()
                .take(LISTED_METHODS)
                .map(|tool| tool.method.clone())
                .collect();
            if server.tools.len() > LISTED_METHODS {
                methods.push(format!("and {} more", server.tools.len() - LISTED_METHODS));
            }
            return Err(messages::mcp_unknown_method(
                &server.identifier,
                selector,
                &methods,
            ));
        }
        let scope = if selector.is_some() && tools.len() == 1 {
            "tool"
        } else {
            "server"
        };
        let listed: Vec<Value> = tools
            .iter()
            .map(|tool| {
                json!({
                    "method": tool.method,
                    "path": tool.path,
                    "mcpTool": tool.mcp_tool,
                    "operation": tool.operation.as_str(),
                    "description": tool.description,
                })
            })
            .collect();
        let mut answer = json!({
            "kind": "mcp_api",
            "scope": scope,
            "server": {"identifier": server.identifier, "serverName": server.server_name},
            "header": match selector {
                // The whole server: its file, rendered once per run.
                None => self
                    .files
                    .iter()
                    .find(|file| file.path == format!("mcp/{}.d.ts", server.identifier))
                    .map(|file| self.file_content(file).to_owned())
                    .unwrap_or_else(|| declarations::server_declaration(server, &tools)),
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
        answer["note"] = json!(SERVER_NOTE);
        Ok(answer.to_string())
    }
}

/// Relative, with no empty, `.` or `..` segment.
fn clean_path(path: &str) -> bool {
    path.split('/')
        .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

/// `path` is `prefix` or lies under it, segment by segment.
fn under(path: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}
