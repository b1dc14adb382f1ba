//! The guest's timers: `setTimeout`, `clearTimeout`, `setInterval` and
//! `clearInterval`. A timer belongs to its run: the callback and its extra
//! arguments stay in the VM's heap (measured by the VM's meter), and the
//! [`TimerTable`] here says when each falls due. Nothing is armed on the Node
//! thread's event loop. The engine fires due timers on the worker that drives
//! the run ([`Vm::settle`](super::Vm::settle)); a parked run's timers wait with
//! it and fire on a later `wait`; when the VM goes, its timers go with it.

use std::time::{Duration, Instant};

use rquickjs::convert::Coerced;
use rquickjs::function::{Args, Opt, Rest};
use rquickjs::object::Property;
use rquickjs::{Array, Ctx, Exception, FromJs, Function, Persistent, Value};

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
            let parent = state.calls.borrow().parent.clone();
            let mut timers = state.timers.borrow_mut();
            let label = format!(
                "code_mode:{}:{}:{}",
                parent.as_deref().unwrap_or("exec"),
                kind.name(),
                timers.next_id()
            );
            let id = timers.arm(Timer {
                kind,
                callback: Persistent::save(&ctx, callback),
                args,
                period,
                due: Instant::now() + period,
                label,
                seq: 0,
            });
            Ok(id as f64)
        },
    )?
    .with_name(kind.name())
}

/// `clearTimeout(id)` / `clearInterval(id)`: either clears a timer of either
/// kind, as on the web; anything that is not a live timer's id is ignored.
fn clear_function<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    name: &'static str,
) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(ctx.clone(), move |id: Opt<Value<'js>>| {
        let id = id.0.and_then(|id| id.as_number());
        if let Some(id) = id.filter(|id| id.fract() == 0.0 && *id >= 1.0) {
            state.timers.borrow_mut().clear(id as u64);
        }
    })?
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
pub(super) fn call<'js>(ctx: &Ctx<'js>, firing: Firing) -> rquickjs::Result<()> {
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
    callback.call_arg::<()>(args)
}
