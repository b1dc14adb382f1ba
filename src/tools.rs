//! Reading `RunContext.tools` without holding the Node thread for it.
//!
//! `prepare.js` (compiled once per `CodeMode`) checks every field of every
//! tool in one pass, throwing the documented message for the first bad one,
//! and keeps them in a table of columns: the fields as plain values, the
//! schema by reference. `prepareRun` plans the model-visible surface from
//! what that pass returns (a short outline, and the direct-only tools
//! written as JSON at once); every tool becomes JSON text over the next
//! turns of the event loop, at most about `TURN_WORK_MICROS` each, and is read
//! into a tool spec off the JavaScript thread ([`crate::prepared`]). The
//! text is the tools' columns (`read_tools`), not an object per tool:
//! writing and reading it allocates per field, not per tool.

use std::borrow::Cow;
use std::collections::HashSet;

use code_mode_core::catalog::{in_catalog, McpMeta, Schema, ToolSource, ToolSpec};
use code_mode_core::messages;
use code_mode_core::model::ToolOutline;
use code_mode_core::records::{self, PrepareFunctions, ToolColumns, ToolFlags, ToolsOutline};
use napi::bindgen_prelude::{FunctionRef, JsObjectValue, Unknown};
use napi::{sys, Env, Error, JsValue, Result};

use crate::js::{self, call_function};

/// `scan`, `serialize`, `stream` and `later` of the compiled `prepare.js`.
pub struct PrepareJs {
    scan: FunctionRef<(), ()>,
    serialize: FunctionRef<(), ()>,
    stream: FunctionRef<(), ()>,
    later: FunctionRef<(), ()>,
}

impl PrepareJs {
    pub fn compile(env: &Env) -> Result<Self> {
        let factory: Unknown = js::load(env, "prepare.js")?;
        let made = js::make(env, &factory, &[], messages::TOOL_READER_FAILED)?;
        Ok(Self {
            scan: made.function(PrepareFunctions::scan)?,
            serialize: made.function(PrepareFunctions::serialize)?,
            stream: made.function(PrepareFunctions::stream)?,
            later: made.function(PrepareFunctions::later)?,
        })
    }

    /// `later(ms, fn)`: calls `fn` after `ms` milliseconds from an
    /// unreferenced timer (`setTimeout` as it was when the `CodeMode` was
    /// made). A new reference for each surface.
    pub fn later(&self, env: &Env) -> Result<FunctionRef<(), ()>> {
        self.later.borrow_back(env)?.create_ref()
    }

    /// Checks `tools` (throwing what `prepare.js` throws, or what a getter
    /// of the gateway's objects throws) and keeps its values in a table.
    /// `required_tools` are the `(pluginId, name)` pairs registered plugin
    /// namespaces require.
    pub fn scan<'env>(
        &self,
        env: &'env Env,
        tools: Unknown<'env>,
        required_tools: &HashSet<(String, String)>,
    ) -> Result<Scanned<'env>> {
        let keys: Vec<String> = required_tools
            .iter()
            .map(|(plugin, name)| format!("{plugin}\0{name}"))
            .collect();
        let keys = js::parse_json(env, &js::json_text(&keys)?)?;
        let scanned = self.call(env, &self.scan, &[tools.raw(), keys.raw()])?;
        let scanned =
            js::object(&scanned)?.ok_or_else(|| Error::from_reason(messages::TOOLS_NOT_READ))?;
        let outline: Unknown = scanned.get_named_property(records::Scanned::outline)?;
        let outline = js::string(&outline)?.unwrap_or_default();
        // A lone surrogate in an MCP server or plugin name reads as U+FFFD.
        let outline: ToolsOutline = serde_json::from_str(&replace_lone_surrogates(&outline))
            .map_err(|e| Error::from_reason(messages::tools_unreadable(&e.to_string())))?;
        Ok(Scanned {
            table: scanned.get_named_property(records::Scanned::table)?,
            direct: scanned.get_named_property(records::Scanned::direct)?,
            outline,
        })
    }

    /// The tools at `indexes` (all of them when `None`) as JSON texts, now,
    /// one per line (`read_tools` reads each).
    pub fn serialize(
        &self,
        env: &Env,
        table: &Unknown,
        indexes: Option<&Unknown>,
    ) -> Result<String> {
        let indexes = indexes.map_or_else(|| js::null(env), |indexes| indexes.raw());
        let text = self.call(env, &self.serialize, &[table.raw(), indexes])?;
        Ok(js::string(&text)?.unwrap_or_default())
    }

    /// Starts handing every tool, a slice at a time, to `push(text, last)`
    /// over the next turns of the event loop (or a failure of a background
    /// turn to `fail(message)`); returns `finish()`, which hands over the
    /// rest at once.
    pub fn stream(
        &self,
        env: &Env,
        table: &Unknown,
        push: sys::napi_value,
        fail: sys::napi_value,
    ) -> Result<FunctionRef<(), ()>> {
        let finish = self.call(env, &self.stream, &[table.raw(), push, fail])?;
        js::function::<(), ()>(&finish)?
            .ok_or_else(|| Error::from_reason(messages::TOOLS_NOT_STREAMED))?
            .create_ref()
    }

    /// Calls one of the functions; what it throws is thrown on to the caller
    /// of `prepareRun` as the very same value.
    fn call<'env>(
        &self,
        env: &'env Env,
        function: &FunctionRef<(), ()>,
        args: &[sys::napi_value],
    ) -> Result<Unknown<'env>> {
        let function = function.borrow_back(env)?.raw();
        match call_function(env, function, args) {
            Ok(value) => Ok(js::value(env, value)),
            Err(thrown) => Err(js::rethrow(env, thrown)),
        }
    }
}

