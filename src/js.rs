//! Small conversions between JavaScript values and Rust at the boundary.

use code_mode_core::input::Field;
use napi::bindgen_prelude::{JsObjectValue, Object, Unknown};
use napi::{Env, JsString, JsValue, Result, ValueType};

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
    let stringify: napi::bindgen_prelude::Function<Unknown, Unknown> =
        json.get_named_property("stringify")?;
    let text = stringify.apply(json, value)?;
    if text.get_type()? != ValueType::String {
        return Ok(serde_json::Value::Null);
    }
    // SAFETY: the type was checked just above.
    let text: JsString = unsafe { text.cast()? };
    let text = text.into_utf8()?.into_owned()?;
    serde_json::from_str(&text).map_err(|e| napi::Error::from_reason(e.to_string()))
}

/// Parses JSON text into a JavaScript value with the host's `JSON.parse`.
pub fn parse_json<'env>(env: &'env Env, text: &str) -> Result<Unknown<'env>> {
    let json: Object = env.get_global()?.get_named_property("JSON")?;
    let parse: napi::bindgen_prelude::Function<JsString, Unknown> =
        json.get_named_property("parse")?;
    parse.call(env.create_string(text)?)
}

/// One property of a raw input object, classified for validation.
pub fn field(object: &Object, name: &str) -> Result<Field> {
    let value: Unknown = object.get_named_property(name)?;
    Ok(match value.get_type()? {
        ValueType::Undefined | ValueType::Null => Field::Absent,
        ValueType::String => {
            // SAFETY: the type was checked just above.
            let text: JsString = unsafe { value.cast()? };
            Field::Str(text.into_utf8()?.into_owned()?)
        }
        // SAFETY: the type was checked just above.
        ValueType::Boolean => Field::Bool(unsafe { value.cast::<bool>()? }),
        _ => Field::Other,
    })
}

/// The message of a thrown or rejected value, as the guest sees it: an
/// Error's `message`, a string as is, anything else as `String(value)`.
pub fn error_message(env: &Env, value: napi::sys::napi_value) -> String {
    // SAFETY: a live value of this env.
    let value = unsafe { Unknown::from_raw_unchecked(env.raw(), value) };
    let text = (|| -> Result<Option<String>> {
        match value.get_type()? {
            ValueType::String => {
                // SAFETY: the type was checked just above.
                let text: JsString = unsafe { value.cast()? };
                return Ok(Some(text.into_utf8()?.into_owned()?));
            }
            ValueType::Object | ValueType::Function => {
                // SAFETY: the type was checked just above.
                let object: Object = unsafe { value.cast()? };
                let message: Unknown = object.get_named_property("message")?;
                if message.get_type()? == ValueType::String {
                    // SAFETY: the type was checked just above.
                    let text: JsString = unsafe { message.cast()? };
                    return Ok(Some(text.into_utf8()?.into_owned()?));
                }
            }
            _ => {}
        }
        let text = value.coerce_to_string()?;
        Ok(Some(text.into_utf8()?.into_owned()?))
    })();
    match text {
        Ok(Some(text)) => text,
        _ => {
            crate::host::take_exception(env);
            code_mode_core::messages::TOOL_CALL_FAILED.to_owned()
        }
    }
}
