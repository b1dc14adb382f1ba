//! One exec or wait call waiting for its result. Whoever reports first wins:
//! the worker driving the run, or the watchdog when that worker is stuck in
//! native code past the deadline. Every result leaves through
//! [`Leg::report`], which stamps the agent run's telemetry and `replaySafe`.

use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;

use super::agent_run::AgentRun;
use crate::messages;
use crate::result::{ErrorCode, RunResult};
use crate::sandbox::Control;

/// Called once with the result of an exec or wait.
pub type Done = Box<dyn FnOnce(RunResult) + Send + 'static>;

pub(super) struct Leg {
    done: Mutex<Option<Done>>,
    control: Arc<Control>,
    deadline: Instant,
    agent_run: Arc<AgentRun>,
    /// The cell's `restartSafe`: every result of its legs carries it.
    restart_safe: bool,
}

impl Leg {
    /// A leg whose budget is already armed on `control`.
    pub(super) fn new(
        done: Done,
        control: Arc<Control>,
        agent_run: Arc<AgentRun>,
        restart_safe: bool,
    ) -> Arc<Self> {
        Arc::new(Self {
            done: Mutex::new(Some(done)),
            deadline: control.deadline().unwrap_or_else(Instant::now),
            control,
            agent_run,
            restart_safe,
        })
    }

    /// Reports `result` unless the leg has reported already.
    pub(super) fn report(&self, mut result: RunResult) {
        let done = self.done.lock().take();
        if let Some(done) = done {
            result.replay_safe = self.restart_safe;
            result.telemetry = self.agent_run.telemetry();
            done(result);
        }
    }

    /// Reports a failure with no output.
    pub(super) fn refuse(&self, code: ErrorCode, message: &str) {
        self.report(RunResult::failed(code, message));
    }

    /// Whether the result went out already.
    pub(super) fn reported(&self) -> bool {
        self.done.lock().is_none()
    }

    /// Whether the call was stopped (aborted, closed).
    pub(super) fn stopped(&self) -> bool {
        self.control.stopped().is_some()
    }

    /// The result of a leg ended from outside while its worker is stuck in a
    /// builtin: a timeout, or the reason it was stopped for (abort, close).
    pub(super) fn stuck_result(&self) -> RunResult {
        let (code, message) = self
            .control
            .stopped()
            .map_or((ErrorCode::Timeout, messages::TIMEOUT), |stop| stop.error());
        RunResult::failed(code, message)
    }

    /// Ends the leg from outside (the watchdog's verdict).
    pub(super) fn report_stuck(&self) {
        self.report(self.stuck_result());
    }

    /// Records a timeout once the deadline has passed, which raises the
    /// interrupt flag QuickJS polls (the watchdog's nudge for a VM inside a
    /// long builtin call).
    pub(super) fn enforce_deadline(&self) {
        self.control.enforce_deadline();
    }

    /// The session the pool schedules this leg for.
    pub(super) fn session(&self) -> &str {
        self.agent_run.owner.session()
    }

    pub(super) fn deadline(&self) -> Instant {
        self.deadline
    }
}
