//! Small conversions between JavaScript values and Rust at the boundary, and
//! the few raw Node-API calls the binding makes outside [`crate::tsfn`]. Every
//! cast from an `Unknown` goes through the checked helpers here.

use std::ptr;

use code_mode_core::input::Field;
use napi::bindgen_prelude::{
    FromNapiValue, Function, FunctionRef, JsObjectValue, JsValuesTupleIntoVec, Object, Unknown,
};
use napi::{sys, Env, Error, JsString, JsValue, Result, Status, ValueType};

/// `value` as a `T` when its JavaScript type is `expected`.
///
/// # Safety
/// `T` must be a napi representation of JavaScript values of type `expected`.
unsafe fn cast_checked<T: FromNapiValue>(
    value: &Unknown,
    expected: ValueType,
) -> Result<Option<T>> {
    if value.get_type()? != expected {
        return Ok(None);
    }
    // SAFETY: the type was checked just above and the caller pairs `T` with it.
    Ok(Some(unsafe { value.cast::<T>()? }))
}

/// The text of `value` when it is a string.
pub fn string(value: &Unknown) -> Result<Option<String>> {
    // SAFETY: `JsString` represents JavaScript strings.
    let text: Option<JsString> = unsafe { cast_checked(value, ValueType::String)? };
    text.map(|text| text.into_utf8()?.into_owned()).transpose()
}

/// `value` when it is a number.
pub fn number(value: &Unknown) -> Result<Option<f64>> {
    // SAFETY: `f64` represents JavaScript numbers.
    unsafe { cast_checked(value, ValueType::Number) }
}

/// `value` when it is a boolean.
pub fn boolean(value: &Unknown) -> Result<Option<bool>> {
    // SAFETY: `bool` represents JavaScript booleans.
    unsafe { cast_checked(value, ValueType::Boolean) }
}

/// `value` when it is an object (not a function, not null).
pub fn object<'env>(value: &Unknown<'env>) -> Result<Option<Object<'env>>> {
    // SAFETY: `Object` represents JavaScript objects.
    unsafe { cast_checked(value, ValueType::Object) }
}

/// `value` when it is a function.
pub fn function<'env, Args: JsValuesTupleIntoVec, Return>(
    value: &Unknown<'env>,
) -> Result<Option<Function<'env, Args, Return>>> {
    // SAFETY: `Function` represents JavaScript functions.
    unsafe { cast_checked(value, ValueType::Function) }
}

/// A JavaScript value as JSON, via the host's `JSON.stringify` (`undefined`,
/// functions and symbols become `null`). Cyclic values throw, as in JavaScript.
pub fn to_json_value(env: &Env, value: Option<Unknown>) -> Result<serde_json::Value> {
    let Some(value) = value else {
        return Ok(serde_json::Value::Null);
    };
    if matches!(value.get_type()?, ValueType::Undefined | ValueType::Null) {
        return Ok(serde_json::Value::Null);
    }
    let json: Object = env.get_global()?.get_named_property("JSON")?;
    let stringify: Function<Unknown, Unknown> = json.get_named_property("stringify")?;
    let Some(text) = string(&stringify.apply(json, value)?)? else {
        return Ok(serde_json::Value::Null);
    };
    serde_json::from_str(&text).map_err(|e| napi::Error::from_reason(e.to_string()))
}

/// Parses JSON text into a JavaScript value with the host's `JSON.parse`.
pub fn parse_json<'env>(env: &'env Env, text: &str) -> Result<Unknown<'env>> {
    let json: Object = env.get_global()?.get_named_property("JSON")?;
    let parse: Function<JsString, Unknown> = json.get_named_property("parse")?;
    parse.call(env.create_string(text)?)
}

/// JSON text of a Rust value, as a JavaScript error when it cannot be encoded.
pub fn json_text(value: &impl serde::Serialize) -> Result<String> {
    serde_json::to_string(value).map_err(|e| napi::Error::from_reason(e.to_string()))
}

