//! The analysis's bound against what the crate really does: random schemas
//! nesting every applicator, checked against inputs made to reach their
//! branches. Every schema object carries a keyword of our own, `x-count`,
//! that adds the schema's own weight ([`own_per_value`]) to a counter each
//! time the crate enters it: the crate's work counted, not timed. For every
//! schema the analysis accepts, the count of `is_valid`, and of `is_valid`
//! then `iter_errors` (or `validate`), never passes the bound. Deterministic:
//! a fixed seed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use jsonschema::paths::Location;
use jsonschema::{Keyword, ValidationError};
use serde_json::{json, Map, Value};

use super::analysis::{self, own_per_value};
use super::{compile, screen, values};

/// Random numbers from a fixed seed (xorshift64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Kinds of chain links ([`Generator::link`]).
const LINKS: usize = 9;

/// Keys inputs use and schemas name, so that branches meet.
const KEYS: [&str; 5] = ["a", "b", "c", "ab", "x1"];

struct Generator {
    rng: Rng,
    /// Definitions `$ref`s may point to: a definition refers only to later
    /// ones, so none loops.
    defs: usize,
}

impl Generator {
    fn key(&mut self) -> &'static str {
        KEYS[self.rng.below(KEYS.len())]
    }

    fn keys(&mut self) -> Vec<&'static str> {
        let count = 1 + self.rng.below(3);
        let mut keys: Vec<&'static str> = (0..count).map(|_| self.key()).collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// A schema; `from` is the first definition it may refer to.
    fn schema(&mut self, depth: usize, from: usize) -> Value {
        if depth == 0 || self.rng.chance(15) {
            return self.leaf();
        }
        let mut map = Map::new();
        map.insert("x-count".into(), json!(true));
        for _ in 0..1 + self.rng.below(3) {
            self.keyword(&mut map, depth - 1, from);
        }
        Value::Object(map)
    }

    fn many(&mut self, depth: usize, from: usize) -> Value {
        let count = 1 + self.rng.below(3);
        Value::Array((0..count).map(|_| self.schema(depth, from)).collect())
    }

    fn named(&mut self, depth: usize, from: usize) -> Value {
        let mut map = Map::new();
        for key in self.keys() {
            map.insert(key.to_owned(), self.schema(depth, from));
        }
        Value::Object(map)
    }

    fn leaf(&mut self) -> Value {
        let body = match self.rng.below(10) {
            0 => return json!(true),
            1 => return json!(false),
            2 => json!({ "type": (["object", "array", "string", "number"][self.rng.below(4)]) }),
            3 => json!({"enum": [1, "a", {"a": 1}, [1]]}),
            4 => json!({"const": {"a": 1}}),
            5 => json!({"minLength": 1, "maxLength": 3}),
            6 => json!({ "pattern": (["^a", "b+$", "(a|b)*c", "\\p{L}"][self.rng.below(4)]) }),
            7 => json!({"required": self.keys()}),
            8 => json!({"uniqueItems": true, "minItems": 1}),
            _ => json!({"minProperties": 1, "dependentRequired": {"a": ["b"]}}),
        };
        let mut map = body.as_object().cloned().unwrap_or_default();
        map.insert("x-count".into(), json!(true));
        Value::Object(map)
    }

    fn keyword(&mut self, map: &mut Map<String, Value>, depth: usize, from: usize) {
        let (name, value) = match self.rng.below(22) {
            0 => ("allOf", self.many(depth, from)),
            1 => ("anyOf", self.many(depth, from)),
            2 => ("oneOf", self.many(depth, from)),
            3 => ("not", self.schema(depth, from)),
            4 => {
                map.insert("if".into(), self.schema(depth, from));
                if self.rng.chance(70) {
                    map.insert("then".into(), self.schema(depth, from));
                }
                ("else", self.schema(depth, from))
            }
            5 => ("dependentSchemas", self.named(depth, from)),
            6 => {
                let mut entries = Map::new();
                for key in self.keys() {
                    let entry = match self.rng.chance(70) {
                        true => self.schema(depth, from),
                        false => json!(self.keys()),
                    };
                    entries.insert(key.to_owned(), entry);
                }
                ("dependencies", Value::Object(entries))
            }
            7 | 8 if from < self.defs => {
                let target = from + self.rng.below(self.defs - from);
                map.insert("x-count".into(), json!(true));
                ("$ref", json!(format!("#/$defs/d{target}")))
            }
            9 => ("properties", self.named(depth, from)),
            10 => {
                let mut patterns = Map::new();
                patterns.insert("^a".into(), self.schema(depth, from));
                if self.rng.chance(50) {
                    patterns.insert("b|1".into(), self.schema(depth, from));
                }
                ("patternProperties", Value::Object(patterns))
            }
            11 => ("additionalProperties", self.schema(depth, from)),
            12 => ("propertyNames", self.schema(depth, from)),
            13 => ("items", self.schema(depth, from)),
            14 => ("prefixItems", self.many(depth, from)),
            15 => ("additionalItems", self.schema(depth, from)),
            16 => ("contains", self.schema(depth, from)),
            17 => ("unevaluatedProperties", self.schema(depth, from)),
            18 => ("unevaluatedItems", self.schema(depth, from)),
            19 => ("required", json!(self.keys())),
            20 => ("minContains", json!(self.rng.below(3))),
            _ => ("type", json!((["object", "array"][self.rng.below(2)]))),
        };
        map.insert(name.to_owned(), value);
    }

    /// A root: definitions, each referring only to later ones (some of them
    /// a chain of pairs, which doubles the checks at each link), then the
    /// root's own keywords.
    fn root(&mut self) -> Value {
        self.defs = self.rng.below(13);
        // Some roots are one chain of links of one kind, ending in a schema
        // most values fail: each link then checks both branches, and the
        // count comes close to the bound.
        let chain = match self.rng.chance(40) {
            true => Some(self.rng.below(LINKS)),
            false => None,
        };
        let mut defs = Map::new();
        for index in (0..self.defs).rev() {
            let last = index + 1 == self.defs;
            let def = match chain {
                Some(_) if last => json!({"x-count": true, "type": "array", "minItems": 3}),
                Some(kind) => self.link(index + 1, kind),
                None if !last && self.rng.chance(60) => {
                    let kind = self.rng.below(LINKS);
                    self.link(index + 1, kind)
                }
                None => self.schema(3, index + 1),
            };
            defs.insert(format!("d{index}"), def);
        }
        if chain.is_some() && self.defs > 0 {
            return json!({"x-count": true, "$defs": defs, "allOf": [{"$ref": "#/$defs/d0", "x-count": true}]});
        }
        let mut root = match self.schema(4, 0) {
            Value::Object(map) => map,
            other => {
                let mut map = Map::new();
                map.insert("x-count".into(), json!(true));
                map.insert("allOf".into(), json!([other]));
                map
            }
        };
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        if self.rng.chance(15) {
            root.insert(
                "$schema".into(),
                json!("https://json-schema.org/draft/2019-09/schema"),
            );
        } else if self.rng.chance(10) {
            root.insert(
                "$schema".into(),
                json!("http://json-schema.org/draft-07/schema#"),
            );
        }
        Value::Object(root)
    }

    /// A link of a chain: the next definition applied twice to the same
    /// value (or once, under an `unevaluatedProperties` that walks it
    /// again), which multiplies the checks at each link.
    fn link(&mut self, next: usize, kind: usize) -> Value {
        let next = json!({ "$ref": format!("#/$defs/d{next}"), "x-count": true });
        let mut map = Map::new();
        map.insert("x-count".into(), json!(true));
        match kind {
            0 => map.insert("allOf".into(), json!([next.clone(), next])),
            1 => map.insert("anyOf".into(), json!([next.clone(), next])),
            2 => map.insert("oneOf".into(), json!([next.clone(), next])),
            3 => map.insert(
                "dependentSchemas".into(),
                json!({"a": next.clone(), "b": next}),
            ),
            4 => map.insert("dependencies".into(), json!({"a": next.clone(), "b": next})),
            5 => {
                map.insert("if".into(), next.clone());
                map.insert("then".into(), next.clone());
                map.insert("else".into(), next)
            }
            6 => {
                map.insert("not".into(), next.clone());
                map.insert("allOf".into(), json!([next]))
            }
            7 => {
                map.insert("allOf".into(), json!([next]));
                map.insert("properties".into(), json!({"a": true}));
                let after = self.schema(1, usize::MAX);
                map.insert("unevaluatedProperties".into(), after)
            }
            _ => {
                map.insert("anyOf".into(), json!([next]));
                map.insert("if".into(), json!({"required": ["a"]}));
                map.insert("unevaluatedItems".into(), json!(true))
            }
        };
        Value::Object(map)
    }

    /// A small input that reaches the branches: a few values, so that the
    /// bound (per input value) is tight.
    fn small(&mut self) -> Value {
        match self.rng.below(8) {
            6 => json!(1),
            7 => json!([1, 2]),
            0 => json!({"a": 1, "b": 1}),
            1 => json!({"a": 1, "b": 1, "c": "ab"}),
            2 => json!({"b": [1, 1]}),
            3 => json!(["a", {"a": 1}]),
            4 => json!({}),
            _ => json!("ab"),
        }
    }

    /// An input made of the keys schemas name, nested.
    fn input(&mut self, depth: usize) -> Value {
        match self.rng.below(if depth == 0 { 4 } else { 7 }) {
            0 => json!((["a", "ab", "c", "Жb", ""][self.rng.below(5)])),
            1 => json!(self.rng.below(3)),
            2 => json!(null),
            3 => json!({"a": 1}),
            4 | 5 => {
                let mut map = Map::new();
                for _ in 0..self.rng.below(5) {
                    let key = self.key();
                    let value = self.input(depth - 1);
                    map.insert(key.to_owned(), value);
                }
                Value::Object(map)
            }
            _ => {
                let count = self.rng.below(5);
                Value::Array((0..count).map(|_| self.input(depth - 1)).collect())
            }
        }
    }
}

