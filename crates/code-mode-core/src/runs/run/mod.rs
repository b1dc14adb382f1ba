//! One run on a worker. An exec leg prepares the source, binds a fresh VM and
//! evaluates; a wait leg takes a parked run back. Either then alternates
//! between driving the guest and feeding it settled nested calls until the run
//! completes, fails, yields, or its budget ends with calls pending. How a leg
//! ends is decided in [`end`]; the store acts on it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

mod end;
mod spare;

pub(super) use end::{Disposition, Parking};
pub(super) use spare::refill_spare;

use super::agent_run::{AgentRun, RunOwner};
use super::host::{Arrivals, Dispatch, NestedCall, Reply, Waker};
use super::leg::Leg;
use super::request::{ExecRequest, WaitRequest};
use crate::config::CodeModeConfig;
use crate::limits::{JS_STACK_BYTES, MAX_BRIDGE_BYTES};
use crate::messages;
use crate::result::{ErrorCode, RunResult, Status, WaitReason};
use crate::sandbox::{CellOutcome, Control, Stop, Vm, VmLimits};
use crate::source::{self, SourceError};
use spare::fresh_vm;

/// Work handed to a worker: a new run, a parked one to resume, or a run
/// awaiting calls that moves from an abandoned worker.
pub(super) struct Job {
    kind: JobKind,
    control: Arc<Control>,
    leg: Arc<Leg>,
}

enum JobKind {
    Exec(ExecRequest),
    Resume(Box<Run>, WaitRequest),
    Adopt(Box<Run>),
}

/// Where a run stands after the worker drove it.
pub(super) enum Step {
    /// Waiting for nested calls to settle: the worker holds it.
    Awaiting(Run),
    /// The leg is over; [`Run::finish`] decides what happens next.
    Ended(Run, End),
}

impl Job {
    pub(super) fn exec(request: ExecRequest, control: Arc<Control>, leg: Arc<Leg>) -> Self {
        Self {
            kind: JobKind::Exec(request),
            control,
            leg,
        }
    }

    pub(super) fn resume(
        run: Run,
        request: WaitRequest,
        control: Arc<Control>,
        leg: Arc<Leg>,
    ) -> Self {
        Self {
            kind: JobKind::Resume(Box::new(run), request),
            control,
            leg,
        }
    }

    /// A run that awaits calls, for another worker to hold: the worker it
    /// was on got stuck in a builtin while driving a different run. A run
    /// with no call waiting on it comes back, to be dropped instead.
    pub(super) fn adopt(run: Run) -> Result<Self, Box<Run>> {
        let run = Box::new(run);
        match run.leg.clone() {
            Some(leg) => Ok(Self {
                control: run.control.clone(),
                kind: JobKind::Adopt(run),
                leg,
            }),
            None => Err(run),
        }
    }

    /// The call waiting for this job.
    pub(super) fn leg(&self) -> Arc<Leg> {
        self.leg.clone()
    }

    /// Takes apart a job that will never run: the call waiting for it, and
    /// the run a wait had taken (for the store to drop).
    pub(super) fn into_refused(self) -> (Arc<Leg>, Option<Run>) {
        match self.kind {
            JobKind::Exec(_) => (self.leg, None),
            JobKind::Resume(run, _) | JobKind::Adopt(run) => (self.leg, Some(*run)),
        }
    }

