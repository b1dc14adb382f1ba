//! Process-wide facts for tests and operators.

use napi_derive::napi;

/// What the addon has loaded or started in this process.
#[napi(object)]
pub struct CodeModeDiagnostics {
    /// Whether the TypeScript machinery (swc) has been initialised. A process
    /// that only runs JavaScript cells never initialises it.
    pub typescript_initialized: bool,
    /// Worker threads the watchdog has abandoned in this process: each was
    /// stuck in one builtin call past its run's deadline (plus a grace
    /// period), so its call was answered from outside and a fresh worker took
    /// its place.
    pub abandoned_workers: u32,
    /// Abandoned workers still finishing that call. While eight of them that
    /// were replaced are running, the process stops replacing them.
    pub abandoned_workers_running: u32,
    /// QuickJS runtimes retired in this process instead of freed normally:
    /// the engine's teardown found objects it had leaked (an engine bug a
    /// cell reached, for example through running out of memory at an
    /// unlucky allocation). The runtime's memory was released all the same,
    /// and the cell, when it had not been answered yet, got `internal_error`.
    pub retired_vms: u32,
    /// Execs and waits the watchdog answered before any worker started them:
    /// their budget ended (or they were aborted) while they waited for one.
    pub answered_in_queue: u32,
    /// Tools whose input schema did not compile, so their inputs are not
    /// validated (the newest 64, one sentence each naming the tool).
    pub schema_problems: Vec<String>,
}

/// Process-wide diagnostics of the addon.
#[napi]
pub fn code_mode_diagnostics() -> CodeModeDiagnostics {
    let (total, running) = code_mode_core::runs::abandoned_workers();
    CodeModeDiagnostics {
        typescript_initialized: code_mode_core::source::typescript_initialized(),
        abandoned_workers: saturate(total),
        abandoned_workers_running: saturate(running),
        retired_vms: saturate(
            usize::try_from(code_mode_core::runs::retired_vms()).unwrap_or(usize::MAX),
        ),
        answered_in_queue: saturate(code_mode_core::runs::answered_in_queue()),
        schema_problems: code_mode_core::validation::schema_problems(),
    }
}

fn saturate(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}
