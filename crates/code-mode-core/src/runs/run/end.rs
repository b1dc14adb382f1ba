//! How a leg ends. [`Run::finish`] turns the [`End`] of a leg into a
//! [`Disposition`]: park the run, or report its result. The store acts on
//! that decision; the run never touches the store itself.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{End, Run};
use crate::messages;
use crate::result::{ErrorCode, RunResult, Status};
use crate::runs::leg::Leg;
use crate::sandbox::Vm;

/// What the store must do with a run whose leg ended.
pub(in crate::runs) enum Disposition {
    /// Hold the run in the store and answer the call with `waiting`.
    Park(Parking),
    /// Answer the call with this result and free the run (nested calls still
    /// in flight are aborted first).
    Report(Run, RunResult),
}

/// A run on its way into the store.
pub(in crate::runs) struct Parking {
    pub(in crate::runs) run: Box<Run>,
    /// The id to park under: the same as `previous` while nothing new could
    /// run, else a fresh `cm_<uuid>`.
    pub(in crate::runs) id: String,
    /// The id the run was resumed from, whose "being resumed" marker goes.
    pub(in crate::runs) previous: Option<String>,
    pub(in crate::runs) expires: Instant,
    /// The `waiting` result, reported once the store holds the run.
    pub(in crate::runs) waiting: RunResult,
    pub(in crate::runs) leg: Option<Arc<Leg>>,
}

impl Run {
    /// Decides how the leg ends: parking (when the snapshot limit allows) or
    /// a report.
    pub(in crate::runs) fn finish(mut self, end: End) -> Disposition {
        self.arrivals.set_waker(None);
        let reason = match end {
            End::Result(result) => return Disposition::Report(self, result),
            End::Park(reason) => reason,
        };
        let Some(vm) = self.vm.as_ref() else {
            let internal = RunResult::failed(ErrorCode::InternalError, messages::INTERNAL);
            return Disposition::Report(self, internal);
        };
        let output = vm.take_output();
        let pending_tool_calls = vm.pending_calls();
        vm.collect_garbage();
        let snapshot_bytes = vm.heap_bytes() + vm.held_bytes() + self.arrivals.held_bytes();
        let max = self.config.max_snapshot_bytes as usize;
        if snapshot_bytes > max {
            let error = messages::snapshot_limit(snapshot_bytes, max);
            let failure = RunResult::failed(ErrorCode::SnapshotLimitExceeded, error);
            return Disposition::Report(self, failure.with_output(output));
        }
        let previous = self.id.clone();
        let id = match (&previous, self.fed) {
            (Some(id), false) => id.clone(),
            _ => format!("cm_{}", uuid::Uuid::new_v4()),
        };
        let waiting = RunResult::new(Status::Waiting {
            run_id: id.clone(),
            reason,
            pending_tool_calls,
            snapshot_bytes: snapshot_bytes as u64,
        })
        .with_output(output);
        let expires = Instant::now() + Duration::from_secs(self.config.snapshot_ttl_seconds);
        let leg = self.leg.take();
        Disposition::Park(Parking {
            run: Box::new(self),
            id,
            previous,
            expires,
            waiting,
            leg,
        })
    }

    /// The id the run is parked under, or was resumed from.
    pub(in crate::runs) fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// Records the id the store parks the run under.
    pub(in crate::runs) fn parked_as(&mut self, id: String) {
        self.id = Some(id);
    }

    /// Gives back the leg a refused parking took out.
    pub(in crate::runs) fn with_leg(mut self, leg: Option<Arc<Leg>>) -> Self {
        self.leg = leg;
        self
    }

    /// The result for a run whose worker the watchdog abandoned (its call
    /// was answered already, unless it got out just in time).
    pub(in crate::runs) fn stuck_result(&self) -> RunResult {
        let stuck = self.leg.as_ref().map(|leg| leg.stuck_result());
        stuck.unwrap_or_else(|| RunResult::failed(ErrorCode::InternalError, messages::INTERNAL))
    }

    /// Reports a final result: nested calls still in flight are aborted
    /// before the result is out, and the VM is torn down after.
    ///
    /// A failed cell's VM is torn down before its answer goes out: a
    /// teardown that has to retire the runtime (the engine leaked objects,
    /// as it can on a path such as running out of memory) turns the answer
    /// into an internal error. A completed cell is answered first.
    pub(in crate::runs) fn report(mut self, result: RunResult) {
        let leg = self.leg.take();
        self.abort_in_flight();
        let Some(leg) = leg else {
            return self.discard();
        };
        if matches!(result.status, Status::Failed { .. }) {
            self.arrivals.set_waker(None);
            let result = if self.free_vm() {
                result.into_failure(ErrorCode::InternalError, messages::INTERNAL)
            } else {
                result
            };
            leg.report(result);
        } else {
            leg.report(result);
            self.discard();
        }
    }

    /// Frees the run: aborts its nested calls in flight and drops the VM.
    pub(in crate::runs) fn discard(mut self) {
        self.arrivals.set_waker(None);
        self.abort_in_flight();
        self.free_vm();
    }

    /// Drops the VM (once); true when its runtime had to be retired.
    fn free_vm(&mut self) -> bool {
        let vm = self.vm.take();
        #[cfg(test)]
        let panics = crate::runs::panic_tests::panics_in_teardown(&self.agent_run);
        // A panic while freeing counts as a retirement: the VM may be half gone.
        catch_unwind(AssertUnwindSafe(move || {
            let retired = vm.is_some_and(Vm::free);
            #[cfg(test)]
            if panics {
                panic!("panic-tests: a panic in VM teardown");
            }
            retired
        }))
        .unwrap_or(true)
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
            self.agent_run.host.abort(in_flight);
        }
    }
}
