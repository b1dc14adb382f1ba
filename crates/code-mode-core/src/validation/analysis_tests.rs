//! The analysis's arithmetic, pinned: what each keyword weighs, how the walk
//! of `unevaluated*` multiplies, where its depth bound falls on every path,
//! and how `$ref`s resolve (the mutants of `docs/mutants.md`).

use serde_json::{json, Value};

use super::analysis::{cost, Bound, Refusal, Work};
use super::screen::Patterns;

fn work(per_value: u64, per_byte: u64) -> Work {
    Work {
        per_value,
        per_byte,
    }
}

fn bound(schema: Value, patterns: &[(&str, u64)]) -> Result<Bound, Refusal> {
    let patterns: Patterns = patterns
        .iter()
        .map(|(pattern, weight)| ((*pattern).to_owned(), *weight))
        .collect();
    cost(&schema, &patterns)
}

/// `(valid, errors)` of a schema without children: its own weight, and
/// twice that to find errors.
fn own(per_value: u64, per_byte: u64) -> Result<Bound, Refusal> {
    Ok(Bound {
        valid: work(per_value, per_byte),
        errors: work(2 * per_value, 2 * per_byte),
    })
}

#[test]
fn each_keyword_weighs_what_the_docs_say() {
    // Per value: one to enter, one per keyword; `enum`/`const` their size
    // (each JSON value and key one, strings one more per 64 bytes), and a
    // byte of the input one unit for each.
    let key = "k".repeat(64);
    let enumerated = json!({"enum": ["x".repeat(128), { key: 1 }]});
    // The array 1, the string 1 + 2, the object 1, its key 1 + 1, the 1 1.
    assert_eq!(bound(enumerated, &[]), own(2 + 8, 1));
    assert_eq!(bound(json!({"const": "y".repeat(63)}), &[]), own(2 + 1, 1));
    // Names looked up: `required`, `dependentRequired`, draft 7 lists.
    let names = json!({"required": ["a", "b"], "dependentRequired": {"a": ["b", "c"]}, "dependencies": {"x": ["y"]}});
    assert_eq!(bound(names, &[]), own(1 + 3 + 2 + 2 + 1, 0));
    // Per byte: lengths, `uniqueItems` 2, content 4 each.
    let bytes = json!({"minLength": 1, "maxLength": 2, "uniqueItems": true, "contentEncoding": "base64", "contentMediaType": "text/plain"});
    assert_eq!(bound(bytes, &[]), own(1 + 5, 1 + 1 + 2 + 4 + 4));
    // A pattern its weight; one the screen did not see, MAX_SCHEMA_WORK + 1.
    assert_eq!(bound(json!({"pattern": "p"}), &[("p", 7)]), own(2, 7));
    assert_eq!(bound(json!({"pattern": "p"}), &[]), own(2, 10_001));
    // Every key against every pattern, plus one; each value through each.
    let pattern_properties = json!({"patternProperties": {"p": {}, "q": {}}});
    assert_eq!(
        bound(pattern_properties, &[("p", 7), ("q", 5)]),
        Ok(Bound {
            valid: work(2 + 2, 13),
            errors: work(4 + 2 + 4, 26),
        })
    );
}

#[test]
fn an_unevaluated_keyword_walks_again_once_per_condition_part() {
    // Own (5, 1); `if`, `then`, `else` each `{}` (1 to enter; twice to find
    // errors); the child `false` 1. Two parts: the walk (same-value marks 6,
    // the child 1, own 5 and 1) three times over.
    let conditions = json!({"if": {}, "then": {}, "else": {}, "unevaluatedProperties": false});
    assert_eq!(
        bound(conditions, &[]),
        Ok(Bound {
            valid: work(9 + 36, 1 + 3),
            errors: work(17 + 36, 2 + 3),
        })
    );
    // Two `dependentSchemas` entries are two parts as well.
    let dependent = json!({"dependentSchemas": {"a": {}, "b": {}}, "unevaluatedProperties": false});
    assert_eq!(
        bound(dependent, &[]),
        Ok(Bound {
            valid: work(6 + 24, 2 + 6),
            errors: work(12 + 24, 4 + 6),
        })
    );
    // Without an unevaluated keyword, no walk.
    let plain = json!({"if": {}, "then": {}, "else": {}});
    assert_eq!(
        bound(plain, &[]),
        Ok(Bound {
            valid: work(4 + 3, 0),
            errors: work(8 + 5, 0),
        })
    );
}

