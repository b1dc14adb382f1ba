//! Not a test: measures what one unit of the analysis costs in time, on
//! hostile schemas and inputs. `cargo test -p code-mode-core --profile ci
//! --lib validation::calibrate -- --ignored --nocapture`.

use std::time::Instant;

use serde_json::{json, Value};

use super::{compile, values, InputValidators};
use crate::catalog::testing::core;
use crate::catalog::{Catalog, ToolSpec};

fn cases() -> Vec<(&'static str, Value, Value)> {
    let mut cases = Vec::new();
    // Wide alternatives over many items.
    let branches: Vec<Value> = (0..40)
        .map(|i| json!({"type": "object", "required": [format!("k{i}")], "properties": {"a": {"type": "integer"}}}))
        .collect();
    let items: Vec<Value> = (0..2000).map(|i| json!({"a": i, "z": 1})).collect();
    cases.push((
        "anyOf x40 over 2000 items",
        json!({"type": "array", "items": {"anyOf": branches}}),
        json!(items),
    ));
    // dependentSchemas pairs chained as deep as allowed.
    let mut chain = json!({"type": "object"});
    for _ in 0..10 {
        chain = json!({"dependentSchemas": {"a": chain.clone(), "b": chain}});
    }
    cases.push(("dependentSchemas chain 10", chain, json!({"a": 1, "b": 1})));
    let mut chain = json!({"type": "object"});
    for _ in 0..6 {
        chain = json!({"dependentSchemas": {"a": chain.clone(), "b": chain}});
    }
    let items: Vec<Value> = (0..300).map(|_| json!({"a": 1, "b": 1})).collect();
    cases.push((
        "dependentSchemas chain 6 over 300 items",
        json!({"items": chain}),
        json!(items),
    ));
    // A pattern whose automaton is large, against long strings.
    let strings: Vec<String> = (0..20)
        .map(|i| format!("{}{}", "a".repeat(4000), i))
        .collect();
    cases.push((
        "unicode pattern",
        json!({"items": {"pattern": "^[\\p{L}\\p{N}]{0,100}x$"}}),
        json!(strings),
    ));
    // Patterns whose DFA has exponentially many states, against strings
    // that visit them: the lazy DFA gives up and the automaton is simulated.
    let mut seed = 7u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let ab: Vec<String> = (0..8)
        .map(|_| {
            (0..32_000)
                .map(|_| if next() % 2 == 0 { 'a' } else { 'b' })
                .collect()
        })
        .collect();
    cases.push((
        "dfa blowup",
        json!({"items": {"pattern": "(a|b)*a(a|b){24}x"}}),
        json!(ab),
    ));
    let letters: Vec<String> = (0..8)
        .map(|_| {
            (0..8_000)
                .map(|_| ['a', 'B', 'é', 'Ж', 'ж', 'Ω', 'x', 'Q'][(next() % 8) as usize])
                .collect()
        })
        .collect();
    cases.push((
        "unicode dfa blowup",
        json!({"items": {"pattern": "\\p{L}*\\p{Lu}\\p{L}{10}0"}}),
        json!(letters),
    ));
    // Required names, all present, in many objects.
    let names: Vec<String> = (0..200).map(|i| format!("name_{i}")).collect();
    let object: serde_json::Map<String, Value> =
        names.iter().map(|n| (n.clone(), json!(1))).collect();
    let objects: Vec<Value> = (0..200).map(|_| Value::Object(object.clone())).collect();
    cases.push(("required x200", json!({"items": {"required": names, "minProperties": 1, "maxProperties": 1000, "type": "object"}}), json!(objects)));
    // Many keywords per schema, many small values.
    let numbers: Vec<Value> = (0..50_000).map(|i| json!(i % 100)).collect();
    cases.push(("numeric keywords", json!({"items": {"type": "integer", "minimum": 0, "maximum": 1000, "multipleOf": 1, "exclusiveMaximum": 5000, "exclusiveMinimum": -1, "not": {"type": "string"}}}), json!(numbers)));
    // Enum of objects compared deeply.
    let options: Vec<Value> = (0..300)
        .map(|i| json!({"a": [1, 2, 3, {"b": i}], "c": "same"}))
        .collect();
    let items: Vec<Value> = (0..300)
        .map(|_| json!({"a": [1, 2, 3, {"b": -1}], "c": "same"}))
        .collect();
    cases.push((
        "enum of objects",
        json!({"items": {"enum": options}}),
        json!(items),
    ));
    // Strings compared against equal-length enum strings.
    let long: Vec<Value> = (0..200)
        .map(|i| json!(format!("{}{i:04}", "x".repeat(1000))))
        .collect();
    let inputs: Vec<Value> = (0..200)
        .map(|_| json!(format!("{}zzzz", "x".repeat(1000))))
        .collect();
    cases.push((
        "enum of long strings",
        json!({"items": {"enum": long}}),
        json!(inputs),
    ));
    // Deep objects, properties at every level.
    let mut deep_schema = json!({"type": "integer"});
    for _ in 0..40 {
        deep_schema = json!({"type": "object", "properties": {"a": deep_schema, "b": {"type": "string"}}, "required": ["a"], "additionalProperties": false});
    }
    let mut deep = json!(1);
    for _ in 0..40 {
        deep = json!({"a": deep, "b": "x"});
    }
    let many: Vec<Value> = (0..500).map(|_| deep.clone()).collect();
    cases.push(("deep objects", json!({"items": deep_schema}), json!(many)));
    // contains and propertyNames.
    let strings: Vec<Value> = (0..40_000).map(|i| json!(format!("s{i}"))).collect();
    cases.push((
        "contains",
        json!({"contains": {"const": "never"}, "minContains": 1}),
        json!(strings),
    ));
    let members: serde_json::Map<String, Value> =
        (0..20_000).map(|i| (format!("key{i}"), json!(i))).collect();
    cases.push((
        "propertyNames",
        json!({"propertyNames": {"maxLength": 3, "minLength": 1}}),
        Value::Object(members),
    ));
    // unevaluatedProperties allowed, over many keys.
    let node = json!({"allOf": [{"properties": {"a": true}}, {"properties": {"b": true}}], "anyOf": [{"properties": {"c": true}}, {"properties": {"d": true}}]});
    let members: serde_json::Map<String, Value> =
        (0..5_000).map(|i| (format!("u{i}"), json!(i))).collect();
    cases.push((
        "unevaluatedProperties small",
        json!({"allOf": [node], "unevaluatedProperties": {"type": "integer"}}),
        Value::Object(members),
    ));
    cases.push((
        "dot pattern",
        json!({"items": {"pattern": "(.*a){20}$"}}),
        json!(strings),
    ));
    // uniqueItems over objects.
    let items: Vec<Value> = (0..5000).map(|i| json!({"a": i, "b": [i, i]})).collect();
    cases.push(("uniqueItems", json!({"uniqueItems": true}), json!(items)));
    // A large enum.
    let options: Vec<Value> = (0..2000).map(|i| json!(format!("option-{i}"))).collect();
    let items: Vec<Value> = (0..2000).map(|i| json!({"x": i})).collect();
    cases.push((
        "enum of 2000 objects",
        json!({"items": {"enum": options}}),
        json!(items),
    ));
    // unevaluatedProperties with conditionals.
    let mut node = json!({"properties": {"p": true}});
    for i in 0..6 {
        node = json!({"allOf": [node.clone()], "if": {"required": [format!("c{i}")]}, "then": node.clone(), "else": node});
    }
    let members: serde_json::Map<String, Value> =
        (0..2000).map(|i| (format!("m{i}"), json!(i))).collect();
    cases.push((
        "unevaluatedProperties",
        json!({"allOf": [node], "unevaluatedProperties": {"type": "integer"}}),
        Value::Object(members),
    ));
    // Many patternProperties and many keys.
    let patterns: serde_json::Map<String, Value> = (0..50)
        .map(|i| (format!("^p{i}[a-z]*\\d+$"), json!({"type": "integer"})))
        .collect();
    let members: serde_json::Map<String, Value> = (0..3000)
        .map(|i| (format!("p{}abcdefgh{i}", i % 50), json!(i)))
        .collect();
    cases.push((
        "patternProperties x50",
        json!({"patternProperties": patterns, "additionalProperties": false}),
        Value::Object(members),
    ));
    // Deep nesting of arrays.
    let mut deep_schema = json!({"type": "integer"});
    for _ in 0..60 {
        deep_schema =
            json!({"type": "array", "items": deep_schema, "contains": true, "uniqueItems": true});
    }
    let mut deep = json!(1);
    for _ in 0..60 {
        deep = json!([deep, deep.clone()]);
        if deep.to_string().len() > 200_000 {
            break;
        }
    }
    cases.push(("nested arrays", deep_schema, deep));
    cases
}

