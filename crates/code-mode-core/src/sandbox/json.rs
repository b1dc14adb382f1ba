//! JSON-safe conversion of guest values (`docs/guest-runtime.md`), node by node, straight
//! to JSON text. It reads guest objects through the QuickJS C API, so guest
//! changes to `JSON`, `Object`, `Array` or prototypes cannot change what the host
//! receives; getters and `toJSON` are guest code and run under the same deadline.

use std::io::Write;

use rquickjs::function::This;
use rquickjs::{qjs, Ctx, Function, Object, Value};

use super::control::Control;
use crate::limits::{MAX_DEPTH, MAX_OBJECT_MEMBERS};
use crate::messages;

#[derive(Debug, PartialEq)]
pub enum ConvertError {
    /// The JSON text passed the byte limit.
    TooLarge,
    /// The value nests deeper than [`MAX_DEPTH`] and the caller refuses that.
    TooDeep,
    /// An object in the value has more than [`MAX_OBJECT_MEMBERS`] members
    /// and the caller refuses that.
    TooWide,
    /// The VM must stop (timeout, memory, abort): not the guest's data.
    Stopped,
}

/// What happens to a part nested deeper than [`MAX_DEPTH`], and to an object
/// with more than [`MAX_OBJECT_MEMBERS`] members.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Depth {
    /// It becomes the string "[Too deep]" or "[Too many members]" (final
    /// values, `json()` items).
    Mark,
    /// The conversion fails (tool inputs: never altered, never sent).
    Refuse,
}

/// Converts `value` to JSON text of at most `limit` bytes.
pub fn to_json<'js>(
    ctx: &Ctx<'js>,
    object_to_string: &Function<'js>,
    control: &Control,
    value: Value<'js>,
    limit: usize,
    depth: Depth,
) -> Result<String, ConvertError> {
    let mut writer = Writer {
        ctx,
        object_to_string,
        control,
        out: Vec::new(),
        limit,
        depth,
        ancestors: Vec::new(),
    };
    let node = writer.resolve(value, "")?;
    match node {
        Node::Skip => writer.out.extend_from_slice(b"null"),
        node => writer.emit(node)?,
    }
    writer.check_size()?;
    Ok(String::from_utf8(writer.out).expect("the writer only emits UTF-8"))
}

/// `String(value)` as Rust text of at most `max` bytes (cut on a character
/// boundary and marked with `…`): the host never copies more than that. A
/// `toString` that throws leaves its exception pending and returns
/// `Err(Exception)`, so the guest gets its own error back.
pub fn to_text(ctx: &Ctx<'_>, value: &Value<'_>, max: usize) -> rquickjs::Result<String> {
    if value.is_string() {
        return Ok(string_capped(ctx, value, max));
    }
    // SAFETY: `value` is a live value of `ctx`; the result is a new reference
    // or the exception marker.
    let raw = unsafe { qjs::JS_ToString(ctx.as_raw().as_ptr(), value.as_raw()) };
    // SAFETY: only reads the tag of `raw`.
    if unsafe { qjs::JS_IsException(raw) } {
        return Err(rquickjs::Error::Exception);
    }
    // SAFETY: `raw` is an owned, non-exception value of `ctx`.
    let text = unsafe { Value::from_raw(ctx.clone(), raw) };
    Ok(string_capped(ctx, &text, max))
}

