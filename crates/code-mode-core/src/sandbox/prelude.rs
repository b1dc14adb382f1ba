//! The output globals: `text`, `json`, `console.*`. Each is a host function
//! bound as a read-only, non-configurable global, so guest code can shadow
//! nothing the host depends on.

use rquickjs::function::{Opt, Rest};
use rquickjs::{Ctx, Function, Object, Value};
use serde_json::value::RawValue;

use super::control::Stop;
use super::js::{define, seal, terminate};
use super::json::{string_capped, to_json, ConvertError, Depth};
use super::state::SharedState;
use crate::messages;
use crate::result::Output;

/// Globals a guest must not reach.
const REMOVED_GLOBALS: &[&str] = &["SharedArrayBuffer", "Atomics", "WebAssembly"];

/// The prefix of each `console` method's lines.
const CONSOLE: [(&str, &str); 5] = [
    ("log", ""),
    ("info", ""),
    ("debug", ""),
    ("warn", messages::CONSOLE_WARN),
    ("error", messages::CONSOLE_ERROR),
];

pub(super) fn install<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    for name in REMOVED_GLOBALS {
        globals.remove(*name)?;
    }
    define(&globals, "text", text_function(ctx, state)?)?;
    define(&globals, "json", json_function(ctx, state)?)?;
    let console = Object::new(ctx.clone())?;
    for (method, prefix) in CONSOLE {
        define(&console, method, console_function(ctx, state, prefix)?)?;
    }
    seal(ctx, &console);
    #[cfg(feature = "test-hooks")]
    define(&globals, "__block", block_function(ctx)?)?;
    define(&globals, "console", console)
}

/// Tests only (feature `test-hooks`): `__block(ms)` holds the thread in native
/// code without polling the interrupt handler, as a builtin that never polls
/// would, so the watchdog's path can be tested on any machine.
#[cfg(feature = "test-hooks")]
fn block_function<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Function<'js>> {
    Function::new(ctx.clone(), |ms: f64| {
        std::thread::sleep(std::time::Duration::from_millis(
            ms.clamp(0.0, 60_000.0) as u64
        ));
    })
}

/// `text(v)`: one text item, strings as they are, anything else as JSON.
fn text_function<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, value: Opt<Value<'js>>| -> rquickjs::Result<()> {
            let value = first_or_undefined(&ctx, value);
            let text = render_text(&ctx, &state, value)?;
            emit(&ctx, &state, Output::Text { text })
        },
    )
}

/// `json(v)`: one JSON item, after JSON-safe conversion.
fn json_function<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, value: Opt<Value<'js>>| -> rquickjs::Result<()> {
            let value = first_or_undefined(&ctx, value);
            let limit = state.output.borrow().remaining();
            let json = convert(&ctx, &state, value, limit)?;
            let value = RawValue::from_string(json).expect("the converter emits valid JSON");
            emit(&ctx, &state, Output::Json { value })
        },
    )
}

/// `console.<method>(...args)`: one text item, arguments joined by a space.
fn console_function<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    prefix: &'static str,
) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<()> {
            let mut line = String::from(prefix);
            let remaining = state.output.borrow().remaining();
            for (i, value) in args.0.into_iter().enumerate() {
                if i > 0 {
                    line.push(' ');
                }
                line.push_str(&render_text(&ctx, &state, value)?);
                // The host never holds more than the output limit of one line.
                if line.len() > remaining {
                    state.output.borrow_mut().exceed();
                    return Err(terminate(&ctx, &state.control(), Stop::Output));
                }
            }
            emit(&ctx, &state, Output::Text { text: line })
        },
    )
}

/// The argument, or `undefined` when the guest passed none.
fn first_or_undefined<'js>(ctx: &Ctx<'js>, value: Opt<Value<'js>>) -> Value<'js> {
    value.0.unwrap_or_else(|| Value::new_undefined(ctx.clone()))
}

/// Strings as they are; anything else as JSON-safe JSON.
fn render_text<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    value: Value<'js>,
) -> rquickjs::Result<String> {
    let limit = state.output.borrow().remaining();
    if value.is_string() {
        // A longer string cannot fit anyway: copy no more than that.
        return Ok(string_capped(ctx, &value, limit.saturating_add(1)));
    }
    convert(ctx, state, value, limit)
}

fn convert<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    value: Value<'js>,
    limit: usize,
) -> rquickjs::Result<String> {
    let tag = state.tag(ctx)?;
    match to_json(ctx, &tag, &state.control(), value, limit, Depth::Mark) {
        Ok(json) => Ok(json),
        Err(ConvertError::TooLarge) => {
            state.output.borrow_mut().exceed();
            Err(terminate(ctx, &state.control(), Stop::Output))
        }
        Err(ConvertError::Stopped | ConvertError::TooDeep | ConvertError::TooWide) => {
            Err(terminate(ctx, &state.control(), Stop::Timeout))
        }
    }
}

fn emit(ctx: &Ctx<'_>, state: &SharedState, item: Output) -> rquickjs::Result<()> {
    if state.output.borrow_mut().push(item) {
        return Ok(());
    }
    Err(terminate(ctx, &state.control(), Stop::Output))
}
