//! Lazy globals: QuickJS auto-initialised properties whose value the VM's
//! global maker makes when first read (`vendor/rquickjs-sys/PATCHES.md` 13).

use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use rquickjs::{qjs, Ctx};

use super::{atom_name, context_of};
use crate::sandbox::state::{SharedState, VmState};

/// Makes lazy globals in `runtime` with the maker `state` is given
/// (`VmState::global_maker`). `state` must outlive the runtime.
pub(in crate::sandbox) fn install_globals(runtime: *mut qjs::JSRuntime, state: &SharedState) {
    // SAFETY: `runtime` is live and used by this thread only. The opaque is
    // the VM's state, which the `Vm` drops after its runtime.
    unsafe {
        qjs::JS_SetHostAutoInit(
            runtime,
            Some(make_global),
            Rc::as_ptr(state).cast_mut().cast(),
        )
    };
}

/// Defines `name` on `globalThis` as a read-only, non-enumerable,
/// non-configurable data property whose value the global maker makes when
/// it is first read.
pub(in crate::sandbox) fn define_global(ctx: &Ctx<'_>, name: &str) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: `name` is valid UTF-8 of `len` bytes; the atom is released
    // below.
    let atom = unsafe { qjs::JS_NewAtomLen(raw, name.as_ptr().cast::<c_char>(), name.len() as _) };
    if atom == qjs::JS_ATOM_NULL {
        return Err(rquickjs::Error::Exception);
    }
    // SAFETY: the global object and the atom are live; the definition takes
    // its own reference to the atom.
    let defined = unsafe { qjs::JS_DefineHostAutoInitProperty(raw, globals.as_raw(), atom, 0) };
    // SAFETY: the atom made above, released once.
    unsafe { qjs::JS_FreeAtom(raw, atom) };
    if defined < 0 {
        return Err(rquickjs::Error::Exception);
    }
    Ok(())
}

unsafe extern "C" fn make_global(
    ctx: *mut qjs::JSContext,
    _object: qjs::JSValue,
    atom: qjs::JSAtom,
    opaque: *mut c_void,
) -> qjs::JSValue {
    let made = catch_unwind(AssertUnwindSafe(|| -> rquickjs::Result<qjs::JSValue> {
        // SAFETY: the opaque is the VM's state (see `install_globals`),
        // alive while its runtime calls this.
        let state = unsafe { &*opaque.cast::<VmState>() };
        // SAFETY: `ctx` and `atom` are live.
        let name = unsafe { atom_name(ctx, atom) }.ok_or(rquickjs::Error::Unknown)?;
        let maker = state.global_maker.get().ok_or(rquickjs::Error::Unknown)?;
        let context = context_of(ctx);
        let value = maker(&context, state, &name)?.ok_or(rquickjs::Error::Unknown)?;
        // A reference for QuickJS; the wrapper (and the context reference
        // inside it) is released as usual.
        // SAFETY: `value` is live.
        Ok(unsafe { qjs::JS_DupValue(ctx, value.as_raw()) })
    }));
    match made {
        Ok(Ok(value)) => value,
        Ok(Err(rquickjs::Error::Exception)) => qjs::JS_EXCEPTION,
        _ => {
            // SAFETY: `ctx` is live; the message has no format directives.
            unsafe { qjs::JS_ThrowInternalError(ctx, crate::messages::VM_INTERNAL_ERROR.as_ptr()) }
        }
    }
}
