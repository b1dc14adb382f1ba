//! Plugin namespaces (`docs/namespaces.md`): which registrations one agent run
//! sees, and the scope each of them serialised, checked again here before any
//! guest sees it.
//!
//! The registry itself, `createScope` and the input mappers are JavaScript
//! (the binding's `namespaces.js`): they are the plugin's own functions. What
//! crosses into Rust is data: each registration's metadata, and per visible
//! namespace a [`Scope`] (a JSON tree and the paths that are callable).

mod scope;

#[cfg(test)]
mod bound_tests;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use self::scope::{is_unsafe_key, Callable, Scope, PATH_SEPARATOR, UNSAFE_KEYS};
use crate::catalog::{Catalog, CatalogEntry, ToolSource};
pub use crate::identifiers::display_path;
pub use crate::records::{Registration, ScopeProblem, ScopeProblemKind, ScopesDone};

/// A registration visible in one run, with the catalog id of each of its
/// required tools (in `requiredToolNames` order).
#[derive(Clone, Debug)]
pub struct VisibleNamespace {
    /// Its place in the list the run was planned from.
    pub index: usize,
    pub registration: Registration,
    pub tool_ids: Vec<String>,
}

impl VisibleNamespace {
    /// The catalog id of `tool`, when it is one of the required tools.
    pub fn tool_id(&self, tool: &str) -> Option<&str> {
        self.registration
            .required_tool_names
            .iter()
            .position(|name| name == tool)
            .map(|i| self.tool_ids[i].as_str())
    }
}

/// The plugin namespaces of one agent run: those visible when it was
/// prepared, and their scopes once the first exec has built them.
#[derive(Debug, Default)]
pub struct RunNamespaces {
    pub visible: Vec<VisibleNamespace>,
    /// One scope per visible namespace, in the same order; set once.
    scopes: OnceLock<Vec<Scope>>,
    /// The JSON text the scopes were read from (a sandbox's copy of the
    /// run reads the same).
    accepted: OnceLock<String>,
}

impl RunNamespaces {
    /// The registrations this run sees: each one whose every required tool is
    /// in the catalog as a plugin tool of its `pluginId` (source `openclaw`,
    /// `sourceName === pluginId`). A same-named tool of another plugin, a
    /// client tool or an MCP tool does not count. (`prepareRun` takes the
    /// two steps apart: [`visible`] from its outline, [`Self::resolve`] once
    /// the catalog is built.)
    #[cfg(test)]
    pub fn plan(registrations: Vec<Registration>, catalog: &Catalog) -> Self {
        let tools = PluginTools::of(catalog);
        let visible = visible(registrations, |plugin, name| {
            tools.get(plugin, name).is_some()
        });
        Self::resolve(visible, catalog)
    }

    /// The namespaces of registrations already found visible (by [`visible`])
    /// with the catalog id of each required tool, taken from the catalog.
    pub fn resolve(visible: Vec<(usize, Registration)>, catalog: &Catalog) -> Self {
        // One pass over the catalog, then a lookup per required tool (not a
        // pass per required tool: 16,000 of them in a catalog of 16,000 were
        // 256 million comparisons).
        let tools = match visible.is_empty() {
            true => PluginTools::default(),
            false => PluginTools::of(catalog),
        };
        let visible = visible
            .into_iter()
            .map(|(index, registration)| {
                // Found visible from the same tools this catalog was built
                // from, so every required tool is in it.
                let tool_ids = registration
                    .required_tool_names
                    .iter()
                    .map(|name| {
                        tools
                            .get(&registration.plugin_id, name)
                            .map(|entry| entry.id.clone())
                            .unwrap_or_default()
                    })
                    .collect();
                VisibleNamespace {
                    index,
                    registration,
                    tool_ids,
                }
            })
            .collect();
        Self {
            visible,
            scopes: OnceLock::new(),
            accepted: OnceLock::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.visible.is_empty()
    }

    /// The scopes, once built; `None` before the first exec has them.
    pub fn scopes(&self) -> Option<&[Scope]> {
        self.scopes.get().map(Vec::as_slice)
    }

    /// Whether an exec can run now without building scopes first.
    pub fn ready(&self) -> bool {
        self.visible.is_empty() || self.scopes.get().is_some()
    }

    /// The exec's message for a scope `namespaces.js` refused.
    pub fn problem(&self, problem: &ScopeProblem) -> String {
        let global_name = self
            .visible
            .get(problem.index)
            .map_or("", |namespace| namespace.registration.global_name.as_str());
        let shown = display_path(global_name, &problem.path);
        let problem = crate::messages::namespace_problem(problem.kind, &shown, &problem.detail);
        crate::messages::namespace_unprepared(global_name, &problem)
    }

    /// Checks the scopes `namespaces.js` serialised (JSON text: one
    /// `{tree, callables}` per visible namespace, in order) and keeps them.
    /// When another exec got there first, its scopes stay. The error is the
    /// `invalid_input` message of the exec.
    pub fn accept(&self, json: &str) -> Result<(), String> {
        if self.scopes.get().is_some() {
            return Ok(());
        }
        let scopes = scope::parse_all(json, &self.visible)?;
        if self.scopes.set(scopes).is_ok() {
            let _ = self.accepted.set(json.to_owned());
        }
        Ok(())
    }

    /// The JSON text of the scopes kept, once there are.
    pub fn accepted(&self) -> Option<String> {
        self.accepted.get().cloned()
    }
}

/// The registrations a run sees, with their places in `registrations`: each
/// one whose every required tool `has(pluginId, name)` says is in the
/// catalog as a plugin tool of its `pluginId` (source `openclaw`,
/// `sourceName === pluginId`).
pub fn visible(
    registrations: Vec<Registration>,
    has: impl Fn(&str, &str) -> bool,
) -> Vec<(usize, Registration)> {
    registrations
        .into_iter()
        .enumerate()
        .filter(|(_, registration)| {
            registration
                .required_tool_names
                .iter()
                .all(|name| has(&registration.plugin_id, name))
        })
        .collect()
}

/// The plugin tools of a catalog by `(sourceName, name)`: for each, the
/// first catalog entry that is tool `name` of plugin `sourceName` (source
/// `openclaw`).
#[derive(Default)]
struct PluginTools<'a> {
    first: HashMap<(&'a str, &'a str), &'a CatalogEntry>,
}

impl<'a> PluginTools<'a> {
    fn of(catalog: &'a Catalog) -> Self {
        let mut first = HashMap::new();
        for entry in catalog.entries() {
            if let (ToolSource::Openclaw, Some(plugin)) = (entry.source, &entry.source_name) {
                first
                    .entry((plugin.as_str(), entry.name.as_str()))
                    .or_insert(entry);
            }
        }
        Self { first }
    }

    fn get(&self, plugin: &str, name: &str) -> Option<&'a CatalogEntry> {
        self.first.get(&(plugin, name)).copied()
    }
}
