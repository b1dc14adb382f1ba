//! What a cell can make validation cost: schemas whose check or compile
//! could cost what the input or the schema chooses are refused, and each
//! bound holds at N and fails at N + 1.

use serde_json::{json, Map, Value};

use super::analysis::{self, Work};
use super::screen::{self, Refusal};
use super::{compile, invalid_input, schema_problems, InputValidators};
use crate::catalog::testing::core;
use crate::catalog::{Catalog, ToolSpec};
use crate::limits::{
    HOST_CHECK_BYTES, HOST_CHECK_WORK, MAX_CHECK_WORK, MAX_ERROR_WORK, MAX_PATTERN_BYTES,
    MAX_PATTERN_COST, MAX_SCHEMA_DEPTH, MAX_SCHEMA_VALUES, MAX_SCHEMA_WORK,
};

fn refusal(schema: &Value) -> String {
    match compile(schema) {
        Ok((_, bound)) => panic!("checked, at {bound:?}"),
        Err(why) => why,
    }
}

/// `levels` definitions, each made by `wrap` from a `$ref` to the next, the
/// last `{"type": "object"}`; the root refers to the first.
fn chain(levels: usize, wrap: impl Fn(Value) -> Value) -> Value {
    let mut defs = Map::new();
    defs.insert(format!("d{levels}"), json!({"type": "object"}));
    for level in (0..levels).rev() {
        let next = json!({ "$ref": format!("#/$defs/d{}", level + 1) });
        defs.insert(format!("d{level}"), wrap(next));
    }
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

#[test]
fn forty_dependent_schemas_pairs_are_not_checked() {
    let schema = chain(
        40,
        |next| json!({"dependentSchemas": {"a": next.clone(), "b": next}}),
    );
    assert!(
        refusal(&schema).contains("multiply"),
        "{}",
        refusal(&schema)
    );
    // The call goes out unchecked, without a check.
    let catalog = catalog(schema);
    let entry = catalog.exact("openclaw:core:t").unwrap();
    assert!(InputValidators::default()
        .check(entry, r#"{"a":1,"b":1}"#)
        .is_ok());
}

#[test]
fn forty_draft_7_dependencies_pairs_are_not_checked() {
    let mut schema = chain(
        40,
        |next| json!({"dependencies": {"a": next.clone(), "b": next}}),
    );
    schema["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    assert!(
        refusal(&schema).contains("multiply"),
        "{}",
        refusal(&schema)
    );
}

#[test]
fn every_same_value_applicator_multiplies() {
    // Each of them, doubled at each of 20 levels, passes 10000 checks per
    // value; the same 20 levels through a child applicator do not.
    let same: [fn(Value) -> Value; 8] = [
        |n| json!({"allOf": [n.clone(), n]}),
        |n| json!({"anyOf": [n.clone(), n]}),
        |n| json!({"oneOf": [n.clone(), n]}),
        |n| json!({"if": n.clone(), "then": n}),
        |n| json!({"not": n.clone(), "else": n}),
        |n| json!({"dependentSchemas": {"x": n.clone(), "y": n}}),
        |n| json!({"dependencies": {"x": n.clone(), "y": n}}),
        |n| json!({"allOf": [n.clone()], "anyOf": [n]}),
    ];
    for wrap in same {
        let schema = chain(20, wrap);
        assert!(refusal(&schema).contains("multiply"), "{schema}");
    }
    let child = chain(20, |n| json!({"properties": {"x": n.clone(), "y": n}}));
    assert!(compile(&child).is_ok());
    let items = chain(20, |n| json!({"prefixItems": [n.clone(), n]}));
    assert!(compile(&items).is_ok());
}

#[test]
fn unevaluated_properties_pay_for_walking_again() {
    // 12 levels of `allOf` with one branch cost 12 checks; under an
    // `unevaluatedProperties` at each level, every level walks all below.
    let plain = chain(12, |n| json!({"allOf": [n], "properties": {"p": true}}));
    assert!(compile(&plain).is_ok());
    let walked = chain(
        12,
        |n| json!({"allOf": [n], "properties": {"p": true}, "unevaluatedProperties": false}),
    );
    assert!(refusal(&walked).contains("multiply"));
}

#[test]
fn the_bound_on_alternatives_holds_at_n_and_fails_at_n_plus_one() {
    let at = Work {
        per_value: MAX_SCHEMA_WORK,
        per_byte: u64::MAX,
    };
    assert!(at.allowed());
    let past = Work {
        per_value: MAX_SCHEMA_WORK + 1,
        per_byte: 0,
    };
    assert!(!past.allowed());
    // Alternatives of one branch each: the last count that stays in, then
    // one more.
    let cost = |branches: usize| {
        let schema = json!({"anyOf": vec![json!(true); branches]});
        let patterns = screen::screen(&schema).unwrap();
        analysis::cost(&schema, &patterns)
    };
    let mut branches = 1;
    while cost(branches + 1).is_ok() {
        branches += 1;
    }
    let bound = cost(branches).unwrap();
    let total = bound.valid.per_value + bound.errors.per_value;
    assert!(
        total <= MAX_SCHEMA_WORK && total + 3 > MAX_SCHEMA_WORK,
        "{total}"
    );
    assert_eq!(cost(branches + 1), Err(analysis::Refusal::Costly));
}

#[test]
fn a_looping_or_dynamic_reference_is_not_checked() {
    let looping = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"});
    assert!(refusal(&looping).contains("recursive"));
    for schema in [
        json!({"$dynamicRef": "#meta"}),
        json!({"$defs": {"x": {"$id": "http://x/", "type": "string"}}}),
        json!({"$defs": {"x": {"$anchor": "x"}}, "$ref": "#x"}),
        json!({"$recursiveRef": "#", "$schema": "https://json-schema.org/draft/2019-09/schema"}),
    ] {
        assert!(
            refusal(&schema).contains("which makes where a $ref leads depend"),
            "{schema}: {}",
            refusal(&schema)
        );
    }
    // A `$ref` that may lead back into the schema (relative, or to this
    // document's URI), which the walk cannot follow.
    for reference in ["other.json#/x", "", "/#/$defs/a", "json-schema:///#"] {
        let schema = json!({"$ref": reference});
        assert!(refusal(&schema).contains("another document"), "{reference}");
    }
    let based = json!({"$id": "https://x.example/s.json", "properties": {"a": {"$ref": "https://x.example/s.json"}}});
    assert!(refusal(&based).contains("another document"));
    // One to a document the crate cannot read does not compile.
    assert!(
        refusal(&json!({"$ref": "https://example.invalid/s.json"})).contains("does not compile")
    );
}

#[test]
fn three_thousand_unicode_patterns_are_not_compiled() {
    // Compiling them took 4 s.
    let patterns: Map<String, Value> = (0..3000)
        .map(|i| (format!("^\\p{{L}}+{i}$"), json!({"type": "string"})))
        .collect();
    let schema = json!({"type": "object", "patternProperties": patterns});
    let why = refusal(&schema);
    assert_eq!(
        why,
        format!("is not checked: its patterns cost more than {MAX_PATTERN_COST} units to compile together")
    );
    // Eight of them are compiled and checked.
    let properties: Map<String, Value> = (0..8)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "pattern": format!("^\\p{{L}}+{i}$")}),
            )
        })
        .collect();
    let schema = json!({"type": "object", "properties": properties});
    let catalog = catalog(schema);
    let entry = catalog.exact("openclaw:core:t").unwrap();
    let validators = InputValidators::default();
    assert!(validators.check(entry, r#"{"p3":"Жx3"}"#).is_ok());
    assert!(validators.check(entry, r#"{"p3":"Ж 3"}"#).is_err());
}

#[test]
fn the_pattern_bounds_hold_at_n_and_fail_at_n_plus_one() {
    // `x[ab]{n}`: a literal, and a one-range class repeated n times, each
    // a unit, plus the concatenation's and the fixed part.
    let with = |n: u64| json!({"pattern": format!("x[ab]{{{n}}}")});
    let n = MAX_PATTERN_COST - 64 - 2;
    assert!(screen::screen(&with(n)).is_ok());
    assert!(matches!(
        screen::screen(&with(n + 1)),
        Err(Refusal::Patterns(_))
    ));
    // Text: a literal of the longest length, then one byte more.
    let text = |len: usize| json!({"pattern": "q".repeat(len)});
    assert!(screen::screen(&text(MAX_PATTERN_BYTES)).is_ok());
    assert!(matches!(
        screen::screen(&text(MAX_PATTERN_BYTES + 1)),
        Err(Refusal::Patterns(_))
    ));
}

#[test]
fn the_size_bounds_hold_at_n_and_fail_at_n_plus_one() {
    // `{"enum": [0, ...]}`: the object, its key, the array and its items.
    let values = |count: usize| json!({"enum": vec![0; count - 3]});
    assert!(screen::screen(&values(MAX_SCHEMA_VALUES)).is_ok());
    assert_eq!(
        screen::screen(&values(MAX_SCHEMA_VALUES + 1)),
        Err(Refusal::Large)
    );
    // `{"const": [[...]]}`: the object at depth 0, the innermost array at
    // depth `levels`.
    let deep = |levels: usize| {
        let mut value = json!([]);
        for _ in 1..levels {
            value = json!([value]);
        }
        json!({ "const": value })
    };
    assert!(screen::screen(&deep(MAX_SCHEMA_DEPTH)).is_ok());
    assert_eq!(
        screen::screen(&deep(MAX_SCHEMA_DEPTH + 1)),
        Err(Refusal::Deep)
    );
}

fn catalog(schema: Value) -> Catalog {
    Catalog::build(&[ToolSpec {
        parameters: Some(schema.into()),
        ..core("t")
    }])
}

fn catalog_without_schema() -> Catalog {
    Catalog::build(&[core("t")])
}

/// A schema whose check costs `per_value` units a value (nothing a byte)
/// and refuses any array: `type` and `required` names make its weight.
fn priced(per_value: u64) -> Value {
    let names: Vec<String> = (0..per_value - 3).map(|i| format!("n{i}")).collect();
    json!({"type": "object", "required": names})
}

/// An array of `values - 1` zeros: `values` JSON values.
fn zeros(values: u64) -> String {
    json!(vec![0; values as usize - 1]).to_string()
}

#[test]
fn the_check_budget_holds_at_n_and_fails_at_n_plus_one() {
    {
        let budget = MAX_CHECK_WORK;
        let per_value = 2048;
        let schema = priced(per_value);
        let patterns = screen::screen(&schema).unwrap();
        let bound = analysis::cost(&schema, &patterns).unwrap();
        assert_eq!(
            bound.valid,
            Work {
                per_value,
                per_byte: 0
            }
        );
        let catalog = catalog(schema);
        let entry = catalog.exact("openclaw:core:t").unwrap();
        let validators = InputValidators::default();
        validators.prepare(entry);
        let values = budget / per_value;
        assert!(validators.check(entry, &zeros(values)).is_err());
        assert!(validators.check(entry, &zeros(values + 1)).is_ok());
    }
}

#[test]
fn the_error_budget_holds_at_n_and_fails_at_n_plus_one() {
    {
        let budget = MAX_ERROR_WORK;
        // Finding an error costs twice a check (`is_valid`, then the
        // error), per value.
        let per_value = 256;
        let catalog = catalog(priced(per_value));
        let entry = catalog.exact("openclaw:core:t").unwrap();
        let validators = InputValidators::default();
        validators.prepare(entry);
        let values = budget / (2 * per_value);
        let located = validators.check(entry, &zeros(values)).unwrap_err();
        assert_eq!(
            invalid_input("t", &located, "H"),
            format!("Invalid input for t: input: expected object, got an array of {} items; and maybe more (the input is too large to list them all). H", values - 1)
        );
        let unlocated = validators.check(entry, &zeros(values + 1)).unwrap_err();
        assert_eq!(
            invalid_input("t", &unlocated, "H"),
            "Invalid input for t: input: does not match the schema (finding where would cost more than one check may). H"
        );
    }
}

#[test]
fn the_node_thread_checks_only_what_is_compiled_and_costs_at_most_host_check_work() {
    // Not compiled yet: never cheap (the Node thread compiles nothing).
    let plain = catalog(json!({"type": "object"}));
    let entry = plain.exact("openclaw:core:t").unwrap();
    let validators = InputValidators::default();
    assert!(!validators.cheap(entry, 2));
    validators.prepare(entry);
    assert!(validators.cheap(entry, 2));
    assert!(validators.cheap(entry, HOST_CHECK_BYTES));
    assert!(!validators.cheap(entry, HOST_CHECK_BYTES + 1));
    // A schema whose check of `n` bytes is bounded by HOST_CHECK_WORK at n
    // and not at n + 1 (finding the problems costs twice a check).
    let per_value = 64;
    let weighed = catalog(priced(per_value));
    let entry = weighed.exact("openclaw:core:t").unwrap();
    let validators = InputValidators::default();
    validators.prepare(entry);
    let bytes = (HOST_CHECK_WORK / (2 * per_value)) as usize;
    assert!(bytes < HOST_CHECK_BYTES);
    assert!(validators.cheap(entry, bytes));
    assert!(!validators.cheap(entry, bytes + 1));
    // No schema: nothing to check, always cheap.
    let bare = catalog_without_schema();
    let entry = bare.exact("openclaw:core:t").unwrap();
    assert!(InputValidators::default().cheap(entry, usize::MAX));
}

#[test]
fn a_refused_schema_is_reported_with_its_reason() {
    let schema = chain(
        30,
        |next| json!({"dependentSchemas": {"a": next.clone(), "b": next}}),
    );
    let catalog = Catalog::build(&[ToolSpec {
        parameters: Some(schema.into()),
        ..core("chained")
    }]);
    let entry = catalog.exact("openclaw:core:chained").unwrap();
    assert!(InputValidators::default()
        .check(entry, r#"{"a":1,"b":1}"#)
        .is_ok());
    assert!(schema_problems().iter().any(|p| p
        == "tool chained (openclaw:core:chained): its input schema is not checked: its alternatives multiply past what one check may cost; its inputs are not validated."));
}

#[test]
fn a_pattern_s_length_is_charged_a_unit_per_32_bytes_and_once_per_control_escape() {
    // `x[ab]{n}` (64 + 2 + n units) beside `y[abab…]` of 4096 bytes: one
    // range, so 64 + 4096 / 32 + 3 units, most of it its length.
    let long = format!("y[{}a]", "ab".repeat(2046));
    assert_eq!(long.len(), MAX_PATTERN_BYTES);
    let with = |n: u64| {
        json!({"properties": {
            "a": {"pattern": format!("x[ab]{{{n}}}")},
            "b": {"pattern": long},
        }})
    };
    let n = MAX_PATTERN_COST - (64 + 2) - (64 + 128 + 3);
    assert!(screen::screen(&with(n)).is_ok());
    assert!(matches!(
        screen::screen(&with(n + 1)),
        Err(Refusal::Patterns(_))
    ));
    // `\cX` makes the crate parse the pattern again: a pattern with one is
    // charged its length twice (4096 / 32 * 2, and 4 units of its tree),
    // and still compiles and checks.
    let twice = format!("z[{}ba]\\cA", "ab".repeat(2044));
    assert_eq!(twice.len(), MAX_PATTERN_BYTES);
    let with = |n: u64| {
        json!({"properties": {
            "a": {"pattern": format!("x[ab]{{{n}}}")},
            "b": {"pattern": twice},
        }})
    };
    let n = MAX_PATTERN_COST - (64 + 2) - (64 + 256 + 4);
    assert!(screen::screen(&with(n)).is_ok());
    assert!(matches!(
        screen::screen(&with(n + 1)),
        Err(Refusal::Patterns(_))
    ));
    let control = json!({"type": "string", "pattern": "^[ab]\\cA$"});
    assert!(screen::screen(&control).is_ok());
    let catalog = catalog(control);
    let entry = catalog.exact("openclaw:core:t").unwrap();
    let validators = InputValidators::default();
    assert!(validators.check(entry, "\"a\\u0001\"").is_ok());
    assert!(validators.check(entry, "\"ab\"").is_err());
}

#[test]
fn identifiers_that_make_refs_depend_on_the_path_are_refused() {
    let refused = |schema: Value| match screen::screen(&schema) {
        Err(Refusal::Identifiers(keyword)) => Some(keyword),
        Err(other) => panic!("{schema}: {}", other.reason()),
        Ok(_) => None,
    };
    let below = |draft: &str, key: &str, value: Value| json!({"$schema": draft, "properties": {"a": { key: value, "type": "string" }}});
    let draft4 = "http://json-schema.org/draft-04/schema#";
    let draft3 = "http://json-schema.org/draft-03/schema#";
    let draft7 = "http://json-schema.org/draft-07/schema#";
    // `id` is an identifier in drafts 3 and 4 only, and only below the root.
    assert_eq!(
        refused(below(draft4, "id", json!("x"))),
        Some("an id below the root")
    );
    assert_eq!(
        refused(below(draft3, "id", json!("x"))),
        Some("an id below the root")
    );
    assert_eq!(refused(below(draft7, "id", json!("x"))), None);
    assert_eq!(
        refused(json!({"$schema": draft4, "id": "http://x/", "type": "object"})),
        None
    );
    assert_eq!(
        refused(below(draft7, "$id", json!("x"))),
        Some("a $id below the root")
    );
    assert_eq!(refused(json!({"$id": "http://x/", "type": "object"})), None);
    for (key, value) in [
        ("$anchor", json!("a")),
        ("$dynamicAnchor", json!("a")),
        ("$recursiveAnchor", json!(true)),
        ("$dynamicRef", json!("#a")),
        ("$recursiveRef", json!("#")),
    ] {
        assert_eq!(refused(below(draft7, key, value)), Some(key), "{key}");
    }
    assert_eq!(
        refused(below(draft7, "$recursiveAnchor", json!(false))),
        None
    );
}

#[test]
fn matching_a_byte_costs_forty_units_per_automaton_state() {
    assert_eq!(screen::weight(0), 1);
    assert_eq!(screen::weight(10), 401);
    assert_eq!(screen::weight(usize::MAX), u64::MAX);
}
