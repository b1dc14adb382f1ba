//! Tests and fuzzing only (feature `test-hooks`): out-of-memory injection.
//! The next VM bound to a run fails the engine's Nth allocation from the
//! bind on (every `js_malloc`, not only the blocks the allocator sees),
//! as if its memory limit were reached there, so a sweep over N reaches
//! every allocation of a cell's whole run (its globals made on first use,
//! the bridge, MCP, timers, output).

use std::sync::Arc;

use parking_lot::Mutex;

use rquickjs::qjs;

use super::alloc::Meter;

struct Plan {
    /// The allocation to refuse in the next VM bound (0: none).
    next: u64,
    /// The meter of the VM the last plan was armed in.
    armed: Option<Arc<Meter>>,
}

static PLAN: Mutex<Plan> = Mutex::new(Plan {
    next: 0,
    armed: None,
});

/// The next VM bound to a run refuses its `nth` allocation (from 1) after
/// its bind begins; 0 arms nothing.
pub fn fail_next_run_at(nth: u64) {
    let mut plan = PLAN.lock();
    plan.next = nth;
    plan.armed = None;
}

/// Allocations made (or refused) so far by the VM the last plan armed, or
/// `None` when no VM was bound since.
pub fn armed_allocations() -> Option<u64> {
    PLAN.lock().armed.as_ref().map(|meter| meter.allocations())
}

/// Called by `Vm::bind`: arms the plan in this VM's runtime.
pub(super) fn arm(meter: &Arc<Meter>, runtime: *mut qjs::JSRuntime) {
    let mut plan = PLAN.lock();
    if plan.next != 0 {
        let (count, at, hit) = meter.plan_fault(std::mem::take(&mut plan.next));
        // SAFETY: the words live in the meter, which the runtime's allocator
        // holds until after `JS_FreeRuntime`; `runtime` is this VM's.
        unsafe { qjs::JS_SetAllocationFault(runtime, count, at, hit) };
        plan.armed = Some(meter.clone());
    }
}
