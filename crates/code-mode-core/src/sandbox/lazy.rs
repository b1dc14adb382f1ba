//! Guest objects and globals whose contents are made the first time a cell
//! uses them, so that what a fresh VM costs does not grow with the catalog.
//!
//! - A **lazy object** (`tools`, `MCP`, each `MCP.<server>`) is a frozen
//!   object of a class of our own whose own properties are listed by a
//!   [`Members`] table and made one at a time when first read (a function
//!   stays the same function afterwards).
//!   Only `[[GetOwnProperty]]`, `[[OwnPropertyKeys]]`, `[[Delete]]` and
//!   `[[DefineOwnProperty]]` are our own (QuickJS's exotic methods); `[[Get]]`,
//!   `[[Set]]` and `[[HasProperty]]` are QuickJS's ordinary ones built on
//!   them, so reads, `in`, assignment and the prototype chain behave as on
//!   any frozen object: every member is a non-writable, non-configurable
//!   data property, and the object is not extensible.
//! - A **lazy global** (`ALL_TOOLS`) is a QuickJS auto-initialised property
//!   (`JS_DefineHostAutoInitProperty`, a patch in `vendor/rquickjs-sys`): an
//!   ordinary data property whose value is made when it is first read.
//!
//! Made values are held by the object and marked for QuickJS's collector;
//! they go with the object.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::rc::Rc;

use rquickjs::{qjs, Ctx, Value};

use super::state::{SharedState, VmState};

/// What a lazy object lists, and how each member is made.
pub(super) trait Members {
    /// The member names, in the order `Object.getOwnPropertyNames` lists them.
    fn names(&self) -> Vec<&str>;
    /// The key of the member with this name (stable for the object's life).
    fn find(&self, name: &str) -> Option<u32>;
    /// Whether members are enumerable (the same for all of them).
    fn enumerable(&self) -> bool;
    /// Makes the member's value.
    fn make<'js>(&self, ctx: &Ctx<'js>, key: u32) -> rquickjs::Result<Value<'js>>;
}

/// What a lazy object holds (its QuickJS opaque).
struct Lazy {
    members: Rc<dyn Members>,
    /// Members made so far: owned references, released by the finalizer.
    made: HashMap<u32, qjs::JSValue>,
}

/// The exotic methods of the lazy class. QuickJS never writes through the
/// pointer it is given.
static EXOTIC: qjs::JSClassExoticMethods = qjs::JSClassExoticMethods {
    get_own_property: Some(get_own_property),
    get_own_property_names: Some(get_own_property_names),
    delete_property: Some(delete_property),
    define_own_property: Some(define_own_property),
    has_property: None,
    get_property: None,
    set_property: None,
};

/// Registers the lazy class in a runtime; returns its class id there.
pub(super) fn register(runtime: *mut qjs::JSRuntime) -> Option<qjs::JSClassID> {
    let mut id: qjs::JSClassID = 0;
    // SAFETY: `runtime` is live and used by this thread only; the id is
    // allocated in it.
    unsafe { qjs::JS_NewClassID(runtime, &mut id) };
    let definition = qjs::JSClassDef {
        class_name: c"Object".as_ptr(),
        finalizer: Some(finalize),
        gc_mark: Some(mark),
        call: None,
        exotic: std::ptr::addr_of!(EXOTIC).cast_mut(),
    };
    // SAFETY: as above; QuickJS copies the definition and keeps the
    // pointer to the static exotic table, which it only reads.
    let registered = unsafe { qjs::JS_NewClass(runtime, id, &definition) };
    (registered == 0).then_some(id)
}

/// A new lazy object of class `class` (see [`register`]) with `members`,
/// frozen, its prototype `Object.prototype`.
pub(super) fn object<'js>(
    ctx: &Ctx<'js>,
    class: qjs::JSClassID,
    members: Rc<dyn Members>,
) -> rquickjs::Result<Value<'js>> {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: `raw` is the live context of `ctx`; the prototype is a new
    // reference (JS_CLASS_OBJECT is 1).
    let proto = unsafe { qjs::JS_GetClassProto(raw, 1) };
    // SAFETY: `proto` is live; the new object takes its own reference.
    let object = unsafe { qjs::JS_NewObjectProtoClass(raw, proto, class) };
    // SAFETY: the prototype reference taken above, released once.
    unsafe { qjs::JS_FreeValue(raw, proto) };
    // SAFETY: `object` is owned (or the exception marker, checked first).
    let object = unsafe { Value::from_raw(ctx.clone(), object) };
    if object.is_exception() {
        return Err(rquickjs::Error::Exception);
    }
    let lazy = Box::new(Lazy {
        members,
        made: HashMap::new(),
    });
    // SAFETY: the object is of our class, which has no opaque yet; the
    // finalizer takes the box back.
    unsafe { qjs::JS_SetOpaque(object.as_raw(), Box::into_raw(lazy).cast()) };
    // SAFETY: a live object of `ctx`; only its extensible flag changes.
    unsafe { qjs::JS_PreventExtensions(raw, object.as_raw()) };
    Ok(object)
}

