//! One run on a worker: prepare the source, bind a fresh VM, evaluate, then
//! alternate between driving the guest and feeding it settled nested calls
//! until it completes, fails or runs out of budget.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

use super::host::{Dispatch, Inbox, Reply, Waker};
use super::{Done, ExecRequest, RunSurface, JS_STACK_BYTES};
use crate::messages;
use crate::result::{ErrorCode, RunResult};
use crate::sandbox::{CellOutcome, Control, Stop, Vm, VmLimits};
use crate::source::{self, SourceError};

thread_local! {
    /// A blank VM built ahead of the next cell on this worker.
    static SPARE: RefCell<Option<Vm>> = const { RefCell::new(None) };
}

/// Builds this worker's spare VM if it has none. Called between cells, so the
/// next cell does not wait for a runtime and context to be built.
pub(super) fn refill_spare() {
    SPARE.with(|spare| {
        if spare.borrow().is_none() {
            let vm = Vm::blank(JS_STACK_BYTES).ok();
            *spare.borrow_mut() = vm;
        }
    });
}

/// A never-used VM bound to this run: the spare when there is one.
fn fresh_vm(
    limits: VmLimits,
    control: &Arc<Control>,
    surface: &RunSurface,
) -> rquickjs::Result<Vm> {
    let vm = match SPARE.with(|spare| spare.borrow_mut().take()) {
        Some(vm) => vm,
        None => Vm::blank(limits.stack_bytes)?,
    };
    vm.bind(limits, control.clone(), Some(surface.bridge.clone()))?;
    Ok(vm)
}

/// Work handed to a worker.
pub struct Job {
    pub(super) request: ExecRequest,
    pub(super) control: Arc<Control>,
    pub(super) done: Done,
}

impl Job {
    /// Reports without running: the workers are shut down.
    pub(super) fn refuse(self) {
        let mut result = stopped_result(Stop::Closed);
        result.set_telemetry(self.request.surface.telemetry());
        (self.done)(result);
    }

    /// Starts the run on this worker. Returns it when it awaits nested calls;
    /// otherwise it has already reported.
    pub(super) fn start(self, waker: Waker) -> Option<ActiveRun> {
        let Job {
            request,
            control,
            done,
        } = self;
        let surface = request.surface.clone();
        let restart_safe = request.input.restart_safe;
        let inbox = Arc::new(Inbox::default());
        inbox.set_waker(Some(waker));
        {
            let inbox = Arc::downgrade(&inbox);
            control.on_stop(move || {
                if let Some(inbox) = inbox.upgrade() {
                    inbox.poke();
                }
            });
        }
        let mut run = ActiveRun {
            vm: None,
            control,
            inbox,
            surface,
            max_in_flight: request.config.max_pending_tool_calls as usize,
            restart_safe,
            done: Some(done),
            result: None,
        };
        let started = catch_unwind(AssertUnwindSafe(|| run.begin(&request)));
        let finished = match started {
            Ok(result) => result,
            Err(_) => Some(RunResult::failed(
                ErrorCode::InternalError,
                messages::INTERNAL,
            )),
        };
        match finished {
            Some(result) => {
                run.result = Some(result);
                run.finish();
                None
            }
            None => Some(run),
        }
    }
}

/// A run a worker drives: its VM waits on nested calls.
pub(super) struct ActiveRun {
    vm: Option<Vm>,
    control: Arc<Control>,
    inbox: Arc<Inbox>,
    surface: Arc<RunSurface>,
    max_in_flight: usize,
    restart_safe: bool,
    done: Option<Done>,
    result: Option<RunResult>,
}

