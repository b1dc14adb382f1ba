//! Reading `RunContext.tools` without holding the Node thread for it.
//!
//! `prepare.js` (compiled once per `CodeMode`) checks every field of every
//! tool in one pass, throwing the documented message for the first bad one,
//! and takes a row per tool: its fields as plain values and its schema by
//! reference. `prepareRun` plans the model-visible surface from what that
//! pass returns (a short outline, and the rows of the direct-only tools
//! written as JSON at once); the catalog rows become JSON text over the next
//! turns of the event loop, at most about [`TURN_MILLIS`] each, and are read
//! into tool specs off the JavaScript thread ([`crate::prepared`]).
//!
//! A row is `[name, label, description, source, sourceName, directOnly,
//! replaySafe, mcp.server, mcp.tool, mcp.operation, parameters, problem]`:
//! `source` 0 (openclaw), 1 (mcp) or 2 (client), `mcp.server` null without
//! MCP metadata, `problem` the reason a schema JSON could not write was left
//! out, or null.

use std::collections::HashSet;

use code_mode_core::catalog::{McpMeta, Schema, ToolSource, ToolSpec, LEGACY_CONTROLS};
use code_mode_core::model::ToolOutline;
use napi::bindgen_prelude::{FunctionRef, JsObjectValue, Unknown};
use napi::{sys, Env, Error, JsValue, Result, Status};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::js::{self, call_function};

const PREPARE_JS: &str = include_str!("prepare.js");

/// Rows written as JSON per `JSON.stringify` call while streaming.
const SLICE_ROWS: u32 = 64;

/// What streaming the catalog rows may spend of one turn of the event loop,
/// in milliseconds: at least one slice, then as many as fit.
pub const TURN_MILLIS: f64 = 0.5;

/// `scan`, `serialize` and `stream` of the compiled `prepare.js`.
pub struct PrepareJs {
    scan: FunctionRef<(), ()>,
    serialize: FunctionRef<(), ()>,
    stream: FunctionRef<(), ()>,
}

impl PrepareJs {
    pub fn compile(env: &Env) -> Result<Self> {
        let factory: Unknown = env.run_script(PREPARE_JS)?;
        let constants = js::parse_json(
            env,
            &js::json_text(&serde_json::json!({
                "legacyControls": LEGACY_CONTROLS,
                "sliceRows": SLICE_ROWS,
                "turnMillis": TURN_MILLIS,
            }))?,
        )?;
        let incomplete = || Error::from_reason("code mode could not start its tool reader");
        let made =
            call_function(env, factory.raw(), &[constants.raw()]).map_err(|_| incomplete())?;
        let made = js::object(&js::value(env, made))?.ok_or_else(incomplete)?;
        let function = |name: &str| -> Result<FunctionRef<(), ()>> {
            let value: Unknown = made.get_named_property(name)?;
            js::function::<(), ()>(&value)?
                .ok_or_else(incomplete)?
                .create_ref()
        };
        Ok(Self {
            scan: function("scan")?,
            serialize: function("serialize")?,
            stream: function("stream")?,
        })
    }

    /// Checks `tools` (throwing what `prepare.js` throws, or what a getter
    /// of the gateway's objects throws) and takes its rows.
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
        let scanned = js::object(&scanned)?
            .ok_or_else(|| Error::from_reason("code mode could not read RunContext.tools"))?;
        let outline: Unknown = scanned.get_element(3)?;
        let outline = js::string(&outline)?.unwrap_or_default();
        let outline: RawOutline = serde_json::from_str(&outline)
            .map_err(|e| Error::from_reason(format!("RunContext.tools could not be read: {e}.")))?;
        Ok(Scanned {
            all: scanned.get_element(0)?,
            catalog: scanned.get_element(1)?,
            direct: scanned.get_element(2)?,
            outline,
        })
    }

    /// `rows` as JSON text, now.
    pub fn serialize(&self, env: &Env, rows: &Unknown) -> Result<String> {
        let text = self.call(env, &self.serialize, &[rows.raw()])?;
        Ok(js::string(&text)?.unwrap_or_default())
    }

    /// Starts handing `rows` to `push(text, last)` over the next turns of the
    /// event loop; returns `finish()`, which hands over the rest at once.
    pub fn stream(
        &self,
        env: &Env,
        rows: &Unknown,
        push: sys::napi_value,
    ) -> Result<FunctionRef<(), ()>> {
        let finish = self.call(env, &self.stream, &[rows.raw(), push])?;
        js::function::<(), ()>(&finish)?
            .ok_or_else(|| Error::from_reason("code mode could not stream RunContext.tools"))?
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
            Err(thrown) => {
                // SAFETY: a plain Node-API call on the JS thread with a live value.
                unsafe { sys::napi_throw(env.raw(), thrown) };
                Err(Error::new(Status::PendingException, "rethrown"))
            }
        }
    }
}

