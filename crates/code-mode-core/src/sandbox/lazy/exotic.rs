//! The exotic methods of the lazy class: own properties listed and made by
//! the object's members table, everything else as on a frozen object.

use std::ffi::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::rc::Rc;

use rquickjs::qjs;

use super::{atom_name, lazy_of, member, members_of, Lazy, Members};
use crate::messages;

/// A lazy object, its members table, and the key of the member an atom
/// names (none when it names no member).
type Named = (NonNull<Lazy>, Rc<dyn Members>, Option<u32>);

/// The object's `Lazy`, its members table, and the key of the member that
/// `atom` names. None at all for an object that has no `Lazy` or an atom
/// that is a symbol.
///
/// # Safety
/// As QuickJS calls the exotic methods: `ctx`, `object` (of our class) and
/// `atom` live, no other borrow of the `Lazy` held.
unsafe fn named(
    ctx: *mut qjs::JSContext,
    object: qjs::JSValue,
    atom: qjs::JSAtom,
) -> Option<Named> {
    // SAFETY: by the caller's contract.
    let lazy = unsafe { lazy_of(object) }?;
    // SAFETY: as above.
    let name = unsafe { atom_name(ctx, atom) }?;
    // SAFETY: `lazy` comes from `lazy_of`.
    let members = unsafe { members_of(lazy) };
    let key = members.find(&name);
    Some((lazy, members, key))
}

/// The exotic methods of the lazy class. QuickJS never writes through the
/// pointer it is given.
pub(super) static EXOTIC: qjs::JSClassExoticMethods = qjs::JSClassExoticMethods {
    get_own_property: Some(get_own_property),
    get_own_property_names: Some(get_own_property_names),
    delete_property: Some(delete_property),
    define_own_property: Some(define_own_property),
    has_property: None,
    get_property: None,
    set_property: None,
};

/// Runs an exotic method, turning a panic into an `InternalError`.
fn guarded(ctx: *mut qjs::JSContext, body: impl FnOnce() -> c_int) -> c_int {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| {
        // SAFETY: `ctx` is the live context QuickJS called us with.
        unsafe { qjs::JS_ThrowInternalError(ctx, messages::VM_INTERNAL_ERROR.as_ptr()) };
        -1
    })
}

/// A failed member: the exception is pending in `ctx` (or is raised now).
fn failed(ctx: *mut qjs::JSContext, error: rquickjs::Error) -> c_int {
    if !matches!(error, rquickjs::Error::Exception) {
        // SAFETY: `ctx` is live.
        unsafe { qjs::JS_ThrowInternalError(ctx, messages::VM_INTERNAL_ERROR.as_ptr()) };
    }
    -1
}

unsafe extern "C" fn get_own_property(
    ctx: *mut qjs::JSContext,
    desc: *mut qjs::JSPropertyDescriptor,
    object: qjs::JSValue,
    atom: qjs::JSAtom,
) -> c_int {
    guarded(ctx, || {
        // SAFETY: QuickJS calls this for a live object of our class, with a
        // live context and atom; no other borrow of its `Lazy` is live.
        let Some((lazy, members, Some(key))) = (unsafe { named(ctx, object, atom) }) else {
            return 0;
        };
        if desc.is_null() {
            return 1;
        }
        // SAFETY: as above.
        let value = match unsafe { member(ctx, lazy, key) } {
            Ok(value) => value,
            Err(error) => return failed(ctx, error),
        };
        let mut flags = 0;
        if members.enumerable() {
            flags |= qjs::JS_PROP_ENUMERABLE as c_int;
        }
        // SAFETY: `desc` is QuickJS's descriptor to fill; it takes over the
        // value's reference.
        unsafe {
            *desc = qjs::JSPropertyDescriptor {
                flags,
                value,
                getter: qjs::JS_UNDEFINED,
                setter: qjs::JS_UNDEFINED,
            }
        };
        1
    })
}

unsafe extern "C" fn get_own_property_names(
    ctx: *mut qjs::JSContext,
    ptab: *mut *mut qjs::JSPropertyEnum,
    plen: *mut u32,
    object: qjs::JSValue,
) -> c_int {
    guarded(ctx, || {
        // SAFETY: as in `get_own_property`.
        let Some(lazy) = (unsafe { lazy_of(object) }) else {
            // SAFETY: QuickJS's out-parameter.
            unsafe { *ptab = std::ptr::null_mut() };
            // SAFETY: as above.
            unsafe { *plen = 0 };
            return 0;
        };
        // SAFETY: `lazy` comes from `lazy_of`.
        let members = unsafe { members_of(lazy) };
        let names = members.names();
        let enumerable = members.enumerable();
        let size = std::mem::size_of::<qjs::JSPropertyEnum>() * names.len().max(1);
        // SAFETY: an allocation of the runtime's allocator (metered), handed
        // to QuickJS, which frees it.
        let tab = unsafe { qjs::js_malloc(ctx, size as qjs::size_t) }.cast::<qjs::JSPropertyEnum>();
        if tab.is_null() {
            return -1;
        }
        for (i, name) in names.iter().enumerate() {
            // SAFETY: `name` is valid UTF-8 of `len` bytes.
            let atom =
                unsafe { qjs::JS_NewAtomLen(ctx, name.as_ptr().cast::<c_char>(), name.len() as _) };
            if atom == qjs::JS_ATOM_NULL {
                for j in 0..i {
                    // SAFETY: `j` is within the table.
                    let slot = unsafe { tab.add(j) };
                    // SAFETY: a slot written below; its atom is ours.
                    let made = unsafe { (*slot).atom };
                    // SAFETY: released once.
                    unsafe { qjs::JS_FreeAtom(ctx, made) };
                }
                // SAFETY: the table is ours.
                unsafe { qjs::js_free(ctx, tab.cast::<c_void>()) };
                return -1;
            }
            let entry = qjs::JSPropertyEnum {
                is_enumerable: enumerable,
                atom,
            };
            // SAFETY: `i` is within the table.
            let slot = unsafe { tab.add(i) };
            // SAFETY: an allocated slot of the table.
            unsafe { slot.write(entry) };
        }
        // SAFETY: QuickJS's out-parameter; it takes the table and atoms.
        unsafe { *ptab = tab };
        // SAFETY: as above.
        unsafe { *plen = names.len() as u32 };
        0
    })
}

