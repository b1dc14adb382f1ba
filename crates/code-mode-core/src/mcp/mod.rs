//! The `MCP` namespace of one agent run (`docs/mcp.md`): the servers and tools
//! the guest reaches as `MCP.<server>.<tool>(input)`, the read-only
//! declaration files `API.list`/`API.read` serve, and the `$api` answers.
//!
//! Built once per run surface from the run catalog's MCP entries (those with
//! `source: "mcp"`); every cell of the run shares it read-only.

mod api;
mod build;
pub mod declarations;
mod input;
mod layout;
mod names;
#[cfg(test)]
mod tests;

pub use api::{ApiRefusal, PARSER_NUL};
pub use input::InputRules;
pub use layout::{Member, ServerLayout};

use serde_json::Value;

/// What an MCP run tool does on its server (`mcp.operation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    /// A tool call (`tools/call`): `MCP.<server>.<tool>(input)`.
    Tool,
    /// `MCP.<server>.resources.list(input)`.
    ResourcesList,
    /// `MCP.<server>.resources.read(input)`.
    ResourcesRead,
    /// `MCP.<server>.prompts.list(input)`.
    PromptsList,
    /// `MCP.<server>.prompts.get(input)`.
    PromptsGet,
}

impl Operation {
    /// Every operation, in the order declarations list their groups.
    pub const ALL: [Operation; 5] = [
        Operation::Tool,
        Operation::ResourcesList,
        Operation::ResourcesRead,
        Operation::PromptsList,
        Operation::PromptsGet,
    ];

    /// The operation named by `mcp.operation`; absent is a tool call. `None`
    /// for a name code mode does not know.
    pub fn parse(name: Option<&str>) -> Option<Operation> {
        match name {
            None => Some(Operation::Tool),
            Some(name) => Operation::ALL.into_iter().find(|op| op.as_str() == name),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Tool => "tool",
            Operation::ResourcesList => "resources_list",
            Operation::ResourcesRead => "resources_read",
            Operation::PromptsList => "prompts_list",
            Operation::PromptsGet => "prompts_get",
        }
    }

    /// The fixed path of a resource or prompt operation (`["resources",
    /// "read"]`); `None` for a tool call, whose path is its identifier.
    pub fn group_path(self) -> Option<[&'static str; 2]> {
        match self {
            Operation::Tool => None,
            Operation::ResourcesList => Some(["resources", "list"]),
            Operation::ResourcesRead => Some(["resources", "read"]),
            Operation::PromptsList => Some(["prompts", "list"]),
            Operation::PromptsGet => Some(["prompts", "get"]),
        }
    }
}

/// One function of a server's namespace.
#[derive(Clone, Debug)]
pub struct McpTool {
    /// Where the guest calls it below `MCP.<server>`: `["createIssue"]`, or a
    /// group and its operation, `["resources", "read"]`.
    pub path: Vec<String>,
    /// `path` joined with dots: `createIssue`, `resources.read`.
    pub method: String,
    /// The tool's name on its MCP server (`mcp.tool`).
    pub mcp_tool: String,
    pub operation: Operation,
    /// The exact catalog id the call dispatches to (`mcp:<server>:<tool>`).
    pub id: String,
    /// The run tool's name (what nested-call events carry).
    pub name: String,
    pub description: String,
    /// The input JSON Schema as the gateway gave it; `Value::Null` when the
    /// tool has none.
    pub parameters: std::sync::Arc<Value>,
    /// The same schema as the catalog keeps it (its JSON text, which `$api`
    /// copies); `None` when the tool has none.
    pub schema: Option<crate::catalog::Schema>,
    /// Whether `parameters` describes an object; when not, the input goes out
    /// unchecked and the declaration says so instead of rendering it.
    pub object_schema: bool,
    /// What the model should know that the schema does not say (a renamed
    /// identifier, a missing or unusable schema), one sentence each; the
    /// declarations put them in the tool's comment.
    pub notes: Vec<String>,
}

