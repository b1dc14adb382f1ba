// code-mode patch: the C API the patch series (`patches/`, PATCHES.md) adds
// to QuickJS, declared once here for the crate's users (re-exported at the
// crate root, so `rquickjs::qjs::JS_SetInterruptFlag`). The bundled bindings
// in `src/bindings/` are upstream's and do not know these functions; with
// the `bindgen` feature the generated ones take precedence over these.

use core::ffi::{c_int, c_void};

use crate::{JSAtom, JSContext, JSRuntime, JSValue};

/// Makes the value of a property defined with
/// [`JS_DefineHostAutoInitProperty`] when it is first read: gets the context,
/// the object and the property's atom, and returns the value (a new
/// reference) or `JS_EXCEPTION`. It must not add or remove properties of the
/// object. `JSHostAutoInitFunc *` in `quickjs.h` (patch 0033).
pub type JSHostAutoInitFunc = ::core::option::Option<
    unsafe extern "C" fn(
        ctx: *mut JSContext,
        obj: JSValue,
        prop: JSAtom,
        opaque: *mut c_void,
    ) -> JSValue,
>;

unsafe extern "C" {
    /// Registers `flag`, a word owned by the embedder that any thread may set
    /// at any time: while it is nonzero, every interrupt poll of `rt` calls
    /// the interrupt handler instead of one poll in 10,000, so a stop reaches
    /// a loop whose every step is a long builtin call. `flag` must stay valid
    /// until it is replaced or the runtime is freed; null removes it
    /// (patch 0001).
    pub fn JS_SetInterruptFlag(rt: *mut JSRuntime, flag: *const c_int);

    /// Sets the function that makes the values of host auto-initialised
    /// properties in `rt`, and the opaque it is given (patch 0033).
    pub fn JS_SetHostAutoInit(rt: *mut JSRuntime, func: JSHostAutoInitFunc, opaque: *mut c_void);

    /// Defines `prop` on `obj` (which must not have it) as a data property
    /// with the configurable/writable/enumerable bits of `flags`, whose value
    /// the runtime's [`JSHostAutoInitFunc`] makes the first time the value or
    /// the descriptor is read. Until then it costs one shape slot and looks
    /// like any data property. Returns -1 with an exception pending when
    /// `obj` is not an object or already has `prop` (patch 0033).
    pub fn JS_DefineHostAutoInitProperty(
        ctx: *mut JSContext,
        obj: JSValue,
        prop: JSAtom,
        flags: c_int,
    ) -> c_int;

    /// Registers `flag`, which `JS_FreeRuntime` sets to 1 instead of failing
    /// its assertion when objects are still alive after its last collection
    /// (an engine leak). The leaked objects of embedder classes are then
    /// finalized once and left; the embedder's allocator must free every
    /// block it still holds for the runtime after `JS_FreeRuntime` returns.
    /// `flag` must stay valid until then; null restores the assertion
    /// (patch 0034).
    pub fn JS_SetTeardownLeakFlag(rt: *mut JSRuntime, flag: *mut c_int);
}

#[cfg(feature = "fault-injection")]
unsafe extern "C" {
    /// Tests only (feature `fault-injection`, which compiles QuickJS with
    /// `CODE_MODE_FAULTS`): every allocation of `rt` increments `*count`, and
    /// the one where it reaches `*at` fails as if the memory limit were
    /// reached there and sets `*hit` to 1. A null `count` turns it off. The
    /// words must stay valid while they are set (patch 0035).
    pub fn JS_SetAllocationFault(
        rt: *mut JSRuntime,
        count: *mut u64,
        at: *const u64,
        hit: *mut c_int,
    );
}