unsafe extern "C" fn delete_property(
    ctx: *mut qjs::JSContext,
    object: qjs::JSValue,
    atom: qjs::JSAtom,
) -> c_int {
    guarded(ctx, || {
        // A member is not configurable: it cannot be deleted (QuickJS
        // throws in strict mode). Deleting anything else succeeds.
        // SAFETY: as in `get_own_property`.
        let member = unsafe { named(ctx, object, atom) }.and_then(|(_, _, key)| key);
        c_int::from(member.is_none())
    })
}

unsafe extern "C" fn define_own_property(
    ctx: *mut qjs::JSContext,
    object: qjs::JSValue,
    atom: qjs::JSAtom,
    value: qjs::JSValue,
    getter: qjs::JSValue,
    setter: qjs::JSValue,
    flags: c_int,
) -> c_int {
    let _ = (getter, setter);
    guarded(ctx, || {
        let refuse = |message: &std::ffi::CStr| {
            if flags & qjs::JS_PROP_THROW as c_int != 0 {
                // SAFETY: `ctx` is live; the message has no format directives.
                unsafe { qjs::JS_ThrowTypeError(ctx, message.as_ptr()) };
                return -1;
            }
            0
        };
        // SAFETY: as in `get_own_property`.
        let Some((lazy, members, Some(key))) = (unsafe { named(ctx, object, atom) }) else {
            return refuse(messages::NOT_EXTENSIBLE);
        };
        // What a frozen data property accepts: a definition that changes
        // nothing (`Object.freeze`, a redefinition with the same value).
        let has = |bit: u32| flags & bit as c_int != 0;
        let enumerable = members.enumerable();
        let changes_configurable =
            has(qjs::JS_PROP_HAS_CONFIGURABLE) && has(qjs::JS_PROP_CONFIGURABLE);
        let changes_enumerable =
            has(qjs::JS_PROP_HAS_ENUMERABLE) && has(qjs::JS_PROP_ENUMERABLE) != enumerable;
        let accessor = has(qjs::JS_PROP_HAS_GET) || has(qjs::JS_PROP_HAS_SET);
        let changes_writable = has(qjs::JS_PROP_HAS_WRITABLE) && has(qjs::JS_PROP_WRITABLE);
        let mut compatible =
            !(changes_configurable || changes_enumerable || accessor || changes_writable);
        if compatible && has(qjs::JS_PROP_HAS_VALUE) {
            // SAFETY: as above.
            let current = match unsafe { member(ctx, lazy, key) } {
                Ok(current) => current,
                Err(error) => return failed(ctx, error),
            };
            // SAFETY: both values are live.
            compatible = unsafe { qjs::JS_IsSameValue(ctx, value, current) };
            // SAFETY: `current` is ours, released once.
            unsafe { qjs::JS_FreeValue(ctx, current) };
        }
        if compatible {
            1
        } else {
            refuse(messages::NOT_CONFIGURABLE)
        }
    })
}

pub(super) unsafe extern "C" fn mark(
    runtime: *mut qjs::JSRuntime,
    object: qjs::JSValue,
    mark: qjs::JS_MarkFunc,
) {
    // SAFETY: QuickJS marks a live object of our class; no other borrow of
    // its `Lazy` is live during a collection.
    if let Some(lazy) = unsafe { lazy_of(object) } {
        // SAFETY: a shared borrow for the marking; no other borrow of the
        // `Lazy` is held across a QuickJS call.
        for &value in unsafe { lazy.as_ref() }.made.values() {
            // SAFETY: a live value the object owns.
            unsafe { qjs::JS_MarkValue(runtime, value, mark) };
        }
    }
}

pub(super) unsafe extern "C" fn finalize(runtime: *mut qjs::JSRuntime, object: qjs::JSValue) {
    // SAFETY: QuickJS finalizes a live object of our class, once.
    let Some(opaque) = (unsafe { lazy_of(object) }) else {
        return;
    };
    // SAFETY: the box came from `Box::into_raw` in `object` and is taken
    // back here, once.
    let lazy = unsafe { Box::from_raw(opaque.as_ptr()) };
    for (_, value) in lazy.made.iter() {
        // SAFETY: each made value holds one reference, released once.
        unsafe { qjs::JS_FreeValueRT(runtime, *value) };
    }
    let _ = catch_unwind(AssertUnwindSafe(move || drop(lazy)));
}
