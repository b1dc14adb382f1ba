//! The guest globals: `text`, `json`, `console.*`. Each is a host function bound
//! as a read-only, non-configurable global, so guest code can shadow nothing the
//! host depends on.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;
use rquickjs::function::{Opt, Rest};
use rquickjs::object::Property;
use rquickjs::{qjs, Ctx, Exception, Function, Object, Persistent, Value};
use serde_json::value::RawValue;

use super::bridge::CallTable;
use super::control::{Control, Stop};
use super::json::{string_lossy, to_json, ConvertError};
use super::output::OutputLog;
use crate::result::Output;

/// What the host functions share with the VM. Host functions never capture a
/// JS value directly: QuickJS cannot see references held by Rust closures, so a
/// captured function would keep its context alive forever. They read the
/// captured `Object.prototype.toString` from `tag`, which the VM empties before
/// it frees the context.
#[derive(Clone)]
pub struct Shared {
    /// The control block of the current exec or wait leg (none before the VM
    /// is bound to a run).
    pub bound: Rc<RefCell<Option<Arc<Control>>>>,
    pub output: Arc<Mutex<OutputLog>>,
    pub tag: Rc<RefCell<Option<Persistent<Function<'static>>>>>,
    /// The run's nested calls and its surface's catalog.
    pub calls: Rc<RefCell<CallTable>>,
}

/// What an unbound VM reads: never stopped, no deadline. No guest code runs
/// before a VM is bound.
static UNBOUND: LazyLock<Arc<Control>> = LazyLock::new(|| Arc::new(Control::new()));

impl Shared {
    pub fn control(&self) -> Arc<Control> {
        self.bound
            .borrow()
            .clone()
            .unwrap_or_else(|| UNBOUND.clone())
    }

    /// The `Object.prototype.toString` captured before the guest ran.
    pub fn tag<'js>(&self, ctx: &Ctx<'js>) -> rquickjs::Result<Function<'js>> {
        let saved = self.tag.borrow().clone().ok_or(rquickjs::Error::Unknown)?;
        saved.restore(ctx)
    }
}

/// Globals a guest must not reach.
const REMOVED_GLOBALS: &[&str] = &["SharedArrayBuffer", "Atomics", "WebAssembly"];

pub fn install<'js>(ctx: &Ctx<'js>, shared: &Shared) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    for name in REMOVED_GLOBALS {
        globals.remove(*name)?;
    }

    let text = {
        let shared = shared.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, value: Opt<Value<'js>>| -> rquickjs::Result<()> {
                let value = first_or_undefined(&ctx, value);
                let text = render_text(&ctx, &shared, value)?;
                emit(&ctx, &shared, Output::Text { text })
            },
        )?
    };
    let json = {
        let shared = shared.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, value: Opt<Value<'js>>| -> rquickjs::Result<()> {
                let value = first_or_undefined(&ctx, value);
                let limit = shared.output.lock().remaining();
                let json = convert(&ctx, &shared, value, limit)?;
                let value = RawValue::from_string(json).expect("the converter emits valid JSON");
                emit(&ctx, &shared, Output::Json { value })
            },
        )?
    };
    define(&globals, "text", text)?;
    define(&globals, "json", json)?;

    let console = Object::new(ctx.clone())?;
    for (method, prefix) in [
        ("log", ""),
        ("info", ""),
        ("debug", ""),
        ("warn", "warn: "),
        ("error", "error: "),
    ] {
        let shared = shared.clone();
        let function = Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<()> {
                let mut line = String::from(prefix);
                let remaining = shared.output.lock().remaining();
                for (i, value) in args.0.into_iter().enumerate() {
                    if i > 0 {
                        line.push(' ');
                    }
                    line.push_str(&render_text(&ctx, &shared, value)?);
                    // The host never holds more than the output limit of one line.
                    if line.len() > remaining {
                        shared.output.lock().exceed();
                        return Err(terminate(&ctx, &shared.control(), Stop::Output));
                    }
                }
                emit(&ctx, &shared, Output::Text { text: line })
            },
        )?;
        define(&console, method, function)?;
    }
    seal(ctx, &console);
    define(&globals, "console", console)?;
    Ok(())
}

/// The argument, or `undefined` when the guest passed none.
fn first_or_undefined<'js>(ctx: &Ctx<'js>, value: Opt<Value<'js>>) -> Value<'js> {
    value.0.unwrap_or_else(|| Value::new_undefined(ctx.clone()))
}

/// Strings as they are; anything else as JSON-safe JSON.
fn render_text<'js>(
    ctx: &Ctx<'js>,
    shared: &Shared,
    value: Value<'js>,
) -> rquickjs::Result<String> {
    if value.is_string() {
        return Ok(string_lossy(ctx, &value));
    }
    let limit = shared.output.lock().remaining();
    convert(ctx, shared, value, limit)
}

fn convert<'js>(
    ctx: &Ctx<'js>,
    shared: &Shared,
    value: Value<'js>,
    limit: usize,
) -> rquickjs::Result<String> {
    let tag = shared.tag(ctx)?;
    match to_json(ctx, &tag, &shared.control(), value, limit) {
        Ok(json) => Ok(json),
        Err(ConvertError::TooLarge) => {
            shared.output.lock().exceed();
            Err(terminate(ctx, &shared.control(), Stop::Output))
        }
        Err(ConvertError::Stopped) => Err(terminate(ctx, &shared.control(), Stop::Timeout)),
    }
}

fn emit(ctx: &Ctx<'_>, shared: &Shared, item: Output) -> rquickjs::Result<()> {
    if shared.output.lock().push(item) {
        return Ok(());
    }
    Err(terminate(ctx, &shared.control(), Stop::Output))
}

/// Ends the VM from inside a host function: records the reason (unless one is
/// already set) and throws an exception the guest cannot catch.
pub fn terminate(ctx: &Ctx<'_>, control: &Control, reason: Stop) -> rquickjs::Error {
    control.stop(reason);
    match Exception::from_message(ctx.clone(), "code mode run stopped") {
        Ok(exception) => {
            // SAFETY: the value belongs to `ctx` and stays alive while it is thrown.
            unsafe { qjs::JS_SetUncatchableError(ctx.as_raw().as_ptr(), exception.as_raw()) };
            ctx.throw(exception.into_value())
        }
        Err(error) => error,
    }
}

pub fn define<'js>(
    target: &Object<'js>,
    name: &str,
    value: impl rquickjs::IntoJs<'js>,
) -> rquickjs::Result<()> {
    target.prop(name, Property::from(value))
}

/// Non-extensible: with read-only, non-configurable members this is frozen.
fn seal(ctx: &Ctx<'_>, object: &Object<'_>) {
    // SAFETY: `object` belongs to `ctx`.
    unsafe { qjs::JS_PreventExtensions(ctx.as_raw().as_ptr(), object.as_raw()) };
}