/// The `Lazy` behind an object of the lazy class. Every use borrows it only
/// while no QuickJS function is called: making a member allocates in the
/// VM, which may run the collector, which reads `made` (`mark`).
///
/// # Safety
/// `object` must be a live object of the lazy class.
unsafe fn lazy_of(object: qjs::JSValue) -> Option<NonNull<Lazy>> {
    // SAFETY: by the caller's contract, a live object.
    let class = unsafe { qjs::JS_GetClassID(object) };
    // SAFETY: the class id is the object's own.
    NonNull::new(unsafe { qjs::JS_GetOpaque(object, class) }.cast::<Lazy>())
}

/// The members table of a lazy object (a shared handle; no borrow kept).
///
/// # Safety
/// `lazy` must come from [`lazy_of`] on a live object.
unsafe fn members_of(lazy: NonNull<Lazy>) -> Rc<dyn Members> {
    // SAFETY: a short shared borrow; nothing else borrows it now.
    unsafe { lazy.as_ref() }.members.clone()
}

/// The name a string atom stands for; none for symbols.
///
/// # Safety
/// `ctx` must be live and `atom` an atom of its runtime.
unsafe fn atom_name(ctx: *mut qjs::JSContext, atom: qjs::JSAtom) -> Option<String> {
    // SAFETY: by the caller's contract; the value is released below.
    let value = unsafe { qjs::JS_AtomToValue(ctx, atom) };
    // SAFETY: reads the tag of a live value.
    let is_string = unsafe { qjs::JS_VALUE_GET_TAG(value) } == qjs::JS_TAG_STRING;
    // SAFETY: the value made above, released once.
    unsafe { qjs::JS_FreeValue(ctx, value) };
    if !is_string {
        return None;
    }
    let mut len: qjs::size_t = 0;
    // SAFETY: by the caller's contract; the string is released below.
    let text = unsafe { qjs::JS_AtomToCStringLen(ctx, &mut len, atom) };
    if text.is_null() {
        return None;
    }
    // SAFETY: QuickJS made `len` bytes at `text`.
    let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len as usize) };
    let name = String::from_utf8_lossy(bytes).into_owned();
    // SAFETY: the string made above, released once.
    unsafe { qjs::JS_FreeCString(ctx, text) };
    Some(name)
}

/// The member `key`, made now if it was not yet: a new reference.
///
/// # Safety
/// `ctx` must be live and `lazy` come from [`lazy_of`] on a live object of
/// its runtime.
unsafe fn member(
    ctx: *mut qjs::JSContext,
    lazy: NonNull<Lazy>,
    key: u32,
) -> rquickjs::Result<qjs::JSValue> {
    // SAFETY: a short shared borrow (see `lazy_of`).
    if let Some(&made) = unsafe { lazy.as_ref() }.made.get(&key) {
        // SAFETY: `made` is a live value the object owns.
        return Ok(unsafe { qjs::JS_DupValue(ctx, made) });
    }
    let context = context_of(ctx);
    // SAFETY: as above. No borrow of the `Lazy` is held while the member is
    // made (the collector may read it meanwhile).
    let members = unsafe { members_of(lazy) };
    let value = members.make(&context, key)?;
    // One reference for the object, one for the caller; the wrapper (and
    // the context reference inside it) is released as usual.
    // SAFETY: `value` is live.
    let raw = unsafe { qjs::JS_DupValue(ctx, value.as_raw()) };
    // SAFETY: as above.
    let kept = unsafe { qjs::JS_DupValue(ctx, raw) };
    // SAFETY: a short exclusive borrow with no QuickJS call inside it.
    let earlier = unsafe { (*lazy.as_ptr()).made.insert(key, kept) };
    if let Some(earlier) = earlier {
        // SAFETY: the reference the table held, released once.
        unsafe { qjs::JS_FreeValue(ctx, earlier) };
    }
    drop(value);
    Ok(raw)
}

