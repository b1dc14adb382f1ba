//! JSON Schema to TypeScript type text, for one tool's input schema: the
//! recursive walk over the schema, with objects (required keys first,
//! `Default:` notes, `additionalProperties`), arrays and tuples.
//!
//! What a type cannot say (a pattern, a bound, a recursive `$ref`) is not
//! dropped silently: each such keyword becomes a lost line under the path of
//! the value it constrains (`lost.rs`), and the tool's comment lists them.
//! The bounds are the [`Writer`]'s.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::lost::{child, shown_path};
use super::shape::{property_note, Shape, MAX_MERGED};
use super::text;
use super::ty::{Prec, Ty};
use super::writer::{Writer, TYPE_KEYWORDS};
use crate::limits::{DECLARATION_DEPTH as MAX_DEPTH, DECLARATION_NODES as MAX_NODES};
use crate::messages;

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

    /// The type of `schema`, whose values sit at `path` and whose lines are
    /// indented by `indent` spaces.
    pub fn ty(&mut self, schema: &'r Value, path: &str, indent: usize) -> Ty {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            self.cut = true;
        }
        if self.cut || !self.spend(8) {
            return Ty::unknown();
        }
        if self.depth >= MAX_DEPTH {
            self.lose(path, messages::LOST_TOO_DEEP.to_owned());
            return Ty::unknown();
        }
        self.depth += 1;
        let ty = match schema {
            Value::Bool(true) => Ty::unknown(),
            Value::Bool(false) => Ty::atom("never"),
            Value::Object(map) => self.node(map, path, indent),
            _ => {
                self.lose(path, messages::LOST_NOT_A_SCHEMA.to_owned());
                Ty::unknown()
            }
        };
        self.depth -= 1;
        ty
    }

    fn node(&mut self, map: &'r Map<String, Value>, path: &str, indent: usize) -> Ty {
        self.constraints(map, path);
        let ty = if let Some(reference) = map.get("$ref") {
            let target = self.reference(reference, path, indent);
            // Keywords beside a `$ref` apply too (2019-09 and later).
            if TYPE_KEYWORDS
                .iter()
                .any(|k| *k != "$ref" && map.contains_key(*k))
            {
                let rest = self.combined(map, path, indent);
                Ty::intersection(vec![target, rest])
            } else {
                target
            }
        } else if let Some(value) = map.get("const") {
            self.literal(value)
        } else if let Some(values) = map.get("enum") {
            match values {
                Value::Array(values) => {
                    let members = values.iter().map(|v| self.literal(v)).collect();
                    Ty::union(members)
                }
                _ => {
                    self.lose(path, messages::lost_not_an_array("enum"));
                    Ty::unknown()
                }
            }
        } else {
            self.combined(map, path, indent)
        };
        if map.get("nullable") == Some(&Value::Bool(true)) {
            Ty::union(vec![ty, Ty::atom("null")])
        } else {
            ty
        }
    }

    /// The type from `type` (or what the keywords imply), intersected with
    /// `allOf` and the unions of `anyOf` and `oneOf`.
    fn combined(&mut self, map: &'r Map<String, Value>, path: &str, indent: usize) -> Ty {
        let mut parts = Vec::new();
        match map.get("allOf") {
            Some(Value::Array(members)) => match self.shape_of(map) {
                Some(shape) => parts.push(self.object(shape, path, indent, false)),
                None => {
                    parts.extend(self.base(map, path, indent));
                    for member in members {
                        parts.push(self.ty(member, path, indent));
                    }
                }
            },
            other => {
                if other.is_some() {
                    self.lose(path, messages::lost_not_an_array("allOf"));
                }
                parts.extend(self.base(map, path, indent));
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(members) = map.get(keyword) else {
                continue;
            };
            let Value::Array(members) = members else {
                self.lose(path, messages::lost_not_an_array(keyword));
                continue;
            };
            let typed = members.iter().any(|m| match m {
                Value::Object(m) => TYPE_KEYWORDS.iter().any(|k| m.contains_key(*k)),
                _ => true,
            });
            if !typed {
                self.lose(path, messages::lost_constraint_sets(keyword, members.len()));
                continue;
            }
            let mut options = Vec::new();
            for (n, member) in members.iter().enumerate() {
                let path = if members.len() == 1 {
                    path.to_owned()
                } else {
                    messages::option_path(shown_path(path), n + 1)
                };
                options.push(self.ty(member, &path, indent));
            }
            parts.push(Ty::union(options));
        }
        Ty::intersection(parts)
    }

    /// The type `type` names, or `object`/`array` when only their keywords
    /// are there; `None` when nothing says.
    fn base(&mut self, map: &'r Map<String, Value>, path: &str, indent: usize) -> Option<Ty> {
        let kinds: Vec<&str> = match map.get("type") {
            Some(Value::String(kind)) => vec![kind.as_str()],
            Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
            Some(_) => {
                self.lose(path, messages::LOST_TYPE_NOT_STRING.to_owned());
                return None;
            }
            None if [
                "properties",
                "additionalProperties",
                "patternProperties",
                "required",
            ]
            .iter()
            .any(|k| map.contains_key(*k)) =>
            {
                vec!["object"]
            }
            None if map.contains_key("items") || map.contains_key("prefixItems") => {
                vec!["array"]
            }
            None => return None,
        };
        let mut members = Vec::new();
        for kind in kinds {
            members.push(match kind {
                "string" | "number" | "boolean" | "null" => Ty::atom(kind),
                "integer" => Ty::atom("number"),
                "object" => {
                    let shape = Shape::of(map);
                    self.object(shape, path, indent, false)
                }
                "array" => self.array(map, path, indent),
                other => {
                    self.lose(
                        path,
                        format!("type {}", text::clip(&text::quoted(other), 40)),
                    );
                    Ty::unknown()
                }
            });
        }
        Some(Ty::union(members))
    }

    /// The schema a local `$ref` points to, rendered; remote, recursive and
    /// dangling references are `unknown` and a lost line.
    fn reference(&mut self, reference: &'r Value, path: &str, indent: usize) -> Ty {
        match self.resolve(reference) {
            Ok((name, target)) => {
                self.refs.push(name);
                let ty = self.ty(target, path, indent);
                self.refs.pop();
                ty
            }
            Err(why) => {
                self.lose(path, why);
                Ty::unknown()
            }
        }
    }

    fn literal(&mut self, value: &Value) -> Ty {
        let literal = text::literal(value);
        if self.spend(literal.len()) {
            Ty::atom(literal)
        } else {
            Ty::unknown()
        }
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
