//! Small helpers over the QuickJS C API that the prelude and the bridge share:
//! read-only globals, frozen objects, plain errors, and the uncatchable stop.

use rquickjs::object::Property;
use rquickjs::{qjs, Ctx, Exception, Object, Value};

use super::control::{Control, Stop};

/// Defines `name` on `target` as a read-only, non-configurable member.
pub(super) fn define<'js>(
    target: &Object<'js>,
    name: &str,
    value: impl rquickjs::IntoJs<'js>,
) -> rquickjs::Result<()> {
    target.prop(name, Property::from(value))
}

/// Defines `name` on `target` as a read-only, non-configurable, enumerable
/// member: what `Object.keys` lists (the servers and tools under `MCP`).
pub(super) fn define_listed<'js>(
    target: &Object<'js>,
    name: &str,
    value: impl rquickjs::IntoJs<'js>,
) -> rquickjs::Result<()> {
    target.prop(name, Property::from(value).enumerable())
}

/// Non-extensible: with read-only, non-configurable members this is frozen.
pub(super) fn seal(ctx: &Ctx<'_>, object: &Object<'_>) {
    // SAFETY: `object` is a live value of `ctx`; the call only flips a flag on it.
    unsafe { qjs::JS_PreventExtensions(ctx.as_raw().as_ptr(), object.as_raw()) };
}

pub(super) fn freeze(ctx: &Ctx<'_>, object: &Object<'_>) {
    // SAFETY: `object` is a live value of `ctx`; freezing only changes its flags.
    unsafe { qjs::JS_FreezeObject(ctx.as_raw().as_ptr(), object.as_raw()) };
}

/// An error as `new Error(message)` makes it: an `Error` whose `message` is
/// an own property that is writable, configurable and not enumerable, so
/// `Object.keys(error)` is `[]`. (rquickjs's `Exception::from_message` sets
/// an enumerable one.)
pub(super) fn plain_error<'js>(ctx: &Ctx<'js>, message: &str) -> rquickjs::Result<Value<'js>> {
    // SAFETY: `JS_NewError` returns a new reference owned by the caller, or
    // the exception marker (checked before it is wrapped).
    let raw = unsafe { qjs::JS_NewError(ctx.as_raw().as_ptr()) };
    // SAFETY: only reads the tag of `raw`.
    if unsafe { qjs::JS_IsException(raw) } {
        return Err(rquickjs::Error::Exception);
    }
    // SAFETY: `raw` is an owned, non-exception value of `ctx`; the wrapper
    // takes over the reference.
    let error = unsafe { Value::from_raw(ctx.clone(), raw) };
    let object = error.as_object().ok_or(rquickjs::Error::Unknown)?;
    object.prop("message", Property::from(message).writable().configurable())?;
    Ok(error)
}

/// Ends the VM from inside a host function: records the reason (unless one is
/// already set) and throws an exception the guest cannot catch.
pub(super) fn terminate(ctx: &Ctx<'_>, control: &Control, reason: Stop) -> rquickjs::Error {
    control.stop(reason);
    match Exception::from_message(ctx.clone(), crate::messages::RUN_STOPPED) {
        Ok(exception) => {
            // SAFETY: the value belongs to `ctx` and stays alive while it is thrown.
            unsafe { qjs::JS_SetUncatchableError(ctx.as_raw().as_ptr(), exception.as_raw()) };
            ctx.throw(exception.into_value())
        }
        Err(error) => error,
    }
}
