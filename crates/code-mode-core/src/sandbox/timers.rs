//! The guest's timers: `setTimeout`, `clearTimeout`, `setInterval` and
//! `clearInterval`. A timer belongs to its run: the callback and its extra
//! arguments stay in the VM's heap (measured by the VM's meter), and the
//! [`TimerTable`] here says when each falls due. Nothing is armed on the Node
//! thread's event loop. The engine fires due timers on the worker that drives
//! the run ([`Vm::settle`](super::Vm::settle)); a parked run's timers wait with
//! it and fire on a later `wait`; when the VM goes, its timers go with it.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rquickjs::convert::Coerced;
use rquickjs::function::{Args, Opt, Rest};
use rquickjs::object::Property;
use rquickjs::{qjs, Array, Ctx, Exception, FromJs, Function, Persistent, Value};

use super::errors;
use super::js::{define, plain_error};
use super::state::SharedState;
use super::timer_table::{Firing, Kind, Timer};
use crate::limits::{MAX_TIMERS, MAX_TIMER_DELAY_MS, MIN_INTERVAL_MS};
use crate::messages;

/// Installs the four timer globals.
pub(super) fn install<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    for kind in [Kind::Timeout, Kind::Interval] {
        define(&globals, kind.name(), arm_function(ctx, state, kind)?)?;
    }
    for name in ["clearTimeout", "clearInterval"] {
        define(&globals, name, clear_function(ctx, state, name)?)?;
    }
    Ok(())
}

/// `setTimeout(callback, delay, ...args)` / `setInterval(...)`: arms a timer
/// and returns its id, a positive integer.
fn arm_function<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    kind: Kind,
) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<f64> {
            let mut args = args.0.into_iter();
            let Some(callback) = args.next().and_then(Value::into_function) else {
                return Err(Exception::throw_type(
                    &ctx,
                    &messages::timer_callback(kind.name()),
                ));
            };
            // May run the guest's `valueOf`, so before the table is touched.
            let delay = match args.next() {
                Some(delay) => delay_ms(&ctx, delay)?,
                None => 0.0,
            };
            if state.timers.borrow().len() >= MAX_TIMERS {
                let error = plain_error(&ctx, &messages::too_many_timers())?;
                return Err(ctx.throw(error));
            }
            let rest: Vec<Value<'js>> = args.collect();
            let args = match rest.len() {
                0 => None,
                count => Some((Persistent::save(&ctx, array_of(&ctx, rest)?), count as u32)),
            };
            let delay = match kind {
                Kind::Timeout => delay,
                Kind::Interval => delay.max(MIN_INTERVAL_MS),
            };
            let period = Duration::from_micros((delay * 1000.0) as u64);
            // Its id in `pendingToolCalls` takes a number of the run's
            // sequence of nested calls, so no call or timer of the run
            // surface shares it.
            let n = state
                .toolbox()?
                .counters
                .nested_seq
                .fetch_add(1, Ordering::Relaxed)
                + 1;
            let parent = state.calls.borrow().parent.clone();
            let id = state.timers.borrow_mut().arm(Timer {
                kind,
                callback: Persistent::save(&ctx, callback),
                args,
                period,
                due: Instant::now() + period,
                parent,
                n,
                seq: 0,
            });
            Ok(id as f64)
        },
    )?
    .with_name(kind.name())
}

/// `clearTimeout(id)` / `clearInterval(id)`: either clears a timer of either
/// kind, as on the web and in Node. The id is read as the web reads it: a
/// number or a numeric string, its fraction dropped (`"3"` and `3.5` are 3);
/// anything else, and an id that names no live timer, is ignored.
fn clear_function<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    name: &'static str,
) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, id: Opt<Value<'js>>| -> rquickjs::Result<()> {
            let id = match id.0 {
                Some(id) if id.is_number() => id.as_number(),
                // A string primitive converts without running guest code.
                Some(id) if id.is_string() => Some(Coerced::<f64>::from_js(&ctx, id)?.0),
                _ => None,
            };
            if let Some(id) = id.map(f64::trunc).filter(|id| *id >= 1.0) {
                state.timers.borrow_mut().clear(id as u64);
            }
            Ok(())
        },
    )?
    .with_name(name)
}

/// A delay as the web reads it, in milliseconds: a number as it is, anything
/// else through `Number(value)`; not a number or negative: 0; at most
/// [`MAX_TIMER_DELAY_MS`].
fn delay_ms<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> rquickjs::Result<f64> {
    let ms = match value.as_number() {
        Some(ms) => ms,
        None if value.is_undefined() => 0.0,
        None => Coerced::<f64>::from_js(ctx, value)?.0,
    };
    Ok(if ms >= 0.0 {
        ms.min(MAX_TIMER_DELAY_MS)
    } else {
        0.0
    })
}

/// A new array of `values`, defined element by element (no setter the guest
/// put on `Array.prototype` runs).
fn array_of<'js>(ctx: &Ctx<'js>, values: Vec<Value<'js>>) -> rquickjs::Result<Array<'js>> {
    let array = Array::new(ctx.clone())?;
    for (index, value) in values.into_iter().enumerate() {
        let property = Property::from(value).writable().enumerable().configurable();
        array.as_object().prop(index as u32, property)?;
    }
    Ok(array)
}

/// Calls a due timer's callback with its arguments and `this` undefined.
/// When it returns a promise (an `async` callback), a rejection of that
/// promise is an uncaught error, as Node treats it.
pub(super) fn call<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    firing: Firing,
) -> rquickjs::Result<()> {
    let callback = firing.callback.restore(ctx)?;
    let mut args = Args::new(
        ctx.clone(),
        firing.args.as_ref().map_or(0, |a| a.1 as usize),
    );
    if let Some((array, count)) = firing.args {
        let array = array.restore(ctx)?;
        for index in 0..count {
            args.push_arg(array.get::<Value>(index as usize)?)?;
        }
    }
    let returned: Value = callback.call_arg(args)?;
    if returned.is_promise() {
        catch_rejection(ctx, state, &returned)?;
    }
    Ok(())
}

/// Makes a rejection of `promise` the cell's uncaught error (the first one
/// recorded wins). Attached with the C API, so the guest's own
/// `Promise.prototype.then` is never consulted.
fn catch_rejection<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    promise: &Value<'js>,
) -> rquickjs::Result<()> {
    let handler = {
        let state = state.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, reason: Opt<Value<'js>>| {
                let reason = reason
                    .0
                    .unwrap_or_else(|| Value::new_undefined(ctx.clone()));
                // Reading the error may run guest code (a getter): before
                // the slot is borrowed.
                let described = errors::describe(&ctx, &state, &reason);
                state.uncaught.borrow_mut().get_or_insert(described);
            },
        )?
    };
    // SAFETY: `promise` is a live promise of `ctx` and `handler` a live
    // function of it; both are borrowed for the call. The result is a new
    // promise (or the exception marker) owned here and released at once.
    let chained = unsafe {
        qjs::JS_PromiseThen(
            ctx.as_raw().as_ptr(),
            promise.as_raw(),
            qjs::JS_UNDEFINED,
            handler.as_raw(),
        )
    };
    // SAFETY: `chained` is owned (see above); the wrapper releases it.
    let chained = unsafe { Value::from_raw(ctx.clone(), chained) };
    if chained.is_exception() {
        return Err(rquickjs::Error::Exception);
    }
    Ok(())
}