/// What `scan` returns: the tools as a table of columns and the indexes of
/// the direct-only ones (JavaScript values), and the outline.
pub struct Scanned<'env> {
    pub table: Unknown<'env>,
    pub direct: Unknown<'env>,
    pub outline: ToolsOutline,
}

/// The core's outline of `outline`, with `shown` (the tools the model sees
/// besides exec and wait) read already.
pub fn into_outline(outline: ToolsOutline, shown: Vec<ToolSpec>) -> ToolOutline {
    ToolOutline {
        count: outline.count,
        shown,
        mcp_servers: outline.mcp_servers,
        plugin_tools: outline
            .plugin_tools
            .into_iter()
            .map(|tool| (tool.plugin_id, tool.name))
            .collect(),
    }
}

/// Which of the tools read go on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Every one (the tools the model sees).
    All,
    /// Those the run catalog takes (`catalog::in_catalog`); the others'
    /// schema problems are not reported again.
    Catalog,
}

/// Reads the JSON text of tools' columns into `specs`, adding a sentence
/// to `problems` for each tool whose schema was left out. The text comes
/// from `prepare.js`, which checked every field already; text it did not
/// write is an error. A lone surrogate in a string (which `JSON.stringify`
/// writes as an escape, and UTF-8 cannot hold) reads as U+FFFD, as it does
/// wherever JavaScript text becomes Rust text.
pub fn read_tools(
    text: &str,
    keep: Keep,
    specs: &mut Vec<ToolSpec>,
    problems: &mut Vec<String>,
) -> std::result::Result<(), String> {
    let unreadable = |e: serde_json::Error| messages::tools_unreadable(&e.to_string());
    // Schemas included, which stay raw text until read.
    let text = replace_lone_surrogates(text);
    let columns: ToolColumns = serde_json::from_str(&text).map_err(unreadable)?;
    let ToolColumns {
        names,
        labels,
        descriptions,
        sources,
        source_names,
        flags,
        servers,
        mcp_tools: tools,
        operations,
        parameters: schemas,
        problems: schema_problems,
    } = columns;
    let count = names.len();
    let lengths = [
        labels.len(),
        descriptions.len(),
        sources.len(),
        source_names.len(),
        flags.len(),
        servers.len(),
        tools.len(),
        operations.len(),
        schemas.len(),
        schema_problems.as_ref().map_or(count, Vec::len),
    ];
    if lengths.iter().any(|&length| length != count) {
        return Err(messages::tools_unreadable(messages::COLUMNS_DIFFER));
    }
    let mut schema_problems = schema_problems.map(Vec::into_iter);
    let fields = names.into_iter().zip(labels).zip(descriptions).zip(sources);
    let fields = fields.zip(source_names).zip(flags).zip(servers).zip(tools);
    let fields = fields.zip(operations).zip(schemas);
    specs.reserve(count);
    for (
        (
            (((((((name, label), description), source), source_name), flags), server), tool),
            operation,
        ),
        schema,
    ) in fields
    {
        let problem = schema_problems.as_mut().and_then(Iterator::next).flatten();
        let spec = ToolSpec {
            name,
            label,
            description: description.unwrap_or_default(),
            parameters: schema.map(Schema::from_json),
            source: ToolSource::from_code(source)
                .ok_or_else(|| messages::tools_unreadable(messages::SOURCE_WITHOUT_CODE))?,
            source_name,
            direct_only: flags & ToolFlags::DIRECT_ONLY != 0,
            replay_safe: flags & ToolFlags::REPLAY_SAFE != 0,
            mcp: match (server, tool) {
                (Some(server), Some(tool)) => Some(McpMeta {
                    server,
                    tool,
                    operation,
                }),
                _ => None,
            },
        };
        if keep == Keep::Catalog && !in_catalog(&spec) {
            continue;
        }
        if let Some(problem) = problem {
            problems.push(messages::tool_schema_unwritable(&spec.name, &problem));
        }
        specs.push(spec);
    }
    Ok(())
}

