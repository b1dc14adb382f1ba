//! What every cell of one agent run shares: its configuration, the toolbox its
//! guests work with, the host its nested calls go to, the model-visible tool
//! names, and who owns its parked runs. Built once per `prepareRun`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::host::Host;
use crate::catalog::Catalog;
use crate::config::CodeModeConfig;
use crate::mcp::McpNamespace;
use crate::namespaces::RunNamespaces;
use crate::result::{SourceCounts, Telemetry};
use crate::sandbox::Toolbox;

/// Who may resume a parked run: the agent run and the session that made it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RunOwner {
    pub agent_run_id: String,
    pub session_id: Option<String>,
    pub session_key: Option<String>,
    pub agent_id: Option<String>,
}

impl RunOwner {
    /// The session the pool is fair to (`docs/scheduling.md`): the session
    /// key, else the session id, else the agent run.
    pub fn session(&self) -> &str {
        self.session_key
            .as_deref()
            .or(self.session_id.as_deref())
            .unwrap_or(&self.agent_run_id)
    }
}

pub struct AgentRun {
    /// A number no other agent run of this process has (a sandbox's client
    /// knows its copies by it).
    pub id: u64,
    /// The resolved configuration (the agent's value merged over the global one).
    pub config: Arc<CodeModeConfig>,
    pub toolbox: Arc<Toolbox>,
    pub host: Arc<dyn Host>,
    /// Model-visible tool names (exec, wait and the direct-only tools).
    pub visible_tools: Vec<String>,
    pub owner: RunOwner,
}

impl AgentRun {
    pub fn new(
        config: Arc<CodeModeConfig>,
        catalog: Arc<Catalog>,
        mcp: Arc<McpNamespace>,
        namespaces: Arc<RunNamespaces>,
        host: Arc<dyn Host>,
        visible_tools: Vec<String>,
        owner: RunOwner,
    ) -> Arc<Self> {
        let toolbox = Arc::new(Toolbox {
            catalog,
            mcp,
            namespaces,
            validate: config.validate_tool_inputs,
            validators: Default::default(),
            search_default_limit: config.search_default_limit as usize,
            max_search_limit: config.max_search_limit as usize,
            counters: Default::default(),
        });
        Arc::new(Self {
            id: Self::new_id(),
            config,
            toolbox,
            host,
            visible_tools,
            owner,
        })
    }

    /// A number for a new agent run ([`AgentRun::id`]).
    pub fn new_id() -> u64 {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }

    /// The telemetry block of every result: cumulative for the agent run.
    pub fn telemetry(&self) -> Telemetry {
        let catalog = &self.toolbox.catalog;
        let (openclaw, mcp, client) = catalog.source_counts();
        let counters = &self.toolbox.counters;
        Telemetry {
            catalog_size: catalog.size() as u64,
            sources: SourceCounts {
                openclaw: openclaw as u64,
                mcp: mcp as u64,
                client: client as u64,
            },
            search_count: counters.search.load(Ordering::Relaxed),
            describe_count: counters.describe.load(Ordering::Relaxed),
            call_count: counters.call.load(Ordering::Relaxed),
            invalid_input_count: counters.invalid_input.load(Ordering::Relaxed),
            visible_tools: self.visible_tools.clone(),
            nested_seq: counters.nested_seq.load(Ordering::Relaxed),
        }
    }
}
