//! Planning one agent run: whether code mode applies, the tools the model
//! sees, and the catalog its cells work with. Pure: the binding reads the run
//! context, plans here, then builds the run surface from the plan.
//!
//! Planning comes in two halves, so that `prepareRun` can answer before it
//! has read every tool: [`plan_surface`] decides what the model sees from a
//! [`ToolOutline`] (a few facts about the tools, and the direct-only ones in
//! full), and [`build_catalog`] makes the catalog, the `MCP` namespace and the
//! plugin namespaces from the whole list later, off the JavaScript thread.
//! The tests plan from a whole list both ways and compare.

use std::collections::HashSet;
use std::sync::Arc;

use super::{
    exec_description, model_tools, DescriptionContext, ModelTool, NamespacePrompt, EXEC, WAIT,
};
use crate::catalog::{Catalog, ToolSpec};
use crate::config::CodeModeConfig;
use crate::mcp::McpNamespace;
use crate::namespaces::{self, Registration, RunNamespaces};

/// What the model-visible surface depends on in a run's tool list (the
/// binding's `prepare.js` reports it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutline {
    /// How many tools the list has.
    pub count: usize,
    /// The tools the model may see besides exec and wait, in list order:
    /// the direct-only ones when code mode applies, every tool otherwise.
    pub shown: Vec<ToolSpec>,
    /// The `mcp.server` of each catalog tool with source `mcp` and MCP
    /// metadata (repeats allowed).
    pub mcp_servers: Vec<String>,
    /// `(sourceName, name)` of catalog tools with source `openclaw` and a
    /// `sourceName`: all of them, or at least those some registration
    /// requires.
    pub plugin_tools: HashSet<(String, String)>,
}

/// Whether code mode applies to a run: enabled, tools not disabled, and a
/// non-empty list.
pub fn applies(config: &CodeModeConfig, count: usize, disable_tools: bool) -> bool {
    config.enabled && !disable_tools && count > 0
}

/// The model-visible half of a plan.
#[derive(Debug)]
pub struct SurfacePlan {
    pub active: bool,
    /// What the provider payload may carry.
    pub model_tools: Vec<ModelTool>,
    /// Their names, in order (telemetry's `visibleTools`).
    pub visible_tools: Vec<String>,
    /// Names a provider payload may carry besides exec and wait (active), or
    /// the run's unchanged tool names (inactive).
    pub allowed_payload: Vec<String>,
    /// The plugin namespaces the run sees, with their places in the
    /// registrations it was planned from (none when inactive).
    pub namespaces: Vec<(usize, Registration)>,
}

/// Decides what the model sees. A run that intentionally has no tools
/// (`disable_tools`, or an empty list) never activates and shows the model
/// no tools. `registrations` are the plugin namespaces registered now; those
/// whose tools the catalog holds become visible.
pub fn plan_surface(
    config: &CodeModeConfig,
    outline: &ToolOutline,
    disable_tools: bool,
    registrations: Vec<Registration>,
) -> SurfacePlan {
    let toolless = disable_tools || outline.count == 0;
    let active = applies(config, outline.count, disable_tools);
    let visible = match active {
        true => namespaces::visible(registrations, |plugin, name| {
            let key = (plugin.to_owned(), name.to_owned());
            outline.plugin_tools.contains(&key)
        }),
        false => Vec::new(),
    };
    let mcp_servers = match active {
        true => McpNamespace::identifiers_of(outline.mcp_servers.iter().map(String::as_str)),
        false => Vec::new(),
    };
    let ctx = DescriptionContext {
        has_mcp: !mcp_servers.is_empty(),
        mcp_servers,
        namespaces: visible
            .iter()
            .map(|(_, registration)| NamespacePrompt {
                global_name: registration.global_name.clone(),
                description: registration.description.clone(),
                prompt: registration.prompt.clone(),
            })
            .collect(),
        languages: config.languages.clone(),
    };
    let description = exec_description(&ctx);
    let model_tools = match toolless {
        true => Vec::new(),
        false => model_tools(active, &outline.shown, description, &ctx),
    };
    let visible_tools: Vec<String> = model_tools.iter().map(|tool| tool.name.clone()).collect();
    let allowed_payload = visible_tools
        .iter()
        .filter(|name| !active || !matches!(name.as_str(), EXEC | WAIT))
        .cloned()
        .collect();
    SurfacePlan {
        active,
        model_tools,
        visible_tools,
        allowed_payload,
        namespaces: visible,
    }
}

/// What the cells of a run work with.
#[derive(Debug)]
pub struct CatalogParts {
    pub catalog: Arc<Catalog>,
    pub mcp: Arc<McpNamespace>,
    pub namespaces: Arc<RunNamespaces>,
}