/// `schema` with each subschema marked `x-count` made into
/// `{"allOf": [{"x-count": W}, <the subschema>]}`: the crate checks its
/// keywords in an order of its own, and stops at the first that fails, so
/// the counter must come first to count every entry. `W` is what the
/// analysis charges for entering the three (the wrapper, the counter and the
/// subschema itself). The root keeps its `$defs`, so that every `$ref` still
/// resolves; its definitions are wrapped in place.
fn instrument(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut inner = Map::new();
            let mut outer = Map::new();
            for (key, value) in map {
                let value = match key.as_str() {
                    "$defs" => {
                        let defs = value.as_object().into_iter().flatten();
                        Value::Object(defs.map(|(k, v)| (k.clone(), instrument(v))).collect())
                    }
                    "enum" | "const" | "required" | "x-count" => value.clone(),
                    _ => instrument(value),
                };
                match key.as_str() {
                    "$defs" | "$schema" => outer.insert(key.clone(), value),
                    "x-count" => None,
                    _ => inner.insert(key.clone(), value),
                };
            }
            if !map.contains_key("x-count") {
                // Not a schema of the generator's (a map of them, a value).
                inner.extend(outer);
                return Value::Object(inner);
            }
            let weight = own_per_value(&inner)
                + 2
                + own_per_value(&{
                    let mut wrapper = outer.clone();
                    wrapper.insert("allOf".into(), Value::Null);
                    wrapper
                });
            outer.insert("allOf".into(), json!([{ "x-count": weight }, inner]));
            Value::Object(outer)
        }
        Value::Array(items) => Value::Array(items.iter().map(instrument).collect()),
        other => other.clone(),
    }
}