/// JSON text with each `\uXXXX` escape of a surrogate made `\ufffd`. Only
/// for text `JSON.stringify` wrote: it escapes a surrogate only when it is
/// alone (a pair is written as its character), so every such escape is one.
/// Borrowed when there is none.
fn replace_lone_surrogates(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    if !bytes.contains(&b'\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while let Some(found) = bytes[i..].iter().position(|&b| b == b'\\') {
        let at = i + found;
        let escape = bytes.get(at + 1).copied();
        let surrogate = escape == Some(b'u')
            && bytes.len() >= at + 6
            && bytes[at + 2].eq_ignore_ascii_case(&b'd')
            && matches!(bytes[at + 3].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'f')
            && bytes[at + 4..at + 6].iter().all(u8::is_ascii_hexdigit);
        if surrogate {
            out.push_str(&text[copied..at]);
            out.push_str("\\ufffd");
            copied = at + 6;
            i = at + 6;
        } else {
            // Any other escape is two bytes, or six for `\u`; skipping two
            // is enough to step over an escaped backslash.
            i = at + 2;
        }
        if i >= bytes.len() {
            break;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_escapes_become_replacement_characters() {
        let text = r#"["a\ud800b","\\ud800","\udfff","ok\n"]"#;
        let fixed = replace_lone_surrogates(text);
        assert_eq!(fixed, r#"["a\ufffdb","\\ud800","\ufffd","ok\n"]"#);
        let strings: Vec<String> = serde_json::from_str(&fixed).unwrap();
        assert_eq!(strings, ["a\u{fffd}b", "\\ud800", "\u{fffd}", "ok\n"]);
    }

    #[test]
    fn columns_read_into_specs_and_dropped_schemas_into_problems() {
        let text = r#"[["read","q","pick"],["Read",null,null],[null,"d",null],[0,1,0],[null,"s",null],
            [2,0,1],[null,"srv",null],[null,"query",null],[null,"tool",null],[{"type":"object"},null,null],
            [null,"cycle","cycle"]]"#;
        let (mut specs, mut problems) = (Vec::new(), Vec::new());
        read_tools(text, Keep::Catalog, &mut specs, &mut problems).unwrap();
        assert_eq!(specs.len(), 2, "the direct-only tool is not the catalog's");
        assert_eq!(specs[0].name, "read");
        assert_eq!(specs[0].label.as_deref(), Some("Read"));
        assert_eq!(specs[0].description, "");
        assert!(specs[0].replay_safe && specs[0].parameters.is_some());
        assert_eq!(specs[1].source, ToolSource::Mcp);
        let mcp = specs[1].mcp.as_ref().unwrap();
        assert_eq!(
            (mcp.server.as_str(), mcp.operation.as_deref()),
            ("srv", Some("tool"))
        );
        assert!(specs[1].parameters.is_none());
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("Tool \"q\" has no schema"));
        let (mut all, mut problems) = (Vec::new(), Vec::new());
        read_tools(text, Keep::All, &mut all, &mut problems).unwrap();
        assert_eq!((all.len(), problems.len()), (3, 2));
        assert!(all[2].direct_only);
        let uneven = r#"[["a"],[],[null],[0],[null],[0],[null],[null],[null],[null],null]"#;
        assert!(read_tools(uneven, Keep::All, &mut all, &mut problems).is_err());
        assert!(read_tools("[1]", Keep::All, &mut all, &mut problems).is_err());
    }
}
