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
//! text is the tools' columns (the core's `catalog::read_tools`), not an object per tool:
//! writing and reading it allocates per field, not per tool.

use std::collections::HashSet;

use code_mode_core::catalog::{replace_lone_surrogates, ToolSpec};
use code_mode_core::messages;
use code_mode_core::model::ToolOutline;
use code_mode_core::records::{self, PrepareFunctions, ToolsOutline};
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
