//! Input validation: what a rejection says, and what the validator never does.

use serde_json::{json, Value};

use super::{invalid_input, InputValidators, Rejection};
use crate::catalog::testing::core;
use crate::catalog::{Catalog, ToolSpec};

fn catalog(schema: Value) -> Catalog {
    Catalog::build(&[ToolSpec {
        parameters: Some(schema.into()),
        ..core("read_file")
    }])
}

fn check(schema: Value, input: Value) -> Result<(), Rejection> {
    let catalog = catalog(schema);
    let entry = catalog.exact("openclaw:core:read_file").unwrap();
    InputValidators::default().check(entry, &input.to_string())
}

fn message(schema: Value, input: Value) -> String {
    let rejection = check(schema, input).unwrap_err();
    invalid_input("tools.read_file", &rejection, "HINT")
}

fn file_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "mode": {"enum": ["text", "binary"]},
            "lines": {"type": "array", "items": {"type": "object", "properties": {"from": {"type": "integer", "minimum": 1}}, "required": ["from"]}}
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

#[test]
fn a_valid_input_passes_and_a_schemaless_tool_is_not_checked() {
    assert!(check(file_schema(), json!({"path": "a", "lines": [{"from": 2}]})).is_ok());
    let catalog = Catalog::build(&[core("free")]);
    let entry = catalog.exact("openclaw:core:free").unwrap();
    assert!(InputValidators::default().check(entry, "[1,2]").is_ok());
}

#[test]
fn each_problem_names_its_place_what_was_expected_and_what_was_given() {
    assert_eq!(
        message(file_schema(), json!({"path": 42})),
        "Invalid input for tools.read_file: input.path: expected string, got 42. HINT"
    );
    assert_eq!(
        message(
            file_schema(),
            json!({"path": "a", "lines": [{"from": 1}, {"from": 1}, {"from": 0}]})
        ),
        "Invalid input for tools.read_file: input.lines[2].from: expected at least 1, got 0. HINT"
    );
    assert_eq!(
        message(file_schema(), json!({"path": "a", "mode": "txt"})),
        "Invalid input for tools.read_file: input.mode: expected one of \"text\", \"binary\", got \"txt\" (did you mean \"text\"?). HINT"
    );
}

#[test]
fn near_misses_of_keys_are_named() {
    assert_eq!(
        message(file_schema(), json!({"pth": "a"})),
        "Invalid input for tools.read_file: input: unknown property \"pth\" (did you mean \"path\"?); input: missing required property \"path\" (the input has \"pth\": did you mean \"path\"?). HINT"
    );
    let text = message(file_schema(), json!({"path": "a", "Mode": "text"}));
    assert!(
        text.contains("unknown property \"Mode\" (did you mean \"mode\"?)"),
        "{text}"
    );
    let text = message(file_schema(), json!({"path": "a", "zzz": 1}));
    assert!(text.contains("unknown property \"zzz\". HINT"), "{text}");
}

#[test]
fn three_problems_are_listed_then_counted() {
    let text = message(
        file_schema(),
        json!({"path": 1, "mode": 2, "lines": [{}, {}, {}], "x": 1}),
    );
    assert!(text.ends_with("; and 3 more. HINT"), "{text}");
    assert_eq!(text.matches("; ").count(), 3, "{text}");
}

#[test]
fn alternatives_and_nested_arrays() {
    let schema = json!({"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "number"}]}, "w": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}});
    let text = message(schema.clone(), json!({"v": true}));
    assert!(
        text.contains(
            "input.v: expected a value matching at least one of the anyOf alternatives, got true"
        ),
        "{text}"
    );
    let text = message(schema, json!({"w": 3}));
    assert!(text.contains("input.w: expected a value matching exactly one of the oneOf alternatives, got 3 (it matches several)"), "{text}");
}

#[test]
fn a_remote_ref_is_never_followed_and_turns_validation_off() {
    // Were it fetched, the server's schema could refuse the input; offline,
    // the schema does not compile, so the tool goes unchecked and the
    // problem is recorded.
    let schema = json!({"$ref": "https://example.invalid/schema.json"});
    assert!(check(schema.clone(), json!({"anything": 1})).is_ok());
    let file = json!({"$ref": "file:///etc/passwd"});
    assert!(check(file, json!(1)).is_ok());
    let problems = super::schema_problems();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("read_file") && p.contains("does not compile")),
        "{problems:?}"
    );
}

