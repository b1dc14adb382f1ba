//! What the binding's own calls throw or fail with, as the gateway sees
//! them: `createCodeMode`, `prepareRun`, `exec`, and the namespace registry.

pub const WORKER_THREADS_INVALID: &str = "workerThreads must be a positive integer.";
pub const ISOLATION_INVALID: &str = "isolation must be 'thread' or 'process'.";
pub const SANDBOX_PROCESSES_INVALID: &str = "sandboxProcesses must be an integer from 1 to 16.";
pub const SANDBOX_BINARY_INVALID: &str = "sandboxBinary must be a non-empty string.";
pub const ISOLATION_ENV_INVALID: &str =
    "CODE_MODE_ISOLATION must be 'thread' or 'process' when set.";
pub const PROCESS_ISOLATION_UNSUPPORTED: &str =
    "isolation 'process' is not available on this platform yet; use 'thread'.";
pub const EXECUTE_TOOL_REQUIRED: &str = "RunContext.executeTool must be a function.";
pub const EVENTS_NOT_ARRAY: &str = "events must be an array.";
pub const NOT_ACTIVE: &str = "code mode is not active for this run.";
pub const HOST_BRIDGE_FAILED: &str = "code mode could not start its host bridge";
pub const HOST_CHANNEL_FAILED: &str = "code mode could not create its host channel";
pub const TOOL_READER_FAILED: &str = "code mode could not start its tool reader";
pub const TOOLS_NOT_READ: &str = "code mode could not read RunContext.tools";
pub const TOOLS_NOT_STREAMED: &str = "code mode could not stream RunContext.tools";
pub const TOOLS_UNFINISHED: &str = "code mode has not read every tool of the run";
pub const CATALOG_FAILED: &str = "code mode could not build the run's catalog";
pub const REGISTRY_FAILED: &str = "code mode could not start its namespace registry";
pub const REGISTRY_NOT_KEPT: &str = "code mode could not keep its namespace registry";

/// `createCodeMode` when its worker threads do not start.
/// `createCodeMode` with process isolation, when the sandbox executable
/// is not where it must be.
pub fn sandbox_binary_missing(path: &str) -> String {
    format!("code mode sandbox executable not found at {path}: reinstall the package for this platform (npm install), or run npm run build in a checkout.")
}

pub fn workers_failed(reason: &str) -> String {
    format!("code mode workers could not start: {reason}")
}

/// The tools' JSON text could not be read (`reason`: the parser's, or why).
pub fn tools_unreadable(reason: &str) -> String {
    format!("{TOOLS_NOT_READ}: {reason}")
}

/// The run's catalog could not be built, and why.
pub fn catalog_failed(reason: &str) -> String {
    format!("{CATALOG_FAILED}: {reason}")
}

/// The namespace registry answered what the binding cannot use.
pub fn registry_error(reason: &str) -> String {
    format!("code mode namespace registry: {reason}")
}

/// Why the tool columns could not be read (after [`tools_unreadable`]'s
/// prefix): `prepare.js` wrote columns of different lengths ...
pub const COLUMNS_DIFFER: &str = "its columns differ in length";
/// ... or a source code the core does not know.
pub const SOURCE_WITHOUT_CODE: &str = "a source has no code";

/// A diagnostic: a tool whose parameters `JSON.stringify` could not write
/// (`problem`: what it threw, or why).
pub fn tool_schema_unwritable(name: &str, problem: &str) -> String {
    format!("Tool \"{name}\" has no schema: its parameters could not be written as JSON ({problem}); pass parameters JSON.stringify can write.")
}

/// Why the namespace registry's answer is unusable (after
/// [`registry_error`]'s prefix): its snapshot has no records ...
pub const REGISTRY_NO_RECORDS: &str = "no records";
/// ... or binding a run's namespaces gave no functions.
pub const REGISTRY_BIND_FAILED: &str = "bind failed";

/// The process warning (after `code mode: `) when a batch of nested calls
/// could not be aborted.
pub fn abort_failed(error: &str) -> String {
    format!("nested calls could not be aborted: {error}")
}

/// The process warning (`code mode: ...`) when the answer of a namespace
/// call's input check (made on the checker thread) could not be handed to
/// `host.js`.
pub fn checked_undelivered(error: &str) -> String {
    format!("nested calls could not be started: {error}")
}
