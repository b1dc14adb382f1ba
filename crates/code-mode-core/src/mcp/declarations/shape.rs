//! The properties of one object, from its schema or from a plain `allOf`
//! merged into one object.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::text;
use super::writer::Writer;

/// Keywords an object schema may have and still be merged with the others of
/// an `allOf` (everything else, a bound or a union, keeps the intersection).
const PLAIN: [&str; 14] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "description",
    "title",
    "$schema",
    "$id",
    "$comment",
    "default",
    "examples",
    "definitions",
    "$defs",
    "allOf",
];

/// Object schemas an `allOf` merge visits, references included.
pub(super) const MAX_MERGED: usize = 64;

/// The properties of one object, from one schema or several merged.
#[derive(Default)]
pub(super) struct Shape<'r> {
    /// Each key with its schemas, in the order the keys first appear.
    pub properties: Vec<(&'r str, Vec<&'r Value>)>,
    index: HashMap<&'r str, usize>,
    pub required: Vec<&'r str>,
    required_seen: HashSet<&'r str>,
    /// The first `additionalProperties`.
    pub additional: Option<&'r Value>,
}

impl<'r> Shape<'r> {
    pub fn of(map: &'r Map<String, Value>) -> Shape<'r> {
        let mut shape = Shape::default();
        shape.add(map);
        shape
    }

    fn add(&mut self, map: &'r Map<String, Value>) {
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (key, schema) in properties {
                match self.index.get(key.as_str()) {
                    Some(&at) => self.properties[at].1.push(schema),
                    None => {
                        self.index.insert(key, self.properties.len());
                        self.properties.push((key, vec![schema]));
                    }
                }
            }
        }
        if let Some(Value::Array(required)) = map.get("required") {
            for key in required.iter().filter_map(Value::as_str) {
                if self.required_seen.insert(key) {
                    self.required.push(key);
                }
            }
        }
        if self.additional.is_none() {
            self.additional = map.get("additionalProperties");
        }
    }
}

/// An object schema with nothing an `allOf` merge would lose.
fn plain(map: &Map<String, Value>) -> bool {
    map.keys().all(|k| PLAIN.contains(&k.as_str()))
        && map.get("type").is_none_or(|t| t == "object")
        && map
            .get("additionalProperties")
            .is_none_or(|a| a.is_boolean())
}

impl<'r> Writer<'r> {
    /// `map` and its `allOf` members merged into one object, when every one
    /// of them is [`plain`] (local `$ref` members are followed); `None` when
    /// the merge would lose something.
    pub(super) fn shape_of(&mut self, map: &'r Map<String, Value>) -> Option<Shape<'r>> {
        let mut shape = Shape::default();
        let mut stack = vec![map];
        let mut followed: Vec<&'r str> = Vec::new();
        let mut visited = 0;
        while let Some(map) = stack.pop() {
            visited += 1;
            if visited > MAX_MERGED || !plain(map) {
                return None;
            }
            shape.add(map);
            let Some(members) = map.get("allOf") else {
                continue;
            };
            let Value::Array(members) = members else {
                return None;
            };
            // Pushed in reverse so that members merge in their order.
            for member in members.iter().rev() {
                let mut member = member;
                while let Value::Object(m) = member {
                    let Some(reference) = m.get("$ref") else {
                        break;
                    };
                    visited += 1;
                    let only_ref = m.keys().all(|k| {
                        matches!(k.as_str(), "$ref" | "description" | "title" | "$comment")
                    });
                    let (name, target) = self.resolve(reference).ok()?;
                    if !only_ref || followed.contains(&name) || visited > MAX_MERGED {
                        return None;
                    }
                    followed.push(name);
                    member = target;
                }
                let Value::Object(member) = member else {
                    return None;
                };
                stack.push(member);
            }
        }
        Some(shape)
    }
}

/// A property's comment: its description (or title) and its default.
pub(super) fn property_note(schemas: &[&Value]) -> String {
    let said = schemas.iter().find_map(|s| {
        s.get("description")
            .or_else(|| s.get("title"))
            .and_then(Value::as_str)
            .filter(|d| !d.trim().is_empty())
    });
    let mut note = said
        .map(|d| text::one_line(d, crate::limits::DECLARATION_LINE_CHARS))
        .unwrap_or_default();
    if let Some(default) = schemas.iter().find_map(|s| s.get("default")) {
        if !note.is_empty() {
            if !note.ends_with(['.', '!', '?', ':', ';', '…']) {
                note.push('.');
            }
            note.push(' ');
        }
        note.push_str(crate::messages::DEFAULT_NOTE);
        note.push_str(&text::shown(default));
    }
    note
}
