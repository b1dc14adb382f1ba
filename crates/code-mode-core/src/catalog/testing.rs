//! Tool fixtures for the catalog tests. Every description is `<name> tool`.

use super::{McpMeta, ToolSource, ToolSpec};

pub fn tool(name: &str, source: ToolSource, source_name: Option<&str>) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        label: None,
        description: format!("{name} tool"),
        parameters: None,
        source,
        source_name: source_name.map(str::to_owned),
        direct_only: false,
        replay_safe: false,
        mcp: None,
    }
}

pub fn core(name: &str) -> ToolSpec {
    tool(name, ToolSource::Openclaw, None)
}

pub fn plugin(name: &str, plugin_id: &str) -> ToolSpec {
    tool(name, ToolSource::Openclaw, Some(plugin_id))
}

pub fn client(name: &str, app: Option<&str>) -> ToolSpec {
    tool(name, ToolSource::Client, app)
}

pub fn mcp(name: &str, server: &str, mcp_tool: &str) -> ToolSpec {
    ToolSpec {
        mcp: Some(McpMeta {
            server: server.to_owned(),
            tool: mcp_tool.to_owned(),
            operation: None,
        }),
        ..tool(name, ToolSource::Mcp, Some(server))
    }
}

pub fn mcp_without_meta(name: &str, source_name: Option<&str>) -> ToolSpec {
    tool(name, ToolSource::Mcp, source_name)
}

/// A tool with a label and a description of its own.
pub fn described(spec: ToolSpec, label: Option<&str>, description: &str) -> ToolSpec {
    ToolSpec {
        label: label.map(str::to_owned),
        description: description.to_owned(),
        ..spec
    }
}
