//! Building the namespace of one run from the MCP entries of its catalog:
//! server and tool identifiers, input rules, declaration files, and the
//! problems a gateway can fix.
//!
//! Identifiers do not depend on the order the gateway lists its tools in:
//! servers are taken in the code-unit order of their names, the tools of a
//! server in the order of their catalog ids.

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use super::input::InputRules;
use super::names::{camel_case, Identifiers};
use super::{ApiFile, FileOf, McpNamespace, McpServer, McpTool, Operation, Refusal};
use crate::catalog::{Catalog, CatalogEntry, ToolSource};
use crate::messages;

/// One server while it is built: its entries in id order.
struct Pending<'a> {
    server_name: &'a str,
    entries: Vec<&'a CatalogEntry>,
}

/// The namespace of a run; empty (no servers, no files) without MCP tools.
pub(super) fn build(catalog: &Catalog) -> McpNamespace {
    let mut problems = Vec::new();
    let mut by_server: BTreeMap<&str, Pending> = BTreeMap::new();
    for entry in catalog
        .entries()
        .iter()
        .filter(|e| e.source == ToolSource::Mcp)
    {
        match &entry.mcp {
            Some(meta) => by_server
                .entry(meta.server.as_str())
                .or_insert_with(|| Pending {
                    server_name: &meta.server,
                    entries: Vec::new(),
                })
                .entries
                .push(entry),
            None => problems.push(messages::mcp_tool_without_meta(&entry.name, &entry.id)),
        }
    }
    let mut servers = Vec::new();
    let mut rules = Vec::new();
    let mut refusals = Vec::new();
    let identified = server_identifiers(by_server.keys().copied());
    // BTreeMap order is byte order, which is code-unit order for these
    // comparisons only when names are ASCII; sort again to be exact, as
    // `server_identifiers` does, so that the two line up.
    let mut pending: Vec<Pending> = by_server.into_values().collect();
    pending.sort_by(|a, b| crate::catalog::cmp_code_units(a.server_name, b.server_name));
    for (mut server, (_, base, identifier)) in pending.into_iter().zip(identified) {
        let mut notes = Vec::new();
        if identifier != base {
            notes.push(messages::mcp_server_renamed_note(
                server.server_name,
                &identifier,
                &base,
            ));
            problems.push(messages::mcp_server_renamed(
                server.server_name,
                &identifier,
                &base,
            ));
        }
        server
            .entries
            .sort_by(|a, b| crate::catalog::cmp_code_units(&a.id, &b.id));
        let mut built = ServerBuild {
            identifier: &identifier,
            tools: Vec::new(),
            notes,
            refusals: Vec::new(),
            problems: &mut problems,
            names: Identifiers::tools(),
            groups: HashSet::new(),
        };
        for entry in &server.entries {
            built.add(entry);
        }
        let ServerBuild {
            mut tools,
            notes,
            refusals: server_refusals,
            ..
        } = built;
        tools.sort_by(|a, b| crate::catalog::cmp_code_units(&a.0.method, &b.0.method));
        let (tools, tool_rules): (Vec<McpTool>, Vec<InputRules>) = tools.into_iter().unzip();
        let index = servers.len();
        refusals.extend(server_refusals.into_iter().map(|(path, message)| Refusal {
            server: index,
            path,
            message,
        }));
        rules.push(tool_rules);
        servers.push(McpServer {
            identifier,
            server_name: server.server_name.to_owned(),
            tools,
            notes,
        });
    }
    let files = files(&servers);
    McpNamespace {
        servers,
        rules,
        refusals,
        files,
        problems,
        ..McpNamespace::default()
    }
}

/// The identifier of each distinct server name under `MCP`, with the base
/// it was made from: names in code-unit order, each `camel_case(name)`, or a
/// numbered one when that is reserved or taken by an earlier server.
pub(super) fn server_identifiers<'a>(
    names: impl IntoIterator<Item = &'a str>,
) -> Vec<(&'a str, String, String)> {
    let mut names: Vec<&str> = names.into_iter().collect();
    // Code-unit order, not byte order: they differ for names beyond ASCII.
    names.sort_by(|a, b| crate::catalog::cmp_code_units(a, b));
    names.dedup();
    let mut taken = Identifiers::servers();
    names
        .into_iter()
        .map(|name| {
            let base = camel_case(name, "server");
            let identifier = taken.claim(&base);
            (name, base, identifier)
        })
        .collect()
}

/// The tools of one server while they are placed.
struct ServerBuild<'a, 'p> {
    identifier: &'a str,
    tools: Vec<(McpTool, InputRules)>,
    notes: Vec<String>,
    /// Functions that only say why they cannot be called: path and message.
    refusals: Vec<(Vec<String>, String)>,
    problems: &'p mut Vec<String>,
    names: Identifiers,
    /// The resource and prompt operations placed so far (one each).
    groups: HashSet<Operation>,
}

