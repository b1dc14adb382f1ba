//! One run on a worker. An exec leg prepares the source, binds a fresh VM and
//! evaluates; a wait leg takes a parked run back. Either then alternates
//! between driving the guest and feeding it settled nested calls until the run
//! completes, fails, yields, or its budget ends with calls pending: then it
//! parks (SPEC 8).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

mod end;
mod spare;

use spare::fresh_vm;
pub(super) use spare::refill_spare;

use super::host::{Dispatch, Inbox, Reply, Waker};
use super::store::{RunScope, Store};
use super::{ExecRequest, Leg, RunSurface, WaitRequest, JS_STACK_BYTES};
use crate::config::CodeModeConfig;
use crate::messages;
use crate::result::{ErrorCode, RunResult, WaitReason};
use crate::sandbox::{CellOutcome, Control, Stop, Vm, VmLimits};
use crate::source::{self, SourceError};

/// The most bytes of tool input (all pending calls of a run together) or of
/// one tool result that cross the bridge: the host parses them on the Node
/// thread, so they stay small enough not to stall it for long.
pub const MAX_BRIDGE_BYTES: u64 = 16 * 1024 * 1024;

/// Work handed to a worker: a new run, or a parked one to resume.
pub(super) struct Job {
    pub(super) kind: JobKind,
    pub(super) control: Arc<Control>,
    pub(super) leg: Arc<Leg>,
    pub(super) store: Arc<Store>,
}

pub(super) enum JobKind {
    Exec(ExecRequest),
    Resume(Box<ActiveRun>, WaitRequest),
}

impl Job {
    /// The call waiting for this job.
    pub(super) fn leg(&self) -> Arc<Leg> {
        self.leg.clone()
    }

    /// Reports without running: the workers are shut down.
    pub(super) fn refuse(self) {
        let mut result = stopped_result(Stop::Closed);
        match self.kind {
            JobKind::Exec(request) => result.set_telemetry(request.surface.telemetry()),
            JobKind::Resume(run, _) => {
                result.set_telemetry(run.surface.telemetry());
                self.store.bury(*run);
            }
        }
        self.leg.report(result);
    }