/// A guest string (or bigint) as Rust text of at most `max` bytes, cut on a
/// character boundary and marked with `…` when longer; lone surrogates become
/// U+FFFD. Only for values that are strings or bigints already (anything else
/// would run guest code): the host never copies more than `max`.
pub(super) fn string_capped(ctx: &Ctx<'_>, value: &Value<'_>, max: usize) -> String {
    let raw_ctx = ctx.as_raw().as_ptr();
    let mut len = 0usize;
    // SAFETY: `value` is a live value of `ctx`; a string (or a bigint)
    // converts without running guest code.
    let ptr = unsafe { qjs::JS_ToCStringLen(raw_ctx, &mut len as *mut usize as _, value.as_raw()) };
    if ptr.is_null() {
        let _ = ctx.catch();
        return String::new();
    }
    // SAFETY: QuickJS returned `len` readable bytes at `ptr`, valid until they
    // are freed below.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    let mut end = len.min(max);
    while end < len && end > 0 && bytes[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    let mut text = lossy(&bytes[..end]);
    if end < len {
        text.push('…');
    }
    // SAFETY: `ptr` came from `JS_ToCStringLen` on this context; freed once.
    unsafe { qjs::JS_FreeCString(raw_ctx, ptr) };
    text
}

/// QuickJS's UTF-8 as Rust text. A lone surrogate, which QuickJS writes as
/// its three-byte WTF-8 form, becomes one U+FFFD (as `TextEncoder` would
/// make it), not three.
fn lossy(mut bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(valid) => {
                text.push_str(valid);
                return text;
            }
            Err(error) => {
                let (valid, rest) = bytes.split_at(error.valid_up_to());
                // `valid_up_to` marks a valid UTF-8 prefix.
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                text.push('\u{FFFD}');
                let surrogate = matches!(rest, [0xED, 0xA0..=0xBF, 0x80..=0xBF, ..]);
                let skip = match (surrogate, error.error_len()) {
                    (true, _) => 3,
                    (false, Some(len)) => len,
                    (false, None) => rest.len(),
                };
                bytes = &rest[skip..];
            }
        }
    }
}

/// A byte sink that refuses to grow past `limit`.
struct Limited<'a> {
    out: &'a mut Vec<u8>,
    limit: usize,
}

