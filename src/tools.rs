//! `RunContext.tools` into core tool specs. A malformed tool list is a host
//! programming error: it throws, naming the offending field.

use code_mode_core::catalog::{McpMeta, ToolSource, ToolSpec};
use napi::{Error, Result};
use serde_json::{Map, Value};

pub fn parse_tools(tools: &Value) -> Result<Vec<ToolSpec>> {
    let Some(list) = tools.as_array() else {
        return Err(Error::from_reason("RunContext.tools must be an array."));
    };
    list.iter()
        .enumerate()
        .map(|(index, tool)| parse_tool(index, tool))
        .collect()
}

fn parse_tool(index: usize, tool: &Value) -> Result<ToolSpec> {
    let field = |name: &str| format!("RunContext.tools[{index}].{name}");
    let Some(tool) = tool.as_object() else {
        return Err(Error::from_reason(format!(
            "RunContext.tools[{index}] must be an object."
        )));
    };
    let name = match tool.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name.clone(),
        _ => {
            return Err(Error::from_reason(format!(
                "{} must be a non-empty string.",
                field("name")
            )))
        }
    };
    let source = match tool.get("source").and_then(Value::as_str) {
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
    let mcp = match tool.get("mcp") {
        None | Some(Value::Null) => None,
        Some(Value::Object(meta)) => Some(parse_mcp(meta, &field("mcp"))?),
        Some(_) => {
            return Err(Error::from_reason(format!(
                "{} must be an object.",
                field("mcp")
            )))
        }
    };
    Ok(ToolSpec {
        name,
        label: optional_string(tool, "label", &field("label"))?,
        description: optional_string(tool, "description", &field("description"))?
            .unwrap_or_default(),
        parameters: match tool.get("parameters") {
            None | Some(Value::Null) => None,
            Some(schema) => Some(schema.clone()),
        },
        source,
        source_name: optional_string(tool, "sourceName", &field("sourceName"))?,
        direct_only: optional_bool(tool, "directOnly", &field("directOnly"))?,
        replay_safe: optional_bool(tool, "replaySafe", &field("replaySafe"))?,
        mcp,
    })
}

fn parse_mcp(meta: &Map<String, Value>, path: &str) -> Result<McpMeta> {
    let required = |name: &str| match meta.get(name) {
        Some(Value::String(text)) if !text.is_empty() => Ok(text.clone()),
        _ => Err(Error::from_reason(format!(
            "{path}.{name} must be a non-empty string."
        ))),
    };
    Ok(McpMeta {
        server: required("server")?,
        tool: required("tool")?,
        operation: optional_string(meta, "operation", &format!("{path}.operation"))?,
    })
}

fn optional_string(object: &Map<String, Value>, name: &str, path: &str) -> Result<Option<String>> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(Error::from_reason(format!("{path} must be a string."))),
    }
}

fn optional_bool(object: &Map<String, Value>, name: &str, path: &str) -> Result<bool> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(value)) => Ok(*value),
        Some(_) => Err(Error::from_reason(format!("{path} must be a boolean."))),
    }
}
