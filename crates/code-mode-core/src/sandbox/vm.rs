//! A QuickJS runtime + context with the cell's limits, evaluation and outcome.

use std::mem::ManuallyDrop;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rquickjs::context::intrinsic;
use rquickjs::context::EvalOptions;
use rquickjs::promise::PromiseState;
use rquickjs::{
    qjs, CatchResultExt, CaughtError, Context, Ctx, Function, Object, Persistent, Promise, Runtime,
    Value,
};
use serde_json::value::RawValue;

use super::alloc::{CountingAllocator, Meter};
use super::bridge::{self, feed};
use super::callees;
use super::calls::{Arrived, CallTable};
use super::control::{Control, Stop};
use super::errors::{self, CELL_FILE};
use super::json::{to_json, ConvertError, Depth};
use super::lazy;
use super::output::OutputLog;
use super::prelude;
use super::state::{SharedState, VmState};
use super::timers;
use super::toolbox::Toolbox;
use crate::result::{ErrorCode, Output, PendingCall};

/// Runtimes retired in this process: QuickJS's teardown found objects still
/// alive (an engine leak), so the allocator released what it held instead.
static RETIRED: AtomicU64 = AtomicU64::new(0);

/// How many VMs this process retired instead of freeing them normally.
pub fn retired_vms() -> u64 {
    RETIRED.load(Ordering::Relaxed)
}

/// Per-VM limits.
#[derive(Clone, Copy, Debug)]
pub struct VmLimits {
    pub memory_bytes: usize,
    pub stack_bytes: usize,
    pub max_output_bytes: usize,
    /// Byte cap of one tool input or result crossing the bridge.
    pub max_bridge_bytes: usize,
}

/// Where a cell stands after the host drove it as far as it can.
#[derive(Debug)]
pub enum CellOutcome {
    /// The cell's promise resolved; the value is JSON text.
    Completed(Box<RawValue>),
    Failed(ErrorCode, String),
    /// The promise is pending and no job is runnable.
    Pending,
}

/// The intrinsics a cell gets: the standard library minus `Performance` (a timer)
/// and `DOMException`.
pub(super) type Intrinsics = (
    intrinsic::Date,
    intrinsic::Eval,
    intrinsic::RegExpCompiler,
    intrinsic::RegExp,
    intrinsic::Json,
    intrinsic::Proxy,
    intrinsic::MapSet,
    intrinsic::TypedArrays,
    intrinsic::Promise,
    intrinsic::WeakRef,
);

pub struct Vm {
    // Persistent handles are released in `Drop`, before the context and runtime.
    promise: Option<Persistent<Promise<'static>>>,
    // Dropped by hand in `Drop`, context first, so the teardown's verdict can
    // be read off the meter after the runtime is gone.
    context: ManuallyDrop<Context>,
    runtime: ManuallyDrop<Runtime>,
    meter: Arc<Meter>,
    state: SharedState,
}

// SAFETY: what keeps a `Vm` from being `Send` is the `Rc<VmState>` in `state`
// (and the `RefCell`s inside it), plus the QuickJS runtime, context and
// `Persistent` handles. Every clone of that `Rc` lives either in this struct or
// in a host function stored inside this VM's own runtime, and every handle
// points into this runtime, so nothing outside the `Vm` shares them. A `Vm` is
// only ever used by one thread at a time and moves between threads as one
// unit; QuickJS has no thread affinity beyond the stack top, which
// [`Vm::adopt_thread`] refreshes whenever a thread takes the VM over.
unsafe impl Send for Vm {}

