//! One exec leg on a worker: prepare the source, build the VM, drive it.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

use crate::messages;
use crate::result::{ErrorCode, RunResult, Telemetry};
use crate::sandbox::{CellOutcome, Control, Stop, Vm, VmLimits};
use crate::source::{self, SourceError};

use super::{ExecRequest, JS_STACK_BYTES};

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
fn fresh_vm(limits: VmLimits, control: &Arc<Control>) -> rquickjs::Result<Vm> {
    let vm = match SPARE.with(|spare| spare.borrow_mut().take()) {
        Some(vm) => vm,
        None => Vm::blank(limits.stack_bytes)?,
    };
    vm.bind(limits, control.clone());
    Ok(vm)
}

/// Runs one cell. The VM comes back too, so the caller can report the result
/// before paying for the VM's teardown.
pub(super) fn run(request: ExecRequest, control: &Arc<Control>) -> (RunResult, Option<Vm>) {
    let (mut result, vm) = execute(&request, control);
    result.set_replay_safe(request.input.restart_safe);
    (result, vm)
}

fn execute(request: &ExecRequest, control: &Arc<Control>) -> (RunResult, Option<Vm>) {
    if let Some(stop) = control.stopped() {
        return (stopped_result(stop), None);
    }
    if control
        .deadline()
        .is_some_and(|deadline| Instant::now() >= deadline)
    {
        return (stopped_result(Stop::Timeout), None);
    }
    let prepared = match source::prepare(&request.input.code, request.input.language) {
        Ok(prepared) => prepared,
        Err(error) => {
            let code = match error {
                SourceError::Syntax { .. } => ErrorCode::InternalError,
                _ => ErrorCode::InvalidInput,
            };
            return (RunResult::failed(code, error.message()), None);
        }
    };
    let config = &request.config;
    let limits = VmLimits {
        memory_bytes: config.memory_limit_bytes as usize,
        stack_bytes: JS_STACK_BYTES,
        max_output_bytes: config.max_output_bytes as usize,
    };
    let mut vm = match fresh_vm(limits, control) {
        Ok(vm) => vm,
        Err(error) => {
            let message = format!("code mode runtime could not start: {error}");
            return (
                RunResult::failed(ErrorCode::RuntimeUnavailable, message),
                None,
            );
        }
    };
    let outcome = vm.start(&prepared.script);
    let output = vm.take_output();
    let result = match outcome {
        CellOutcome::Completed(value) => RunResult::Completed {
            value,
            output,
            replay_safe: false,
            telemetry: Telemetry::default(),
        },
        CellOutcome::Failed(code, error) => RunResult::Failed {
            error,
            code,
            output,
            replay_safe: false,
            telemetry: Telemetry::default(),
        },
        CellOutcome::Pending => RunResult::Failed {
            error: messages::PENDING_WITHOUT_HOST_WORK.to_owned(),
            code: ErrorCode::InternalError,
            output,
            replay_safe: false,
            telemetry: Telemetry::default(),
        },
    };
    (result, Some(vm))
}

pub(super) fn stopped_result(stop: Stop) -> RunResult {
    let (code, message) = stop.error();
    RunResult::failed(code, message)
}
