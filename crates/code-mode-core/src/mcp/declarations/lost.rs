//! What a schema says that its type cannot: each such keyword is a line
//! under the path of the value it constrains, listed in the tool's comment so
//! that the model knows to ask `$api(name, { schema: true })`.

use serde_json::{Map, Value};

use super::text;
use super::writer::{Lost, Writer};
use crate::limits::DECLARATION_LOST_PATHS as MAX_LOST_PATHS;
use crate::limits::{DECLARATION_FEATURES_PER_PATH, DECLARATION_PATH_KEY_CHARS};
use crate::messages;

/// The keywords a type cannot express.
const CONSTRAINTS: [&str; 26] = [
    "pattern",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentEncoding",
    "contentMediaType",
];

impl Writer<'_> {
    /// Notes that the value at `path` has a feature, `what`, its type does not
    /// express. At most `MAX_LOST_PATHS` paths of `DECLARATION_FEATURES_PER_PATH` features
    /// each are listed; the rest are counted, so the comment stays bounded.
    pub(super) fn lose(&mut self, path: &str, what: String) {
        let shown = shown_path(path);
        if let Some(entry) = self.lost.iter_mut().find(|l| l.path == shown) {
            if entry.what.contains(&what) {
                return;
            }
            if entry.what.len() < DECLARATION_FEATURES_PER_PATH {
                entry.what.push(what);
            } else {
                self.more_lost += 1;
            }
        } else if self.lost.len() < MAX_LOST_PATHS {
            self.lost.push(Lost {
                path: shown.to_owned(),
                what: vec![what],
            });
        } else {
            self.more_lost += 1;
        }
    }

    /// A lost line for each keyword of `map` the types cannot express.
    pub(super) fn constraints(&mut self, map: &Map<String, Value>, path: &str) {
        let integer = match map.get("type") {
            Some(Value::String(kind)) => kind == "integer",
            Some(Value::Array(kinds)) => {
                kinds.iter().any(|k| k == "integer") && !kinds.iter().any(|k| k == "number")
            }
            _ => false,
        };
        if integer {
            self.lose(path, "integer".to_owned());
        }
        for keyword in CONSTRAINTS {
            let Some(value) = map.get(keyword) else {
                continue;
            };
            let what = match (keyword, value) {
                ("pattern", Value::String(pattern)) => {
                    format!(
                        "pattern {}",
                        text::clip(
                            &text::quoted(pattern),
                            crate::limits::DECLARATION_VALUE_CHARS
                        )
                    )
                }
                ("format" | "contentEncoding" | "contentMediaType", Value::String(name)) => {
                    format!(
                        "{keyword} {}",
                        text::clip(name, crate::limits::DECLARATION_VALUE_CHARS)
                    )
                }
                ("uniqueItems", Value::Bool(false)) => continue,
                ("uniqueItems", _) => messages::LOST_UNIQUE_ITEMS.to_owned(),
                (_, Value::Number(n)) => format!("{keyword} {n}"),
                _ => keyword.to_owned(),
            };
            self.lose(path, what);
        }
        if map.contains_key("not") {
            self.lose(path, "not".to_owned());
        }
        if map.contains_key("if") {
            self.lose(path, "if/then/else".to_owned());
        }
        if map.get("deprecated") == Some(&Value::Bool(true)) {
            self.lose(path, "deprecated".to_owned());
        }
    }
}

/// `path` as a lost line shows it.
pub(super) fn shown_path(path: &str) -> &str {
    if path.is_empty() {
        "(input)"
    } else {
        path
    }
}

/// The path of a property below `path`.
pub(super) fn child(path: &str, key: &str) -> String {
    let key = text::clip(key, DECLARATION_PATH_KEY_CHARS);
    if path.is_empty() {
        key
    } else {
        format!("{path}.{key}")
    }
}