impl Vm {
    /// A fresh runtime + context with the guest globals, not yet bound to a run:
    /// no memory limit beyond its own, no deadline. Workers build one ahead of
    /// time so a cell does not wait for it; no guest code runs in it before
    /// [`Vm::bind`].
    pub fn blank(stack_bytes: usize) -> rquickjs::Result<Self> {
        let meter = Meter::new(usize::MAX);
        let runtime = Runtime::new_with_alloc(CountingAllocator::new(meter.clone()))?;
        runtime.set_max_stack_size(stack_bytes);
        let context = Context::custom::<Intrinsics>(&runtime)?;
        let state = Rc::new(VmState::default());
        context.with(|ctx| -> rquickjs::Result<()> {
            // SAFETY: the context is live while `ctx` is; this reads its runtime.
            let raw_runtime = unsafe { qjs::JS_GetRuntime(ctx.as_raw().as_ptr()) };
            // SAFETY: the flag lives in the meter, which the runtime's
            // allocator holds until after `JS_FreeRuntime` returns.
            unsafe { qjs::JS_SetTeardownLeakFlag(raw_runtime, meter.leak_flag()) };
            let class = lazy::register(raw_runtime).ok_or(rquickjs::Error::Unknown)?;
            state.lazy_class.set(class);
            lazy::install_globals(raw_runtime, &state);
            let object: Object = ctx.globals().get("Object")?;
            let prototype: Object = object.get("prototype")?;
            let to_string: Function = prototype.get("toString")?;
            *state.tag.borrow_mut() = Some(Persistent::save(&ctx, to_string));
            prelude::install(&ctx, &state)?;
            timers::install(&ctx, &state)
        })?;
        Ok(Self {
            promise: None,
            context: ManuallyDrop::new(context),
            runtime: ManuallyDrop::new(runtime),
            meter,
            state,
        })
    }

    /// Gives a blank VM its run: limits, the control block its interrupt
    /// handler and host functions obey, and the agent run's tools. A VM is
    /// bound once.
    pub fn bind(
        &self,
        limits: VmLimits,
        control: Arc<Control>,
        toolbox: Arc<Toolbox>,
    ) -> rquickjs::Result<()> {
        #[cfg(feature = "test-hooks")]
        self.context.with(|ctx| {
            // SAFETY: the context is live while `ctx` is; this reads its runtime.
            let runtime = unsafe { qjs::JS_GetRuntime(ctx.as_raw().as_ptr()) };
            super::fault::arm(&self.meter, runtime);
        });
        self.meter.set_limit(limits.memory_bytes);
        self.state.memory_bytes.set(limits.memory_bytes);
        self.runtime.set_max_stack_size(limits.stack_bytes);
        self.state
            .output
            .borrow_mut()
            .set_max_bytes(limits.max_output_bytes);
        self.rebind(control);
        self.state.calls.borrow_mut().max_bridge_bytes = limits.max_bridge_bytes;
        *self.state.toolbox.borrow_mut() = Some(toolbox.clone());
        self.context
            .with(|ctx| bridge::install(&ctx, &self.state, &toolbox))
    }

    /// The own property names of the guest's `globalThis`.
    pub fn global_names(&self) -> Vec<String> {
        self.context.with(|ctx| {
            ctx.eval::<Vec<String>, _>("Object.getOwnPropertyNames(globalThis)")
                .unwrap_or_default()
        })
    }

    /// Hands the VM to the control block of a new leg (a `wait` resuming it):
    /// its interrupt handler and host functions obey that one from now on.
    pub fn rebind(&self, control: Arc<Control>) {
        self.adopt_thread();
        self.context.with(|ctx| {
            // SAFETY: the context is live while `ctx` is; this reads its runtime.
            let runtime = unsafe { qjs::JS_GetRuntime(ctx.as_raw().as_ptr()) };
            // SAFETY: the runtime belongs to this VM and is used by this
            // thread only. The flag lives in `control`, which the interrupt
            // handler installed below keeps alive until the next rebind sets
            // another flag first, or the VM is dropped (no polls after that).
            unsafe { qjs::JS_SetInterruptFlag(runtime, control.interrupt_flag()) }
        });
        {
            let (control, meter) = (control.clone(), self.meter.clone());
            self.runtime.set_interrupt_handler(Some(Box::new(move || {
                if meter.exhausted() {
                    control.stop(Stop::Memory);
                }
                control.enforce_deadline()
            })));
        }
        *self.state.bound.borrow_mut() = Some(control);
    }

    /// Records this thread's stack as the VM's: QuickJS measures stack use from
    /// the stack top it recorded, and a VM resumed on another worker would
    /// otherwise see a bogus overflow. (rquickjs only does this itself with
    /// its `parallel` feature.)
    pub fn adopt_thread(&self) {
        self.context.with(|ctx| {
            // SAFETY: the context is live while `ctx` is; this reads its runtime.
            let runtime = unsafe { qjs::JS_GetRuntime(ctx.as_raw().as_ptr()) };
            // SAFETY: the runtime belongs to this VM and is used by this thread only.
            unsafe { qjs::JS_UpdateStackTop(runtime) }
        });
    }

