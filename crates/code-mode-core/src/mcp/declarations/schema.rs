//! JSON Schema to TypeScript type text, for one tool's input schema.
//!
//! What a type cannot say (a pattern, a bound, a recursive `$ref`) is not
//! dropped silently: each such keyword becomes a [`Lost`] line under the path
//! of the value it constrains, and the tool's comment lists them.
//!
//! Hostile schemas cost a bounded amount: at most [`MAX_NODES`] schema nodes
//! are visited and [`MAX_TYPE_BYTES`] of type text written (past either, the
//! rest is `unknown` and the comment says the schema is larger than shown);
//! a schema nested deeper than [`MAX_DEPTH`] is `unknown` with a lost line;
//! remote `$ref`s are never followed and local ones never twice on one path;
//! nothing is copied out of the schema.

use serde_json::{Map, Value};

use super::lost::{shown_path, Lost};
use super::text;
use super::ty::Ty;

/// Schema nodes visited for one tool.
pub const MAX_NODES: usize = 4096;
/// Schemas nested inside one another (each `$ref` counts as a level).
pub const MAX_DEPTH: usize = 16;
/// Bytes of type text for one tool.
pub const MAX_TYPE_BYTES: usize = 16 * 1024;
/// Paths with lost features a tool's comment lists; the rest are counted.
pub const MAX_LOST_PATHS: usize = 24;

/// Keywords that say what type a value has (a schema with none of them only
/// constrains).
pub(super) const TYPE_KEYWORDS: [&str; 12] = [
    "type",
    "properties",
    "additionalProperties",
    "patternProperties",
    "items",
    "prefixItems",
    "enum",
    "const",
    "$ref",
    "allOf",
    "anyOf",
    "oneOf",
];

/// The renderer of one tool's schema: its budgets and what it found lost.
pub(super) struct Writer<'r> {
    /// The tool's whole schema, which local `$ref`s point into.
    pub root: &'r Value,
    nodes: usize,
    depth: usize,
    left: usize,
    /// Something was left out for a bound.
    pub cut: bool,
    /// The `$ref`s being expanded on the current path.
    refs: Vec<&'r str>,
    pub lost: Vec<Lost>,
    /// Lost paths past [`MAX_LOST_PATHS`].
    pub more_lost: usize,
    /// The root's properties with what their `@param` lines say.
    pub params: Vec<(String, String)>,
    /// The root object has a key the caller must give.
    pub input_required: bool,
}

impl<'r> Writer<'r> {
    pub fn new(root: &'r Value) -> Self {
        Self {
            root,
            nodes: 0,
            depth: 0,
            left: MAX_TYPE_BYTES,
            cut: false,
            refs: Vec::new(),
            lost: Vec::new(),
            more_lost: 0,
            params: Vec::new(),
            input_required: false,
        }
    }

    /// Counts `bytes` of type text against the budget; false (and `cut`)
    /// once it is spent.
    pub fn spend(&mut self, bytes: usize) -> bool {
        if self.cut || bytes > self.left {
            self.cut = true;
            return false;
        }
        self.left -= bytes;
        true
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
            self.lose(path, "nested deeper than these types show".to_owned());
            return Ty::unknown();
        }
        self.depth += 1;
        let ty = match schema {
            Value::Bool(true) => Ty::unknown(),
            Value::Bool(false) => Ty::atom("never"),
            Value::Object(map) => self.node(map, path, indent),
            _ => {
                self.lose(path, "a schema that is not an object".to_owned());
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
                    self.lose(path, "an enum that is not an array".to_owned());
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
                    self.lose(path, "an allOf that is not an array".to_owned());
                }
                parts.extend(self.base(map, path, indent));
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(members) = map.get(keyword) else {
                continue;
            };
            let Value::Array(members) = members else {
                self.lose(path, format!("an {keyword} that is not an array"));
                continue;
            };
            let typed = members.iter().any(|m| match m {
                Value::Object(m) => TYPE_KEYWORDS.iter().any(|k| m.contains_key(*k)),
                _ => true,
            });
            if !typed {
                self.lose(
                    path,
                    format!("{keyword}: one of {} sets of constraints", members.len()),
                );
                continue;
            }
            let mut options = Vec::new();
            for (n, member) in members.iter().enumerate() {
                let path = if members.len() == 1 {
                    path.to_owned()
                } else {
                    format!("{} (option {})", shown_path(path), n + 1)
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
                self.lose(path, "a type that is not a string".to_owned());
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
                    let shape = super::shape::Shape::of(map);
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

    /// The target of a `$ref`, or why it is not followed.
    pub fn resolve(&self, reference: &'r Value) -> Result<(&'r str, &'r Value), String> {
        let Value::String(name) = reference else {
            return Err("a $ref that is not a string".to_owned());
        };
        let shown = text::clip(name, text::VALUE_CHARS);
        let Some(pointer) = name.strip_prefix('#') else {
            return Err(format!("remote $ref {shown} (not followed)"));
        };
        if self.refs.contains(&name.as_str()) {
            return Err(format!("recursive $ref {shown}"));
        }
        let root = self.root;
        match root.pointer(pointer) {
            Some(target) => Ok((name, target)),
            None => Err(format!("$ref {shown} that does not resolve")),
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
}
