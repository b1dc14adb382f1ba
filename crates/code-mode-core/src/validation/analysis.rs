//! What checking an input against a schema may cost, bounded from the
//! schema before any check starts: the validator (the `jsonschema` crate) has
//! no step hook, and a cell chooses the input.
//!
//! Every keyword the crate (0.61) compiles is one of three kinds:
//!
//! - a leaf looks at the value itself: `type`, `enum`, `const`, `pattern`,
//!   `minLength`, `required`, `dependentRequired`, `uniqueItems`, ... Its
//!   cost is counted in the schema's own weight ([`Walk::own`]).
//! - a same-value applicator checks the value against more subschemas:
//!   `allOf`, `anyOf`, `oneOf`, `not`, `if`, `then`, `else`, `$ref`,
//!   `dependentSchemas` and draft 7's `dependencies` (its schema form; its
//!   array form is a `required`, a leaf). Their costs add up.
//! - a child applicator checks parts of the value: `properties`,
//!   `patternProperties`, `additionalProperties`, `unevaluatedProperties`
//!   (member values), `propertyNames` (keys), `prefixItems`, `items`,
//!   `additionalItems`, `contains`, `unevaluatedItems` (items). One member
//!   can meet `properties`, every `patternProperties` and the rest at once:
//!   those add up, and the costliest child counts.
//!
//! `unevaluatedProperties` and `unevaluatedItems` also walk again, to find
//! what was evaluated, every same-value subschema below them: each is
//! checked once more (`is_valid`) and walked ([`Cost::mark`]), once per
//! condition part the crate tracks (at most 64).
//!
//! `$dynamicRef`, `$recursiveRef` and embedded `$id`s are refused before this
//! ([`super::screen`]), so every `$ref` followed here is a JSON pointer into
//! the schema, resolved as the crate does. A `$ref` that loops is refused:
//! checking it could cost what the input chooses. Keywords the crate does not
//! know are not applied by it; they count in the weight of their schema.
//!
//! Then, by induction over the schema, checking a value `v` against a schema
//! `S` costs at most `per_value * values(v) + per_byte * bytes(v)` units,
//! where `values` counts `v`'s JSON values and keys and `bytes` its JSON
//! text: each schema adds its own weight once per value it is applied to,
//! its same-value subschemas their own bound for the same value, and its
//! child applicators their bound for each child, whose sizes add up to less
//! than `v`'s. A check runs `is_valid`, and for a refused input
//! `iter_errors` or `validate`, which may call `is_valid` on a subschema
//! before collecting its errors: both are counted ([`Cost::valid`],
//! [`Cost::errors`]).
//!
//! One unit is about one subschema entered for one value, or one byte of a
//! pattern's automaton simulation (`bench/validation.mjs` measures both).
//! `validation::tests` counts, over random schemas and adversarial inputs,
//! the subschemas the crate really enters, and checks that it never exceeds
//! the bound.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::screen::Patterns;
use crate::limits::{MAX_SCHEMA_WALK_DEPTH, MAX_SCHEMA_WORK};
use crate::messages;

/// The most condition parts the crate's `unevaluatedProperties` tracks
/// (its `MAX_PARTS`; past it, it walks instead).
const MAX_PARTS: u64 = 64;

/// What checking one input costs, in units: `per_value` for each JSON value
/// and key of the input, `per_byte` for each byte of its text.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    pub per_value: u64,
    pub per_byte: u64,
}

impl Work {
    const ONE: Work = Work {
        per_value: 1,
        per_byte: 0,
    };

    pub fn plus(self, other: Work) -> Work {
        Work {
            per_value: self.per_value.saturating_add(other.per_value),
            per_byte: self.per_byte.saturating_add(other.per_byte),
        }
    }

    fn times(self, factor: u64) -> Work {
        Work {
            per_value: self.per_value.saturating_mul(factor),
            per_byte: self.per_byte.saturating_mul(factor),
        }
    }

