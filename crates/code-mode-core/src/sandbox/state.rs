//! What a VM's host functions share with the VM itself, behind one `Rc`.
//!
//! Host functions never capture a JS value directly: QuickJS cannot see
//! references held by Rust closures, so a captured function would keep its
//! context alive forever. They read the captured `Object.prototype.toString`
//! from `tag`, which the VM empties before it frees the context.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::{Arc, LazyLock};

use rquickjs::{Ctx, Function, Persistent, Value};

use super::callees::CallSites;
use super::calls::CallTable;
use super::control::Control;
use super::output::OutputLog;
use super::timer_table::TimerTable;
use super::toolbox::Toolbox;

pub(super) type SharedState = Rc<VmState>;

#[derive(Default)]
pub(super) struct VmState {
    /// The control block of the current exec or wait leg (none before the VM
    /// is bound to a run).
    pub(super) bound: RefCell<Option<Arc<Control>>>,
    pub(super) output: RefCell<OutputLog>,
    pub(super) tag: RefCell<Option<Persistent<Function<'static>>>>,
    /// The run's nested calls and yields.
    pub(super) calls: RefCell<CallTable>,
    /// The run's live timers.
    pub(super) timers: RefCell<TimerTable>,
    /// What a timer callback threw (or its promise rejected with): the cell
    /// fails with it.
    pub(super) uncaught: RefCell<Option<String>>,
    /// The catalog and counters of the agent run the VM is bound to.
    pub(super) toolbox: RefCell<Option<Arc<Toolbox>>>,
    /// The tool calls the cell's script spells out, for its errors.
    pub(super) sites: RefCell<CallSites>,
    /// The VM's memory limit (set when it is bound): the most JSON text an
    /// `API` or `$api` answer may have (`bridge/mcp.rs`).
    pub(super) memory_bytes: Cell<usize>,
    /// The class id of lazy objects in this VM's runtime (`sandbox/lazy`).
    pub(super) lazy_class: Cell<u32>,
    /// What makes the VM's lazy globals (`ALL_TOOLS`) on first read.
    pub(super) global_maker: Cell<Option<GlobalMaker>>,
}

/// Makes the lazy global `name` (none: not one of ours).
pub(super) type GlobalMaker =
    for<'js> fn(&Ctx<'js>, &VmState, &str) -> rquickjs::Result<Option<Value<'js>>>;

/// What an unbound VM reads: never stopped, no deadline. No guest code runs
/// before a VM is bound.
static UNBOUND: LazyLock<Arc<Control>> = LazyLock::new(|| Arc::new(Control::new()));

impl VmState {
    pub(super) fn control(&self) -> Arc<Control> {
        self.bound
            .borrow()
            .clone()
            .unwrap_or_else(|| UNBOUND.clone())
    }

    /// The `Object.prototype.toString` captured before the guest ran.
    pub(super) fn tag<'js>(&self, ctx: &Ctx<'js>) -> rquickjs::Result<Function<'js>> {
        let saved = self.tag.borrow().clone().ok_or(rquickjs::Error::Unknown)?;
        saved.restore(ctx)
    }

    /// The toolbox of the bound run; an unbound VM runs no guest code.
    pub(super) fn toolbox(&self) -> rquickjs::Result<Arc<Toolbox>> {
        self.toolbox
            .borrow()
            .clone()
            .ok_or(rquickjs::Error::Unknown)
    }
}