/// A `Ctx` for a raw context QuickJS called us with.
fn context_of<'js>(ctx: *mut qjs::JSContext) -> Ctx<'js> {
    let ctx = NonNull::new(ctx).expect("QuickJS passes a context");
    // SAFETY: QuickJS passes a live context; the `Ctx` takes its own
    // reference to it.
    unsafe { Ctx::from_raw(ctx) }
}

/// Runs an exotic method, turning a panic into an `InternalError`.
fn guarded(ctx: *mut qjs::JSContext, body: impl FnOnce() -> c_int) -> c_int {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| {
        // SAFETY: `ctx` is the live context QuickJS called us with.
        unsafe { qjs::JS_ThrowInternalError(ctx, c"code mode internal error".as_ptr()) };
        -1
    })
}

/// A failed member: the exception is pending in `ctx` (or is raised now).
fn failed(ctx: *mut qjs::JSContext, error: rquickjs::Error) -> c_int {
    if !matches!(error, rquickjs::Error::Exception) {
        // SAFETY: `ctx` is live.
        unsafe { qjs::JS_ThrowInternalError(ctx, c"code mode internal error".as_ptr()) };
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
        let (Some(lazy), Some(name)) =
            (unsafe { lazy_of(object) }, unsafe { atom_name(ctx, atom) })
        else {
            return 0;
        };
        // SAFETY: `lazy` comes from `lazy_of`.
        let members = unsafe { members_of(lazy) };
        let Some(key) = members.find(&name) else {
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
        // SAFETY: as in `get_own_property`.
        let (Some(lazy), Some(name)) =
            (unsafe { lazy_of(object) }, unsafe { atom_name(ctx, atom) })
        else {
            return 1;
        };
        // A member is not configurable: it cannot be deleted (QuickJS
        // throws in strict mode). Deleting anything else succeeds.
        // SAFETY: `lazy` comes from `lazy_of`.
        let members = unsafe { members_of(lazy) };
        c_int::from(members.find(&name).is_none())
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
        let (Some(lazy), Some(name)) =
            (unsafe { lazy_of(object) }, unsafe { atom_name(ctx, atom) })
        else {
            return refuse(c"object is not extensible");
        };
        // SAFETY: `lazy` comes from `lazy_of`.
        let members = unsafe { members_of(lazy) };
        let Some(key) = members.find(&name) else {
            return refuse(c"object is not extensible");
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
            refuse(c"property is not configurable")
        }
    })
}

unsafe extern "C" fn mark(
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

unsafe extern "C" fn finalize(runtime: *mut qjs::JSRuntime, object: qjs::JSValue) {
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

/// Makes lazy globals in `runtime` with the maker `state` is given
/// (`VmState::global_maker`). `state` must outlive the runtime.
pub(super) fn install_globals(runtime: *mut qjs::JSRuntime, state: &SharedState) {
    // SAFETY: `runtime` is live and used by this thread only. The opaque is
    // the VM's state, which the `Vm` drops after its runtime.
    unsafe {
        JS_SetHostAutoInit(
            runtime,
            Some(make_global),
            Rc::as_ptr(state).cast_mut().cast(),
        )
    };
}

/// Defines `name` on `globalThis` as a read-only, non-enumerable,
/// non-configurable data property whose value the global maker makes when
/// it is first read.
pub(super) fn define_global(ctx: &Ctx<'_>, name: &str) -> rquickjs::Result<()> {
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
    let defined = unsafe { JS_DefineHostAutoInitProperty(raw, globals.as_raw(), atom, 0) };
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
            unsafe { qjs::JS_ThrowInternalError(ctx, c"code mode internal error".as_ptr()) }
        }
    }
}

extern "C" {
    fn JS_SetHostAutoInit(
        runtime: *mut qjs::JSRuntime,
        func: Option<
            unsafe extern "C" fn(
                *mut qjs::JSContext,
                qjs::JSValue,
                qjs::JSAtom,
                *mut c_void,
            ) -> qjs::JSValue,
        >,
        opaque: *mut c_void,
    );
    fn JS_DefineHostAutoInitProperty(
        ctx: *mut qjs::JSContext,
        object: qjs::JSValue,
        atom: qjs::JSAtom,
        flags: c_int,
    ) -> c_int;
}