impl ActiveRun {
    /// Prepares the source, binds a VM and evaluates. `Some` when the run
    /// already ended.
    fn begin(&mut self, request: &ExecRequest) -> Option<RunResult> {
        if let Some(stop) = self.control.stopped() {
            return Some(stopped_result(stop));
        }
        if self
            .control
            .deadline()
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Some(stopped_result(Stop::Timeout));
        }
        let prepared = match source::prepare(&request.input.code, request.input.language) {
            Ok(prepared) => prepared,
            Err(error) => {
                let code = match error {
                    SourceError::Syntax { .. } => ErrorCode::InternalError,
                    _ => ErrorCode::InvalidInput,
                };
                return Some(RunResult::failed(code, error.message()));
            }
        };
        let config = &request.config;
        let limits = VmLimits {
            memory_bytes: config.memory_limit_bytes as usize,
            stack_bytes: JS_STACK_BYTES,
            max_output_bytes: config.max_output_bytes as usize,
            max_bridge_bytes: (config.memory_limit_bytes / 2) as usize,
        };
        let vm = match fresh_vm(limits, &self.control, &self.surface) {
            Ok(vm) => vm,
            Err(error) => {
                let message = format!("code mode runtime could not start: {error}");
                return Some(RunResult::failed(ErrorCode::RuntimeUnavailable, message));
            }
        };
        vm.calls().set_parent(request.parent_tool_call_id.clone());
        let vm = self.vm.insert(vm);
        let outcome = vm.start(&prepared.script);
        self.advance(outcome)
    }

    /// Called when the worker wakes: true when the run has ended (its result
    /// is ready for [`ActiveRun::finish`]).
    pub(super) fn poll(&mut self) -> bool {
        let step = catch_unwind(AssertUnwindSafe(|| self.step()));
        let result = match step {
            Ok(result) => result,
            Err(_) => Some(RunResult::failed(
                ErrorCode::InternalError,
                messages::INTERNAL,
            )),
        };
        match result {
            Some(result) => {
                self.result = Some(result);
                true
            }
            None => false,
        }
    }

    fn step(&mut self) -> Option<RunResult> {
        if let Some(stop) = self.control.stopped() {
            return Some(self.stopped(stop));
        }
        let settled = self.inbox.take();
        if !settled.is_empty() {
            let outcome = self.vm.as_mut()?.settle(settled);
            return self.advance(outcome);
        }
        // Budget over while calls are pending: not parked yet.
        if self.control.should_interrupt() {
            return Some(self.stopped(self.control.stopped().unwrap_or(Stop::Timeout)));
        }
        None
    }

    /// What to do after the guest ran as far as it could.
    fn advance(&mut self, outcome: CellOutcome) -> Option<RunResult> {
        let (error, code) = match outcome {
            CellOutcome::Completed(value) => {
                return Some(RunResult::Completed {
                    value,
                    output: self.vm.as_ref()?.take_output(),
                    replay_safe: false,
                    telemetry: Default::default(),
                })
            }
            CellOutcome::Failed(code, error) => (error, code),
            CellOutcome::Pending => {
                self.dispatch();
                if self.vm.as_ref()?.calls().has_host_work() {
                    return None;
                }
                (
                    messages::PENDING_WITHOUT_HOST_WORK.to_owned(),
                    ErrorCode::InternalError,
                )
            }
        };
        Some(RunResult::Failed {
            error,
            code,
            output: self.vm.as_ref()?.take_output(),
            replay_safe: false,
            telemetry: Default::default(),
        })
    }

    /// Starts queued nested calls while fewer than `maxPendingToolCalls` are in
    /// flight.
    fn dispatch(&mut self) {
        let Some(vm) = self.vm.as_mut() else {
            return;
        };
        let mut calls = vm.calls();
        let batch: Vec<Dispatch> = calls
            .start_queued(self.max_in_flight)
            .into_iter()
            .map(|(key, call)| Dispatch {
                key,
                tool_id: call.tool_id.clone(),
                name: call.name.clone(),
                source: call.source,
                source_name: call.source_name.clone(),
                input: call.input.clone(),
                tool_call_id: call.tool_call_id.clone(),
                parent_tool_call_id: call.parent_tool_call_id.clone(),
                code_mode_run_id: None,
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

    /// Reports the result, aborts nested calls still in flight (SPEC 14.16),
    /// then tears the VM down and builds the worker's next one.
    pub(super) fn finish(mut self) {
        self.inbox.set_waker(None);
        let in_flight = self
            .vm
            .as_ref()
            .map(|vm| vm.calls().in_flight_keys())
            .unwrap_or_default();
        let mut result = self
            .result
            .take()
            .unwrap_or_else(|| RunResult::failed(ErrorCode::InternalError, messages::INTERNAL));
        result.set_replay_safe(self.restart_safe);
        result.set_telemetry(self.surface.telemetry());
        if !in_flight.is_empty() {
            self.surface.host.abort(in_flight);
        }
        if let Some(done) = self.done.take() {
            done(result);
        }
        let vm = self.vm.take();
        let _ = catch_unwind(AssertUnwindSafe(move || {
            drop(vm);
            refill_spare();
        }));
    }
}

pub(super) fn stopped_result(stop: Stop) -> RunResult {
    let (code, message) = stop.error();
    RunResult::failed(code, message)
}
