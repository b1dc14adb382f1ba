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

/// The bits of [`ToolColumns::flags`].
pub struct ToolFlags;

impl ToolFlags {
    pub const DIRECT_ONLY: u8 = 1;
    pub const REPLAY_SAFE: u8 = 2;
}

/// Records whose fields hold JavaScript values the binding reads in place
/// (with Node-API, not as JSON): their fields' names, which the binding
/// reads by and `records.d.ts` declares (`typescript`), each with its
/// TypeScript type.
macro_rules! js_records {
    ($($(#[$doc:meta])* $name:ident { $($(#[$field_doc:meta])* $field:ident: $ty:literal,)* })*) => {
        $(
            $(#[$doc])*
            pub struct $name;
            #[allow(non_upper_case_globals)]
            impl $name {
                $($(#[$field_doc])* pub const $field: &'static str = stringify!($field);)*
            }
        )*
        #[cfg(test)]
        fn js_records() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
            vec![$((stringify!($name), vec![$((stringify!($field), $ty)),*])),*]
        }
    };
}

js_records! {
    /// What `prepare.js`'s `scan` returns.
    Scanned {
        /// The tools as columns (`prepare.js`'s table), kept as they are
        /// for `serialize` and `stream`.
        table: "unknown",
        /// The indexes of the direct-only tools.
        direct: "number[]",
        /// [`ToolsOutline`] as JSON text.
        outline: "string",
    }
    /// The functions `host.js`'s factory makes, which the binding looks up
    /// by these names.
    HostFunctions {
        start: "Function",
        abort: "Function",
        warn: "Function",
        deliver: "Function",
        checked: "Function",
    }
    /// The functions `prepare.js`'s factory makes.
    PrepareFunctions {
        scan: "Function",
        serialize: "Function",
        stream: "Function",
        later: "Function",
    }
    /// The functions `namespaces.js`'s factory makes.
    NamespaceFunctions {
        register: "Function",
        tool: "Function",
        clearPlugin: "Function",
        clearAll: "Function",
        list: "Function",
        snapshot: "Function",
        bind: "Function",
    }
    /// The calls `host.js` settles in one crossing (`settleBatch`): three
    /// columns as long as each other, reused from one crossing to the next.
    Settled {
        /// Each call's [`NestedCall::key`].
        keys: "number[]",
        /// Whether it succeeded.
        oks: "boolean[]",
        /// Its result's JSON text (or the last part of it, when the rest
        /// was appended), or its error's message.
        payloads: "string[]",
    }
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

/// Where a tool comes from. Plugin tools are `Openclaw` with a `source_name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ToolSource {
    Openclaw,
    Mcp,
    Client,
}

impl ToolSource {
    /// Every source, in the order of its code in [`ToolColumns::sources`].
    pub const ALL: [Self; 3] = [Self::Openclaw, Self::Mcp, Self::Client];

    /// The source's code in [`ToolColumns::sources`].
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The source of a code in [`ToolColumns::sources`].
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(usize::from(code)).copied()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openclaw => "openclaw",
            Self::Mcp => "mcp",
            Self::Client => "client",
        }
    }
}

/// What the guest did to make a nested call, as a `waiting` result's
/// `pendingToolCalls[].method` names it: `tools.*` (`call`), `MCP.*`, a
/// plugin namespace function, `yield_control`, or a timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum CallKind {
    Call,
    Mcp,
    Namespace,
    Yield,
    SetTimeout,
    SetInterval,
}

impl CallKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Call => "call",
            Self::Mcp => "mcp",
            Self::Namespace => "namespace",
            Self::Yield => "yield",
            Self::SetTimeout => "setTimeout",
            Self::SetInterval => "setInterval",
        }
    }
}

/// Where a plugin namespace call was made: the namespace id and the path of
/// the function in its scope, which the host checks against what it
/// serialised for the run before it maps the arguments.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NamespaceTarget {
    pub id: String,
    pub path: String,
    /// The function as the cell names it (`Issues.update`), for messages.
    pub callee: String,
}

/// One nested call, from the guest's call to the gateway's `executeTool`:
/// the sandbox makes it when the guest calls (`GuestCall` keeps it beside
/// the guest's promise), the run hands it to the host as it is (`Dispatch`,
/// which adds where it settles), and the binding writes it for `host.js`
/// as it is. Its input travels apart: it can be large, and is cut into
/// pieces on the way.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NestedCall {
    /// The run's key of the call (`CallKey`).
    #[cfg_attr(test, ts(type = "number"))]
    pub key: u64,
    pub kind: CallKind,
    /// Catalog id, e.g. `openclaw:core:read`.
    pub tool_id: String,
    pub name: String,
    pub source: ToolSource,
    pub source_name: Option<String>,
    pub tool_call_id: String,
    pub parent_tool_call_id: Option<String>,
    /// The parked run's id, once the run has parked (set when the call is
    /// handed to the host).
    pub code_mode_run_id: Option<String>,
    /// A plugin namespace call: the guest's arguments are its input (a JSON
    /// array), which the host checks and maps, and the call resolves to the
    /// result's `details` when it has them.
    pub namespace: Option<NamespaceTarget>,
    /// Why its input was refused (its schema): the host shows the call as a
    /// failed nested call with this message and never starts the tool.
    pub rejection: Option<String>,
}

/// Tools per source: the catalog's, in telemetry and in a scan's outline.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SourceCounts {
    #[cfg_attr(test, ts(type = "number"))]
    pub openclaw: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub mcp: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub client: u64,
}

/// A plugin's tool, by the plugin's id and the tool's name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PluginTool {
    pub plugin_id: String,
    pub name: String,
}

/// `RunContext.tools` in short, as `prepare.js`'s scan writes it: what
/// `prepareRun` plans with before the catalog is built.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolsOutline {
    /// Tools in all.
    pub count: usize,
    /// Distinct `mcp.server` names of the catalog's MCP tools.
    pub mcp_servers: Vec<String>,
    /// The tools plugin namespaces require that the catalog holds.
    pub plugin_tools: Vec<PluginTool>,
    /// The catalog's tools per source.
    pub sources: SourceCounts,
}

/// A plugin namespace registration, as the registry (`namespaces.js`) lists
/// it in a snapshot.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Registration {
    pub id: String,
    pub plugin_id: String,
    pub global_name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    pub required_tool_names: Vec<String>,
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
        ToolSource::decl(&config),
        CallKind::decl(&config),
        NamespaceTarget::decl(&config),
        NestedCall::decl(&config),
        SourceCounts::decl(&config),
        PluginTool::decl(&config),
        ToolsOutline::decl(&config),
        Registration::decl(&config),
    ] {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    for (name, fields) in js_records() {
        out.push_str(&format!("export type {name} = {{ "));
        for (field, ty) in fields {
            out.push_str(&format!("{field}: {ty}, "));
        }
        out.push_str("};\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}
