//! What the binding's own calls throw or fail with, as the gateway sees
//! them: `createCodeMode`, `prepareRun`, `exec`, and the namespace registry.

pub const WORKER_THREADS_INVALID: &str = "workerThreads must be a positive integer.";
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
