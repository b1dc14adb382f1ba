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
//! they go with the object. The exotic methods are in `exotic.rs`, the
//! lazy globals in `global.rs`.

mod exotic;
mod global;

pub(in crate::sandbox) use global::{define_global, install_globals};

use std::collections::HashMap;
use std::ptr::NonNull;
use std::rc::Rc;

use rquickjs::{qjs, Ctx, Value};

use exotic::{finalize, mark, EXOTIC};

/// What a lazy object lists, and how each member is made.
pub(in crate::sandbox) trait Members {
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
pub(super) struct Lazy {
    pub(super) members: Rc<dyn Members>,
    /// Members made so far: owned references, released by the finalizer.
    pub(super) made: HashMap<u32, qjs::JSValue>,
}

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
pub(super) unsafe fn lazy_of(object: qjs::JSValue) -> Option<NonNull<Lazy>> {
    // SAFETY: by the caller's contract, a live object.
    let class = unsafe { qjs::JS_GetClassID(object) };
    // SAFETY: the class id is the object's own.
    NonNull::new(unsafe { qjs::JS_GetOpaque(object, class) }.cast::<Lazy>())
}

/// The members table of a lazy object (a shared handle; no borrow kept).
///
/// # Safety
/// `lazy` must come from [`lazy_of`] on a live object.
pub(super) unsafe fn members_of(lazy: NonNull<Lazy>) -> Rc<dyn Members> {
    // SAFETY: a short shared borrow; nothing else borrows it now.
    unsafe { lazy.as_ref() }.members.clone()
}

/// The name a string atom stands for; none for symbols.
///
/// # Safety
/// `ctx` must be live and `atom` an atom of its runtime.
pub(super) unsafe fn atom_name(ctx: *mut qjs::JSContext, atom: qjs::JSAtom) -> Option<String> {
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
pub(super) unsafe fn member(
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
pub(super) fn context_of<'js>(ctx: *mut qjs::JSContext) -> Ctx<'js> {
    let ctx = NonNull::new(ctx).expect("QuickJS passes a context");
    // SAFETY: QuickJS passes a live context; the `Ctx` takes its own
    // reference to it.
    unsafe { Ctx::from_raw(ctx) }
}
