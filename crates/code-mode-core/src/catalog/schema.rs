//! A tool's input schema as the gateway gave it: its JSON text, read into a
//! value the first time something needs one (`tools.describe`, input
//! validation, the MCP namespace). `prepareRun` copies text only: reading
//! 5000 small schemas into values took 12 ms of the Node thread, for runs
//! that describe or call a handful of tools.

use std::sync::{Arc, OnceLock};

use serde_json::value::RawValue;
use serde_json::Value;

#[derive(Clone, Debug)]
pub struct Schema(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    text: Option<Box<RawValue>>,
    value: OnceLock<Arc<Value>>,
}

impl Schema {
    /// A schema as JSON text (valid JSON: what `JSON.stringify` wrote).
    pub fn from_json(text: Box<RawValue>) -> Schema {
        Schema(Arc::new(Inner {
            text: Some(text),
            value: OnceLock::new(),
        }))
    }

    /// The schema as a value, read on first use. Text that does not read
    /// as a value (a string with a lone surrogate) is `null`: such a tool
    /// is shown and called without a schema.
    pub fn value(&self) -> &Arc<Value> {
        self.0.value.get_or_init(|| {
            let text = self.0.text.as_deref().map_or("null", RawValue::get);
            Arc::new(serde_json::from_str(text).unwrap_or(Value::Null))
        })
    }

    /// The JSON text the gateway gave, when the schema came as text: what
    /// `$api` copies into its answer instead of a value.
    pub fn text(&self) -> Option<&RawValue> {
        self.0.text.as_deref()
    }

    /// Whether the text has been read into a value yet.
    #[cfg(test)]
    pub(crate) fn is_read(&self) -> bool {
        self.0.value.get().is_some()
    }

    /// Whether the gateway gave `null` (no schema).
    pub fn is_null(&self) -> bool {
        match (&self.0.text, self.0.value.get()) {
            (Some(text), _) => text.get() == "null",
            (None, Some(value)) => value.is_null(),
            (None, None) => true,
        }
    }
}

/// Schemas are equal when their values are (each is read for the
/// comparison).
impl PartialEq for Schema {
    fn eq(&self, other: &Schema) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.value() == other.value()
    }
}

impl From<Value> for Schema {
    fn from(value: Value) -> Schema {
        Schema(Arc::new(Inner {
            text: None,
            value: OnceLock::from(Arc::new(value)),
        }))
    }
}