/// What `scan` returns: every row, the catalog's rows and the direct-only
/// rows (JavaScript arrays), and the outline.
pub struct Scanned<'env> {
    pub all: Unknown<'env>,
    pub catalog: Unknown<'env>,
    pub direct: Unknown<'env>,
    pub outline: RawOutline,
}

/// The outline as `prepare.js` writes it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawOutline {
    pub count: usize,
    /// Distinct `mcp.server` names of the catalog's MCP tools.
    pub mcp_servers: Vec<String>,
    /// The required plugin tools the catalog holds.
    pub plugin_tools: Vec<(String, String)>,
}

impl RawOutline {
    /// The core's outline, with `shown` (the tools the model sees besides
    /// exec and wait) read already.
    pub fn into_outline(self, shown: Vec<ToolSpec>) -> ToolOutline {
        ToolOutline {
            count: self.count,
            shown,
            mcp_servers: self.mcp_servers,
            plugin_tools: self.plugin_tools.into_iter().collect(),
        }
    }
}

/// One row as JSON.
#[derive(Deserialize)]
struct Row(
    String,
    Option<String>,
    Option<String>,
    u8,
    Option<String>,
    bool,
    bool,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<Box<RawValue>>,
    Option<String>,
);

/// Reads the JSON text of rows into `specs`, adding a sentence to `problems`
/// for each tool whose schema was left out. The text comes from
/// `prepare.js`, which checked every field already; text it did not write
/// is an error. A lone surrogate in a string (which `JSON.stringify` writes
/// as an escape, and UTF-8 cannot hold) reads as U+FFFD, as it does
/// wherever JavaScript text becomes Rust text.
pub fn read_rows(
    text: &str,
    specs: &mut Vec<ToolSpec>,
    problems: &mut Vec<String>,
) -> std::result::Result<(), String> {
    let rows: Vec<Row> = match serde_json::from_str(text) {
        Ok(rows) => rows,
        Err(_) => serde_json::from_str(&replace_lone_surrogates(text))
            .map_err(|e| format!("code mode could not read the rows of RunContext.tools: {e}"))?,
    };
    specs.reserve(rows.len());
    for row in rows {
        let Row(name, label, description, source, source_name, direct, replay, ..) = row;
        let Row(.., server, tool, operation, schema, problem) = row;
        let source = match source {
            0 => ToolSource::Openclaw,
            1 => ToolSource::Mcp,
            _ => ToolSource::Client,
        };
        if let Some(problem) = problem {
            problems.push(format!(
                "Tool \"{name}\" has no schema: its parameters could not be written as JSON ({problem}); pass parameters JSON.stringify can write."
            ));
        }
        let mcp = match (server, tool) {
            (Some(server), Some(tool)) => Some(McpMeta {
                server,
                tool,
                operation,
            }),
            _ => None,
        };
        specs.push(ToolSpec {
            name,
            label,
            description: description.unwrap_or_default(),
            parameters: schema.map(Schema::from_json),
            source,
            source_name,
            direct_only: direct,
            replay_safe: replay,
            mcp,
        });
    }
    Ok(())
}

/// JSON text with each `\uXXXX` escape of a surrogate made `\ufffd`. Only
/// for text `JSON.stringify` wrote: it escapes a surrogate only when it is
/// alone (a pair is written as its character), so every such escape is one.
fn replace_lone_surrogates(text: &str) -> String {
    let bytes = text.as_bytes();
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
    out.push_str(&text[copied..]);
    out
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
    fn rows_read_into_specs_and_dropped_schemas_into_problems() {
        let text = r#"[["read","Read",null,0,null,false,true,null,null,null,{"type":"object"},null],
            ["q",null,"d",1,"s",false,false,"srv","query","tool",null,"cycle"]]"#;
        let (mut specs, mut problems) = (Vec::new(), Vec::new());
        read_rows(text, &mut specs, &mut problems).unwrap();
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
        assert!(read_rows("[1]", &mut specs, &mut problems).is_err());
    }
}
