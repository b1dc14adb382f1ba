//! The records that cross between the Node thread's JavaScript (`src-js/`)
//! and Rust as JSON, with named fields and named kinds. Each derives serde's
//! traits (they can cross a process boundary as they are) and, in tests,
//! `ts_rs::TS`: `src-js/records.d.ts` is written from them (`typescript`,
//! checked by `boundary`'s tests), and the JavaScript that builds or reads
//! one names its type, so `tsc` refuses a field or a kind one side lacks.
//! This module depends on nothing of the crate: every layer may use it.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// `RunContext.tools` as `prepare.js` writes them: one array per field,
/// each as long as `names`.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolColumns {
    pub names: Vec<String>,
    pub labels: Vec<Option<String>>,
    pub descriptions: Vec<Option<String>>,
    /// 0 openclaw, 1 mcp, 2 client.
    pub sources: Vec<u8>,
    pub source_names: Vec<Option<String>>,
    /// 1 directOnly, 2 replaySafe.
    pub flags: Vec<u8>,
    /// `mcp.server` of each MCP tool.
    pub servers: Vec<Option<String>>,
    /// `mcp.tool` of each MCP tool.
    pub mcp_tools: Vec<Option<String>>,
    /// `mcp.operation`, when given.
    pub operations: Vec<Option<String>>,
    /// Each tool's input schema, as the JSON it is (null when absent or left
    /// out).
    #[cfg_attr(test, ts(type = "unknown[]"))]
    pub parameters: Vec<Option<Box<RawValue>>>,
    /// Why each schema left out was left out; null when none was.
    pub problems: Option<Vec<Option<String>>>,
}

/// What was wrong with a scope `namespaces.js` could not serialise, or that
/// this module refused when it checked it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ScopeProblemKind {
    /// `createScope` threw, rejected, or was never called (every exec that
    /// wanted it was aborted first).
    CreateFailed,
    NotObject,
    Function,
    Then,
    Cycle,
    UnsafeKey,
    DuplicateKey,
    TooDeep,
    TooLarge,
    TooManyFunctions,
    ForeignTool,
    Unsupported,
    Threw,
}

/// A scope problem as `namespaces.js` reports it: the visible namespace
/// (`index`), the kind, the keys below its root, and a detail (what was
/// thrown, a key, a type name; empty when the kind says all).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ScopeProblem {
    pub index: usize,
    pub kind: ScopeProblemKind,
    pub path: Vec<String>,
    pub detail: String,
}

/// How the building of a run's scopes ended, as `namespaces.js` tells the
/// binding: built (with their JSON), refused (with a [`ScopeProblem`]), or
/// stopped (the budget ended or every exec waiting was aborted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ScopesDone {
    Ready,
    Problem,
    Stopped,
}

/// The text of `src-js/records.d.ts`.
#[cfg(test)]
pub(crate) fn typescript() -> String {
    use ts_rs::{Config, TS};
    let config = Config::new();
    let mut out = String::from(
        "// Written from the core's records (crates/code-mode-core/src/records.rs): do not edit.\n\
         // `cargo test -p code-mode-core boundary` checks it; run it with\n\
         // UPDATE_BOUNDARY=1 to write it again.\n\n",
    );
    for decl in [
        ToolColumns::decl(&config),
        ScopeProblemKind::decl(&config),
        ScopeProblem::decl(&config),
        ScopesDone::decl(&config),
    ] {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}
