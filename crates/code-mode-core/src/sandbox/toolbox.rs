//! What the guest's `tools`, `MCP`, `API` and plugin namespace globals work
//! with: the catalog of one agent run, its MCP namespace, its plugin
//! namespaces, its search limits and its counters. Built once per
//! `prepareRun` and shared read-only by every cell of that run.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::mcp::McpNamespace;
use crate::namespaces::RunNamespaces;

/// Counters of one agent run (`telemetry` in every result), shared by all its
/// cells.
#[derive(Debug, Default)]
pub struct Counters {
    pub search: AtomicU64,
    pub describe: AtomicU64,
    pub call: AtomicU64,
    /// The `n` of nested tool call ids, from 1 per agent run.
    pub nested_seq: AtomicU64,
}

#[derive(Debug)]
pub struct Toolbox {
    pub catalog: Arc<Catalog>,
    /// The `MCP` namespace and `API` files of the run.
    pub mcp: Arc<McpNamespace>,
    /// The plugin namespaces visible in the run, and their scopes once built.
    pub namespaces: Arc<RunNamespaces>,
    pub search_default_limit: usize,
    pub max_search_limit: usize,
    pub counters: Counters,
}