impl Write for Limited<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.out.len() + buf.len() > self.limit {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

enum Node<'js> {
    Skip,
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    /// An array, or a proxy whose target is one (as `Array.isArray` sees it).
    Array(Object<'js>),
    Object(Object<'js>),
    Error(Object<'js>),
}

struct Writer<'a, 'js> {
    ctx: &'a Ctx<'js>,
    object_to_string: &'a Function<'js>,
    control: &'a Control,
    out: Vec<u8>,
    limit: usize,
    depth: Depth,
    ancestors: Vec<usize>,
}

impl<'a, 'js> Writer<'a, 'js> {
    /// Applies `toJSON` and classifies the value.
    fn resolve(&mut self, value: Value<'js>, key: &str) -> Result<Node<'js>, ConvertError> {
        if value.is_error() {
            return Ok(Node::Error(
                value.into_object().expect("errors are objects"),
            ));
        }
        let value = match value.as_object() {
            Some(object) if !value.is_function() => match self.call_to_json(object, key) {
                Ok(Some(replaced)) => replaced,
                Ok(None) => value,
                Err(()) => return self.tag(&value).map(Node::Str),
            },
            _ => value,
        };
        Ok(self.classify(value))
    }

    fn classify(&mut self, value: Value<'js>) -> Node<'js> {
        if value.is_undefined() || value.is_function() || value.is_symbol() {
            return Node::Skip;
        }
        if value.is_null() {
            return Node::Null;
        }
        if let Some(b) = value.as_bool() {
            return Node::Bool(b);
        }
        if let Some(n) = value.as_number() {
            return Node::Number(n);
        }
        if value.is_string() {
            return Node::Str(self.text(&value));
        }
        if value.is_big_int() {
            return Node::Str(self.text(&value));
        }
        if value.is_error() {
            return Node::Error(value.into_object().expect("errors are objects"));
        }
        if is_array(&value) {
            return Node::Array(value.into_object().expect("arrays are objects"));
        }
        match value.into_object() {
            Some(object) => Node::Object(object),
            None => Node::Null,
        }
    }

    /// `Ok(Some(v))` when the object has a callable `toJSON`; `Err` when it threw.
    fn call_to_json(&mut self, object: &Object<'js>, key: &str) -> Result<Option<Value<'js>>, ()> {
        let to_json: Value<'js> = object.get("toJSON").map_err(|_| self.clear())?;
        let Some(function) = to_json.as_function() else {
            return Ok(None);
        };
        function
            .call((This(object.clone()), key))
            .map(Some)
            .map_err(|_| self.clear())
    }

    /// `Object.prototype.toString` of a value, as captured before the guest ran.
    fn tag(&mut self, value: &Value<'js>) -> Result<String, ConvertError> {
        self.stopped()?;
        let tag: Result<Value<'js>, _> = self.object_to_string.call((This(value.clone()),));
        match tag {
            Ok(tag) if tag.is_string() => Ok(self.text(&tag)),
            Ok(_) => Ok("[object Object]".to_owned()),
            Err(_) => {
                self.clear();
                self.stopped()?;
                Ok("[object Object]".to_owned())
            }
        }
    }

    fn emit(&mut self, node: Node<'js>) -> Result<(), ConvertError> {
        match node {
            Node::Skip | Node::Null => self.out.extend_from_slice(b"null"),
            Node::Bool(true) => self.out.extend_from_slice(b"true"),
            Node::Bool(false) => self.out.extend_from_slice(b"false"),
            Node::Number(n) => write_number(&mut self.out, n),
            Node::Str(s) => self.string(&s)?,
            Node::Error(error) => self.error(&error)?,
            Node::Array(array) => self.nested(&array, |w| w.array(&array))?,
            Node::Object(object) => self.nested(&object, |w| w.object(&object))?,
        }
        self.check_size()
    }

    fn nested(
        &mut self,
        object: &Object<'js>,
        body: impl FnOnce(&mut Self) -> Result<(), ConvertError>,
    ) -> Result<(), ConvertError> {
        // SAFETY: an object value always carries a heap pointer; it is only compared.
        let ptr = unsafe { qjs::JS_VALUE_GET_PTR(object.as_raw()) } as usize;
        if self.ancestors.contains(&ptr) {
            self.string(messages::CIRCULAR)?;
            return Ok(());
        }
        if self.ancestors.len() >= MAX_DEPTH {
            if self.depth == Depth::Refuse {
                return Err(ConvertError::TooDeep);
            }
            self.string(messages::TOO_DEEP)?;
            return Ok(());
        }
        self.ancestors.push(ptr);
        let result = body(self);
        self.ancestors.pop();
        result
    }

    fn array(&mut self, array: &Object<'js>) -> Result<(), ConvertError> {
        let len: u32 = match array.get::<_, f64>("length") {
            Ok(len) if len.is_finite() && len >= 0.0 => len.min(u32::MAX as f64) as u32,
            Ok(_) => 0,
            Err(_) => {
                self.clear();
                self.stopped()?;
                0
            }
        };
        self.out.push(b'[');
        for index in 0..len {
            if index > 0 {
                self.out.push(b',');
            }
            let item: Value<'js> = match array.get(index) {
                Ok(item) => item,
                Err(_) => {
                    self.clear();
                    self.stopped()?;
                    self.out.extend_from_slice(b"null");
                    continue;
                }
            };
            let node = self.resolve(item, &index.to_string())?;
            self.emit(node)?;
        }
        self.out.push(b']');
        Ok(())
    }

    /// Writes the members of `object`. One with more than
    /// [`MAX_OBJECT_MEMBERS`] members written (skipped ones do not count) is
    /// refused, or replaced by "[Too many members]": the Node thread turns
    /// the text into objects, and V8 adds and lists the members of a wider
    /// one slowly enough to hold its event loop.
    fn object(&mut self, object: &Object<'js>) -> Result<(), ConvertError> {
        let start = self.out.len();
        self.out.push(b'{');
        let mut members = 0;
        // The names are QuickJS's own snapshot (in the VM's memory), read one
        // at a time: the host keeps no copy of them.
        for key in object.keys::<Value<'js>>() {
            let key = match key {
                Ok(key) => key,
                Err(_) => {
                    self.clear();
                    self.stopped()?;
                    break;
                }
            };
            let value: Value<'js> = match object.get(key.clone()) {
                Ok(value) => value,
                Err(_) => {
                    self.clear();
                    self.stopped()?;
                    continue;
                }
            };
            let name = self.text(&key);
            let node = self.resolve(value, &name)?;
            if matches!(node, Node::Skip) {
                continue;
            }
            if members == MAX_OBJECT_MEMBERS {
                if self.depth == Depth::Refuse {
                    return Err(ConvertError::TooWide);
                }
                self.out.truncate(start);
                return self.string(messages::TOO_MANY_MEMBERS);
            }
            if members > 0 {
                self.out.push(b',');
            }
            members += 1;
            self.string(&name)?;
            self.out.push(b':');
            self.emit(node)?;
        }
        self.out.push(b'}');
        Ok(())
    }

    fn error(&mut self, error: &Object<'js>) -> Result<(), ConvertError> {
        let name = self.text_property(error, "name", "Error")?;
        let message = self.text_property(error, "message", "")?;
        self.out.extend_from_slice(b"{\"name\":");
        self.string(&name)?;
        self.out.extend_from_slice(b",\"message\":");
        self.string(&message)?;
        self.out.push(b'}');
        Ok(())
    }

    fn text_property(
        &mut self,
        object: &Object<'js>,
        key: &str,
        fallback: &str,
    ) -> Result<String, ConvertError> {
        match object.get::<_, Value<'js>>(key) {
            Ok(value) if value.is_string() => Ok(self.text(&value)),
            Ok(_) => Ok(fallback.to_owned()),
            Err(_) => {
                self.clear();
                self.stopped()?;
                Ok(fallback.to_owned())
            }
        }
    }

    /// A guest string (or bigint) as text, copied only as far as the output
    /// could still take it: a longer one is cut, and fails the size check
    /// when written, so the host never copies much more than the limit.
    fn text(&self, value: &Value<'js>) -> String {
        let room = self.limit.saturating_sub(self.out.len());
        string_capped(self.ctx, value, room.saturating_add(1))
    }

    /// Writes `s` as a JSON string, stopping as soon as the output would pass
    /// the limit (escaping can make it six times longer than `s`).
    fn string(&mut self, s: &str) -> Result<(), ConvertError> {
        let mut limited = Limited {
            out: &mut self.out,
            limit: self.limit,
        };
        serde_json::to_writer(&mut limited, s).map_err(|_| ConvertError::TooLarge)
    }

    fn check_size(&self) -> Result<(), ConvertError> {
        if self.out.len() > self.limit {
            return Err(ConvertError::TooLarge);
        }
        Ok(())
    }

    fn stopped(&self) -> Result<(), ConvertError> {
        match self.control.stopped() {
            Some(_) => Err(ConvertError::Stopped),
            None => Ok(()),
        }
    }

    /// Drops the pending guest exception after a failed guest operation.
    fn clear(&self) {
        let _ = self.ctx.catch();
    }
}

/// Numbers as JavaScript's JSON.stringify writes them; NaN and infinities are null.
pub fn write_number(out: &mut Vec<u8>, n: f64) {
    if !n.is_finite() {
        out.extend_from_slice(b"null");
    } else if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        let _ = write!(out, "{}", n as i64);
    } else {
        serde_json::to_writer(&mut *out, &n).expect("writing to a Vec cannot fail");
    }
}

/// `Array.isArray`: an array, or a proxy whose target is one, through chains
/// of proxies (as deep as [`MAX_DEPTH`]; deeper counts as an object). A revoked
/// proxy is not an array here (`Array.isArray` would throw).
fn is_array(value: &Value<'_>) -> bool {
    let ctx = value.ctx();
    let mut current = value.clone();
    for _ in 0..MAX_DEPTH {
        if current.is_array() {
            return true;
        }
        // SAFETY: reads the class of a live value.
        if !unsafe { qjs::JS_IsProxy(current.as_raw()) } {
            return false;
        }
        // SAFETY: `current` is a live proxy of this context; the call returns a
        // new reference (or an exception for a revoked proxy), which `Value`
        // takes over.
        let target = unsafe { qjs::JS_GetProxyTarget(ctx.as_raw().as_ptr(), current.as_raw()) };
        // SAFETY: `target` is a new reference owned by nobody else.
        let target = unsafe { Value::from_raw(ctx.clone(), target) };
        if target.is_exception() || !target.is_object() {
            if target.is_exception() {
                drop(ctx.catch());
            }
            return false;
        }
        current = target;
    }
    false
}
