//! How `mod.rs` reads what it checks: lone surrogates in the input's text,
//! OpenAPI's `nullable` in the schema and its depth bound, the inputs the
//! Node thread checks, the stack checking grows, and the validator's
//! options.

use serde_json::{json, Value};

use super::{nullable_as_null, well_formed, InputValidators};
use crate::catalog::testing::core;
use crate::catalog::{Catalog, ToolSpec};

fn catalog(schema: Value) -> Catalog {
    Catalog::build(&[ToolSpec {
        parameters: Some(schema.into()),
        ..core("t")
    }])
}

#[test]
fn lone_surrogate_escapes_become_replacement_characters_and_nothing_else_changes() {
    let cases = [
        // Lone high, lone low, and a high before something that is no low.
        (r#""ab\ud800""#, r#""ab\ufffd""#),
        (r#""ab\udc00cd""#, r#""ab\ufffdcd""#),
        (r#""ab\ud800\u0041""#, r#""ab\ufffd\u0041""#),
        (r#""ab\ud800\udbff""#, r#""ab\ufffd\ufffd""#),
        (r#""ab\ud800xudc00""#, r#""ab\ufffdxudc00""#),
        // A pair, an escaped backslash before `u`, other escapes, bad hex.
        (r#""ab\ud83d\ude00""#, r#""ab\ud83d\ude00""#),
        (r#""ab\\ud800""#, r#""ab\\ud800""#),
        (r#""ab\n\ud800""#, r#""ab\n\ufffd""#),
        (r#""ab\uZZZZ\ud800""#, r#""ab\uZZZZ\ufffd""#),
        (r#""abcdefgh\uZZ\ud800""#, r#""abcdefgh\uZZ\ufffd""#),
        // What follows a pair, an escape or a replaced unit is still read.
        (
            r#""abcdef\ud83d\ude00gh\ud800\udc01\udfff""#,
            r#""abcdef\ud83d\ude00gh\ud800\udc01\ufffd""#,
        ),
        (r#""ab\u0041cdefgh\ud800""#, r#""ab\u0041cdefgh\ufffd""#),
        (r#""ab\ud800cdefgh\udc00""#, r#""ab\ufffdcdefgh\ufffd""#),
        (r#""ab\"\ud800""#, r#""ab\"\ufffd""#),
        // Cut short: an escape with no room for its digits.
        (r#""ab\ud8"#, r#""ab\ud8"#),
        (r#""ab\"#, r#""ab\"#),
    ];
    for (input, expected) in cases {
        assert_eq!(well_formed(input), expected, "{input}");
    }
}

#[test]
fn nullable_adds_null_to_the_type_once() {
    let cases = [
        (
            json!({"type": "string", "nullable": true}),
            json!({"type": ["string", "null"], "nullable": true}),
        ),
        (
            json!({"type": "null", "nullable": true}),
            json!({"type": "null", "nullable": true}),
        ),
        (
            json!({"type": ["string", "integer"], "nullable": true}),
            json!({"type": ["string", "integer", "null"], "nullable": true}),
        ),
        (
            json!({"type": ["null", "string"], "nullable": true}),
            json!({"type": ["null", "string"], "nullable": true}),
        ),
        (
            json!({"type": "string", "nullable": false}),
            json!({"type": "string", "nullable": false}),
        ),
        (
            json!({"type": "string", "nullable": "yes"}),
            json!({"type": "string", "nullable": "yes"}),
        ),
        (json!({"nullable": true}), json!({"nullable": true})),
        (
            json!({"anyOf": [{"type": "string", "nullable": true}, [{"type": "number", "nullable": true}]]}),
            json!({"anyOf": [{"type": ["string", "null"], "nullable": true}, [{"type": ["number", "null"], "nullable": true}]]}),
        ),
    ];
    for (schema, expected) in cases {
        assert_eq!(nullable_as_null(&schema, 0), expected, "{schema}");
    }
}

#[test]
fn nullable_is_read_down_to_depth_255() {
    let leaf = json!({"type": "string", "nullable": true});
    let converted = json!({"type": ["string", "null"], "nullable": true});
    // `levels` objects, then arrays, above the leaf: it sits at depth
    // `levels`.
    let in_objects = |levels: usize| {
        let mut value = leaf.clone();
        for _ in 0..levels {
            value = json!({ "x": value });
        }
        value
    };
    let in_arrays = |levels: usize| {
        let mut value = leaf.clone();
        for _ in 0..levels {
            value = json!([value]);
        }
        value
    };
    let leaf_of = |mut value: &Value| {
        while let Some(next) = value.get("x").or_else(|| value.get(0)) {
            value = next;
        }
        value.clone()
    };
    for wrap in [&in_objects as &dyn Fn(usize) -> Value, &in_arrays] {
        assert_eq!(leaf_of(&nullable_as_null(&wrap(1), 0)), converted);
        assert_eq!(leaf_of(&nullable_as_null(&wrap(255), 0)), converted);
        assert_eq!(leaf_of(&nullable_as_null(&wrap(256), 0)), leaf);
        assert_eq!(leaf_of(&nullable_as_null(&wrap(300), 0)), leaf);
        // Deeper than the bound, the schema is kept as it was.
        assert_eq!(nullable_as_null(&wrap(300), 0), wrap(300));
    }
}

#[test]
fn a_large_input_is_checked_whole() {
    // The Node thread once checked a namespace call's mapped input only up
    // to 256 KiB; every input is now checked by the same rule.
    let catalog = catalog(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    let entry = catalog.exact("openclaw:core:t").unwrap();
    let validators = InputValidators::default();
    // `{"a":1,"pad":"…"}` is 16 bytes around the padding.
    let input = format!(r#"{{"a":1,"pad":"{}"}}"#, "x".repeat(1024 * 1024));
    assert!(validators.check(entry, &input).is_err());
}

/// Runs `f` on a thread whose stack is nearly used up: what it needs past
/// 32 KiB must come from the stacks `mod.rs` grows.
fn on_a_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(48 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn checking_a_deep_input_grows_the_stack_it_needs() {
    let catalog = catalog(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    let validators = std::sync::Arc::new(InputValidators::default());
    validators.prepare(catalog.exact("openclaw:core:t").unwrap());
    on_a_small_stack(move || {
        let entry = catalog.exact("openclaw:core:t").unwrap();
        // 3000 levels: more than a MiB of parser frames in any build.
        let deep = format!("{}1{}", "[".repeat(3000), "]".repeat(3000));
        let valid = format!(r#"{{"a":"s","deep":{deep}}}"#);
        let invalid = format!(r#"{{"a":1,"deep":{deep}}}"#);
        assert!(validators.check(entry, &valid).is_ok());
        let rejection = validators.check(entry, &invalid).unwrap_err();
        assert_eq!(rejection.problems[0].location, "input.a");
    });
}

#[test]
fn a_schema_twelve_properties_deep_compiles_and_names_the_deepest_place() {
    // Compiling grows its stack as the checking does (8 MiB past a 64 KiB
    // red zone); this is not forced here: the schema passes the screen
    // before the stack is grown, and at opt-level 0 (the mutants' build) its
    // frames alone fill a stack small enough to force it.
    let mut schema = json!({"type": "string"});
    for _ in 0..12 {
        schema = json!({"type": "object", "properties": {"x": schema}, "required": ["x"]});
    }
    let mut input = json!(1);
    for _ in 0..12 {
        input = json!({ "x": input });
    }
    let catalog = catalog(schema);
    let entry = catalog.exact("openclaw:core:t").unwrap();
    let rejection = InputValidators::default()
        .check(entry, &input.to_string())
        .unwrap_err();
    assert_eq!(
        rejection.problems[0].location,
        format!("input{}", ".x".repeat(12))
    );
    assert_eq!(rejection.problems[0].text, "expected string, got 1");
}

#[test]
fn formats_are_annotations_and_draft_7_schemas_too() {
    // A draft 7 schema asserts `format` by the crate's defaults; ours never.
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"mail": {"type": "string", "format": "email"}, "at": {"type": "string", "format": "date-time"}}
    });
    let catalog = catalog(schema);
    let entry = catalog.exact("openclaw:core:t").unwrap();
    let validators = InputValidators::default();
    assert!(validators
        .check(entry, r#"{"mail":"not a mail","at":"noon"}"#)
        .is_ok());
    assert!(validators.check(entry, r#"{"mail":1}"#).is_err());
    assert_eq!(format!("{validators:?}"), "InputValidators { .. }");
}
