//! One exec leg on a worker: prepare the source, build the VM, drive it.

use std::sync::Arc;
use std::time::Instant;

use crate::messages;
use crate::result::{ErrorCode, RunResult, Telemetry};
use crate::sandbox::{CellOutcome, Control, Stop, Vm, VmLimits};
use crate::source::{self, SourceError};

use super::{ExecRequest, JS_STACK_BYTES};

pub(super) fn run(request: ExecRequest, control: &Arc<Control>) -> RunResult {
    let mut result = execute(&request, control);
    result.set_replay_safe(request.input.restart_safe);
    result
}

fn execute(request: &ExecRequest, control: &Arc<Control>) -> RunResult {
    if let Some(stop) = control.stopped() {
        return stopped_result(stop);
    }
    if control
        .deadline()
        .is_some_and(|deadline| Instant::now() >= deadline)
    {
        return stopped_result(Stop::Timeout);
    }
    let prepared = match source::prepare(&request.input.code, request.input.language) {
        Ok(prepared) => prepared,
        Err(error) => {
            let code = match error {
                SourceError::Syntax { .. } => ErrorCode::InternalError,
                _ => ErrorCode::InvalidInput,
            };
            return RunResult::failed(code, error.message());
        }
    };
    let config = &request.config;
    let limits = VmLimits {
        memory_bytes: config.memory_limit_bytes as usize,
        stack_bytes: JS_STACK_BYTES,
        max_output_bytes: config.max_output_bytes as usize,
    };
    let mut vm = match Vm::new(limits, control.clone()) {
        Ok(vm) => vm,
        Err(error) => {
            return RunResult::failed(
                ErrorCode::RuntimeUnavailable,
                format!("code mode runtime could not start: {error}"),
            )
        }
    };
    let outcome = vm.start(&prepared.script);
    let output = vm.take_output();
    match outcome {
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
    }
}

pub(super) fn stopped_result(stop: Stop) -> RunResult {
    let (code, message) = stop.error();
    RunResult::failed(code, message)
}