/// `x-count`: adds its weight to `counter` each time it is checked.
struct Count {
    counter: Arc<AtomicU64>,
    weight: u64,
}

impl Count {
    fn add(&self) {
        self.counter.fetch_add(self.weight, Ordering::Relaxed);
    }
}

impl<'i> Keyword<'i> for Count {
    fn validate(&self, _instance: &'i Value) -> Result<(), ValidationError<'i>> {
        self.add();
        Ok(())
    }

    fn is_valid(&self, _instance: &'i Value) -> bool {
        self.add();
        true
    }
}

fn counting(schema: &Value, counter: &Arc<AtomicU64>) -> jsonschema::Validator {
    let counter = counter.clone();
    super::options()
        .with_keyword(
            "x-count",
            move |_: &Map<String, Value>, weight: &Value, _: Location| {
                let keyword: Box<dyn for<'i> Keyword<'i>> = Box::new(Count {
                    counter: counter.clone(),
                    weight: weight.as_u64().unwrap_or(0),
                });
                Ok(keyword)
            },
        )
        .build(schema)
        .expect("a schema the analysis accepted compiles")
}

#[test]
fn the_crate_never_does_more_than_the_analysis_bounds() {
    let mut generator = Generator {
        rng: Rng(0x9e37_79b9_7f4a_7c15),
        defs: 0,
    };
    let (mut checked, mut refused, mut closest) = (0, 0, 0.0f64);
    for _ in 0..600 {
        let schema = instrument(&generator.root());
        // The schema as `compile` reads it; what the crate refuses (a
        // keyword in the wrong draft, say) is left out, like a tool whose
        // schema does not compile.
        let Ok((_, bound)) = compile(&schema) else {
            refused += 1;
            continue;
        };
        let patterns = screen::screen(&schema).unwrap();
        assert_eq!(analysis::cost(&schema, &patterns), Ok(bound));
        let counter = Arc::new(AtomicU64::new(0));
        let validator = counting(&schema, &counter);
        for _ in 0..8 {
            let input = match generator.rng.chance(50) {
                true => generator.small(),
                false => generator.input(4),
            };
            let (n, bytes) = (values(&input), input.to_string().len() as u64);
            let valid_bound = bound.valid.of(n, bytes);
            let check_bound = bound.valid.plus(bound.errors).of(n, bytes);
            counter.store(0, Ordering::Relaxed);
            let valid = validator.is_valid(&input);
            let valid_count = counter.load(Ordering::Relaxed);
            assert!(
                valid_count <= valid_bound,
                "is_valid counted {valid_count} > {valid_bound}\nschema {schema}\ninput {input}"
            );
            for errors in [true, false] {
                counter.store(0, Ordering::Relaxed);
                assert_eq!(validator.is_valid(&input), valid);
                if errors {
                    let _ = validator.iter_errors(&input).count();
                } else {
                    let _ = validator.validate(&input);
                }
                let count = counter.load(Ordering::Relaxed);
                assert!(
                    count <= check_bound,
                    "check (iter_errors {errors}) counted {count} > {check_bound}\nschema {schema}\ninput {input}"
                );
                let ratio = count as f64 / check_bound as f64;
                closest = closest.max(ratio);
            }
        }
        checked += 1;
    }
    // The generator makes enough of both to mean something.
    assert!(
        checked >= 200 && refused >= 10,
        "{checked} checked, {refused} refused"
    );
    println!("{checked} schemas checked, {refused} refused; the closest count was {closest:.3} of its bound");
}