    fn max(self, other: Work) -> Work {
        Work {
            per_value: self.per_value.max(other.per_value),
            per_byte: self.per_byte.max(other.per_byte),
        }
    }

    /// The units of one check of an input of `values` values and keys and
    /// `bytes` bytes of JSON text.
    pub fn of(&self, values: u64, bytes: u64) -> u64 {
        self.per_value
            .saturating_mul(values)
            .saturating_add(self.per_byte.saturating_mul(bytes))
    }

    /// Whether a schema of this cost may be checked at all: whether its
    /// alternatives stay within [`MAX_SCHEMA_WORK`] per input value. (What it costs
    /// per byte, its patterns mostly, only makes the inputs it may check
    /// smaller.)
    pub fn allowed(&self) -> bool {
        self.per_value <= MAX_SCHEMA_WORK
    }
}

/// The bounds of one subschema, per unit of the value it is applied to.
#[derive(Clone, Copy, Debug, Default)]
struct Cost {
    /// `is_valid`.
    valid: Work,
    /// `validate` or `iter_errors` (the `is_valid` calls they make included).
    errors: Work,
    /// The walk of an enclosing `unevaluatedProperties`/`unevaluatedItems`
    /// through this subschema (its own `is_valid` not included).
    mark: Work,
    /// Condition parts (an `if`, an `else`, a `dependentSchemas` entry)
    /// here and below, through same-value applicators.
    parts: u64,
}

impl Cost {
    /// `true`, `false`, or a value that is not a schema (which does not
    /// compile).
    const LEAF: Cost = Cost {
        valid: Work::ONE,
        errors: Work::ONE,
        mark: Work::ONE,
        parts: 0,
    };

    const UNBOUNDED: Cost = Cost {
        valid: Work {
            per_value: u64::MAX,
            per_byte: u64::MAX,
        },
        errors: Work {
            per_value: u64::MAX,
            per_byte: u64::MAX,
        },
        mark: Work {
            per_value: u64::MAX,
            per_byte: u64::MAX,
        },
        parts: u64::MAX,
    };

    fn plus(self, other: Cost) -> Cost {
        Cost {
            valid: self.valid.plus(other.valid),
            errors: self.errors.plus(other.errors),
            mark: self.mark.plus(other.mark),
            parts: self.parts.saturating_add(other.parts),
        }
    }

    fn max(self, other: Cost) -> Cost {
        Cost {
            valid: self.valid.max(other.valid),
            errors: self.errors.max(other.errors),
            mark: self.mark.max(other.mark),
            parts: self.parts.max(other.parts),
        }
    }
}

/// Why a schema is not checked, by the walk.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    Recursive,
    Costly,
    Deep,
    Reference,
}

impl Refusal {
    pub fn reason(&self) -> String {
        match self {
            Refusal::Recursive => messages::SCHEMA_RECURSIVE.to_owned(),
            Refusal::Costly => messages::SCHEMA_COSTLY.to_owned(),
            Refusal::Deep => messages::schema_refs_too_deep(),
            Refusal::Reference => messages::SCHEMA_REMOTE_REF.to_owned(),
        }
    }
}

/// What one check of an input against `schema` may cost, or why it is not
/// checked. `patterns` are the schema's patterns with their weights
/// ([`super::screen`]).
pub fn cost(schema: &Value, patterns: &Patterns) -> Result<Bound, Refusal> {
    let mut walk = Walk {
        root: schema,
        patterns,
        memo: HashMap::new(),
        active: Vec::new(),
        refusal: None,
        based: schema
            .as_object()
            .is_some_and(|map| map.contains_key("$id") || map.contains_key("id")),
    };
    let cost = walk.cost(schema, 0);
    if let Some(refusal) = walk.refusal {
        return Err(refusal);
    }
    let bound = Bound {
        valid: cost.valid,
        errors: cost.errors,
    };
    if cost.valid.plus(cost.errors).allowed() {
        Ok(bound)
    } else {
        Err(Refusal::Costly)
    }
}