/// Schemas at the compile bounds.
#[test]
#[ignore]
fn compile_costs() {
    let time = |name: &str, schema: &Value| {
        let fastest = (0..3)
            .map(|_| {
                let started = Instant::now();
                let compiled = compile(schema);
                (started.elapsed().as_secs_f64() * 1000.0, compiled.err())
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap();
        let started = Instant::now();
        let patterns = super::screen::screen(schema);
        let screened = started.elapsed().as_secs_f64() * 1000.0;
        let started = Instant::now();
        let _ = patterns.map(|patterns| super::analysis::cost(schema, &patterns));
        let analysed = started.elapsed().as_secs_f64() * 1000.0;
        let started = Instant::now();
        let _ = super::options().build(schema);
        let built = started.elapsed().as_secs_f64() * 1000.0;
        println!(
            "{name}: {:.2} ms {:?} (screen {screened:.2}, analysis {analysed:.2}, crate {built:.2})",
            fastest.0, fastest.1
        );
    };
    let properties: serde_json::Map<String, Value> =
        (0..3300).map(|i| (format!("p{i}"), json!({}))).collect();
    time(
        "3300 empty properties",
        &json!({"type": "object", "properties": properties}),
    );
    let properties: serde_json::Map<String, Value> = (0..3300)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"description": "x", "title": "y", "default": 1}),
            )
        })
        .collect();
    time(
        "3300 annotated properties",
        &json!({"type": "object", "properties": properties}),
    );
    let branches: Vec<Value> = (0..3300).map(|_| json!({"type": "integer"})).collect();
    time("3300 allOf", &json!({"allOf": branches}));
    // Values up to the bound: many typed properties.
    let properties: serde_json::Map<String, Value> = (0..3300)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "minLength": 1, "description": "x"}),
            )
        })
        .collect();
    time(
        "3300 properties",
        &json!({"type": "object", "properties": properties}),
    );
    let properties: serde_json::Map<String, Value> = (0..6600)
        .map(|i| (format!("p{i}"), json!({"type": "integer"})))
        .collect();
    time(
        "6600 properties",
        &json!({"type": "object", "properties": properties}),
    );
    let branches: Vec<Value> = (0..2400)
        .map(|i| json!({"const": i, "type": "integer"}))
        .collect();
    time("2400 oneOf branches", &json!({"oneOf": branches}));
    let options: Vec<Value> = (0..19_990).map(|i| json!(i)).collect();
    time("enum of 19990", &json!({"enum": options}));
    // Refs: a long chain of definitions.
    let mut defs = serde_json::Map::new();
    for i in 0..2000 {
        defs.insert(
            format!("d{i}"),
            json!({"type": "object", "properties": {"n": {"$ref": format!("#/$defs/d{}", i + 1)}}}),
        );
    }
    defs.insert("d2000".into(), json!({"type": "integer"}));
    time(
        "ref chain 2000",
        &json!({"$defs": defs, "$ref": "#/$defs/d0"}),
    );
    // A DAG of refs under unevaluatedProperties.
    let mut defs = serde_json::Map::new();
    for i in 0..9 {
        let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
        defs.insert(
            format!("d{i}"),
            json!({"allOf": [next, next], "properties": {format!("p{i}"): true}}),
        );
    }
    defs.insert("d9".into(), json!({"properties": {"z": true}}));
    time(
        "unevaluated ref DAG 2^9",
        &json!({"$defs": defs, "allOf": [{"$ref": "#/$defs/d0"}], "unevaluatedProperties": false}),
    );
    // Patterns: many small distinct ones, and Unicode classes up to the budget.
    let properties: serde_json::Map<String, Value> = (0..256)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "pattern": format!("^[a-z]+{i}[0-9]*$")}),
            )
        })
        .collect();
    time("256 small patterns", &json!({"properties": properties}));
    let properties: serde_json::Map<String, Value> = (0..8)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "pattern": format!("^\\p{{L}}+{i}$")}),
            )
        })
        .collect();
    time("8 unicode patterns", &json!({"properties": properties}));
    let properties: serde_json::Map<String, Value> = (0..3000)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "pattern": format!("^\\p{{L}}+{i}$")}),
            )
        })
        .collect();
    time("3000 unicode patterns", &json!({"properties": properties}));
    time(
        "a bounded unicode repetition",
        &json!({"pattern": "^[\\p{L}\\p{N}]{0,6}$"}),
    );
    let controls = "\\cA".repeat(1300);
    time("control escapes", &json!({"pattern": controls}));
}

