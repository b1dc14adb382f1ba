//! MCP declaration fixtures: the tools a real MCP server lists
//! (`fixtures/mcp/<server>.json`, taken from its npm package with the MCP SDK)
//! must render to `<server>.d.ts` byte for byte. Run with `UPDATE_FIXTURES=1`
//! to rewrite the `.d.ts` files, then read the diff.

use std::fs;
use std::path::Path;

use code_mode_core::catalog::{Catalog, McpMeta, ToolSource, ToolSpec};
use code_mode_core::mcp::McpNamespace;
use serde_json::Value;

/// The run tools a gateway would build from a fixture's listing.
fn run_tools(fixture: &Value) -> Vec<ToolSpec> {
    let server = fixture["server"].as_str().unwrap();
    let spec = |name: &str, tool: &Value, operation: Option<&str>| ToolSpec {
        name: format!("{server}__{name}"),
        label: None,
        description: tool["description"].as_str().unwrap_or_default().to_owned(),
        parameters: tool.get("inputSchema").cloned().map(Into::into),
        source: ToolSource::Mcp,
        source_name: Some(server.to_owned()),
        direct_only: false,
        replay_safe: false,
        mcp: Some(McpMeta {
            server: server.to_owned(),
            tool: name.to_owned(),
            operation: operation.map(str::to_owned),
        }),
    };
    let mut tools: Vec<ToolSpec> = fixture["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| spec(tool["name"].as_str().unwrap(), tool, None))
        .collect();
    for op in fixture["operations"].as_array().into_iter().flatten() {
        let operation = op["operation"].as_str().unwrap();
        tools.push(spec(operation, op, Some(operation)));
    }
    tools
}

#[test]
fn real_server_schemas_render_as_recorded() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp");
    let mut seen = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        seen += 1;
        let fixture: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let namespace = McpNamespace::build(&Catalog::build(&run_tools(&fixture)));
        assert!(
            namespace.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            namespace.problems
        );
        let file = namespace.file_content(&namespace.files[1]);
        let expected_path = path.with_extension("d.ts");
        if std::env::var_os("UPDATE_FIXTURES").is_some() {
            fs::write(&expected_path, file).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_else(|_| {
            panic!(
                "missing {}; run with UPDATE_FIXTURES=1",
                expected_path.display()
            )
        });
        assert_eq!(file, expected, "{}", path.display());
    }
    assert!(seen >= 3, "expected fixture files in {}", dir.display());
}