/// What one check of an input may cost: telling whether it is valid, and
/// then, for an input that is not, finding its problems.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    pub valid: Work,
    pub errors: Work,
}

struct Walk<'s> {
    root: &'s Value,
    patterns: &'s Patterns,
    memo: HashMap<*const Value, Cost>,
    /// `$ref` targets being walked now.
    active: Vec<*const Value>,
    refusal: Option<Refusal>,
    /// The root has an identifier: a `$ref` to a URI may lead back into it.
    based: bool,
}

impl<'s> Walk<'s> {
    fn refuse(&mut self, refusal: Refusal) -> Cost {
        self.refusal.get_or_insert(refusal);
        Cost::UNBOUNDED
    }

    fn cost(&mut self, node: &'s Value, depth: usize) -> Cost {
        if self.refusal.is_some() {
            return Cost::UNBOUNDED;
        }
        if depth > MAX_SCHEMA_WALK_DEPTH {
            return self.refuse(Refusal::Deep);
        }
        let Value::Object(map) = node else {
            return Cost::LEAF;
        };
        let key = node as *const Value;
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        let own = self.own(map);
        let mut same = Cost::default();
        for (sub, mode) in self.same_value(map) {
            let sub = match sub {
                Subschema::Here(sub) => self.cost(sub, depth + 1),
                Subschema::Target(target) => {
                    let pointer = target as *const Value;
                    if self.active.contains(&pointer) {
                        return self.refuse(Refusal::Recursive);
                    }
                    self.active.push(pointer);
                    let cost = self.cost(target, depth + 1);
                    self.active.pop();
                    cost
                }
                Subschema::Unresolved => return self.refuse(Refusal::Reference),
            };
            same.valid = same.valid.plus(sub.valid);
            same.errors = same.errors.plus(match mode {
                Mode::Valid => sub.valid,
                Mode::Errors => sub.errors,
                Mode::Both => sub.valid.plus(sub.errors),
            });
            same.mark = same.mark.plus(sub.valid).plus(sub.mark);
            same.parts = same.parts.saturating_add(sub.parts);
        }
        let child = self.children(map, depth);
        let child_errors = child.valid.plus(child.errors);
        let mut cost = Cost {
            valid: own.plus(same.valid).plus(child.valid),
            errors: own.times(2).plus(same.errors).plus(child_errors),
            mark: own.plus(child.valid).plus(same.mark),
            parts: same.parts.saturating_add(own_parts(map)),
        };
        let unevaluated = ["unevaluatedProperties", "unevaluatedItems"]
            .iter()
            .filter(|keyword| map.contains_key(**keyword))
            .count() as u64;
        if unevaluated > 0 {
            // The walk of what was evaluated: every same-value subschema
            // once more and through, and this schema's own members, once
            // per condition part.
            let factor = 1 + cost.parts.min(MAX_PARTS);
            let walk = same
                .mark
                .plus(child.valid)
                .plus(own)
                .times(factor.saturating_mul(unevaluated));
            cost.valid = cost.valid.plus(walk);
            cost.errors = cost.errors.plus(walk);
        }
        self.memo.insert(key, cost);
        cost
    }

    /// The weight of a schema's own keywords for one value: one unit for
    /// entering it and for each keyword, one for each name `required` and
    /// the like look up, the size of `enum` and `const`; per byte of the
    /// value, each pattern's weight and one for each keyword whose work
    /// grows with the value's text (lengths, comparisons, hashing).
    fn own(&self, map: &Map<String, Value>) -> Work {
        let mut per_byte = 0u64;
        for (keyword, value) in map {
            let weight = match (keyword.as_str(), value) {
                ("enum" | "const", _) => 1,
                ("pattern", Value::String(pattern)) => self.weight(pattern),
                // Every key is matched against every pattern.
                ("patternProperties", Value::Object(patterns)) => patterns
                    .keys()
                    .map(|pattern| self.weight(pattern))
                    .fold(1, u64::saturating_add),
                (
                    "minLength"
                    | "maxLength"
                    | "properties"
                    | "additionalProperties"
                    | "unevaluatedProperties"
                    | "dependentSchemas",
                    _,
                ) => 1,
                ("uniqueItems", _) => 2,
                ("contentEncoding" | "contentMediaType", _) => 4,
                _ => 0,
            };
            per_byte = per_byte.saturating_add(weight);
        }
        Work {
            per_value: own_per_value(map),
            per_byte,
        }
    }