/// One property of a raw input object, classified for validation.
pub fn field(object: &Object, name: &str) -> Result<Field> {
    let value: Unknown = object.get_named_property(name)?;
    if let Some(text) = string(&value)? {
        return Ok(Field::Str(text));
    }
    if let Some(flag) = boolean(&value)? {
        return Ok(Field::Bool(flag));
    }
    Ok(match value.get_type()? {
        ValueType::Undefined | ValueType::Null => Field::Absent,
        _ => Field::Other,
    })
}

/// A raw value that Node-API just handed this thread (a call's result or a
/// thrown exception), for the checked helpers above.
pub fn value<'env>(env: &'env Env, raw: sys::napi_value) -> Unknown<'env> {
    // SAFETY: a live value of this env, used on its thread within the
    // current scope.
    unsafe { Unknown::from_raw_unchecked(env.raw(), raw) }
}

/// The message of a thrown or rejected value, as the guest sees it: the
/// one rule of `src-js/thrown.js` (`messageOf`: an Error's `message`, a
/// string as is, anything else as `String(value)`), run on it here. Only
/// failures come here, so the module is evaluated for each.
pub fn error_message(env: &Env, value: sys::napi_value) -> String {
    let fallback = code_mode_core::messages::TOOL_CALL_FAILED;
    let text = (|| -> Result<Option<String>> {
        let thrown = load(env, "thrown.js")?;
        let Some(thrown) = object(&thrown)? else {
            return Ok(None);
        };
        let message_of: Unknown = thrown.get_named_property("messageOf")?;
        let fallback = env.create_string(fallback)?;
        let Ok(text) = call_function(env, message_of.raw(), &[value, fallback.raw()]) else {
            return Ok(None);
        };
        string(&self::value(env, text))
    })();
    match text {
        Ok(Some(text)) => text,
        _ => {
            take_exception(env);
            fallback.to_owned()
        }
    }
}

/// JavaScript's `undefined`.
pub fn undefined(env: &Env) -> sys::napi_value {
    let mut value = ptr::null_mut();
    // SAFETY: a plain Node-API call on the JS thread with an out pointer.
    unsafe { sys::napi_get_undefined(env.raw(), &mut value) };
    value
}

/// JavaScript's `null`.
pub fn null(env: &Env) -> sys::napi_value {
    let mut value = ptr::null_mut();
    // SAFETY: a plain Node-API call on the JS thread with an out pointer.
    unsafe { sys::napi_get_null(env.raw(), &mut value) };
    value
}

/// Calls `function(...args)` with `this` undefined; `Err` holds what it threw.
pub fn call_function(
    env: &Env,
    function: sys::napi_value,
    args: &[sys::napi_value],
) -> std::result::Result<sys::napi_value, sys::napi_value> {
    let mut result = ptr::null_mut();
    let this = undefined(env);
    // SAFETY: a plain Node-API call on the JS thread with live values.
    let status = unsafe {
        sys::napi_call_function(
            env.raw(),
            this,
            function,
            args.len(),
            args.as_ptr(),
            &mut result,
        )
    };
    if status == sys::Status::napi_ok {
        return Ok(result);
    }
    Err(take_exception(env).unwrap_or_else(|| undefined(env)))
}

/// Takes the pending exception, if any.
pub fn take_exception(env: &Env) -> Option<sys::napi_value> {
    let mut pending = false;
    // SAFETY: a plain Node-API call on the JS thread with an out pointer.
    unsafe { sys::napi_is_exception_pending(env.raw(), &mut pending) };
    if !pending {
        return None;
    }
    let mut exception = ptr::null_mut();
    // SAFETY: as above; an exception is pending, so this clears and returns it.
    unsafe { sys::napi_get_and_clear_last_exception(env.raw(), &mut exception) };
    Some(exception)
}

/// Throws `thrown` again and returns the error that tells napi it is pending:
/// the caller's caller gets the very same value.
pub fn rethrow(env: &Env, thrown: sys::napi_value) -> Error {
    // SAFETY: a plain Node-API call on the JS thread with a live value.
    unsafe { sys::napi_throw(env.raw(), thrown) };
    Error::new(Status::PendingException, "rethrown")
}

