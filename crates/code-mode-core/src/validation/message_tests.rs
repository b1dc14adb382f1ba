//! Each keyword's problem text, how a given value is shown, and how the
//! listed problems are counted: every wording of `message.rs` pinned, so a
//! change to one is a test that fails (the mutants of `docs/mutants.md`).

use serde_json::{json, Value};

use super::message::{edit_distance, near_miss};
use super::{invalid_input, InputValidators, Problem, Rejection};
use crate::catalog::testing::core;
use crate::catalog::{Catalog, ToolSpec};

fn rejection(schema: Value, input: &str) -> Rejection {
    let catalog = Catalog::build(&[ToolSpec {
        parameters: Some(schema.into()),
        ..core("t")
    }]);
    let entry = catalog.exact("openclaw:core:t").unwrap();
    InputValidators::default().check(entry, input).unwrap_err()
}

/// The problems of `input` under `{"type": "object", "properties": {"v": v}}`.
fn problems_of(v: Value, input: Value) -> Vec<String> {
    let schema = json!({"type": "object", "properties": {"v": v}});
    rejection(schema, &json!({ "v": input }).to_string())
        .problems
        .into_iter()
        .map(|Problem { location, text }| format!("{location}: {text}"))
        .collect()
}

#[test]
fn each_keyword_says_what_it_expected_and_what_it_got() {
    let cases = [
        (json!({"type": "string"}), json!(1), "expected string, got 1"),
        (
            json!({"type": ["string", "null"]}),
            json!(true),
            "expected null or string, got true",
        ),
        (json!({"const": "a"}), json!("b"), "expected \"a\", got \"b\""),
        (json!({"minimum": 2}), json!(1), "expected at least 2, got 1"),
        (json!({"maximum": 2}), json!(3), "expected at most 2, got 3"),
        (
            json!({"exclusiveMinimum": 2}),
            json!(2),
            "expected more than 2, got 2",
        ),
        (
            json!({"exclusiveMaximum": 2}),
            json!(2),
            "expected less than 2, got 2",
        ),
        (
            json!({"multipleOf": 0.5}),
            json!(0.3),
            "expected a multiple of 0.5, got 0.3",
        ),
        (
            json!({"minLength": 2}),
            json!("a"),
            "expected at least 2 characters, got \"a\"",
        ),
        (
            json!({"maxLength": 1}),
            json!("ab"),
            "expected at most 1 characters, got \"ab\"",
        ),
        (
            json!({"minItems": 2}),
            json!([1]),
            "expected at least 2 items, got an array of 1 item",
        ),
        (
            json!({"maxItems": 1}),
            json!([1, 2]),
            "expected at most 1 items, got an array of 2 items",
        ),
        (
            json!({"minProperties": 2}),
            json!({"a": 1}),
            "expected at least 2 properties, got an object with 1 key",
        ),
        (
            json!({"maxProperties": 1}),
            json!({"a": 1, "b": 2}),
            "expected at most 1 properties, got an object with 2 keys",
        ),
        (
            json!({"pattern": "^a"}),
            json!("b"),
            "expected a string matching /^a/, got \"b\"",
        ),
        (
            json!({"uniqueItems": true}),
            json!([1, 1]),
            "expected items that are all different",
        ),
        (
            json!({"oneOf": [{"type": "string"}, {"type": "boolean"}]}),
            json!(1),
            "expected a value matching exactly one of the oneOf alternatives, got 1 (it matches none)",
        ),
        (json!(false), json!({}), "no value is allowed here, got an empty object"),
        (
            json!({"not": {"type": "array"}}),
            json!([]),
            "expected a value that does not match the \"not\" schema, got an empty array",
        ),
        (
            json!({"contains": {"type": "string"}}),
            json!([1]),
            "expected an array with at least one matching item",
        ),
        (
            json!({"enum": [1, 2]}),
            json!(3),
            "expected one of 1, 2, got 3",
        ),
    ];
    for (v, given, text) in cases {
        assert_eq!(
            problems_of(v.clone(), given),
            vec![format!("input.v: {text}")],
            "{v}"
        );
    }
}

