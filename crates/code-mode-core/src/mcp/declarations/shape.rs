//! Objects and arrays: property lists with required keys first, `Default:`
//! notes, `additionalProperties`, plain `allOf` merged into one object, and
//! tuples.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::lost::child;
use super::schema::{Writer, TYPE_KEYWORDS};
use super::text;
use super::ty::{Prec, Ty};

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
const MAX_MERGED: usize = 64;

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
    /// The type of a tool's whole input. An object root (after `$ref`s and a
    /// plain `allOf`) gives `@param` lines and decides whether `input` is
    /// optional; any other root is rendered like a nested schema.
    pub(super) fn input(&mut self, indent: usize) -> Ty {
        let mut schema = self.root;
        let mut followed = 0;
        while let Value::Object(map) = schema {
            let Some(reference) = map.get("$ref") else {
                break;
            };
            let only_ref = map
                .keys()
                .all(|k| !TYPE_KEYWORDS.contains(&k.as_str()) || k == "$ref");
            followed += 1;
            match self.resolve(reference) {
                Ok((_, target)) if only_ref && followed <= MAX_MERGED => schema = target,
                _ => break,
            }
        }
        if let Value::Object(map) = schema {
            let object_root = map.get("type").is_none_or(|t| t == "object")
                && ![
                    "$ref",
                    "enum",
                    "const",
                    "anyOf",
                    "oneOf",
                    "items",
                    "prefixItems",
                ]
                .iter()
                .any(|k| map.contains_key(*k));
            let shape = match map.get("allOf") {
                None if object_root => Some(Shape::of(map)),
                Some(_) if object_root => self.shape_of(map),
                _ => None,
            };
            if let Some(shape) = shape {
                self.constraints(map, "");
                return self.object(shape, "", indent, true);
            }
            self.input_required = ["required", "anyOf", "oneOf", "allOf", "$ref"]
                .iter()
                .any(|k| {
                    map.get(*k)
                        .is_some_and(|v| v.as_array().is_none_or(|a| !a.is_empty()))
                });
        }
        self.ty(schema, "", indent)
    }

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

    /// An object type; at the root its descriptions become `@param` lines
    /// and a required key with a default is optional (the call fills it in).
    pub(super) fn object(&mut self, shape: Shape<'r>, path: &str, indent: usize, root: bool) -> Ty {
        if shape.properties.is_empty() && shape.required.is_empty() {
            return match shape.additional {
                Some(Value::Bool(false)) => Ty::atom("Record<string, never>"),
                None if root => Ty::atom("Record<string, never>"),
                Some(schema @ Value::Object(_)) => {
                    let values = self.ty(schema, &child(path, "*"), indent);
                    Ty::atom(format!("Record<string, {}>", values.text))
                }
                _ => Ty::atom("Record<string, unknown>"),
            };
        }
        let required: HashSet<&str> = shape.required.iter().copied().collect();
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for (key, schemas) in &shape.properties {
            let must = required.contains(key)
                && !(root && schemas.iter().any(|s| s.get("default").is_some()));
            if must {
                first.push((*key, schemas.as_slice(), true));
            } else {
                rest.push((*key, schemas.as_slice(), false));
            }
        }
        let listed: HashSet<&str> = shape.properties.iter().map(|(k, _)| *k).collect();
        for key in shape.required.iter().filter(|k| !listed.contains(*k)) {
            first.push((key, &[], true));
        }
        if root {
            self.input_required = !first.is_empty();
        }
        let inner = " ".repeat(indent + 2);
        let mut out = String::from("{\n");
        for (key, schemas, must) in first.into_iter().chain(rest) {
            let shown = text::key(key);
            if !self.spend(inner.len() + shown.len() + 4) {
                break;
            }
            let path = child(path, key);
            let ty = match schemas {
                [] => Ty::unknown(),
                [schema] => self.ty(schema, &path, indent + 2),
                _ => {
                    let parts = schemas
                        .iter()
                        .map(|s| self.ty(s, &path, indent + 2))
                        .collect();
                    Ty::intersection(parts)
                }
            };
            let note = property_note(schemas);
            if root {
                // `@param` text counts against the same budget as the type.
                if !note.is_empty() && self.spend(note.len() + shown.len() + 12) {
                    self.params.push((shown.clone(), note));
                }
            } else if !note.is_empty() && self.spend(note.len() + inner.len() + 8) {
                out.push_str(&text::doc_comment(&inner, &[note]));
            }
            out.push_str(&inner);
            out.push_str(&shown);
            if !must {
                out.push('?');
            }
            out.push_str(": ");
            out.push_str(&ty.text);
            out.push_str(";\n");
        }
        out.push_str(&" ".repeat(indent));
        out.push('}');
        let object = Ty::atom(out);
        match shape.additional {
            Some(schema @ Value::Object(_)) => {
                let values = self.ty(schema, &child(path, "*"), indent);
                if values.is_unknown() {
                    object
                } else {
                    let record = Ty::atom(format!("Record<string, {}>", values.text));
                    Ty::intersection(vec![object, record])
                }
            }
            _ => object,
        }
    }

    /// `T[]`, or a tuple for `prefixItems` (or a draft-4 `items` array):
    /// elements past `minItems` are optional, and the rest follows `items`
    /// (`additionalItems` in draft 4).
    pub(super) fn array(&mut self, map: &'r Map<String, Value>, path: &str, indent: usize) -> Ty {
        let (prefix, rest) = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(prefix)), items) => (Some(prefix), items),
            (_, Some(Value::Array(prefix))) => (Some(prefix), map.get("additionalItems")),
            (_, items) => (None, items),
        };
        let Some(prefix) = prefix else {
            return match rest {
                None | Some(Value::Bool(true)) => Ty::atom("unknown[]"),
                Some(Value::Bool(false)) => Ty::atom("[]"),
                Some(items) => self.ty(items, &format!("{path}[]"), indent).array(),
            };
        };
        let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let mut elements = Vec::new();
        for (n, schema) in prefix.iter().enumerate() {
            let ty = self.ty(schema, &format!("{path}[{n}]"), indent);
            let text = match ty.prec {
                Prec::Atom => ty.text,
                _ => format!("({})", ty.text),
            };
            let optional = if (n as u64) < min { "" } else { "?" };
            elements.push(format!("{text}{optional}"));
        }
        match rest {
            None | Some(Value::Bool(true)) => elements.push("...unknown[]".to_owned()),
            Some(Value::Bool(false)) => {}
            Some(items) => {
                let ty = self.ty(items, &format!("{path}[]"), indent);
                elements.push(format!("...{}", ty.array().text));
            }
        }
        Ty::atom(format!("[{}]", elements.join(", ")))
    }
}

/// A property's comment: its description (or title) and its default.
fn property_note(schemas: &[&Value]) -> String {
    let said = schemas.iter().find_map(|s| {
        s.get("description")
            .or_else(|| s.get("title"))
            .and_then(Value::as_str)
            .filter(|d| !d.trim().is_empty())
    });
    let mut note = said
        .map(|d| text::one_line(d, text::LINE_CHARS))
        .unwrap_or_default();
    if let Some(default) = schemas.iter().find_map(|s| s.get("default")) {
        if !note.is_empty() {
            if !note.ends_with(['.', '!', '?', ':', ';', '…']) {
                note.push('.');
            }
            note.push(' ');
        }
        note.push_str("Default: ");
        note.push_str(&text::shown(default));
    }
    note
}