#[test]
fn a_pattern_is_matched_in_linear_time() {
    // A backtracking engine takes exponential time on this pair (2^5000
    // steps: the test would never end).
    let schema =
        json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}});
    let input = json!({"s": format!("{}!", "a".repeat(5_000))});
    assert!(check(schema, input).is_err());
}

#[test]
fn a_large_input_reports_its_first_problem_only() {
    let schema = json!({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}});
    let items: Vec<u32> = (0..40_000).collect();
    let text = message(schema, json!({ "items": items }));
    assert!(text.contains("input.items[0]: expected string, got 0; and maybe more (the input is too large to list them all)"), "{text}");
}

#[test]
fn inputs_deeper_than_serde_s_default_are_checked() {
    let mut deep = json!(1);
    for _ in 0..999 {
        deep = json!([deep]);
    }
    let text = message(file_schema(), json!({"path": 42, "ranges": deep}));
    assert!(
        text.contains("input.path: expected string, got 42"),
        "{text}"
    );
}

#[test]
fn a_lone_surrogate_does_not_skip_the_check() {
    let catalog = catalog(file_schema());
    let entry = catalog.exact("openclaw:core:read_file").unwrap();
    let input = r#"{"path":42,"mode":"\ud800x\udc00"}"#;
    let rejection = InputValidators::default().check(entry, input).unwrap_err();
    assert_eq!(rejection.problems[0].location, "input.path");
    assert!(InputValidators::default()
        .check(entry, r#"{"path":"\ud83d\ude00"}"#)
        .is_ok());
}

#[test]
fn openapi_nullable_allows_null() {
    let schema =
        json!({"type": "object", "properties": {"a": {"type": "string", "nullable": true}}});
    assert!(check(schema.clone(), json!({"a": null})).is_ok());
    assert!(check(schema, json!({"a": 1})).is_err());
}

#[test]
fn schemas_whose_cost_the_input_could_choose_are_not_checked() {
    // Two branches that both recurse: 2^depth evaluations for a deep input.
    let node = json!({"$ref": "#/$defs/n"});
    let recursive = json!({"$defs": {"n": {"oneOf": [{"type": "array", "items": node}, {"type": "array", "items": node, "maxItems": 5}]}}, "type": "object", "properties": {"t": node}});
    let mut deep = json!([]);
    for _ in 0..40 {
        deep = json!([deep]);
    }
    assert!(check(recursive, json!({"t": deep, "x": 1})).is_ok());
    // Alternatives nested 30 deep without recursion: as costly.
    let mut defs = serde_json::Map::new();
    for n in 0..30 {
        let next = json!({"$ref": format!("#/$defs/d{}", n + 1)});
        defs.insert(format!("d{n}"), json!({"oneOf": [{"type": "array", "items": next}, {"type": "array", "items": next, "maxItems": 9}]}));
    }
    defs.insert("d30".into(), json!({"type": "array"}));
    let chained =
        json!({"$defs": defs, "type": "object", "properties": {"t": {"$ref": "#/$defs/d0"}}});
    assert!(check(chained, json!({"t": 1})).is_ok());
    assert!(super::schema_problems()
        .iter()
        .any(|p| p.contains("recursive")));
    assert!(super::schema_problems()
        .iter()
        .any(|p| p.contains("multiply")));
    // A plain recursion-free schema with alternatives is still checked.
    let plain = json!({"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "number"}]}}});
    assert!(check(plain, json!({"v": true})).is_err());
}

#[test]
fn every_problem_is_listed_up_to_the_listed_input_bytes_and_only_the_first_past_them() {
    use crate::limits::MAX_LISTED_INPUT_BYTES;
    assert_eq!(MAX_LISTED_INPUT_BYTES, 8 * 1024);
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "pad": {"type": "string"}}
    });
    let catalog = catalog(schema);
    let entry = catalog.exact("openclaw:core:read_file").unwrap();
    let validators = InputValidators::default();
    // `{"a":1,"b":2,"pad":"…"}` is 22 bytes around the padding: two problems.
    let input = |bytes: usize| format!(r#"{{"a":1,"b":2,"pad":"{}"}}"#, "x".repeat(bytes - 22));
    let listed = |input: &str| {
        let rejection = validators.check(entry, input).unwrap_err();
        (rejection.problems.len() + rejection.more, rejection.partial)
    };
    assert_eq!(input(MAX_LISTED_INPUT_BYTES).len(), MAX_LISTED_INPUT_BYTES);
    assert_eq!(listed(&input(MAX_LISTED_INPUT_BYTES)), (2, false));
    assert_eq!(listed(&input(MAX_LISTED_INPUT_BYTES + 1)), (1, true));
}