#[test]
#[ignore]
fn calibrate() {
    for (name, schema, input) in cases() {
        let started = Instant::now();
        let compiled = compile(&schema);
        let compile_ms = started.elapsed().as_secs_f64() * 1000.0;
        let (validator, bound) = match compiled {
            Ok(compiled) => compiled,
            Err(why) => {
                println!("{name}: refused ({why}) in {compile_ms:.2} ms");
                continue;
            }
        };
        let text = input.to_string();
        let n = values(&input);
        let valid_units = bound.valid.of(n, text.len() as u64);
        let error_units = bound.errors.of(n, text.len() as u64);
        // The fastest of five runs: the machine is shared.
        let fastest = |run: &mut dyn FnMut()| -> f64 {
            (0..5)
                .map(|_| {
                    let started = Instant::now();
                    run();
                    started.elapsed().as_secs_f64() * 1000.0
                })
                .fold(f64::MAX, f64::min)
        };
        let mut valid = false;
        let valid_ms = fastest(&mut || valid = validator.is_valid(&input));
        let mut errors = 0;
        let errors_ms = fastest(&mut || errors = validator.iter_errors(&input).count());
        let mut first = false;
        let first_ms = fastest(&mut || first = validator.validate(&input).is_err());
        println!(
            "{name}: {bound:?}; {n} values / {} bytes; compile {compile_ms:.2} ms\n   is_valid {valid} {valid_ms:.2} ms for {valid_units} units = {:.3} ns/unit; iter_errors {errors} {errors_ms:.2} ms, validate {first} {first_ms:.2} ms for {error_units} units = {:.3} ns/unit",
            text.len(),
            valid_ms * 1e6 / valid_units as f64,
            errors_ms.max(first_ms) * 1e6 / error_units as f64,
        );
        let catalog = Catalog::build(&[ToolSpec {
            parameters: Some(schema.into()),
            ..core("t")
        }]);
        let entry = catalog.exact("openclaw:core:t").unwrap();
        let validators = InputValidators::default();
        validators.prepare(entry);
        let started = Instant::now();
        let checked = validators.check(entry, &text);
        println!(
            "   through check (first problem): {:.2} ms, {}",
            started.elapsed().as_secs_f64() * 1000.0,
            if checked.is_ok() {
                "ok or unchecked"
            } else {
                "refused"
            }
        );
    }
}