#[test]
fn a_given_value_is_shown_short() {
    let shown = |given: Value| {
        let problems = problems_of(json!({"type": "boolean"}), given);
        problems[0]
            .strip_prefix("input.v: expected boolean, got ")
            .unwrap()
            .to_owned()
    };
    assert_eq!(shown(json!({})), "an empty object");
    assert_eq!(shown(json!({"a": 1})), "an object with 1 key");
    assert_eq!(shown(json!({"a": 1, "b": 2})), "an object with 2 keys");
    assert_eq!(shown(json!([])), "an empty array");
    assert_eq!(shown(json!([1])), "an array of 1 item");
    assert_eq!(shown(json!([1, 2])), "an array of 2 items");
    assert_eq!(shown(json!(null)), "null");
    assert_eq!(shown(json!(-1.5)), "-1.5");
    assert_eq!(shown(json!("é\"")), "\"é\\\"\"");
    // Strings and numbers are clipped at 60 bytes.
    let long = shown(json!("x".repeat(100)));
    assert!(long.starts_with("\"xxxx") && long.len() < 70, "{long}");
    assert_ne!(long, format!("\"{}\"", "x".repeat(100)));
}

#[test]
fn an_enum_lists_its_first_eight_options() {
    let options: Vec<u32> = (1..=10).collect();
    assert_eq!(
        problems_of(json!({"enum": options}), json!(0)),
        vec!["input.v: expected one of 1, 2, 3, 4, 5, 6, 7, 8, ... (10 in all), got 0"]
    );
    let eight: Vec<u32> = (1..=8).collect();
    assert_eq!(
        problems_of(json!({"enum": eight}), json!(0)),
        vec!["input.v: expected one of 1, 2, 3, 4, 5, 6, 7, 8, got 0"]
    );
}

#[test]
fn unknown_keys_past_the_listed_ones_are_counted_one_each() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}},
        "additionalProperties": false
    });
    // Three problems listed first, then four unknown keys counted.
    let full = rejection(
        schema.clone(),
        r#"{"a":1,"b":2,"c":3,"w":0,"x":0,"y":0,"z":0}"#,
    );
    assert_eq!(full.problems.len(), 3);
    assert_eq!(full.more, 4);
    // One problem listed: two unknown keys described, two counted.
    let one = rejection(schema, r#"{"a":1,"w":0,"x":0,"y":0,"z":0}"#);
    let listed: Vec<&str> = one.problems.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert_eq!(one.more, 2, "{listed:?}");
}

#[test]
fn a_long_location_is_cut_to_a_third_of_the_problem_bytes() {
    let key = "k".repeat(400);
    let schema = json!({"type": "object", "properties": {key.clone(): {"type": "string"}}});
    let rejection = rejection(schema, &json!({ key: 1 }).to_string());
    let text = invalid_input("t", &rejection, "HINT");
    let problem = text
        .strip_prefix("Invalid input for t: ")
        .unwrap()
        .strip_suffix(". HINT")
        .unwrap();
    let (location, rest) = problem.split_once(": ").unwrap();
    // `MAX_PROBLEM_BYTES / 3` = 100 bytes, then the ellipsis.
    assert_eq!(location, format!("input.{}…", "k".repeat(94)));
    assert_eq!(rest, "expected string, got 1");
}

