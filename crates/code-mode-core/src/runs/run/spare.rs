//! Each worker builds its next blank VM ahead of time, so a cell does not wait
//! for a runtime and context to be built.

use std::cell::RefCell;
use std::sync::Arc;

use crate::limits::JS_STACK_BYTES;
use crate::runs::agent_run::AgentRun;
use crate::sandbox::{Control, Vm, VmLimits};

thread_local! {
    /// A blank VM built ahead of the next cell on this worker.
    static SPARE: RefCell<Option<Vm>> = const { RefCell::new(None) };
}

/// Builds this worker's spare VM if it has none. Called between cells, so the
/// next cell does not wait for a runtime and context to be built.
pub(in crate::runs) fn refill_spare() {
    SPARE.with(|spare| {
        if spare.borrow().is_none() {
            let vm = Vm::blank(JS_STACK_BYTES).ok();
            *spare.borrow_mut() = vm;
        }
    });
}

/// A never-used VM bound to this run: the spare when there is one.
pub(super) fn fresh_vm(
    limits: VmLimits,
    control: &Arc<Control>,
    agent_run: &AgentRun,
) -> rquickjs::Result<Vm> {
    let vm = match SPARE.with(|spare| spare.borrow_mut().take()) {
        Some(vm) => vm,
        None => Vm::blank(limits.stack_bytes)?,
    };
    vm.bind(limits, control.clone(), agent_run.toolbox.clone())?;
    Ok(vm)
}