    fn weight(&self, pattern: &str) -> u64 {
        // The screen saw every pattern; one it did not is a schema it did
        // not read, and counts as the costliest.
        self.patterns
            .get(pattern)
            .copied()
            .unwrap_or(MAX_SCHEMA_WORK + 1)
    }

    /// The subschemas applied to the same value, each with what finding an
    /// input's errors does with it (the crate's `validate` and
    /// `collect_errors`).
    fn same_value(&self, map: &'s Map<String, Value>) -> Vec<(Subschema<'s>, Mode)> {
        let mut same = Vec::new();
        // `allOf` validates each branch; `anyOf` and `oneOf` ask `is_valid`
        // of every branch, then collect the errors of each.
        for (keyword, mode) in [
            ("allOf", Mode::Errors),
            ("anyOf", Mode::Both),
            ("oneOf", Mode::Both),
        ] {
            if let Some(Value::Array(items)) = map.get(keyword) {
                same.extend(items.iter().map(|item| (Subschema::Here(item), mode)));
            }
        }
        // `not` and `if` only ask `is_valid`; `then` or `else` is validated.
        for (keyword, mode) in [
            ("not", Mode::Valid),
            ("if", Mode::Valid),
            ("then", Mode::Errors),
            ("else", Mode::Errors),
        ] {
            if let Some(sub) = map.get(keyword) {
                same.push((Subschema::Here(sub), mode));
            }
        }
        if let Some(Value::Object(entries)) = map.get("dependentSchemas") {
            same.extend(
                entries
                    .values()
                    .map(|sub| (Subschema::Here(sub), Mode::Errors)),
            );
        }
        if let Some(Value::Object(entries)) = map.get("dependencies") {
            // An array is a list of names (`required`): counted in `own`.
            same.extend(
                entries
                    .values()
                    .filter(|entry| !entry.is_array())
                    .map(|sub| (Subschema::Here(sub), Mode::Errors)),
            );
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            match self.resolve(reference) {
                Resolved::Target(target) => same.push((Subschema::Target(target), Mode::Errors)),
                Resolved::Elsewhere => {}
                Resolved::Unknown => same.push((Subschema::Unresolved, Mode::Errors)),
            }
        }
        same
    }

    /// The costliest child of the value (a member's value, a key, an item),
    /// with everything applied to it.
    fn children(&mut self, map: &'s Map<String, Value>, depth: usize) -> Cost {
        let each = |walk: &mut Self, keyword: &str| -> Option<Cost> {
            map.get(keyword).map(|sub| walk.cost(sub, depth + 1))
        };
        // A member's value: at most one of `properties`, every matching
        // pattern, then `additionalProperties` and `unevaluatedProperties`.
        let mut member = Cost::default();
        if let Some(Value::Object(subs)) = map.get("properties") {
            let mut most = Cost::default();
            for sub in subs.values() {
                most = most.max(self.cost(sub, depth + 1));
            }
            member = member.plus(most);
        }
        if let Some(Value::Object(subs)) = map.get("patternProperties") {
            for sub in subs.values() {
                member = member.plus(self.cost(sub, depth + 1));
            }
        }
        for keyword in ["additionalProperties", "unevaluatedProperties"] {
            if let Some(cost) = each(self, keyword) {
                member = member.plus(cost);
            }
        }
        let key = each(self, "propertyNames").unwrap_or_default();
        // An item: at most one position of a tuple, then the rest.
        let mut item = Cost::default();
        for keyword in ["prefixItems", "items"] {
            match map.get(keyword) {
                Some(Value::Array(subs)) => {
                    let mut most = Cost::default();
                    for sub in subs {
                        most = most.max(self.cost(sub, depth + 1));
                    }
                    item = item.plus(most);
                }
                Some(sub) => item = item.plus(self.cost(sub, depth + 1)),
                None => {}
            }
        }
        for keyword in ["additionalItems", "contains", "unevaluatedItems"] {
            if let Some(cost) = each(self, keyword) {
                item = item.plus(cost);
            }
        }
        member.max(key).max(item)
    }

