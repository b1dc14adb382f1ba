//! How a leg ends: parked in the store, reported, abandoned or discarded.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use super::{ActiveRun, End};
use crate::messages;
use crate::result::{ErrorCode, RunResult, WaitReason};

impl ActiveRun {
    /// Ends the leg: parks the run (SPEC 8 limits permitting), or reports its
    /// result after aborting nested calls still in flight (SPEC 14.16) and
    /// tearing the VM down.
    pub(in crate::runs) fn finish(mut self) {
        self.inbox.set_waker(None);
        let end = self.end.take().unwrap_or_else(End::internal);
        let (run, result) = match end {
            End::Park(reason) => match self.park(reason) {
                None => return,
                Some(refused) => refused,
            },
            End::Result(result) => (self, result),
        };
        run.report(result);
    }

    /// Reports a final result: nested calls still in flight are aborted first.
    fn report(mut self, mut result: RunResult) {
        if let Some(id) = self.run_id.take() {
            self.store.release(&id);
        }
        result.set_replay_safe(self.restart_safe);
        result.set_telemetry(self.surface.telemetry());
        let leg = self.leg.take();
        // Nested calls still in flight are aborted before the result is out;
        // the VM's teardown waits until it is.
        self.abort_in_flight();
        if let Some(leg) = leg {
            leg.report(result);
        }
        self.discard();
    }

    /// Moves the run into the store and reports `waiting`; or, when a limit
    /// forbids parking, gives the run back with the failure to report.
    fn park(mut self, reason: WaitReason) -> Option<(ActiveRun, RunResult)> {
        let Some(vm) = self.vm.as_ref() else {
            let internal = RunResult::failed(ErrorCode::InternalError, messages::INTERNAL);
            return Some((self, internal));
        };
        let output = vm.take_output();
        let pending_tool_calls = vm.calls().pending_calls();
        vm.collect_garbage();
        let snapshot_bytes = vm.heap_bytes() + vm.calls().input_bytes();
        let max = self.config.max_snapshot_bytes as usize;
        if snapshot_bytes > max {
            let failure = RunResult::Failed {
                error: messages::snapshot_limit(snapshot_bytes, max),
                code: ErrorCode::SnapshotLimitExceeded,
                output,
                replay_safe: false,
                telemetry: Default::default(),
            };
            return Some((self, failure));
        }
        // The same id while nothing new could run; a new one when the VM parks
        // anew.
        let previous = self.run_id.clone();
        let id = match (&previous, self.progressed) {
            (Some(id), false) => id.clone(),
            _ => format!("cm_{}", uuid::Uuid::new_v4()),
        };
        let mut result = RunResult::Waiting {
            run_id: id.clone(),
            reason,
            pending_tool_calls,
            snapshot_bytes: snapshot_bytes as u64,
            output,
            replay_safe: self.restart_safe,
            telemetry: self.surface.telemetry(),
        };
        let leg = self.leg.take();
        let ttl = Duration::from_secs(self.config.snapshot_ttl_seconds);
        self.run_id = Some(id.clone());
        let store = self.store.clone();
        match store.park(id, previous.as_deref(), Box::new(self), ttl) {
            Ok(()) => {
                if let Some(leg) = leg {
                    leg.report(result);
                }
                None
            }
            Err((run, message)) => {
                let mut run = *run;
                run.run_id = None;
                run.leg = leg;
                let code = match message {
                    messages::CLOSED => ErrorCode::RuntimeUnavailable,
                    _ => ErrorCode::InvalidInput,
                };
                let output = match &mut result {
                    RunResult::Waiting { output, .. } => std::mem::take(output),
                    _ => Vec::new(),
                };
                let failure = RunResult::Failed {
                    error: message.to_owned(),
                    code,
                    output,
                    replay_safe: false,
                    telemetry: Default::default(),
                };
                Some((run, failure))
            }
        }
    }

    /// Drops a run whose worker the watchdog abandoned: its call is answered
    /// (a timeout, if nobody answered yet), the rest as [`ActiveRun::discard`].
    pub(in crate::runs) fn abandon(mut self) {
        if let Some(leg) = self.leg.take() {
            leg.time_out();
        }
        if let Some(id) = self.run_id.take() {
            self.store.release(&id);
        }
        self.discard();
    }

    /// Frees the run: aborts its nested calls in flight and drops the VM.
    pub(in crate::runs) fn discard(mut self) {
        self.inbox.set_waker(None);
        self.abort_in_flight();
        let vm = self.vm.take();
        let _ = catch_unwind(AssertUnwindSafe(move || drop(vm)));
    }

    /// Fires the signals of the nested calls still in flight (once: they are
    /// forgotten).
    pub(in crate::runs) fn abort_in_flight(&mut self) {
        let in_flight = self
            .vm
            .as_ref()
            .map(|vm| vm.calls().forget_in_flight())
            .unwrap_or_default();
        if !in_flight.is_empty() {
            self.surface.host.abort(in_flight);
        }
    }
}