/// Builds the catalog of a run whose surface was planned with `active` and
/// `namespaces` from the tools of `tools` (an inactive run's is empty).
pub fn build_catalog(
    tools: &[ToolSpec],
    active: bool,
    namespaces: Vec<(usize, Registration)>,
) -> CatalogParts {
    let catalog = Arc::new(Catalog::build(if active { tools } else { &[] }));
    let mcp = Arc::new(McpNamespace::build(&catalog));
    let namespaces = Arc::new(RunNamespaces::resolve(namespaces, &catalog));
    CatalogParts {
        catalog,
        mcp,
        namespaces,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::testing::core;
    use crate::catalog::{in_catalog, ToolSource};

    /// The outline of a whole list, for a run that is `active` or not: all
    /// its plugin tools, not only the required ones.
    fn outline_of(tools: &[ToolSpec], active: bool) -> ToolOutline {
        let catalog = || tools.iter().filter(|tool| in_catalog(tool));
        ToolOutline {
            count: tools.len(),
            shown: match active {
                true => tools.iter().filter(|t| t.direct_only).cloned().collect(),
                false => tools.to_vec(),
            },
            mcp_servers: catalog()
                .filter(|tool| tool.source == ToolSource::Mcp)
                .filter_map(|tool| tool.mcp.as_ref().map(|meta| meta.server.clone()))
                .collect(),
            plugin_tools: catalog()
                .filter(|tool| tool.source == ToolSource::Openclaw)
                .filter_map(|tool| {
                    let plugin = tool.source_name.clone()?;
                    Some((plugin, tool.name.clone()))
                })
                .collect(),
        }
    }

    /// Both halves at once from a whole list.
    fn plan_run(
        config: &CodeModeConfig,
        tools: &[ToolSpec],
        disable_tools: bool,
        registrations: Vec<Registration>,
    ) -> (SurfacePlan, CatalogParts) {
        let active = applies(config, tools.len(), disable_tools);
        let outline = outline_of(tools, active);
        let surface = plan_surface(config, &outline, disable_tools, registrations);
        let parts = build_catalog(tools, surface.active, surface.namespaces.clone());
        (surface, parts)
    }

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

    fn names(plan: &SurfacePlan) -> Vec<&str> {
        plan.model_tools.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn an_enabled_run_with_tools_is_active() {
        let tools = [
            tool("read", false),
            tool("computer", true),
            tool("tool_search", false),
        ];
        let (plan, parts) = plan_run(&enabled(), &tools, false, Vec::new());
        assert!(plan.active);
        assert_eq!(names(&plan), ["exec", "wait", "computer"]);
        assert_eq!(plan.visible_tools, ["exec", "wait", "computer"]);
        assert_eq!(plan.allowed_payload, ["computer"]);
        let ids: Vec<&str> = parts
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
        let (plan, parts) = plan_run(&CodeModeConfig::default(), &tools, false, Vec::new());
        assert!(!plan.active);
        assert_eq!(names(&plan), ["read", "computer"]);
        assert_eq!(plan.allowed_payload, ["read", "computer"]);
        assert_eq!(parts.catalog.size(), 0);
    }

    #[test]
    fn a_surface_planned_from_an_outline_matches_one_planned_from_the_whole_list() {
        use crate::catalog::McpMeta;
        let mcp = |server: &str, tool: &str| ToolSpec {
            source: ToolSource::Mcp,
            mcp: Some(McpMeta {
                server: server.into(),
                tool: tool.into(),
                operation: None,
            }),
            ..core(&format!("{server}__{tool}"))
        };
        let plugin = |name: &str| ToolSpec {
            source_name: Some("gh".into()),
            ..core(name)
        };
        let tools = vec![
            tool("read", false),
            tool("computer", true),
            mcp("chrome-devtools", "click"),
            mcp("tools", "x"),
            mcp("tools", "y"),
            plugin("list_issues"),
            plugin("other"),
        ];
        let registration = |id: &str, required: &[&str]| Registration {
            id: id.into(),
            plugin_id: "gh".into(),
            global_name: id.to_uppercase(),
            description: None,
            prompt: None,
            required_tool_names: required.iter().map(|s| (*s).to_owned()).collect(),
        };
        let registrations = vec![
            registration("issues", &["list_issues"]),
            registration("missing", &["list_issues", "gone"]),
        ];
        let (whole, parts) = plan_run(&enabled(), &tools, false, registrations.clone());
        // What prepare.js reports: only the plugin tools registrations require.
        let outline = ToolOutline {
            count: tools.len(),
            shown: vec![tool("computer", true)],
            mcp_servers: vec!["tools".into(), "chrome-devtools".into(), "tools".into()],
            plugin_tools: [("gh".to_owned(), "list_issues".to_owned())].into(),
        };
        let surface = plan_surface(&enabled(), &outline, false, registrations);
        assert_eq!(surface.model_tools, whole.model_tools);
        assert_eq!(surface.allowed_payload, whole.allowed_payload);
        let visible: Vec<usize> = surface.namespaces.iter().map(|(i, _)| *i).collect();
        assert_eq!(visible, [0]);
        assert_eq!(parts.namespaces.visible.len(), 1);
        assert_eq!(
            parts.namespaces.visible[0].tool_ids,
            ["openclaw:gh:list_issues"]
        );
        let description = &surface.model_tools[0].description;
        assert!(description.contains("MCP servers: chromeDevtools, tools2"));
    }

    #[test]
    fn toolless_runs_never_activate_and_show_nothing() {
        for (tools, disable) in [(vec![], false), (vec![tool("read", false)], true)] {
            for config in [enabled(), CodeModeConfig::default()] {
                let (plan, parts) = plan_run(&config, &tools, disable, Vec::new());
                assert!(!plan.active);
                assert!(plan.model_tools.is_empty());
                assert!(plan.allowed_payload.is_empty());
                assert_eq!(parts.catalog.size(), 0);
            }
        }
    }
}