/// `levels` definitions, the first `wrapped` of them `wrap` around a `$ref`
/// to the next and the others that `$ref` alone, the last `{}`; the root
/// refers to the first.
fn chain(levels: usize, wrapped: usize, wrap: &dyn Fn(Value) -> Value) -> Value {
    let mut defs = serde_json::Map::new();
    defs.insert(format!("d{levels}"), json!({}));
    for level in (0..levels).rev() {
        let next = json!({ "$ref": format!("#/$defs/d{}", level + 1) });
        let def = if level < wrapped { wrap(next) } else { next };
        defs.insert(format!("d{level}"), def);
    }
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

#[test]
fn the_walk_follows_256_levels_on_every_path_and_refuses_257() {
    // `$ref`s alone: the last definition at depth levels + 1.
    assert!(bound(chain(255, 0, &|next| next), &[]).is_ok());
    assert_eq!(bound(chain(256, 0, &|next| next), &[]), Err(Refusal::Deep));
    // Ten levels through a keyword and a `$ref` (two each), the others
    // through a `$ref`: the last at depth levels + 11.
    let wraps: [(&str, &dyn Fn(Value) -> Value); 8] = [
        ("allOf", &|next| json!({ "allOf": [next] })),
        (
            "additionalProperties",
            &|next| json!({ "additionalProperties": next }),
        ),
        ("properties", &|next| json!({ "properties": { "a": next } })),
        (
            "patternProperties",
            &|next| json!({ "patternProperties": { "p": next } }),
        ),
        ("prefixItems", &|next| json!({ "prefixItems": [next] })),
        ("items", &|next| json!({ "items": next })),
        ("contains", &|next| json!({ "contains": next })),
        ("propertyNames", &|next| json!({ "propertyNames": next })),
    ];
    for (keyword, wrap) in wraps {
        let at = bound(chain(245, 10, wrap), &[("p", 1)]);
        assert!(at.is_ok(), "{keyword}: {at:?}");
        assert_eq!(
            bound(chain(246, 10, wrap), &[("p", 1)]),
            Err(Refusal::Deep),
            "{keyword}"
        );
    }
}

#[test]
fn refs_resolve_as_the_crate_resolves_them() {
    let to = |reference: &str| {
        bound(
            json!({"$defs": {"x y-é": {}, "ab": {}}, "$ref": reference}),
            &[],
        )
        .map(|_| ())
    };
    // Fragments are percent-decoded, then read as JSON pointers.
    assert_eq!(to("#/$defs/x%20y-%C3%A9"), Ok(()));
    assert_eq!(to("#/$defs/a%62"), Ok(()));
    assert_eq!(to("#/$defs/ab"), Ok(()));
    assert_eq!(to("#"), Err(Refusal::Recursive));
    for unknown in [
        "#/$defs/x y",
        "#/$defs/a%6",
        "#/$defs/a%zz",
        "#/$defs/a%ff",
        "#/$defs/%",
    ] {
        assert_eq!(to(unknown), Err(Refusal::Reference), "{unknown}");
    }
    // An absolute URI of another document is the crate's to refuse; a
    // relative one, or a scheme that is not one, may lead back here.
    assert_eq!(to("https://example.com/s.json"), Ok(()));
    assert_eq!(to("urn:x-1.a+b:s"), Ok(()));
    assert_eq!(to("1x:s"), Err(Refusal::Reference));
    assert_eq!(to("x_y:s"), Err(Refusal::Reference));
    assert_eq!(to("other.json"), Err(Refusal::Reference));
    assert_eq!(
        to("http://json-schema.org/draft-07/schema#"),
        Err(Refusal::Reference)
    );
}