#[test]
fn near_misses_allow_a_third_of_the_length_in_edits() {
    let near =
        |name: &str, candidates: &[&'static str]| near_miss(name, candidates.iter().copied());
    assert_eq!(near("titel", &["title", "other"]), Some("title"));
    assert_eq!(near("file_path", &["filePath"]), Some("filePath"));
    assert_eq!(near("FILE-PATH", &["file path"]), Some("file path"));
    // The closest wins; at a tie, the shorter.
    assert_eq!(
        near("abcdef", &["abcxyz", "abcdex", "abcdefx"]),
        Some("abcdex")
    );
    assert_eq!(near("abcdef", &["abcdefgh", "abcdefg"]), Some("abcdefg"));
    // Six characters allow two edits; three do not fit.
    assert_eq!(near("abcdef", &["abcxyf"]), Some("abcxyf"));
    assert_eq!(near("abcdef", &["axyzef"]), None);
    // Short names allow one edit; never the name itself.
    assert_eq!(near("ab", &["ab", "ax"]), Some("ax"));
    assert_eq!(near("ab", &["xy"]), None);
    assert_eq!(near("", &["a"]), None);
    assert_eq!(near(&"a".repeat(65), &["a"]), None);
    assert_eq!(edit_distance(&['a', 'b'], &['b', 'a']), 1);
    assert_eq!(edit_distance(&['a', 'b', 'c'], &[]), 3);
    assert_eq!(edit_distance(&[], &['x', 'y']), 2);
    assert_eq!(edit_distance(&['k', 'i', 't'], &['s', 'i', 't', 's']), 2);
}

/// The problems' texts of `input` under `schema`, joined.
fn texts(schema: Value, input: Value) -> String {
    let rejection = rejection(schema, &input.to_string());
    let texts: Vec<String> = rejection.problems.into_iter().map(|p| p.text).collect();
    texts.join(" | ")
}

#[test]
fn suggestions_follow_the_schema_path_through_refs_and_arrays_and_64_hops() {
    let strict = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": false
    });
    let hinted = r#"unknown property "nmae" (did you mean "name"?)"#;
    // Through a local `$ref` (`#/$defs/item`): the crate reports the
    // keyword where the reference leads, `/$defs/item/additionalProperties`.
    let via_ref = json!({
        "$defs": {"item": strict},
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/item"}}
    });
    assert_eq!(texts(via_ref, json!({"x": {"nmae": "a"}})), hinted);
    // Through an array of subschemas (`allOf/0`).
    assert_eq!(
        texts(json!({"allOf": [strict]}), json!({"nmae": "a"})),
        hinted
    );
    // 32 levels of `properties/a`, then `items`: 65 segments above the
    // keyword, the last one at hop 64, still followed.
    let mut schema = json!({"type": "array", "items": strict});
    let mut input = json!([{"nmae": "a"}]);
    for _ in 0..32 {
        schema = json!({"type": "object", "properties": {"a": schema}});
        input = json!({ "a": input });
    }
    assert_eq!(texts(schema.clone(), input.clone()), hinted);
    // One level more: past 64 hops the schema is not followed, and the
    // unknown key is named without a guess.
    let deeper = json!({"type": "object", "properties": {"a": schema}});
    assert_eq!(
        texts(deeper, json!({ "a": input })),
        r#"unknown property "nmae""#
    );
}

#[test]
fn near_misses_are_looked_for_up_to_64_characters_and_256_comparisons() {
    let near = |name: &str, candidates: &[String]| {
        near_miss(name, candidates.iter().map(String::as_str)).map(str::to_owned)
    };
    // A name of 64 characters is matched; one of 65 is not looked at.
    let at_64 = "a".repeat(64);
    let one_off_64 = format!("{}b", "a".repeat(63));
    assert_eq!(
        near(&at_64, std::slice::from_ref(&one_off_64)),
        Some(one_off_64)
    );
    let at_65 = "a".repeat(65);
    assert_eq!(near(&at_65, &[format!("{}b", "a".repeat(64))]), None);
    // Candidates whose length is too far off are skipped without counting
    // against the comparisons: 300 of them, then the near one.
    let mut far: Vec<String> = (0..300)
        .map(|i| format!("unrelated_{i:03}_xxxxxxxx"))
        .collect();
    far.push("titel".to_owned());
    assert_eq!(near("title", &far), Some("titel".to_owned()));
    // Candidates of a near length count: after 256 of them, a near miss
    // is not looked for any more.
    let mut compared: Vec<String> = (0..256).map(|i| format!("q{:04}", i)).collect();
    compared.push("titel".to_owned());
    assert_eq!(near("title", &compared), None);
    compared.remove(0);
    assert_eq!(near("title", &compared), Some("titel".to_owned()));
}

#[test]
fn the_edit_distance_counts_deletions_from_the_name() {
    assert_eq!(edit_distance(&['a', 'b', 'c'], &['a', 'b']), 1);
    assert_eq!(edit_distance(&['x', 'a', 'b'], &['a', 'b']), 1);
    assert_eq!(edit_distance(&['x', 'y', 'a', 'b'], &['a', 'b']), 2);
}