    /// Where a `$ref` leads, as the crate resolves it.
    fn resolve(&self, reference: &str) -> Resolved<'s> {
        if let Some(fragment) = reference.strip_prefix('#') {
            if fragment.is_empty() {
                return Resolved::Target(self.root);
            }
            // A fragment is percent-decoded, then read as a JSON pointer.
            let Some(pointer) = percent_decoded(fragment) else {
                return Resolved::Unknown;
            };
            return match self.root.pointer(&pointer) {
                Some(target) => Resolved::Target(target),
                None => Resolved::Unknown,
            };
        }
        let lower = percent_decoded(reference)
            .unwrap_or_default()
            .to_ascii_lowercase();
        let absolute = reference.split_once(':').is_some_and(|(scheme, _)| {
            let mut chars = scheme.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        });
        // Only an absolute URI that is neither this document (which has no
        // URI of its own) nor a metaschema the crate holds resolves nowhere:
        // the schema does not compile. Anything else may lead back here.
        if absolute
            && !self.based
            && !lower.contains("json-schema")
            && !lower.contains("jsonschema")
        {
            Resolved::Elsewhere
        } else {
            Resolved::Unknown
        }
    }
}

/// What finding errors does with a same-value subschema.
#[derive(Clone, Copy)]
enum Mode {
    /// Asks `is_valid` only.
    Valid,
    /// Validates it (collects its errors).
    Errors,
    /// Asks `is_valid`, then collects its errors.
    Both,
}

enum Subschema<'s> {
    Here(&'s Value),
    Target(&'s Value),
    Unresolved,
}

enum Resolved<'s> {
    Target(&'s Value),
    /// Another document: the crate cannot read it, and refuses the schema.
    Elsewhere,
    /// Somewhere the walk cannot tell.
    Unknown,
}

/// The part of a schema's own weight ([`Walk::own`]) charged per value it
/// is applied to.
pub(super) fn own_per_value(map: &Map<String, Value>) -> u64 {
    let mut per_value = 1 + map.len() as u64;
    for (keyword, value) in map {
        let weight = match (keyword.as_str(), value) {
            ("required", Value::Array(names)) => names.len() as u64,
            ("dependentRequired" | "dependencies", Value::Object(entries)) => entries
                .values()
                .filter_map(Value::as_array)
                .map(|names| names.len() as u64)
                .sum(),
            ("enum" | "const", value) => size(value),
            _ => 0,
        };
        per_value = per_value.saturating_add(weight);
    }
    per_value
}

/// Condition parts a schema adds for an enclosing `unevaluatedProperties`.
fn own_parts(map: &Map<String, Value>) -> u64 {
    let mut parts = 0;
    if map.contains_key("if") {
        parts += 1;
    }
    if map.contains_key("else") {
        parts += 1;
    }
    for keyword in ["dependentSchemas", "dependencies"] {
        if let Some(Value::Object(entries)) = map.get(keyword) {
            parts += entries.len() as u64;
        }
    }
    parts
}

/// The cost of comparing a value against an `enum` or `const`: its JSON
/// values, and its strings by 64 bytes.
fn size(value: &Value) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        total = total.saturating_add(1);
        match value {
            Value::String(text) => total = total.saturating_add(text.len() as u64 / 64),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (key, value) in map {
                    total = total.saturating_add(1 + key.len() as u64 / 64);
                    stack.push(value);
                }
            }
            _ => {}
        }
    }
    total
}

/// `%XX` escapes decoded; `None` when they do not make UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
