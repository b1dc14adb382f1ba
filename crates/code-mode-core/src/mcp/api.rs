//! Answers given on the worker, with no tool call: `API.list`, `API.read`,
//! `MCP.$api()` and `MCP.<server>.$api(selector, {schema})`, each as JSON
//! text for the guest.
//!
//! An answer is written straight from what the namespace holds: file texts,
//! declarations rendered a tool at a time, and each schema's JSON text as the
//! gateway gave it, with no value copied. It is measured first, stopping as
//! soon as it would be longer than the caller's `max_bytes`, and then written
//! into a buffer of exactly its length (and [`PARSER_NUL`]): the host holds at
//! most `max_bytes + PARSER_NUL` bytes for one answer. (Built as `serde_json`
//! values, a `$api(undefined, {schema: true})` over 39 MB of schemas cost
//! 936 MB per call before the VM could refuse it.)

use std::io;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::declarations::{RootHeader, ServerDeclaration};
use super::{ApiFile, FileOf, McpNamespace, McpTool};
use crate::limits::MAX_LISTED_METHODS;
use crate::messages;

/// The byte the VM's JSON parser appends to an answer's text before it reads
/// it (rquickjs hands QuickJS a C string): reserved up front, so the buffer is
/// never grown, or copied, to make room for it.
pub const PARSER_NUL: usize = 1;

/// Why an `API` or `$api` call has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiRefusal {
    /// What the call rejects (or throws) with, for the guest.
    Rejected(String),
    /// The answer's JSON text is longer than the `max_bytes` asked for; it
    /// was measured, not kept.
    TooLarge,
}

impl From<String> for ApiRefusal {
    fn from(message: String) -> Self {
        ApiRefusal::Rejected(message)
    }
}

