//! The state of rendering one tool's schema: the budgets it spends, what it
//! found lost, and the references it is expanding.
//!
//! Hostile schemas cost a bounded amount: at most [`MAX_NODES`] schema nodes
//! are visited and [`MAX_TYPE_BYTES`] of type text written (past either, the
//! rest is `unknown` and the comment says the schema is larger than shown);
//! a schema nested deeper than [`MAX_DEPTH`] is `unknown` with a lost line;
//! remote `$ref`s are never followed and local ones never twice on one path;
//! nothing is copied out of the schema.

use serde_json::Value;

use super::text;
use crate::limits::DECLARATION_TYPE_BYTES;
#[cfg(doc)]
use crate::limits::{
    DECLARATION_DEPTH as MAX_DEPTH, DECLARATION_NODES as MAX_NODES,
    DECLARATION_TYPE_BYTES as MAX_TYPE_BYTES,
};
use crate::messages;

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

/// What one path's schema says that its type does not.
#[derive(Clone, Debug, PartialEq)]
pub struct Lost {
    /// `(input)`, `owner`, `options.depth`, `edits[]`, `tags[0]`, `env.*`,
    /// `filter (option 2)`.
    pub path: String,
    pub what: Vec<String>,
}

/// The renderer of one tool's schema: its budgets and what it found lost.
pub(super) struct Writer<'r> {
    /// The tool's whole schema, which local `$ref`s point into.
    pub root: &'r Value,
    pub nodes: usize,
    pub depth: usize,
    left: usize,
    /// Something was left out for a bound.
    pub cut: bool,
    /// The `$ref`s being expanded on the current path.
    pub refs: Vec<&'r str>,
    pub lost: Vec<Lost>,
    /// Lost features on paths past the listed ones, or past a path's listed ones.
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
            left: DECLARATION_TYPE_BYTES,
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

    /// The target of a `$ref`, or why it is not followed.
    pub fn resolve(&self, reference: &'r Value) -> Result<(&'r str, &'r Value), String> {
        let Value::String(name) = reference else {
            return Err(messages::LOST_REF_NOT_STRING.to_owned());
        };
        let shown = text::clip(name, crate::limits::DECLARATION_VALUE_CHARS);
        let Some(pointer) = name.strip_prefix('#') else {
            return Err(messages::lost_remote_ref(&shown));
        };
        if self.refs.contains(&name.as_str()) {
            return Err(messages::lost_recursive_ref(&shown));
        }
        let root = self.root;
        match root.pointer(pointer) {
            Some(target) => Ok((name, target)),
            None => Err(messages::lost_unresolved_ref(&shown)),
        }
    }
}