    /// Starts the leg on this worker.
    pub(super) fn start(self, waker: Waker) -> Step {
        let Job { kind, control, leg } = self;
        let (mut run, request) = match kind {
            JobKind::Exec(request) => (Run::new(&request, control.clone(), leg), Ok(request)),
            JobKind::Resume(run, request) => {
                let mut run = *run;
                run.take_leg(control.clone(), leg, request.agent_run.config.clone());
                (run, Err(request))
            }
            JobKind::Adopt(run) => {
                // Same leg, same control (its stop already wakes the run);
                // a new thread, whose stack the VM must measure from.
                let mut run = *run;
                if let Some(vm) = &run.vm {
                    vm.adopt_thread();
                }
                run.arrivals.set_waker(Some(waker));
                let end = run.poll();
                return Step::after(run, end);
            }
        };
        run.arrivals.set_waker(Some(waker));
        let arrivals = Arc::downgrade(&run.arrivals);
        control.on_stop(move || {
            if let Some(arrivals) = arrivals.upgrade() {
                arrivals.poke();
            }
        });
        let begun = catch_unwind(AssertUnwindSafe(|| match &request {
            Ok(request) => run.begin(request),
            Err(request) => run.resume(request),
        }));
        Step::after(run, begun.unwrap_or_else(|_| Some(End::internal())))
    }
}

impl Step {
    /// Where a run stands once the worker drove it to `end` (none: it awaits).
    pub(super) fn after(run: Run, end: Option<End>) -> Self {
        match end {
            Some(end) => Step::Ended(run, end),
            None => Step::Awaiting(run),
        }
    }
}

/// How a leg ends.
pub(super) enum End {
    Result(RunResult),
    Park(WaitReason),
}

impl End {
    fn internal() -> Self {
        End::Result(RunResult::failed(
            ErrorCode::InternalError,
            messages::INTERNAL,
        ))
    }
}

/// A code-mode run: its VM, the settlements arriving for it, and the leg
/// driving it now. The same value is held by a worker while a leg runs and by
/// the store while it is parked.
pub(super) struct Run {
    vm: Option<Vm>,
    /// The control block of the current leg.
    control: Arc<Control>,
    arrivals: Arc<Arrivals>,
    agent_run: Arc<AgentRun>,
    /// The configuration of the current leg (a wait brings its own).
    config: Arc<CodeModeConfig>,
    restart_safe: bool,
    /// The id the run is parked under, or was resumed from.
    id: Option<String>,
    /// Whether this leg fed the guest anything (settlements or a yield
    /// answer): a run parks under a new id then, and a restart-safe run parks
    /// at its next await.
    fed: bool,
    /// The exec or wait call waiting for this leg's result.
    leg: Option<Arc<Leg>>,
}

impl Run {
    fn new(request: &ExecRequest, control: Arc<Control>, leg: Arc<Leg>) -> Self {
        let max_bridge_bytes = bridge_budget(&request.agent_run.config);
        Self {
            vm: None,
            control,
            arrivals: Arc::new(Arrivals::new(max_bridge_bytes)),
            agent_run: request.agent_run.clone(),
            config: request.agent_run.config.clone(),
            restart_safe: request.input.restart_safe,
            id: None,
            fed: false,
            leg: Some(leg),
        }
    }

    /// Binds the run to the leg of a wait that resumes it.
    fn take_leg(&mut self, control: Arc<Control>, leg: Arc<Leg>, config: Arc<CodeModeConfig>) {
        self.control = control;
        self.leg = Some(leg);
        self.config = config;
        self.fed = false;
    }

    pub(super) fn owner(&self) -> &RunOwner {
        &self.agent_run.owner
    }

    pub(super) fn agent_run(&self) -> Arc<AgentRun> {
        self.agent_run.clone()
    }

    pub(super) fn restart_safe(&self) -> bool {
        self.restart_safe
    }

    /// The call waiting for this leg, for the watchdog.
    pub(super) fn leg(&self) -> Option<Arc<Leg>> {
        self.leg.clone()
    }

    pub(super) fn deadline(&self) -> Option<Instant> {
        self.control.deadline()
    }

    /// When the worker holding this run must look at it again without news:
    /// its deadline, or its earliest timer if that falls due first.
    pub(super) fn wake_at(&self) -> Option<Instant> {
        let timer = self.vm.as_ref().and_then(Vm::next_timer_due);
        match (self.deadline(), timer) {
            (Some(deadline), Some(timer)) => Some(deadline.min(timer)),
            (deadline, timer) => deadline.or(timer),
        }
    }