impl ServerBuild<'_, '_> {
    fn add(&mut self, entry: &CatalogEntry) {
        let Some(meta) = &entry.mcp else { return };
        let server = self.identifier;
        let Some(operation) = Operation::parse(meta.operation.as_deref()) else {
            let unknown = meta.operation.as_deref().unwrap_or_default();
            let name = self.names.claim(&camel_case(&meta.tool, "tool"));
            let call = format!("MCP.{server}.{name}");
            self.notes.push(messages::mcp_unknown_operation_note(
                &name, &meta.tool, unknown,
            ));
            self.problems.push(messages::mcp_unknown_operation(
                &meta.tool, &entry.id, unknown, &call,
            ));
            let message = messages::mcp_unsupported_operation(&call, &entry.id, unknown);
            self.refusals.push((vec![name], message));
            return;
        };
        let mut notes = Vec::new();
        let path: Vec<String> = match operation.group_path() {
            Some(group) => {
                let method = group.join(".");
                if !self.groups.insert(operation) {
                    self.notes.push(messages::mcp_operation_taken_note(
                        &meta.tool, &entry.id, server, &method,
                    ));
                    self.problems.push(messages::mcp_operation_taken(
                        &meta.tool,
                        &entry.id,
                        &meta.server,
                        operation.as_str(),
                    ));
                    return;
                }
                group.iter().map(|s| (*s).to_owned()).collect()
            }
            None => {
                let base = camel_case(&meta.tool, "tool");
                let name = self.names.claim(&base);
                if name != base {
                    notes.push(messages::mcp_tool_renamed_note(&name, &base));
                    self.problems.push(messages::mcp_tool_renamed(
                        &meta.tool, &entry.id, server, &name, &base,
                    ));
                }
                vec![name]
            }
        };
        let method = path.join(".");
        let problem = schema_problem(entry);
        let rules = match problem {
            None => InputRules::of(entry.parameters.value()),
            Some(problem) => {
                notes.push(problem.note().to_owned());
                self.problems.push(messages::mcp_input_unchecked(
                    &meta.tool,
                    &entry.id,
                    problem.what(),
                    server,
                    &method,
                    problem.fix(),
                ));
                InputRules::default()
            }
        };
        let tool = McpTool {
            path,
            method,
            mcp_tool: meta.tool.clone(),
            operation,
            id: entry.id.clone(),
            name: entry.name.clone(),
            description: entry.description.clone(),
            parameters: if entry.has_parameters {
                entry.parameters.value().clone()
            } else {
                std::sync::Arc::new(Value::Null)
            },
            schema: entry.has_parameters.then(|| entry.parameters.clone()),
            object_schema: problem.is_none(),
            notes,
        };
        self.tools.push((tool, rules));
    }
}

/// What is wrong with a tool's input schema, if anything.
#[derive(Clone, Copy)]
enum SchemaProblem {
    Missing,
    NotAnObject,
}

impl SchemaProblem {
    fn what(self) -> &'static str {
        match self {
            Self::Missing => messages::MCP_NO_SCHEMA,
            Self::NotAnObject => messages::MCP_SCHEMA_NOT_OBJECT,
        }
    }

    fn fix(self) -> &'static str {
        match self {
            Self::Missing => messages::MCP_NO_SCHEMA_FIX,
            Self::NotAnObject => messages::MCP_SCHEMA_NOT_OBJECT_FIX,
        }
    }

    /// What the declaration says to the model.
    fn note(self) -> &'static str {
        match self {
            Self::Missing => messages::MCP_NO_SCHEMA_NOTE,
            Self::NotAnObject => messages::MCP_SCHEMA_NOT_OBJECT_NOTE,
        }
    }
}

/// A schema is usable when it is an object whose `type`, if any, is or
/// includes `"object"`.
fn schema_problem(entry: &CatalogEntry) -> Option<SchemaProblem> {
    if !entry.has_parameters {
        return Some(SchemaProblem::Missing);
    }
    let Some(object) = entry.parameters.value().as_object() else {
        return Some(SchemaProblem::NotAnObject);
    };
    match object.get("type") {
        None => None,
        Some(Value::String(kind)) if kind == "object" => None,
        Some(Value::Array(kinds)) if kinds.iter().any(|kind| kind == "object") => None,
        Some(_) => Some(SchemaProblem::NotAnObject),
    }
}

/// `mcp/index.d.ts`, then one `mcp/<identifier>.d.ts` per server.
fn files(servers: &[McpServer]) -> Vec<ApiFile> {
    if servers.is_empty() {
        return Vec::new();
    }
    let mut files = vec![ApiFile::new(
        "mcp/index.d.ts".to_owned(),
        messages::MCP_INDEX_FILE.to_owned(),
        FileOf::Index,
    )];
    for (s, server) in servers.iter().enumerate() {
        files.push(ApiFile::new(
            format!("mcp/{}.d.ts", server.identifier),
            messages::mcp_server_file(&server.server_name, &server.identifier),
            FileOf::Server(s),
        ));
    }
    files
}