impl McpNamespace {
    /// `API.list(prefix?)`: `{files: [{path, description, bytes}]}` for the
    /// files at or under `prefix` (a trailing slash is fine).
    pub fn api_list(&self, prefix: Option<&str>, max_bytes: usize) -> Result<String, ApiRefusal> {
        let prefix = match prefix {
            None => "",
            Some(prefix) => {
                let trimmed = prefix.strip_suffix('/').unwrap_or(prefix);
                if !trimmed.is_empty() && !clean_path(trimmed) {
                    return Err(messages::api_bad_path(prefix).into());
                }
                trimmed
            }
        };
        #[derive(Serialize)]
        struct Listed<'a> {
            path: &'a str,
            description: &'a str,
            bytes: usize,
        }
        let files = Seq(|| {
            self.files
                .iter()
                .filter(|file| under(&file.path, prefix))
                .map(|file| Listed {
                    path: &file.path,
                    description: &file.description,
                    bytes: self.file_content(file).len(),
                })
        });
        #[derive(Serialize)]
        struct Answer<T> {
            files: T,
        }
        bounded_json(&Answer { files }, max_bytes)
    }

    /// `API.read(path)`: `{path, content, description, bytes}`.
    pub fn api_read(&self, path: &str, max_bytes: usize) -> Result<String, ApiRefusal> {
        if !clean_path(path) {
            return Err(messages::api_bad_path(path).into());
        }
        let file: &ApiFile = self
            .files
            .iter()
            .find(|file| file.path == path)
            .ok_or_else(|| messages::api_unknown_file(path))?;
        let content = self.file_content(file);
        #[derive(Serialize)]
        struct Answer<'a> {
            path: &'a str,
            content: &'a str,
            description: &'a str,
            bytes: usize,
        }
        let answer = Answer {
            path: &file.path,
            content,
            description: &file.description,
            bytes: content.len(),
        };
        bounded_json(&answer, max_bytes)
    }

    /// `MCP.$api()`: the root header and the servers.
    pub fn root_api(&self, max_bytes: usize) -> Result<String, ApiRefusal> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Server<'a> {
            identifier: &'a str,
            server_name: &'a str,
            tool_count: usize,
        }
        #[derive(Serialize)]
        struct Answer<'a, S> {
            kind: &'static str,
            scope: &'static str,
            header: Displayed<RootHeader<'a>>,
            servers: S,
            note: &'static str,
        }
        let servers = Seq(|| {
            self.servers.iter().map(|server| Server {
                identifier: &server.identifier,
                server_name: &server.server_name,
                tool_count: server.tools.len(),
            })
        });
        let answer = Answer {
            kind: "mcp_api",
            scope: "root",
            header: Displayed(RootHeader(&self.servers)),
            servers,
            note: messages::MCP_ROOT_NOTE,
        };
        bounded_json(&answer, max_bytes)
    }

    /// `MCP.<server>.$api(selector?, {schema?})`: the header of the server, or
    /// of the tools the selector names (a method such as `createIssue` or
    /// `resources.read`, or the MCP tool's own name); with `schema`, each
    /// tool's JSON Schema by method, written from the text the gateway gave.
    pub fn server_api(
        &self,
        server: usize,
        selector: Option<&str>,
        schema: bool,
        max_bytes: usize,
    ) -> Result<String, ApiRefusal> {
        let Some(server_at) = self.servers.get(server) else {
            return Err(messages::INTERNAL.to_owned().into());
        };
        let selector = selector.map(str::trim).filter(|s| !s.is_empty());
        let tools: Vec<&McpTool> = match selector {
            None => server_at.tools.iter().collect(),
            Some(selector) => server_at
                .tools
                .iter()
                .filter(|tool| tool.method == selector || tool.mcp_tool == selector)
                .collect(),
        };
        if let Some(selector) = selector.filter(|_| tools.is_empty()) {
            let mut methods: Vec<String> = server_at
                .tools
                .iter()
                .take(MAX_LISTED_METHODS)
                .map(|tool| tool.method.clone())
                .collect();
            if server_at.tools.len() > MAX_LISTED_METHODS {
                methods.push(messages::and_more(
                    server_at.tools.len() - MAX_LISTED_METHODS,
                ));
            }
            return Err(
                messages::mcp_unknown_method(&server_at.identifier, selector, &methods).into(),
            );
        }
        let scope = if selector.is_some() && tools.len() == 1 {
            "tool"
        } else {
            "server"
        };
        let header = match selector {
            // The whole server: its file, rendered once per run.
            None => match self.server_file(server) {
                Some(file) => Header::Text(self.file_content(file)),
                None => Header::Selected(ServerDeclaration {
                    server: server_at,
                    tools: &tools,
                }),
            },
            Some(_) => Header::Selected(ServerDeclaration {
                server: server_at,
                tools: &tools,
            }),
        };
        let answer = ServerAnswer {
            kind: "mcp_api",
            scope,
            server: ServerName {
                identifier: &server_at.identifier,
                server_name: &server_at.server_name,
            },
            header,
            tools: Seq(|| tools.iter().map(|tool| Listed::of(tool))),
            schemas: schema.then_some(Schemas(&tools)),
            note: messages::MCP_SERVER_NOTE,
        };
        bounded_json(&answer, max_bytes)
    }

    /// `mcp/<identifier>.d.ts` of `servers[server]`.
    fn server_file(&self, server: usize) -> Option<&ApiFile> {
        // `files` is the index, then one file per server, in server order.
        self.files
            .get(server + 1)
            .filter(|file| matches!(file.of, FileOf::Server(s) if s == server))
    }
}

/// A server's `$api` answer, its keys in this order.
#[derive(Serialize)]
struct ServerAnswer<'a, T> {
    kind: &'static str,
    scope: &'static str,
    server: ServerName<'a>,
    header: Header<'a>,
    tools: T,
    #[serde(skip_serializing_if = "Option::is_none")]
    schemas: Option<Schemas<'a>>,
    note: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ServerName<'a> {
    identifier: &'a str,
    server_name: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    method: &'a str,
    path: &'a [String],
    mcp_tool: &'a str,
    operation: &'static str,
    description: &'a str,
}