    /// The run's nested calls.
    pub fn calls(&self) -> std::cell::RefMut<'_, CallTable> {
        self.state.calls.borrow_mut()
    }

    /// Heap bytes the runtime holds now.
    pub fn heap_bytes(&self) -> usize {
        self.meter.used()
    }

    /// Collects garbage (before parking: a parked VM holds only what is live).
    pub fn collect_garbage(&self) {
        self.runtime.run_gc();
    }

    /// Feeds settled nested calls into the guest and, when `resume` is set,
    /// answers its yields; fires the timers due by now; then drives it.
    /// Settlements and due timers reach the guest in the order they came
    /// about: a timer due before a result arrived fires before it is fed,
    /// however late the worker looks (a parked run, a busy worker).
    pub fn settle(&mut self, settled: Vec<Arrived>, resume: bool) -> CellOutcome {
        let mark = self.state.timers.borrow().mark();
        if resume {
            self.context
                .with(|ctx| feed::resume_yields(&ctx, &self.state));
        }
        let mut settled = settled.into_iter().peekable();
        while let Some(&(_, _, arrived)) = settled.peek() {
            // The timers due before the next settlement arrived.
            self.fire_timers(arrived, mark);
            // That settlement, and the ones after it that arrived before
            // another timer fell due, go in together.
            let state = &self.state;
            self.context.with(|ctx| {
                let mut first = true;
                while let Some((key, settlement, _)) = settled.next_if(|&(_, _, arrived)| {
                    std::mem::take(&mut first) || !state.timers.borrow().due_by(arrived, mark)
                }) {
                    feed::settle(&ctx, state, key, settlement);
                }
            });
        }
        self.fire_timers(Instant::now(), mark);
        self.drive()
    }

    /// Fires the timers due by `by` and armed before `mark`, earliest first,
    /// each after the microtasks queued before it (as an event loop would).
    /// Stops at once when the cell settles (its other timers never fire),
    /// stops, or a callback throws (the cell fails with that error).
    fn fire_timers(&mut self, by: Instant, mark: u64) {
        loop {
            if !self.state.timers.borrow().due_by(by, mark) {
                return;
            }
            self.run_jobs();
            if self.stopped() || self.state.uncaught.borrow().is_some() || !self.cell_pending() {
                return;
            }
            let Some(firing) = self.state.timers.borrow_mut().take_due(by, mark) else {
                return;
            };
            let thrown = self
                .context
                .with(|ctx| match timers::call(&ctx, &self.state, firing) {
                    Ok(()) => None,
                    Err(rquickjs::Error::Exception) => {
                        let thrown = ctx.catch();
                        Some(errors::describe(&ctx, &self.state, &thrown))
                    }
                    Err(error) => Some(error.to_string()),
                });
            // A stop (deadline, memory) is not the guest's error.
            if let Some(thrown) = thrown.filter(|_| !self.stopped()) {
                self.state.uncaught.borrow_mut().get_or_insert(thrown);
            }
        }
    }

    /// Whether the cell's promise is still pending.
    fn cell_pending(&self) -> bool {
        let Some(promise) = self.promise.as_ref() else {
            return false;
        };
        self.context.with(|ctx| {
            promise
                .clone()
                .restore(&ctx)
                .is_ok_and(|promise| promise.state() == PromiseState::Pending)
        })
    }

    /// When the earliest live timer falls due.
    pub fn next_timer_due(&self) -> Option<Instant> {
        self.state.timers.borrow().next_due()
    }

    /// Whether a nested call, a yield or a timer is pending: what a pending
    /// cell may wait for.
    pub fn has_host_work(&self) -> bool {
        self.state.calls.borrow().has_host_work() || !self.state.timers.borrow().is_empty()
    }

    /// What a `waiting` result lists: nested calls in the order they were
    /// made, yields, then timers, earliest due first.
    pub fn pending_calls(&self) -> Vec<PendingCall> {
        let mut pending = self.state.calls.borrow().pending_calls();
        pending.extend(self.state.timers.borrow().pending());
        pending
    }

    /// Bytes the host holds for the run's calls and timers (part of a parked
    /// run's size).
    pub fn held_bytes(&self) -> usize {
        self.state.calls.borrow().held_bytes() + self.state.timers.borrow().held_bytes()
    }

    /// Makes this VM restart-safe: only replay-safe OpenClaw tools.
    pub fn set_restart_safe(&self, restart_safe: bool) {
        self.state.calls.borrow_mut().restart_safe = restart_safe;
    }

    /// Output items produced since the previous result.
    pub fn take_output(&self) -> Vec<Output> {
        self.state.output.borrow_mut().take_new()
    }

    /// Evaluates the prepared script (the deadline must already be armed) and
    /// drives it until it settles or waits.
    pub fn start(&mut self, script: &str) -> CellOutcome {
        *self.state.sites.borrow_mut() = callees::scan(script);
        let started = self.context.with(|ctx| {
            let mut options = EvalOptions::default();
            options.global = true;
            options.strict = false;
            options.backtrace_barrier = true;
            options.filename = Some(CELL_FILE.to_owned());
            match ctx
                .eval_with_options::<Value, _>(script, options)
                .catch(&ctx)
            {
                Ok(value) => match value.into_promise() {
                    Some(promise) => Ok(Persistent::save(&ctx, promise)),
                    None => Err(CellOutcome::Failed(
                        ErrorCode::InternalError,
                        crate::messages::CELL_NOT_A_PROMISE.into(),
                    )),
                },
                Err(error) => Err(self.failure(&ctx, error)),
            }
        });
        match started {
            Ok(promise) => {
                self.promise = Some(promise);
                self.drive()
            }
            Err(outcome) => self.stop_reason().unwrap_or(outcome),
        }
    }

    /// Runs every runnable job (until a stop).
    fn run_jobs(&mut self) {
        loop {
            match self.runtime.execute_pending_job() {
                Ok(true) => {}
                Ok(false) => break,
                Err(_) if self.stopped() => break,
                Err(_) => {}
            }
            if self.stopped() {
                break;
            }
        }
    }

    /// Runs every runnable job, then reports the cell's state.
    pub fn drive(&mut self) -> CellOutcome {
        self.run_jobs();
        if let Some(outcome) = self.stop_reason() {
            return outcome;
        }
        let uncaught = self.state.uncaught.borrow_mut().take();
        if let Some(thrown) = uncaught {
            return CellOutcome::Failed(ErrorCode::InternalError, thrown);
        }
        let Some(promise) = self.promise.clone() else {
            return CellOutcome::Failed(
                ErrorCode::InternalError,
                crate::messages::CELL_NOT_STARTED.into(),
            );
        };
        let outcome = self.context.with(|ctx| {
            let promise = match promise.restore(&ctx) {
                Ok(promise) => promise,
                Err(error) => return self.failure(&ctx, CaughtError::Error(error)),
            };
            match promise.state() {
                PromiseState::Pending => CellOutcome::Pending,
                PromiseState::Resolved => {
                    let value: Value = promise
                        .result()
                        .and_then(Result::ok)
                        .unwrap_or_else(|| Value::new_null(ctx.clone()));
                    self.final_value(&ctx, value)
                }
                PromiseState::Rejected => {
                    let reason = match promise.result::<Value>() {
                        Some(Err(rquickjs::Error::Exception)) => ctx.catch(),
                        Some(Ok(value)) => value,
                        _ => Value::new_undefined(ctx.clone()),
                    };
                    CellOutcome::Failed(
                        ErrorCode::InternalError,
                        errors::describe(&ctx, &self.state, &reason),
                    )
                }
            }
        });
        if let Some(stopped) = self.stop_reason() {
            return stopped;
        }
        // A builtin that never polled the interrupt handler may have run past
        // the deadline and still finished: a late finish is a timeout.
        let settled = !matches!(outcome, CellOutcome::Pending);
        if settled && self.state.control().enforce_deadline() {
            return stop_outcome(Stop::Timeout);
        }
        outcome
    }

    fn final_value<'js>(&self, ctx: &Ctx<'js>, value: Value<'js>) -> CellOutcome {
        if self.state.output.borrow().exceeded() {
            return stop_outcome(Stop::Output);
        }
        let limit = self.state.output.borrow().max_bytes();
        let tag = match self.state.tag(ctx) {
            Ok(tag) => tag,
            Err(error) => return self.failure(ctx, CaughtError::Error(error)),
        };
        match to_json(ctx, &tag, &self.state.control(), value, limit, Depth::Mark) {
            Ok(json) => CellOutcome::Completed(
                RawValue::from_string(json).expect("the converter emits valid JSON"),
            ),
            Err(ConvertError::TooLarge) => stop_outcome(Stop::Output),
            Err(ConvertError::Stopped | ConvertError::TooDeep | ConvertError::TooWide) => self
                .stop_reason()
                .unwrap_or_else(|| stop_outcome(Stop::Timeout)),
        }
    }

    fn failure(&self, ctx: &Ctx<'_>, error: CaughtError<'_>) -> CellOutcome {
        let message = match error {
            CaughtError::Exception(exception) => {
                errors::describe(ctx, &self.state, &exception.into_value())
            }
            CaughtError::Value(value) => errors::describe(ctx, &self.state, &value),
            CaughtError::Error(error) => error.to_string(),
        };
        CellOutcome::Failed(ErrorCode::InternalError, message)
    }

    fn stopped(&self) -> bool {
        self.meter.exhausted() || self.state.control().stopped().is_some()
    }

    /// The outcome forced by a stop reason, if any. Memory exhaustion wins even
    /// when the guest caught the error: it cannot continue past it.
    fn stop_reason(&self) -> Option<CellOutcome> {
        if self.meter.exhausted() {
            self.state.control().stop(Stop::Memory);
            return Some(stop_outcome(Stop::Memory));
        }
        if self.state.output.borrow().exceeded() {
            self.state.control().stop(Stop::Output);
        }
        self.state.control().stopped().map(stop_outcome)
    }
}