    /// Whether the run awaits nested calls (not only timers): their answers
    /// come from the host, worth polling for.
    pub(super) fn awaits_calls(&self) -> bool {
        self.vm
            .as_ref()
            .is_some_and(|vm| vm.calls().has_host_work())
    }

    /// Whether the run has something to do now: a settlement arrived, a
    /// timer is due, its deadline passed, or it was stopped.
    pub(super) fn ready(&self, now: Instant) -> bool {
        self.wake_at().is_some_and(|at| at <= now)
            || self.arrivals.has_news()
            || self.control.stopped().is_some()
    }

    /// Whether a timer of the run is due.
    fn timer_due(&self) -> bool {
        self.vm
            .as_ref()
            .and_then(Vm::next_timer_due)
            .is_some_and(|due| due <= Instant::now())
    }

    /// Prepares the source, binds a VM and evaluates.
    fn begin(&mut self, request: &ExecRequest) -> Option<End> {
        if let Some(stop) = self.control.stopped() {
            return Some(End::Result(stopped_result(stop)));
        }
        if self
            .control
            .deadline()
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Some(End::Result(stopped_result(Stop::Timeout)));
        }
        let prepared = match source::prepare(&request.input.code, request.input.language) {
            Ok(prepared) => prepared,
            Err(error) => {
                let code = match error {
                    SourceError::Syntax { .. } => ErrorCode::InternalError,
                    _ => ErrorCode::InvalidInput,
                };
                return Some(End::Result(RunResult::failed(code, error.message())));
            }
        };
        let vm = match fresh_vm(self.limits(), &self.control, &self.agent_run) {
            Ok(vm) => vm,
            Err(error) => {
                return Some(End::Result(RunResult::failed(
                    ErrorCode::RuntimeUnavailable,
                    messages::runtime_could_not_start(error),
                )));
            }
        };
        vm.set_restart_safe(self.restart_safe);
        vm.calls().start_leg(request.parent_tool_call_id.clone());
        let vm = self.vm.insert(vm);
        let outcome = vm.start(&prepared.script);
        self.advance(outcome)
    }

    fn limits(&self) -> VmLimits {
        let config = &self.config;
        VmLimits {
            memory_bytes: config.memory_limit_bytes as usize,
            stack_bytes: JS_STACK_BYTES,
            max_output_bytes: config.max_output_bytes as usize,
            max_bridge_bytes: bridge_budget(config),
        }
    }

    /// Takes a parked run back: new control block, settled results and yield
    /// answers fed in.
    fn resume(&mut self, request: &WaitRequest) -> Option<End> {
        if let Some(stop) = self.control.stopped().filter(|&stop| stop != Stop::Timeout) {
            return Some(End::Result(stopped_result(stop)));
        }
        let vm = self.vm.as_mut()?;
        vm.rebind(self.control.clone());
        vm.calls().start_leg(request.parent_tool_call_id.clone());
        // A wait that reached its worker after its budget was gone (the
        // worker was busy) parks the run again untouched, like a guest idle
        // at its deadline: results that arrived stay for the next wait.
        if self.control.enforce_deadline() {
            return Some(match self.control.stopped() {
                Some(Stop::Timeout) | None => End::Park(self.wait_reason()),
                Some(stop) => End::Result(stopped_result(stop)),
            });
        }
        let settled = self.arrivals.take();
        let yielded = vm.calls().yielded();
        if settled.is_empty() && !yielded && !self.timer_due() {
            self.dispatch();
            return None;
        }
        let outcome = self.vm.as_mut()?.settle(settled, true);
        self.fed = true;
        self.advance(outcome)
    }

    /// Called when the worker wakes: `Some` when the leg has ended.
    pub(super) fn poll(&mut self) -> Option<End> {
        catch_unwind(AssertUnwindSafe(|| self.step())).unwrap_or_else(|_| Some(End::internal()))
    }

    fn step(&mut self) -> Option<End> {
        // Budget over with calls pending: park. Results that arrived meanwhile
        // stay for the next wait. (A timeout recorded between steps, by the
        // watchdog at the deadline, means the same.)
        if self.control.enforce_deadline() {
            return Some(match self.control.stopped() {
                Some(Stop::Timeout) | None => End::Park(self.wait_reason()),
                Some(stop) => End::Result(self.stopped(stop)),
            });
        }
        let settled = self.arrivals.take();
        if settled.is_empty() && !self.timer_due() {
            return None;
        }
        let outcome = self.vm.as_mut()?.settle(settled, false);
        self.fed = true;
        self.advance(outcome)
    }

    fn wait_reason(&self) -> WaitReason {
        match self.vm.as_ref().is_some_and(|vm| vm.calls().yielded()) {
            true => WaitReason::Yield,
            false => WaitReason::PendingTools,
        }
    }

    /// What to do after the guest ran as far as it could.
    fn advance(&mut self, outcome: CellOutcome) -> Option<End> {
        let (code, error) = match outcome {
            CellOutcome::Completed(value) => {
                let output = self.vm.as_ref()?.take_output();
                let completed = RunResult::new(Status::Completed { value });
                return Some(End::Result(completed.with_output(output)));
            }
            CellOutcome::Failed(code, error) => (code, error),
            CellOutcome::Pending => {
                self.dispatch();
                let vm = self.vm.as_ref()?;
                if vm.calls().yielded() {
                    return Some(End::Park(WaitReason::Yield));
                }
                if vm.has_host_work() {
                    // Restart-safe runs never drain inline: every await parks.
                    let exec_leg = self.id.is_none();
                    if self.restart_safe && (exec_leg || self.fed) {
                        return Some(End::Park(WaitReason::PendingTools));
                    }
                    return None;
                }
                (
                    ErrorCode::InternalError,
                    messages::PENDING_WITHOUT_HOST_WORK.to_owned(),
                )
            }
        };
        let output = self.vm.as_ref()?.take_output();
        Some(End::Result(
            RunResult::failed(code, error).with_output(output),
        ))
    }

    /// Starts queued nested calls while fewer than `maxPendingToolCalls` are in
    /// flight.
    fn dispatch(&mut self) {
        let Some(vm) = self.vm.as_mut() else {
            return;
        };
        let max_in_flight = self.config.max_pending_tool_calls as usize;
        let mut calls = vm.calls();
        let batch: Vec<Dispatch> = calls
            .start_queued(max_in_flight)
            .into_iter()
            .map(|(key, call)| Dispatch {
                // The table keeps what later messages name (the call's id
                // and tool); the rejection goes with the call.
                call: NestedCall {
                    code_mode_run_id: self.id.clone(),
                    rejection: call.call.rejection.take(),
                    ..call.call.clone()
                },
                input: std::mem::take(&mut call.input),
                reply: Reply {
                    inbox: self.arrivals.clone(),
                    key,
                },
            })
            .collect();
        drop(calls);
        if !batch.is_empty() {
            self.agent_run.host.dispatch(batch);
        }
    }

    /// The result of a run stopped from outside or by its budget, with the
    /// output produced meanwhile.
    fn stopped(&mut self, stop: Stop) -> RunResult {
        let output = self
            .vm
            .as_ref()
            .map(|vm| vm.take_output())
            .unwrap_or_default();
        stopped_result(stop).with_output(output)
    }
}

/// Host bytes a run's bridge may hold at once, for tool inputs and for tool
/// results each: half the memory limit, at most [`MAX_BRIDGE_BYTES`].
fn bridge_budget(config: &CodeModeConfig) -> usize {
    (config.memory_limit_bytes / 2).min(MAX_BRIDGE_BYTES) as usize
}

pub(super) fn stopped_result(stop: Stop) -> RunResult {
    let (code, message) = stop.error();
    RunResult::failed(code, message)
}