impl<'a> Listed<'a> {
    fn of(tool: &'a McpTool) -> Self {
        Listed {
            method: &tool.method,
            path: &tool.path,
            mcp_tool: &tool.mcp_tool,
            operation: tool.operation.as_str(),
            description: &tool.description,
        }
    }
}

/// A `$api` header: a file's text, or the declaration of the selected
/// tools, written into the answer a tool at a time (never whole).
enum Header<'a> {
    Text(&'a str),
    Selected(ServerDeclaration<'a>),
}

impl Serialize for Header<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Header::Text(text) => serializer.serialize_str(text),
            Header::Selected(declaration) => serializer.collect_str(declaration),
        }
    }
}

/// A string written as it is displayed, a piece at a time.
struct Displayed<T>(T);

impl<T: std::fmt::Display> Serialize for Displayed<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// An array written from an iterator (made again for each pass).
struct Seq<F>(F);

impl<F, I> Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for item in (self.0)() {
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

/// `schemas`: each tool's input schema by method.
struct Schemas<'a>(&'a [&'a McpTool]);

impl Serialize for Schemas<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for tool in self.0 {
            map.serialize_entry(&tool.method, &SchemaText(tool))?;
        }
        map.end()
    }
}

/// A tool's input schema as the gateway gave it: its JSON text, copied as
/// it is (no value is made or cloned); `null` when it gave none. Only a
/// schema made from a value (tests) is written from the value.
struct SchemaText<'a>(&'a McpTool);

impl Serialize for SchemaText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tool = self.0;
        match (&tool.schema, &*tool.parameters) {
            (None, _) => serializer.serialize_unit(),
            // Text that did not read as a value is a tool without a schema
            // everywhere else too (`catalog/schema.rs`).
            (Some(schema), Value::Null) if schema.text().is_some_and(|t| t.get() != "null") => {
                serializer.serialize_unit()
            }
            (Some(schema), value) => match schema.text() {
                Some(text) => text.serialize(serializer),
                None => value.serialize(serializer),
            },
        }
    }
}

/// Counts the bytes written, refusing any write that would pass `max`.
struct Measure {
    bytes: usize,
    max: usize,
}

#[cfg(test)]
thread_local! {
    /// Bytes offered to [`Measure`] on this thread, refused ones included.
    pub(super) static OFFERED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl io::Write for Measure {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        #[cfg(test)]
        OFFERED.with(|offered| offered.set(offered.get() + buf.len()));
        match self.bytes.checked_add(buf.len()) {
            Some(bytes) if bytes <= self.max => {
                self.bytes = bytes;
                Ok(buf.len())
            }
            _ => Err(io::Error::other("the answer is larger than its bound")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `answer` as JSON text of at most `max_bytes`: measured first (stopping at
/// the first write past the bound, keeping nothing), then written into a
/// buffer of exactly its length plus [`PARSER_NUL`].
fn bounded_json(answer: &impl Serialize, max_bytes: usize) -> Result<String, ApiRefusal> {
    let mut measure = Measure {
        bytes: 0,
        max: max_bytes,
    };
    // Nothing in an answer fails to serialize: a failure is the bound.
    if serde_json::to_writer(&mut measure, answer).is_err() {
        return Err(ApiRefusal::TooLarge);
    }
    let mut out = Vec::with_capacity(measure.bytes + PARSER_NUL);
    serde_json::to_writer(&mut out, answer).map_err(|_| messages::INTERNAL.to_owned())?;
    debug_assert_eq!(out.len(), measure.bytes);
    // serde_json writes UTF-8.
    String::from_utf8(out).map_err(|_| ApiRefusal::Rejected(messages::INTERNAL.to_owned()))
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