    /// Starts the leg on this worker. Returns the run while it awaits nested
    /// calls; otherwise it has already reported.
    pub(super) fn start(self, waker: Waker) -> Option<ActiveRun> {
        let Job {
            kind,
            control,
            leg,
            store,
        } = self;
        let (mut run, request) = match kind {
            JobKind::Exec(request) => {
                let run = ActiveRun {
                    vm: None,
                    control: control.clone(),
                    inbox: Arc::new(Inbox::default()),
                    surface: request.surface.clone(),
                    scope: request.scope.clone(),
                    config: request.config.clone(),
                    restart_safe: request.input.restart_safe,
                    run_id: None,
                    progressed: false,
                    fed: false,
                    leg: Some(leg),
                    end: None,
                    store,
                };
                (run, Ok(request))
            }
            JobKind::Resume(run, request) => {
                let mut run = *run;
                run.control = control.clone();
                run.config = request.config.clone();
                run.leg = Some(leg);
                run.progressed = false;
                run.fed = false;
                (run, Err(request))
            }
        };
        run.inbox.set_waker(Some(waker));
        {
            let inbox = Arc::downgrade(&run.inbox);
            control.on_stop(move || {
                if let Some(inbox) = inbox.upgrade() {
                    inbox.poke();
                }
            });
        }
        let begun = catch_unwind(AssertUnwindSafe(|| match &request {
            Ok(request) => run.begin(request),
            Err(request) => run.resume(request),
        }));
        let end = match begun {
            Ok(end) => end,
            Err(_) => Some(End::internal()),
        };
        match end {
            Some(end) => {
                run.end = Some(end);
                run.finish();
                None
            }
            None => Some(run),
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

/// A run: its VM, its mailbox, and the leg driving it now.
pub(super) struct ActiveRun {
    vm: Option<Vm>,
    /// The control block of the current leg.
    control: Arc<Control>,
    inbox: Arc<Inbox>,
    surface: Arc<RunSurface>,
    scope: Arc<RunScope>,
    /// The configuration of the current leg.
    config: Arc<CodeModeConfig>,
    restart_safe: bool,
    /// The id it was parked under, while resumed.
    run_id: Option<String>,
    /// Whether this leg fed the guest anything (settlements or a yield answer).
    progressed: bool,
    /// Whether this leg fed the guest and drove it once since (restart-safe
    /// runs park at the next await).
    fed: bool,
    /// The exec or wait call waiting for this leg's result.
    leg: Option<Arc<Leg>>,
    end: Option<End>,
    store: Arc<Store>,
}

// SAFETY: a run moves between threads as one unit (a worker, the store, the
// expiry thread); its VM is only ever used by the thread holding the run. See
// `Vm`'s own `Send`.
unsafe impl Send for ActiveRun {}

impl ActiveRun {
    pub(super) fn scope(&self) -> &RunScope {
        &self.scope
    }

    pub(super) fn scope_arc(&self) -> Arc<RunScope> {
        self.scope.clone()
    }

    pub(super) fn surface(&self) -> Arc<RunSurface> {
        self.surface.clone()
    }

    pub(super) fn restart_safe(&self) -> bool {
        self.restart_safe
    }

    /// The call waiting for this leg, for the watchdog.
    pub(super) fn leg(&self) -> Option<Arc<Leg>> {
        self.leg.clone()
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
        let config = &request.config;
        let limits = VmLimits {
            memory_bytes: config.memory_limit_bytes as usize,
            stack_bytes: JS_STACK_BYTES,
            max_output_bytes: config.max_output_bytes as usize,
            max_bridge_bytes: (config.memory_limit_bytes / 2).min(MAX_BRIDGE_BYTES) as usize,
        };
        let vm = match fresh_vm(limits, &self.control, &self.surface) {
            Ok(vm) => vm,
            Err(error) => {
                let message = format!("code mode runtime could not start: {error}");
                return Some(End::Result(RunResult::failed(
                    ErrorCode::RuntimeUnavailable,
                    message,
                )));
            }
        };
        vm.set_restart_safe(self.restart_safe);
        vm.calls().set_parent(request.parent_tool_call_id.clone());
        let vm = self.vm.insert(vm);
        let outcome = vm.start(&prepared.script);
        self.advance(outcome)
    }

    /// Takes a parked run back: new control block, settled results and yield
    /// answers fed in.
    fn resume(&mut self, request: &WaitRequest) -> Option<End> {
        if let Some(stop) = self.control.stopped() {
            return Some(End::Result(stopped_result(stop)));
        }
        let vm = self.vm.as_mut()?;
        vm.rebind(self.control.clone());
        vm.calls().set_parent(request.parent_tool_call_id.clone());
        let settled = self.inbox.take();
        let yielded = vm.calls().yielded();
        if settled.is_empty() && !yielded {
            self.dispatch();
            return None;
        }
        self.progressed = true;
        let outcome = vm.settle(settled, true);
        self.fed = true;
        self.advance(outcome)
    }

    /// Called when the worker wakes: true when the leg has ended (see
    /// [`ActiveRun::finish`]).
    pub(super) fn poll(&mut self) -> bool {
        let step = catch_unwind(AssertUnwindSafe(|| self.step()));
        let end = match step {
            Ok(end) => end,
            Err(_) => Some(End::internal()),
        };
        match end {
            Some(end) => {
                self.end = Some(end);
                true
            }
            None => false,
        }
    }

    fn step(&mut self) -> Option<End> {
        if let Some(stop) = self.control.stopped() {
            return Some(End::Result(self.stopped(stop)));
        }
        // Budget over with calls pending: park. Results that arrived meanwhile
        // stay in the inbox for the next wait.
        if self.control.should_interrupt() {
            return Some(match self.control.stopped() {
                Some(Stop::Timeout) | None => End::Park(self.wait_reason()),
                Some(stop) => End::Result(self.stopped(stop)),
            });
        }
        let settled = self.inbox.take();
        if !settled.is_empty() {
            self.progressed = true;
            let outcome = self.vm.as_mut()?.settle(settled, false);
            self.fed = true;
            return self.advance(outcome);
        }
        None
    }

    fn wait_reason(&self) -> WaitReason {
        match self.vm.as_ref().is_some_and(|vm| vm.calls().yielded()) {
            true => WaitReason::Yield,
            false => WaitReason::PendingTools,
        }
    }

    /// What to do after the guest ran as far as it could.
    fn advance(&mut self, outcome: CellOutcome) -> Option<End> {
        let (error, code) = match outcome {
            CellOutcome::Completed(value) => {
                return Some(End::Result(RunResult::Completed {
                    value,
                    output: self.vm.as_ref()?.take_output(),
                    replay_safe: false,
                    telemetry: Default::default(),
                }))
            }
            CellOutcome::Failed(code, error) => (error, code),
            CellOutcome::Pending => {
                self.dispatch();
                let calls = self.vm.as_ref()?.calls();
                if calls.yielded() {
                    return Some(End::Park(WaitReason::Yield));
                }
                if calls.has_host_work() {
                    // Restart-safe runs never drain inline: every await parks.
                    let exec_leg = self.run_id.is_none();
                    if self.restart_safe && (exec_leg || self.fed) {
                        return Some(End::Park(WaitReason::PendingTools));
                    }
                    return None;
                }
                (
                    messages::PENDING_WITHOUT_HOST_WORK.to_owned(),
                    ErrorCode::InternalError,
                )
            }
        };
        Some(End::Result(RunResult::Failed {
            error,
            code,
            output: self.vm.as_ref()?.take_output(),
            replay_safe: false,
            telemetry: Default::default(),
        }))
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
                key,
                tool_id: call.tool_id.clone(),
                name: call.name.clone(),
                source: call.source,
                source_name: call.source_name.clone(),
                input: std::mem::take(&mut call.input),
                tool_call_id: call.tool_call_id.clone(),
                parent_tool_call_id: call.parent_tool_call_id.clone(),
                code_mode_run_id: self.run_id.clone(),
                reply: Reply {
                    inbox: self.inbox.clone(),
                    key,
                },
            })
            .collect();
        drop(calls);
        if !batch.is_empty() {
            self.surface.host.dispatch(batch);
        }
    }

    /// The result of a run stopped from outside or by its budget.
    fn stopped(&mut self, stop: Stop) -> RunResult {
        let (code, message) = stop.error();
        let output = self
            .vm
            .as_ref()
            .map(|vm| vm.take_output())
            .unwrap_or_default();
        RunResult::Failed {
            error: message.to_owned(),
            code,
            output,
            replay_safe: false,
            telemetry: Default::default(),
        }
    }

    pub(super) fn deadline(&self) -> Option<Instant> {
        self.control.deadline()
    }
}

pub(super) fn stopped_result(stop: Stop) -> RunResult {
    let (code, message) = stop.error();
    RunResult::failed(code, message)
}