/// One visible MCP server.
#[derive(Clone, Debug)]
pub struct McpServer {
    /// Its identifier under `MCP` (`chromeDevtools`).
    pub identifier: String,
    /// The server's name as the gateway gave it (`mcp.server`).
    pub server_name: String,
    /// Its functions, sorted by `method` (code-unit order).
    pub tools: Vec<McpTool>,
    /// What the model should know about the server as a whole (a renamed
    /// identifier, tools left out and why), one sentence each.
    pub notes: Vec<String>,
}

/// A read-only virtual file of `API.list` and `API.read`.
#[derive(Clone, Debug)]
pub struct ApiFile {
    pub path: String,
    pub description: String,
    /// What the file declares; its text is rendered on first use
    /// ([`McpNamespace::file_content`]), on the worker of the cell that
    /// reads it, once per run surface.
    of: FileOf,
    content: std::sync::OnceLock<String>,
}

/// What an API file declares.
#[derive(Clone, Copy, Debug)]
enum FileOf {
    /// `mcp/index.d.ts`: every visible server.
    Index,
    /// `mcp/<identifier>.d.ts`: `servers[s]`.
    Server(usize),
}

impl ApiFile {
    fn new(path: String, description: String, of: FileOf) -> Self {
        Self {
            path,
            description,
            of,
            content: std::sync::OnceLock::new(),
        }
    }
}

/// A function under `MCP.<server>` that exists only to say why it cannot be
/// called (a run tool whose `mcp.operation` code mode does not know).
#[derive(Clone, Debug)]
pub struct Refusal {
    /// Index of the server in [`McpNamespace::servers`].
    pub server: usize,
    pub path: Vec<String>,
    pub message: String,
}

/// The `MCP` namespace and `API` files of one agent run, built once per run
/// surface and shared read-only by its cells.
#[derive(Debug, Default)]
pub struct McpNamespace {
    /// The visible servers, in the code-unit order of their names.
    pub servers: Vec<McpServer>,
    /// The input rules of `servers[s].tools[t]` at `rules[s][t]`.
    rules: Vec<Vec<InputRules>>,
    pub refusals: Vec<Refusal>,
    /// `mcp/index.d.ts`, then one file per server; none without servers.
    pub files: Vec<ApiFile>,
    /// What the gateway can fix about its MCP tools, one sentence each, naming
    /// the tool and what to do (`CodeModeRunSurface.diagnostics`).
    pub problems: Vec<String>,
    /// The members of each server's object, worked out on first use.
    layouts: std::sync::OnceLock<Vec<ServerLayout>>,
    /// Servers by identifier, on first use.
    server_index: std::sync::OnceLock<std::collections::HashMap<String, usize>>,
}

impl McpNamespace {
    /// The namespace of the MCP entries of a run catalog.
    pub fn build(catalog: &crate::catalog::Catalog) -> McpNamespace {
        build::build(catalog)
    }

    /// The identifiers the servers named `server_names` (repeats allowed)
    /// get under `MCP`, in the order `build` lists the servers: what the exec
    /// description names before the namespace itself is built.
    pub fn identifiers_of<'a>(server_names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        build::server_identifiers(server_names)
            .into_iter()
            .map(|(_, _, identifier)| identifier)
            .collect()
    }

    /// Whether the run has MCP servers to show.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty() && self.refusals.is_empty()
    }

    /// The identifiers of the visible servers.
    pub fn server_identifiers(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.identifier.clone()).collect()
    }

    /// The text of an API file of this namespace, rendered on first use.
    pub fn file_content<'a>(&'a self, file: &'a ApiFile) -> &'a str {
        file.content.get_or_init(|| match file.of {
            FileOf::Index => declarations::index_file(&self.servers),
            FileOf::Server(s) => {
                let server = &self.servers[s];
                let tools: Vec<&McpTool> = server.tools.iter().collect();
                declarations::server_declaration(server, &tools)
            }
        })
    }

    /// The input rules of a tool.
    pub fn rules(&self, server: usize, tool: usize) -> Option<&InputRules> {
        self.rules.get(server)?.get(tool)
    }
}
