//! Which schemas are safe to check against an input a cell chose. The
//! crate's work is at most the input's size times what one instance node
//! can cost, except where one node is checked against several subschemas
//! that each reach deeper (`oneOf` of two branches that both recurse): there
//! a cell can pick an input that costs exponentially. So a schema is
//! checked only when its `$ref`s do not loop and the subschemas any one
//! instance node can be checked against stay under a fixed count.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// The most subschema evaluations one instance node may cost.
const MAX_WORK: u64 = 10_000;

/// Keywords whose subschemas apply to the same instance.
const SAME_INSTANCE: [&str; 8] = [
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref",
];

/// Why a schema is not checked, or `None` when it can be.
pub(super) fn unsafe_to_check(schema: &Value) -> Option<&'static str> {
    let mut walk = Walk {
        root: schema,
        memo: HashMap::new(),
        active: Vec::new(),
        recursive: false,
    };
    let work = walk.work(schema, 0);
    if walk.recursive {
        Some("it is recursive (a $ref refers back to where it is), so checking it could cost what the input chooses")
    } else if work > MAX_WORK {
        Some("its alternatives multiply past what one check may cost")
    } else {
        None
    }
}

struct Walk<'s> {
    root: &'s Value,
    memo: HashMap<*const Value, u64>,
    /// `$ref` targets being walked now.
    active: Vec<*const Value>,
    recursive: bool,
}

impl<'s> Walk<'s> {
    /// Subschema evaluations one instance node may cost under `node`.
    fn work(&mut self, node: &'s Value, depth: usize) -> u64 {
        if self.recursive || depth > 256 {
            self.recursive = true;
            return MAX_WORK + 1;
        }
        let Value::Object(map) = node else {
            return 1;
        };
        let key = node as *const Value;
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        let mut same: u64 = 0;
        for keyword in SAME_INSTANCE {
            let Some(sub) = map.get(keyword) else {
                continue;
            };
            match (keyword, sub) {
                ("$ref", Value::String(target)) => {
                    let Some(target) = resolve(self.root, target) else {
                        continue;
                    };
                    let pointer = target as *const Value;
                    if self.active.contains(&pointer) {
                        self.recursive = true;
                        return MAX_WORK + 1;
                    }
                    self.active.push(pointer);
                    same = same.saturating_add(self.work(target, depth + 1));
                    self.active.pop();
                }
                (_, Value::Array(items)) => {
                    for item in items {
                        same = same.saturating_add(self.work(item, depth + 1));
                    }
                }
                (_, Value::Object(_)) => same = same.saturating_add(self.work(sub, depth + 1)),
                _ => {}
            }
        }
        let below = self.children(map, depth);
        let work = 1u64.saturating_add(same).saturating_add(below);
        self.memo.insert(key, work);
        work
    }

    /// The most any one child instance (a property, an item) may cost.
    fn children(&mut self, map: &'s Map<String, Value>, depth: usize) -> u64 {
        let mut most = 0;
        let mut each = |walk: &mut Self, sub: &'s Value| {
            let work = walk.work(sub, depth + 1);
            most = most.max(work);
        };
        for keyword in [
            "properties",
            "patternProperties",
            "dependentSchemas",
            "$defs",
            "definitions",
        ] {
            if keyword == "$defs" || keyword == "definitions" {
                // Reached through `$ref` only.
                continue;
            }
            if let Some(Value::Object(subs)) = map.get(keyword) {
                for sub in subs.values() {
                    each(self, sub);
                }
            }
        }
        // A property can match `properties`, `patternProperties` and
        // `additionalProperties` at once; an item `prefixItems`, `items` and
        // `contains`: counted together, as the sum of their most.
        let mut together = most;
        for keyword in [
            "additionalProperties",
            "unevaluatedProperties",
            "propertyNames",
            "items",
            "additionalItems",
            "unevaluatedItems",
            "contains",
        ] {
            match map.get(keyword) {
                Some(sub @ Value::Object(_)) => {
                    together = together.saturating_add(self.work(sub, depth + 1))
                }
                Some(Value::Array(items)) => {
                    for item in items {
                        together = together.saturating_add(self.work(item, depth + 1));
                    }
                }
                _ => {}
            }
        }
        if let Some(Value::Array(items)) = map.get("prefixItems") {
            for item in items {
                together = together.saturating_add(self.work(item, depth + 1));
            }
        }
        together
    }
}

/// A local `$ref` target (`#`, `#/$defs/x`); anything else is not walked
/// (it does not resolve: the schema does not compile).
fn resolve<'s>(root: &'s Value, target: &str) -> Option<&'s Value> {
    let pointer = target.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}
