//! The exec engine: hands runs to the workers, enforces the budget, and turns
//! every outcome (including a Rust panic) into a result.

pub mod host;
mod run;
mod store;
mod worker;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::config::CodeModeConfig;
use crate::input::ExecInput;
use crate::messages;
use crate::result::{ErrorCode, RunResult, SourceCounts, Telemetry};
use crate::sandbox::bridge::BridgeScope;
use crate::sandbox::Control;
use host::Host;
use run::{Job, JobKind};
pub use store::RunScope;
use store::Store;
use worker::Workers;

/// Bytes of JS stack a cell may use before a RangeError.
pub const JS_STACK_BYTES: usize = 4 * 1024 * 1024;

/// Called once with the result of an exec.
pub type Done = Box<dyn FnOnce(RunResult) + Send + 'static>;

/// One exec or wait call waiting for its result. Whoever reports first wins:
/// the worker driving the run, or the watchdog when that worker is stuck in
/// native code past the deadline.
pub(crate) struct Leg {
    done: parking_lot::Mutex<Option<Done>>,
    control: Arc<Control>,
    deadline: Instant,
    surface: Arc<RunSurface>,
    restart_safe: bool,
}

impl Leg {
    fn new(
        done: Done,
        control: Arc<Control>,
        surface: Arc<RunSurface>,
        restart_safe: bool,
    ) -> Arc<Self> {
        Arc::new(Self {
            done: parking_lot::Mutex::new(Some(done)),
            deadline: control.deadline().unwrap_or_else(Instant::now),
            control,
            surface,
            restart_safe,
        })
    }

    /// Reports `result` unless the leg has reported already.
    pub(crate) fn report(&self, result: RunResult) {
        let done = self.done.lock().take();
        if let Some(done) = done {
            done(result);
        }
    }

    /// Whether the result went out already.
    pub(crate) fn reported(&self) -> bool {
        self.done.lock().is_none()
    }

    /// Whether the call was stopped (aborted, closed).
    pub(crate) fn stopped(&self) -> bool {
        self.control.stopped().is_some()
    }

    /// Ends the leg from outside (the watchdog's verdict): a timeout, or the
    /// reason it was stopped for.
    pub(crate) fn time_out(&self) {
        let (code, message) = self.control.stopped().map_or(
            (ErrorCode::Timeout, messages::TIMEOUT),
            crate::sandbox::Stop::error,
        );
        let mut result = RunResult::failed(code, message);
        result.set_replay_safe(self.restart_safe);
        result.set_telemetry(self.surface.telemetry());
        self.report(result);
    }

    pub(crate) fn deadline(&self) -> Instant {
        self.deadline
    }
}

/// What every run of one `prepareRun` shares: the catalog and counters the
/// guest sees, the host its nested calls go to, and the model-visible names.
pub struct RunSurface {
    pub bridge: Arc<BridgeScope>,
    pub host: Arc<dyn Host>,
    /// Model-visible tool names (exec, wait and the direct-only tools).
    pub visible_tools: Vec<String>,
}

impl RunSurface {
    /// The telemetry block of every result (SPEC 11): cumulative for the surface.
    pub fn telemetry(&self) -> Telemetry {
        let catalog = &self.bridge.catalog;
        let (openclaw, mcp, client) = catalog.source_counts();
        let counters = &self.bridge.counters;
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
            visible_tools: self.visible_tools.clone(),
        }
    }
}

/// One exec call, validated.
pub struct ExecRequest {
    pub input: ExecInput,
    pub config: Arc<CodeModeConfig>,
    /// When the host call was made: the budget starts here (SPEC 14.27).
    pub started: Instant,
    pub surface: Arc<RunSurface>,
    /// The exec call's own tool call id, the parent of its nested calls.
    pub parent_tool_call_id: Option<String>,
    /// Who may resume the run if it parks.
    pub scope: Arc<RunScope>,
}

/// One wait call, validated.
pub struct WaitRequest {
    pub run_id: String,
    pub config: Arc<CodeModeConfig>,
    /// When the host call was made: the fresh budget starts here.
    pub started: Instant,
    /// The surface the wait came through (its telemetry, when the run is gone).
    pub surface: Arc<RunSurface>,
    /// The wait call's own tool call id, the parent of new nested calls.
    pub parent_tool_call_id: Option<String>,
    /// Who is asking.
    pub scope: RunScope,
}

