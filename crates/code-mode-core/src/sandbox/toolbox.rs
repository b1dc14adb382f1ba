//! What the guest's `tools`, `MCP`, `API` and plugin namespace globals work
//! with: the catalog of one agent run, its MCP namespace, its plugin
//! namespaces, its search limits and its counters. Built once per
//! `prepareRun` and shared read-only by every cell of that run.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::catalog::{Catalog, CatalogEntry};
use crate::mcp::McpNamespace;
use crate::namespaces::RunNamespaces;
use crate::validation::{self, InputValidators};

/// Counters of one agent run (`telemetry` in every result), shared by all its
/// cells.
#[derive(Debug, Default)]
pub struct Counters {
    pub search: AtomicU64,
    pub describe: AtomicU64,
    pub call: AtomicU64,
    /// The `n` of nested tool call ids, from 1 per agent run.
    pub nested_seq: AtomicU64,
    /// Nested calls whose input their tool's schema refused.
    pub invalid_input: AtomicU64,
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
    /// Whether nested-call inputs are checked against their schemas
    /// (`validateToolInputs`), and the run's compiled schemas.
    pub validate: bool,
    pub validators: InputValidators,
}

impl Toolbox {
    /// The message a call to `entry` rejects with when `input` (JSON text)
    /// does not match its schema; `callee` gives how the cell called it and
    /// the hint, and is asked only then. Counts the rejection.
    pub fn check_input(
        &self,
        entry: &CatalogEntry,
        input: &str,
        callee: impl FnOnce() -> (String, String),
    ) -> Option<String> {
        if !self.validate {
            return None;
        }
        let rejection = self.validators.check(entry, input).err()?;
        self.counters.invalid_input.fetch_add(1, Ordering::Relaxed);
        let (callee, hint) = callee();
        Some(validation::invalid_input(&callee, &rejection, &hint))
    }

    /// Compiles the schema of `entry` for a check the host makes later (a
    /// namespace call's mapped input), so that [`Toolbox::cheap_check`]
    /// knows what it costs.
    pub fn prepare_check(&self, entry: &CatalogEntry) {
        if self.validate {
            self.validators.prepare(entry);
        }
    }

    /// Whether [`Toolbox::check_input`] of an input of `bytes` bytes costs
    /// little enough to make on the Node thread (`HOST_CHECK_BYTES`,
    /// `HOST_CHECK_WORK`); true when inputs are not checked.
    pub fn cheap_check(&self, entry: &CatalogEntry, bytes: usize) -> bool {
        !self.validate || self.validators.cheap(entry, bytes)
    }
}
