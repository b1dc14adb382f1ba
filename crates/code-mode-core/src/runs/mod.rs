//! The exec engine: hands cells to the worker pool, enforces the budget, and
//! turns every outcome (including a Rust panic) into a result.

mod cell;
mod pool;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::config::CodeModeConfig;
use crate::input::ExecInput;
use crate::messages;
use crate::result::{ErrorCode, RunResult};
use crate::sandbox::{Control, Stop};
use pool::Pool;

/// Bytes of JS stack a cell may use before a RangeError.
pub const JS_STACK_BYTES: usize = 4 * 1024 * 1024;

/// Called once with the result of an exec.
pub type Done = Box<dyn FnOnce(RunResult) + Send + 'static>;

/// One exec call, validated.
pub struct ExecRequest {
    pub input: ExecInput,
    pub config: Arc<CodeModeConfig>,
    /// When the host call was made: the budget starts here (SPEC 14.27).
    pub started: Instant,
}

pub struct Engine {
    pool: Pool,
    closed: AtomicBool,
    /// Controls of cells in progress, so `close` can stop them.
    live: Mutex<Vec<Weak<Control>>>,
}

impl Engine {
    pub fn new(workers: usize) -> std::io::Result<Self> {
        Ok(Self {
            pool: Pool::new(workers, cell::refill_spare)?,
            closed: AtomicBool::new(false),
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

    /// Runs one cell; `done` receives the result on a worker thread. `control`
    /// lets the host stop the cell (abort) while it runs.
    pub fn exec(&self, request: ExecRequest, control: Arc<Control>, done: Done) {
        if self.is_closed() {
            return done(RunResult::failed(
                ErrorCode::RuntimeUnavailable,
                messages::CLOSED,
            ));
        }
        if let Some(stop) = control.stopped() {
            return done(cell::stopped_result(stop));
        }
        control.arm(request.started + Duration::from_millis(request.config.timeout_ms));
        self.track(&control);
        self.pool.submit(Box::new(move |on_worker| {
            if !on_worker {
                return done(cell::stopped_result(Stop::Closed));
            }
            let (result, vm) = catch_unwind(AssertUnwindSafe(|| cell::run(request, &control)))
                .unwrap_or_else(|_| {
                    let result = RunResult::failed(ErrorCode::InternalError, messages::INTERNAL);
                    (result, None)
                });
            done(result);
            // Teardown and the next cell's VM cost nothing to this one's caller.
            let _ = catch_unwind(AssertUnwindSafe(move || {
                drop(vm);
                cell::refill_spare();
            }));
        }));
    }

    /// Stops every cell in progress and the workers.
    pub fn close(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        for control in self.live.lock().drain(..).filter_map(|weak| weak.upgrade()) {
            control.stop(Stop::Closed);
        }
        self.pool.shutdown();
    }

    fn track(&self, control: &Arc<Control>) {
        let mut live = self.live.lock();
        live.retain(|weak| weak.strong_count() > 0);
        live.push(Arc::downgrade(control));
    }
}