#[cfg(test)]
impl Vm {
    /// Tests only: evaluates `code` and leaks one reference to its value, as
    /// an engine bug would; the VM's teardown then has to retire it.
    pub(super) fn leak_for_test(&self, code: &str) {
        self.context.with(|ctx| {
            let value: Value = ctx.eval(code).unwrap();
            // SAFETY: a reference nobody will free: exactly the bug simulated.
            unsafe { qjs::JS_DupValue(ctx.as_raw().as_ptr(), value.as_raw()) };
        });
    }

    /// Tests only: what the host functions share, weakly.
    pub(super) fn state_weak(&self) -> std::rc::Weak<VmState> {
        Rc::downgrade(&self.state)
    }

    /// Tests only: the VM's meter.
    pub(super) fn meter(&self) -> Arc<Meter> {
        self.meter.clone()
    }
}

impl Vm {
    /// Frees the VM; true when its runtime was retired (see [`retired_vms`]):
    /// its memory is released all the same, and the caller reports the cell
    /// as an internal error if it still can.
    pub fn free(self) -> bool {
        let meter = self.meter.clone();
        drop(self);
        meter.retired()
    }
}

impl Drop for Vm {
    fn drop(&mut self) {
        // Every handle into the heap goes before the context and runtime free it,
        // possibly on another thread than the last one that ran the guest.
        self.adopt_thread();
        self.promise = None;
        self.state.tag.borrow_mut().take();
        self.state.calls.borrow_mut().clear();
        self.state.timers.borrow_mut().clear_all();
        // What the host functions share goes too: if the engine leaked one of
        // them, it holds an empty `VmState` rather than the run's output and
        // tools.
        *self.state.output.borrow_mut() = OutputLog::default();
        self.state.toolbox.borrow_mut().take();
        self.state.sites.borrow_mut().clear();
        self.state.uncaught.borrow_mut().take();
        // Teardown never fails for the limit, nor for a test's injected fault.
        self.meter.set_limit(usize::MAX);
        self.meter.disarm();
        // SAFETY: the context is never used again: this is the VM's drop.
        unsafe { ManuallyDrop::drop(&mut self.context) };
        // SAFETY: as above, for the runtime, which goes after its context.
        unsafe { ManuallyDrop::drop(&mut self.runtime) };
        if self.meter.retired() {
            RETIRED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn stop_outcome(stop: Stop) -> CellOutcome {
    let (code, message) = stop.error();
    CellOutcome::Failed(code, message.to_owned())
}