/// One of the binding's JavaScript halves in `src-js/`: a CommonJS module.
/// The same file is what Node `require`s in its unit tests and what `tsc`
/// checks (`npm run lint`); the binding carries its text and evaluates it
/// with the modules it `require`s ([`load`]).
pub struct Module {
    /// Its file name in `src-js/`, which is also how others `require` it
    /// (`./name`).
    pub name: &'static str,
    pub source: &'static str,
    /// The modules it `require`s, by name.
    pub requires: &'static [&'static str],
}

/// Every module of `src-js/`, by name; `build.rs` writes the table from the
/// files and their `require('./name.js')` calls.
static MODULES: &[Module] = include!(concat!(env!("OUT_DIR"), "/src_js.rs"));

/// Evaluates the module `src-js/<name>`, with the modules it requires, and
/// returns its `module.exports`. They run as one script: each module in a
/// function of its own with `module`, `exports` and a `require` that finds
/// the others (`./name`), evaluated once; nothing reaches the global scope,
/// and they see the globals as they are now.
pub fn load<'env>(env: &'env Env, name: &str) -> Result<Unknown<'env>> {
    let mut modules = Vec::new();
    gather(name, &mut modules)?;
    let mut script = String::from("(function () {\n'use strict'\nconst sources = {\n");
    for module in &modules {
        script.push_str(&format!(
            "{}: function (module, exports, require) {{\n{}\n}},\n",
            json_text(&format!("./{}", module.name))?,
            module.source,
        ));
    }
    script.push_str(&format!(
        "}}\nconst loaded = new Map()\n\
         function require(name) {{\n\
         let module = loaded.get(name)\n\
         if (module !== undefined) return module.exports\n\
         const source = sources[name]\n\
         if (typeof source !== 'function') throw new Error('src-js: no module ' + name)\n\
         module = {{ exports: {{}} }}\n\
         loaded.set(name, module)\n\
         source.call(module.exports, module, module.exports, require)\n\
         return module.exports\n\
         }}\n\
         return require({})\n}})()",
        json_text(&format!("./{name}"))?,
    ));
    env.run_script(script)
        .map_err(|e| Error::from_reason(format!("src-js/{name}: {}", e.reason)))
}

/// The module `name` and every module it requires, each once.
fn gather(name: &str, into: &mut Vec<&'static Module>) -> Result<()> {
    if into.iter().any(|seen| seen.name == name) {
        return Ok(());
    }
    let module = MODULES
        .iter()
        .find(|module| module.name == name)
        .ok_or_else(|| Error::from_reason(format!("src-js/{name} is not in the binding")))?;
    into.push(module);
    for required in module.requires {
        gather(required, into)?;
    }
    Ok(())
}

/// What one of the binding's JavaScript halves (`host.js`, `namespaces.js`,
/// `prepare.js`) made: each exports a factory that returns an object of
/// functions.
pub struct Made<'env> {
    object: Object<'env>,
    failure: &'static str,
}

/// Calls `factory(...args)`; `failure` is the error when it throws, makes no
/// object or lacks a function.
pub fn make<'env>(
    env: &'env Env,
    factory: &Unknown,
    args: &[sys::napi_value],
    failure: &'static str,
) -> Result<Made<'env>> {
    let made = call_function(env, factory.raw(), args).map_err(|_| Error::from_reason(failure))?;
    let object = object(&value(env, made))?.ok_or_else(|| Error::from_reason(failure))?;
    Ok(Made { object, failure })
}

impl Made<'_> {
    /// A reference to the function made as `name`.
    pub fn function(&self, name: &str) -> Result<FunctionRef<(), ()>> {
        let value: Unknown = self.object.get_named_property(name)?;
        function::<(), ()>(&value)?
            .ok_or_else(|| Error::from_reason(self.failure))?
            .create_ref()
    }
}
