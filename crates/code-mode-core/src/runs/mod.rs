//! The exec engine: hands runs to the workers, enforces the budget, parks and
//! resumes runs, and turns every outcome (including a Rust panic) into a
//! result. `ARCHITECTURE.md` traces a cell through these modules. When the
//! threads that hand nested calls to each other poll, sleep, yield or step
//! aside is decided by [`hand_off`] alone.

mod agent_run;
mod gate;
pub mod hand_off;
pub mod host;
mod leg;
#[cfg(test)]
mod panic_tests;
pub mod pieces;
mod request;
mod run;
mod store;
mod worker;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::Mutex;

pub use self::agent_run::{AgentRun, RunOwner};
pub use self::gate::Gate;
pub use self::leg::Done;
pub use self::request::{ExecRequest, WaitRequest};
pub use self::store::Refusal;
pub use self::worker::{abandoned_workers, answered_in_queue};
#[cfg(feature = "test-hooks")]
pub use crate::sandbox::fault;
pub use crate::sandbox::{guest_globals, retired_vms, Control, Stop, Toolbox};

use self::leg::Leg;
use self::run::Job;
use self::store::Store;
use self::worker::Workers;
use crate::limits::MAX_WORKER_THREADS;
use crate::messages;
use crate::result::{ErrorCode, RunResult};

pub struct Engine {
    workers: Workers,
    store: Arc<Store>,
    closed: AtomicBool,
    /// Whether `close` ran its blocking part.
    shut: AtomicBool,
    /// Controls of legs in progress, so `close` can stop them.
    live: Mutex<Vec<Weak<Control>>>,
    /// Execs held back until the host has prepared them, so `close` can
    /// answer them.
    gates: Mutex<Vec<std::sync::Weak<Mutex<Option<gate::Held>>>>>,
}

impl Engine {
    pub fn new(workers: usize) -> std::io::Result<Self> {
        let store = Store::new()?;
        Ok(Self {
            workers: Workers::new(workers, store.clone())?,
            store,
            closed: AtomicBool::new(false),
            shut: AtomicBool::new(false),
            live: Mutex::new(Vec::new()),
            gates: Mutex::new(Vec::new()),
        })
    }

    /// The default worker count: the number of cores, within 1..=16.
    pub fn default_workers() -> usize {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, MAX_WORKER_THREADS)
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Runs one cell; `done` receives the result on a worker thread (or at once
    /// on this one when the engine is closed or the call was already stopped).
    /// `control` lets the host stop the run (abort) while it runs.
    pub fn exec(&self, request: ExecRequest, control: Arc<Control>, done: Done) {
        let timeout = Duration::from_millis(request.agent_run.config.timeout_ms);
        control.arm(request.started + timeout);
        let agent_run = request.agent_run.clone();
        let refusal = match (self.is_closed(), control.stopped()) {
            (true, _) => Some(RunResult::failed(
                ErrorCode::RuntimeUnavailable,
                messages::CLOSED,
            )),
            (false, Some(stop)) => Some(run::stopped_result(stop)),
            (false, None) => None,
        };
        if let Some(result) = refusal {
            // A cell refused before it is accepted is not a restart-safe result.
            return Leg::new(done, control, agent_run, false).report(result);
        }
        let leg = Leg::new(done, control.clone(), agent_run, request.input.restart_safe);
        self.track(&control);
        self.workers.submit(Job::exec(request, control, leg));
    }

    /// Holds an exec back until the host has prepared it ([`Engine::open`]) or
    /// refuses it ([`Engine::refuse_held`]); its budget runs from the
    /// request's start meanwhile. `close` answers held execs as closed.
    pub fn hold(&self, request: ExecRequest, control: Arc<Control>, done: Done) -> Gate {
        let gate = Gate::new(request, control, done);
        {
            let mut gates = self.gates.lock();
            gates.retain(|weak| weak.strong_count() > 0);
            gates.push(Arc::downgrade(&gate.held));
        }
        if self.is_closed() {
            if let Some(held) = gate.take() {
                held.close();
            }
        }
        gate
    }

    /// Lets a held exec through to the workers (a stop meanwhile is reported
    /// as it would be for any exec); nothing when it was answered already.
    pub fn open(&self, gate: &Gate) {
        if let Some(held) = gate.take() {
            self.exec(held.request, held.control, held.done);
        }
    }

    /// Answers a held exec with a failure without running it; nothing when it
    /// was answered already.
    pub fn refuse_held(&self, gate: &Gate, code: ErrorCode, message: &str) {
        if let Some(held) = gate.take() {
            held.refuse(code, message);
        }
    }

    /// Resumes a parked run with a fresh budget; `done` receives the result. A
    /// wait that cannot take the run (unknown, expired, foreign, already being
    /// resumed) fails with `invalid_input`; a stopped one drops the run.
    pub fn wait(&self, request: WaitRequest, control: Arc<Control>, done: Done) {
        let timeout = Duration::from_millis(request.agent_run.config.timeout_ms);
        control.arm(request.started + timeout);
        let taken = match self.is_closed() {
            true => Err(Refusal::Closed),
            false => self.store.take(&request.run_id, &request.agent_run.owner),
        };
        let run = match taken {
            Ok(run) => run,
            Err(refusal) => {
                let leg = Leg::new(done, control, request.agent_run.clone(), false);
                let (code, message) = refusal.error();
                return leg.refuse(code, message);
            }
        };
        if let Some(stop) = control.stopped() {
            // Aborted before it started: the run is dropped and the call
            // answered here, without waiting for a worker.
            self.store.drop_taken(run);
            let leg = Leg::new(done, control, request.agent_run.clone(), false);
            return leg.report(run::stopped_result(stop));
        }
        let leg = Leg::new(done, control.clone(), run.agent_run(), run.restart_safe());
        self.track(&control);
        self.workers
            .submit_resume(Job::resume(run, request, control, leg));
    }

    /// Answers an exec or wait the host refused before it reached the engine
    /// (invalid input), with the agent run's telemetry.
    pub fn refuse(&self, agent_run: Arc<AgentRun>, code: ErrorCode, message: &str, done: Done) {
        Leg::new(done, Arc::new(Control::new()), agent_run, false).refuse(code, message);
    }

    /// Parked runs held now.
    pub fn suspended_runs(&self) -> usize {
        self.store.parked()
    }

    /// Sets what is told the count of parked runs each time some expired
    /// (once per engine): a host that mirrors the count (a sandbox's
    /// client) learns of expiries this way.
    pub fn on_expired(&self, tell: impl Fn(usize) + Send + Sync + 'static) {
        self.store.on_expired(Box::new(tell));
    }

    /// Refuses new work and stops every leg in progress, at once (cheap: call
    /// it on the JavaScript thread); [`Engine::close`] finishes the job.
    pub fn begin_close(&self) {
        self.closed.store(true, Ordering::Release);
        for control in self.live.lock().drain(..).filter_map(|weak| weak.upgrade()) {
            control.stop(Stop::Closed);
        }
        let gates: Vec<_> = self.gates.lock().drain(..).collect();
        for held in gates.iter().filter_map(|weak| weak.upgrade()) {
            let taken = held.lock().take();
            if let Some(held) = taken {
                held.close();
            }
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
        // A close that ran while this leg was being tracked missed it.
        if self.is_closed() {
            control.stop(Stop::Closed);
        }
    }
}
