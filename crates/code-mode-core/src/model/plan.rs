//! Planning one agent run: whether code mode applies, its catalog, and the
//! tools the model sees. Pure: the binding reads the run context, plans here,
//! then builds the run surface from the plan.

use std::sync::Arc;

use super::{
    exec_description, model_tools, DescriptionContext, ModelTool, NamespacePrompt, EXEC, WAIT,
};
use crate::catalog::{Catalog, ToolSpec};
use crate::config::CodeModeConfig;
use crate::mcp::McpNamespace;
use crate::namespaces::{Registration, RunNamespaces};

/// What `prepareRun` decides for one agent run.
#[derive(Debug)]
pub struct RunPlan {
    /// Code mode applies: enabled, and the run has tools.
    pub active: bool,
    /// The run catalog; empty when inactive.
    pub catalog: Arc<Catalog>,
    /// The `MCP` namespace and `API` files built from the catalog's MCP entries.
    pub mcp: Arc<McpNamespace>,
    /// The plugin namespaces visible in the run (none when inactive).
    pub namespaces: Arc<RunNamespaces>,
    /// What the provider payload may carry.
    pub model_tools: Vec<ModelTool>,
    /// Their names, in order (telemetry's `visibleTools`).
    pub visible_tools: Vec<String>,
    /// Names a provider payload may carry besides exec and wait (active), or
    /// the run's unchanged tool names (inactive).
    pub allowed_payload: Vec<String>,
}

/// Plans a run. A run that intentionally has no tools (`disable_tools`, or an
/// empty list) never activates and shows the model no tools. `registrations`
/// are the plugin namespaces registered now; those whose tools the catalog
/// holds become visible.
pub fn plan_run(
    config: &CodeModeConfig,
    tools: &[ToolSpec],
    disable_tools: bool,
    registrations: Vec<Registration>,
) -> RunPlan {
    let toolless = disable_tools || tools.is_empty();
    let active = config.enabled && !toolless;
    let catalog = Arc::new(Catalog::build(if active { tools } else { &[] }));
    let mcp = Arc::new(McpNamespace::build(&catalog));
    let namespaces = Arc::new(match active {
        true => RunNamespaces::plan(registrations, &catalog),
        false => RunNamespaces::default(),
    });
    let ctx = DescriptionContext {
        has_mcp: !mcp.is_empty(),
        mcp_servers: mcp.server_identifiers(),
        namespaces: namespaces
            .visible
            .iter()
            .map(|namespace| NamespacePrompt {
                global_name: namespace.registration.global_name.clone(),
                description: namespace.registration.description.clone(),
                prompt: namespace.registration.prompt.clone(),
            })
            .collect(),
        languages: config.languages.clone(),
    };
    let description = exec_description(&ctx);
    let model_tools = match toolless {
        true => Vec::new(),
        false => model_tools(active, tools, description, &ctx),
    };
    let visible_tools: Vec<String> = model_tools.iter().map(|tool| tool.name.clone()).collect();
    let allowed_payload = visible_tools
        .iter()
        .filter(|name| !active || !matches!(name.as_str(), EXEC | WAIT))
        .cloned()
        .collect();
    RunPlan {
        active,
        catalog,
        mcp,
        namespaces,
        model_tools,
        visible_tools,
        allowed_payload,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::testing::core;

    fn tool(name: &str, direct_only: bool) -> ToolSpec {
        ToolSpec {
            direct_only,
            ..core(name)
        }
    }

    fn enabled() -> CodeModeConfig {
        CodeModeConfig {
            enabled: true,
            ..CodeModeConfig::default()
        }
    }

    fn names(plan: &RunPlan) -> Vec<&str> {
        plan.model_tools.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn an_enabled_run_with_tools_is_active() {
        let tools = [
            tool("read", false),
            tool("computer", true),
            tool("tool_search", false),
        ];
        let plan = plan_run(&enabled(), &tools, false, Vec::new());
        assert!(plan.active);
        assert_eq!(names(&plan), ["exec", "wait", "computer"]);
        assert_eq!(plan.visible_tools, ["exec", "wait", "computer"]);
        assert_eq!(plan.allowed_payload, ["computer"]);
        let ids: Vec<&str> = plan
            .catalog
            .entries()
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(ids, ["openclaw:core:read"]);
    }

    #[test]
    fn a_disabled_run_shows_its_tools_unchanged_and_has_no_catalog() {
        let tools = [tool("read", false), tool("computer", true)];
        let plan = plan_run(&CodeModeConfig::default(), &tools, false, Vec::new());
        assert!(!plan.active);
        assert_eq!(names(&plan), ["read", "computer"]);
        assert_eq!(plan.allowed_payload, ["read", "computer"]);
        assert_eq!(plan.catalog.size(), 0);
    }

    #[test]
    fn toolless_runs_never_activate_and_show_nothing() {
        for (tools, disable) in [(vec![], false), (vec![tool("read", false)], true)] {
            for config in [enabled(), CodeModeConfig::default()] {
                let plan = plan_run(&config, &tools, disable, Vec::new());
                assert!(!plan.active);
                assert!(plan.model_tools.is_empty());
                assert!(plan.allowed_payload.is_empty());
                assert_eq!(plan.catalog.size(), 0);
            }
        }
    }
}
