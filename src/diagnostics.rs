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
    /// Sandbox processes running now (`isolation: 'process'`).
    pub sandbox_processes: u32,
    /// Sandbox processes started in this process, replacements included.
    pub sandbox_starts: u32,
    /// Sandbox processes started to replace one that stopped.
    pub sandbox_restarts: u32,
    /// Sandbox processes that stopped while in use: crashed, were killed,
    /// stopped answering, or wrote what the addon could not accept. Each
    /// failed only the runs it held (`runtime_unavailable`).
    pub sandbox_failures: u32,
}

/// Process-wide diagnostics of the addon.
#[napi]
pub fn code_mode_diagnostics() -> CodeModeDiagnostics {
    let (total, running) = code_mode_core::runs::abandoned_workers();
    let mut diagnostics = CodeModeDiagnostics {
        typescript_initialized: code_mode_core::source::typescript_initialized(),
        abandoned_workers: saturate(total as u64),
        abandoned_workers_running: saturate(running as u64),
        retired_vms: saturate(code_mode_core::runs::retired_vms()),
        answered_in_queue: saturate(code_mode_core::runs::answered_in_queue() as u64),
        schema_problems: Vec::new(),
        sandbox_processes: 0,
        sandbox_starts: 0,
        sandbox_restarts: 0,
        sandbox_failures: 0,
    };
    // What happened inside sandbox processes counts the same; their
    // schema problems are in this process's list already.
    #[cfg(target_os = "linux")]
    {
        use code_mode_sandbox::client::{counts, sandbox_stats};
        use std::sync::atomic::Ordering::Relaxed;
        let inside = sandbox_stats();
        let d = &mut diagnostics;
        d.typescript_initialized |= inside.typescript_initialized;
        d.abandoned_workers = d
            .abandoned_workers
            .saturating_add(saturate(inside.abandoned_workers));
        d.abandoned_workers_running = d
            .abandoned_workers_running
            .saturating_add(saturate(inside.abandoned_workers_running));
        d.retired_vms = d.retired_vms.saturating_add(saturate(inside.retired_vms));
        d.answered_in_queue = d
            .answered_in_queue
            .saturating_add(saturate(inside.answered_in_queue));
        let counts = counts();
        d.sandbox_processes = saturate(counts.running.load(Relaxed));
        d.sandbox_starts = saturate(counts.started.load(Relaxed));
        d.sandbox_restarts = saturate(counts.restarts.load(Relaxed));
        d.sandbox_failures = saturate(counts.stopped.load(Relaxed));
    }
    diagnostics.schema_problems = code_mode_core::validation::schema_problems();
    diagnostics
}

fn saturate(count: u64) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}