pub struct Engine {
    workers: Workers,
    store: Arc<Store>,
    closed: AtomicBool,
    /// Whether `close` ran its blocking part.
    shut: AtomicBool,
    /// Controls of runs in progress, so `close` can stop them.
    live: Mutex<Vec<Weak<Control>>>,
}

impl Engine {
    pub fn new(workers: usize) -> std::io::Result<Self> {
        Ok(Self {
            workers: Workers::new(workers, run::refill_spare)?,
            store: Store::new()?,
            closed: AtomicBool::new(false),
            shut: AtomicBool::new(false),
            live: Mutex::new(Vec::new()),
        })
    }

    /// The default worker count: the number of cores, within 1..=16.
    pub fn default_workers() -> usize {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 16)
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Runs one cell; `done` receives the result on a worker thread (or at once
    /// on this one when the engine is closed or the run was already stopped).
    /// `control` lets the host stop the run (abort) while it runs.
    pub fn exec(&self, request: ExecRequest, control: Arc<Control>, done: Done) {
        let telemetry = || request.surface.telemetry();
        if self.is_closed() {
            let mut result = RunResult::failed(ErrorCode::RuntimeUnavailable, messages::CLOSED);
            result.set_telemetry(telemetry());
            return done(result);
        }
        if let Some(stop) = control.stopped() {
            let mut result = run::stopped_result(stop);
            result.set_telemetry(telemetry());
            return done(result);
        }
        control.arm(request.started + Duration::from_millis(request.config.timeout_ms));
        self.track(&control);
        let leg = Leg::new(
            done,
            control.clone(),
            request.surface.clone(),
            request.input.restart_safe,
        );
        self.workers.submit(Job {
            kind: JobKind::Exec(request),
            control,
            leg,
            store: self.store.clone(),
        });
    }

    /// Resumes a parked run with a fresh budget; `done` receives the result. A
    /// wait that cannot resume the run (unknown, expired, foreign, already
    /// being resumed) fails with `invalid_input`; an aborted one drops the run.
    pub fn wait(&self, request: WaitRequest, control: Arc<Control>, done: Done) {
        let fail = |code: ErrorCode, message: &str| {
            let mut result = RunResult::failed(code, message);
            result.set_telemetry(request.surface.telemetry());
            result
        };
        if self.is_closed() {
            return done(fail(ErrorCode::RuntimeUnavailable, messages::CLOSED));
        }
        let run = match self.store.take(&request.run_id, &request.scope) {
            Ok(run) => run,
            Err(message) => return done(fail(ErrorCode::InvalidInput, message)),
        };
        if let Some(stop) = control.stopped() {
            let mut result = run::stopped_result(stop);
            result.set_telemetry(request.surface.telemetry());
            self.store.release(&request.run_id);
            self.store.bury(run);
            return done(result);
        }
        control.arm(request.started + Duration::from_millis(request.config.timeout_ms));
        self.track(&control);
        let leg = Leg::new(done, control.clone(), run.surface(), run.restart_safe());
        self.workers.submit(Job {
            kind: JobKind::Resume(Box::new(run), request),
            control,
            leg,
            store: self.store.clone(),
        });
    }

    /// Parked runs held now.
    pub fn suspended_runs(&self) -> usize {
        self.store.parked()
    }

    /// Refuses new work and stops every leg in progress, at once (cheap: call
    /// it on the JavaScript thread); [`Engine::close`] finishes the job.
    pub fn begin_close(&self) {
        self.closed.store(true, Ordering::Release);
        for control in self.live.lock().drain(..).filter_map(|weak| weak.upgrade()) {
            control.stop(crate::sandbox::Stop::Closed);
        }
    }

    /// Stops every run in progress, drops the parked ones and joins the
    /// workers. Blocks: call it off the JavaScript thread.
    pub fn close(&self) {
        self.begin_close();
        if self.shut.swap(true, Ordering::AcqRel) {
            return;
        }
        self.store.close();
        self.workers.shutdown();
    }

    fn track(&self, control: &Arc<Control>) {
        {
            let mut live = self.live.lock();
            live.retain(|weak| weak.strong_count() > 0);
            live.push(Arc::downgrade(control));
        }
        // A close that ran while this run was being tracked missed it.
        if self.is_closed() {
            control.stop(crate::sandbox::Stop::Closed);
        }
    }
}
