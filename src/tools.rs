//! `RunContext.tools` into core tool specs. A malformed tool list is a host
//! programming error: it throws, naming the offending field.
//!
//! The list arrives as the JSON text of one `JSON.stringify` and is read
//! field by field straight from that text, with no tree of the whole list
//! built and dropped on the way (at 5000 tools that tree took 30 ms of the
//! Node thread); each tool's schema stays text until something needs it.

use code_mode_core::catalog::{McpMeta, Schema, ToolSource, ToolSpec};
use napi::{Error, Result};
use serde::Deserialize;
use serde_json::value::RawValue;

/// A tool as JSON, each field still raw text: checked one by one below.
#[derive(Deserialize)]
struct RawTool<'a> {
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    label: Option<&'a RawValue>,
    #[serde(borrow)]
    description: Option<&'a RawValue>,
    #[serde(borrow)]
    parameters: Option<&'a RawValue>,
    #[serde(borrow)]
    source: Option<&'a RawValue>,
    #[serde(borrow, rename = "sourceName")]
    source_name: Option<&'a RawValue>,
    #[serde(borrow, rename = "directOnly")]
    direct_only: Option<&'a RawValue>,
    #[serde(borrow, rename = "replaySafe")]
    replay_safe: Option<&'a RawValue>,
    #[serde(borrow)]
    mcp: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawMcp<'a> {
    #[serde(borrow)]
    server: Option<&'a RawValue>,
    #[serde(borrow)]
    tool: Option<&'a RawValue>,
    #[serde(borrow)]
    operation: Option<&'a RawValue>,
}

/// The tools of `JSON.stringify(RunContext.tools)` (none: the value was
/// `undefined`).
pub fn parse_tools(json: Option<&str>) -> Result<Vec<ToolSpec>> {
    let list: Option<Vec<&RawValue>> = match json {
        Some(text) if text.starts_with('[') => serde_json::from_str(text).ok(),
        _ => None,
    };
    let Some(list) = list else {
        return Err(Error::from_reason("RunContext.tools must be an array."));
    };
    list.into_iter()
        .enumerate()
        .map(|(index, tool)| parse_tool(index, tool))
        .collect()
}

fn parse_tool(index: usize, tool: &RawValue) -> Result<ToolSpec> {
    let field = |name: &str| format!("RunContext.tools[{index}].{name}");
    let raw: Option<RawTool> = match tool.get().starts_with('{') {
        true => serde_json::from_str(tool.get()).ok(),
        false => None,
    };
    let Some(raw) = raw else {
        return Err(Error::from_reason(format!(
            "RunContext.tools[{index}] must be an object."
        )));
    };
    let name = match string(raw.name, &field("name"))? {
        Some(Some(name)) if !name.is_empty() => name,
        _ => {
            return Err(Error::from_reason(format!(
                "{} must be a non-empty string.",
                field("name")
            )))
        }
    };
    let source = match string(raw.source, &field("source"))?.flatten().as_deref() {
        Some("openclaw") => ToolSource::Openclaw,
        Some("mcp") => ToolSource::Mcp,
        Some("client") => ToolSource::Client,
        _ => {
            return Err(Error::from_reason(format!(
                "{} must be \"openclaw\", \"mcp\" or \"client\".",
                field("source")
            )))
        }
    };
    let mcp = match raw.mcp.filter(|raw| !is_null(raw)) {
        None => None,
        Some(meta) => Some(parse_mcp(meta, &field("mcp"))?),
    };
    // Kept as text; read into a value when first needed.
    let parameters = raw
        .parameters
        .filter(|raw| !is_null(raw))
        .map(|schema| Schema::from_json(schema.to_owned()));
    Ok(ToolSpec {
        name,
        label: optional_string(raw.label, &field("label"))?,
        description: optional_string(raw.description, &field("description"))?.unwrap_or_default(),
        parameters,
        source,
        source_name: optional_string(raw.source_name, &field("sourceName"))?,
        direct_only: optional_bool(raw.direct_only, &field("directOnly"))?,
        replay_safe: optional_bool(raw.replay_safe, &field("replaySafe"))?,
        mcp,
    })
}

fn parse_mcp(meta: &RawValue, path: &str) -> Result<McpMeta> {
    let raw: Option<RawMcp> = match meta.get().starts_with('{') {
        true => serde_json::from_str(meta.get()).ok(),
        false => None,
    };
    let Some(raw) = raw else {
        return Err(Error::from_reason(format!("{path} must be an object.")));
    };
    let required =
        |name: &str, value: Option<&RawValue>| match string(value, &format!("{path}.{name}"))? {
            Some(Some(text)) if !text.is_empty() => Ok(text),
            _ => Err(Error::from_reason(format!(
                "{path}.{name} must be a non-empty string."
            ))),
        };
    Ok(McpMeta {
        server: required("server", raw.server)?,
        tool: required("tool", raw.tool)?,
        operation: optional_string(raw.operation, &format!("{path}.operation"))?,
    })
}

fn is_null(raw: &RawValue) -> bool {
    raw.get() == "null"
}

/// A field read as a string: `None` when absent or null, `Some(None)` when
/// present but not a string. A string that is not text (a lone surrogate)
/// is an error naming the field.
fn string(raw: Option<&RawValue>, path: &str) -> Result<Option<Option<String>>> {
    let Some(raw) = raw.filter(|raw| !is_null(raw)) else {
        return Ok(None);
    };
    if !raw.get().starts_with('"') {
        return Ok(Some(None));
    }
    serde_json::from_str(raw.get())
        .map(|text| Some(Some(text)))
        .map_err(|e| Error::from_reason(format!("{path} could not be read: {e}.")))
}

fn optional_string(raw: Option<&RawValue>, path: &str) -> Result<Option<String>> {
    match string(raw, path)? {
        None => Ok(None),
        Some(Some(text)) => Ok(Some(text)),
        Some(None) => Err(Error::from_reason(format!("{path} must be a string."))),
    }
}

fn optional_bool(raw: Option<&RawValue>, path: &str) -> Result<bool> {
    match raw.map(RawValue::get) {
        None | Some("null") => Ok(false),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(_) => Err(Error::from_reason(format!("{path} must be a boolean."))),
    }
}
