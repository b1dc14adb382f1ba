//! Hostile schemas: every bound of the renderer holds, and nothing panics.

use serde_json::{json, Value};

use super::type_tests::render;
use crate::limits::{
    DECLARATION_LOST_PATHS as MAX_LOST_PATHS, DECLARATION_TYPE_BYTES as MAX_TYPE_BYTES,
};

#[test]
fn deep_schemas_stop_at_the_depth_bound() {
    let mut schema = json!({"type": "string"});
    for _ in 0..200 {
        schema = json!({"type": "object", "properties": {"a": schema}});
    }
    let r = render(&schema);
    assert!(!r.cut, "only the deep branch stops");
    assert!(r.ty.contains("a?: unknown;"));
    assert!(r.ty.len() < 4 * 1024, "{}", r.ty.len());
    assert_eq!(r.lost.len(), 1);
    assert!(
        r.lost[0].ends_with(".a: nested deeper than these types show"),
        "{:?}",
        r.lost
    );
}

#[test]
fn references_that_multiply_stop_at_the_node_bound() {
    // Each level refers to the next twice: 2^30 expansions unbounded.
    let mut defs = serde_json::Map::new();
    for n in 0..30 {
        defs.insert(
            format!("d{n}"),
            json!({"type": "object", "properties": {"l": {"$ref": format!("#/$defs/d{}", n + 1)}, "r": {"$ref": format!("#/$defs/d{}", n + 1)}}}),
        );
    }
    defs.insert("d30".into(), json!({"type": "string"}));
    let schema = json!({"$ref": "#/$defs/d0", "$defs": defs});
    // Bounded work: without the node bound this would not finish, and the
    // test must fail rather than hang. The minute is the test's timeout (a
    // hang guard), not a measurement: `npm run bench` has no figure for it,
    // it takes a few milliseconds.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = render(&schema);
        let _ = tx.send((r.cut, r.ty.len()));
    });
    let (cut, len) = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("rendering stopped at the node bound");
    assert!(cut);
    assert!(len <= MAX_TYPE_BYTES + 1024, "{len}");
}

#[test]
fn huge_keys_and_literals_are_bounded_by_the_byte_budget() {
    let key = "k".repeat(100_000);
    let r = render(
        &json!({"properties": {key.clone(): {"type": "string"}, "b": {"enum": ["x".repeat(100_000)]}}}),
    );
    assert!(r.cut);
    assert!(r.ty.len() <= MAX_TYPE_BYTES, "{}", r.ty.len());
    let many: serde_json::Map<String, Value> = (0..10_000)
        .map(|n| (format!("key{n}"), json!({"type": "string", "pattern": "x"})))
        .collect();
    let r = render(&json!({"properties": many}));
    assert!(r.cut);
    assert!(r.ty.len() <= MAX_TYPE_BYTES + 64, "{}", r.ty.len());
    assert_eq!(r.lost.len(), MAX_LOST_PATHS);
}

#[test]
fn lost_features_past_the_listed_ones_are_counted() {
    let many: serde_json::Map<String, Value> = (0..30)
        .map(|n| (format!("key{n}"), json!({"type": "string", "pattern": "x"})))
        .collect();
    let r = render(&json!({"properties": many}));
    assert!(!r.cut);
    assert_eq!(r.lost.len(), MAX_LOST_PATHS);
    assert_eq!(r.more_lost, 30 - MAX_LOST_PATHS);

    let r = render(&json!({"properties": {"v": {
        "type": "integer", "minimum": 1, "maximum": 9, "exclusiveMinimum": 0,
        "exclusiveMaximum": 10, "multipleOf": 1, "format": "int32", "not": {},
        "if": {}, "deprecated": true
    }}}));
    assert_eq!(
        r.lost,
        ["v: integer, format int32, minimum 1, maximum 9, exclusiveMinimum 0, exclusiveMaximum 10, multipleOf 1, not"]
    );
    assert_eq!(r.more_lost, 2, "if/then/else and deprecated are counted");
}

/// Random schemas from the renderer's own vocabulary: none panics, every
/// output stays inside the byte budget.
#[test]
fn random_schemas_never_panic_and_stay_bounded() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    fn schema(next: &mut dyn FnMut(u64) -> u64, depth: u32) -> Value {
        if depth == 0 {
            return [
                json!({"type": "string"}),
                json!(true),
                json!({"$ref": "#"}),
                json!(1),
            ][next(4) as usize]
                .clone();
        }
        let mut map = serde_json::Map::new();
        for _ in 0..next(4) {
            let sub = schema(next, depth - 1);
            let (key, value) = match next(14) {
                0 => (
                    "type",
                    json!(["string", "object", "array", "integer", "null", "x"][next(6) as usize]),
                ),
                1 => (
                    "properties",
                    json!({"a": sub, "b c": schema(next, depth - 1)}),
                ),
                2 => ("items", sub),
                3 => ("prefixItems", json!([sub])),
                4 => ("anyOf", json!([sub, schema(next, depth - 1)])),
                5 => ("oneOf", json!([sub])),
                6 => ("allOf", json!([sub, {"$ref": "#/properties/a"}])),
                7 => (
                    "$ref",
                    json!(
                        ["#", "#/properties/a", "#/$defs/x", "http://x", "#/items"]
                            [next(5) as usize]
                    ),
                ),
                8 => ("enum", json!(["a", 1, null, {"o": 1}])),
                9 => ("required", json!(["a", "z"])),
                10 => ("additionalProperties", sub),
                11 => ("$defs", json!({"x": sub})),
                12 => ("nullable", json!(true)),
                _ => ("pattern", json!("*/")),
            };
            map.insert(key.to_owned(), value);
        }
        Value::Object(map)
    }
    for _ in 0..3000 {
        let root = schema(&mut next, 5);
        let r = render(&root);
        assert!(r.ty.len() <= MAX_TYPE_BYTES + 1024, "{root}");
        assert!(!r.ty.is_empty());
    }
}
