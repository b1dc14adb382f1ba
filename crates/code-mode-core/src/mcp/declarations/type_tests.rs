//! The renderer, feature by feature: schema in, TypeScript out. Real server
//! files are fixtures (`tests/mcp_declarations.rs`).

use serde_json::{json, Value};

use super::writer::Writer;

pub(super) struct Rendered {
    pub ty: String,
    pub required: bool,
    pub lost: Vec<String>,
    pub params: Vec<String>,
    pub cut: bool,
    pub more_lost: usize,
}

pub(super) fn render(schema: &Value) -> Rendered {
    let mut writer = Writer::new(schema);
    let ty = writer.input(0);
    Rendered {
        ty: ty.text,
        required: writer.input_required,
        lost: writer
            .lost
            .iter()
            .map(|l| format!("{}: {}", l.path, l.what.join(", ")))
            .collect(),
        params: writer
            .params
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect(),
        cut: writer.cut,
        more_lost: writer.more_lost,
    }
}

/// The type of one property `v` of an otherwise plain root.
fn prop(schema: Value) -> (String, Vec<String>) {
    let r = render(&json!({"type": "object", "properties": {"v": schema}, "required": ["v"]}));
    let ty =
        r.ty.strip_prefix("{\n  v: ")
            .and_then(|t| t.strip_suffix(";\n}"))
            .unwrap_or(&r.ty)
            .to_owned();
    (ty, r.lost)
}

#[test]
fn required_keys_come_first_and_optional_keys_get_a_question_mark() {
    let r = render(&json!({
        "type": "object",
        "properties": {"body": {"type": "string"}, "owner": {"type": "string"}, "title": {"type": "string"}},
        "required": ["title", "owner", "title", 7]
    }));
    assert_eq!(
        r.ty,
        "{\n  owner: string;\n  title: string;\n  body?: string;\n}"
    );
    assert!(r.required);
    let r = render(&json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    assert_eq!(r.ty, "{\n  a?: string;\n}");
    assert!(!r.required, "no required key: the argument may be left out");
}

#[test]
fn a_required_key_missing_from_properties_is_unknown() {
    let r = render(&json!({"type": "object", "required": ["id"]}));
    assert_eq!(r.ty, "{\n  id: unknown;\n}");
}

#[test]
fn root_descriptions_and_defaults_become_param_lines() {
    let r = render(&json!({
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": "What to look for"},
            "limit": {"type": "number", "description": "At most this many.", "default": 10},
            "sort": {"enum": ["asc", "desc"], "default": "asc"},
            "bare": {"type": "boolean"}
        },
        "required": ["q", "limit"]
    }));
    assert_eq!(
        r.params,
        [
            "q What to look for",
            "limit At most this many. Default: 10",
            "sort Default: \"asc\""
        ]
    );
    // The call fills in a default, so a required key with one is optional.
    assert_eq!(
        r.ty,
        "{\n  q: string;\n  limit?: number;\n  sort?: \"asc\" | \"desc\";\n  bare?: boolean;\n}"
    );
}

#[test]
fn nested_properties_carry_their_description_and_default_inline() {
    let (ty, _) = prop(json!({
        "type": "object",
        "properties": {"depth": {"type": "number", "description": "How deep", "default": 2}}
    }));
    assert_eq!(
        ty,
        "{\n    /** How deep. Default: 2 */\n    depth?: number;\n  }"
    );
}

#[test]
fn scalar_types_enums_and_consts() {
    assert_eq!(prop(json!({"type": "string"})).0, "string");
    assert_eq!(prop(json!({"type": "boolean"})).0, "boolean");
    assert_eq!(prop(json!({"type": "null"})).0, "null");
    assert_eq!(
        prop(json!({"enum": ["a", 1, true, null]})).0,
        "\"a\" | 1 | true | null"
    );
    assert_eq!(prop(json!({"enum": []})).0, "never");
    assert_eq!(prop(json!({"const": "fixed"})).0, "\"fixed\"");
    assert_eq!(prop(json!({"const": {"a": [1]}})).0, "{\"a\":[1]}");
    assert_eq!(
        prop(json!({"enum": ["say \"hi\""]})).0,
        "\"say \\\"hi\\\"\""
    );
    assert_eq!(prop(json!({})).0, "unknown");
    assert_eq!(prop(json!(true)).0, "unknown");
    assert_eq!(prop(json!(false)).0, "never");
}

#[test]
fn integers_are_numbers_with_a_note() {
    let (ty, lost) = prop(json!({"type": "integer", "minimum": 1, "maximum": 100}));
    assert_eq!(ty, "number");
    assert_eq!(lost, ["v: integer, minimum 1, maximum 100"]);
}

#[test]
fn type_arrays_and_nullable_are_unions() {
    assert_eq!(prop(json!({"type": ["string", "null"]})).0, "string | null");
    assert_eq!(prop(json!({"type": ["integer", "number"]})).0, "number");
    assert_eq!(
        prop(json!({"type": "string", "nullable": true})).0,
        "string | null"
    );
    let (ty, _) =
        prop(json!({"type": ["object", "null"], "properties": {"a": {"type": "string"}}}));
    assert_eq!(ty, "{\n    a?: string;\n  } | null");
}

#[test]
fn one_of_and_any_of_are_unions() {
    let (ty, lost) = prop(json!({"anyOf": [{"type": "string"}, {"type": "number"}]}));
    assert_eq!(ty, "string | number");
    assert!(lost.is_empty());
    let (ty, lost) =
        prop(json!({"oneOf": [{"type": "string", "format": "uri"}, {"type": "null"}]}));
    assert_eq!(ty, "string | null");
    assert_eq!(lost, ["v (option 1): format uri"]);
    // A base type and its alternatives intersect.
    let (ty, _) = prop(json!({
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "required": ["id"],
        "oneOf": [{"properties": {"a": {"type": "number"}}}, {"properties": {"b": {"type": "number"}}}]
    }));
    assert_eq!(
        ty,
        "{\n    id: string;\n  } & ({\n    a?: number;\n  } | {\n    b?: number;\n  })"
    );
    // Alternatives that only constrain do not change the type: a note says so.
    let (ty, lost) =
        prop(json!({"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}]}));
    assert_eq!(ty, "string");
    assert_eq!(lost, ["v: anyOf: one of 2 sets of constraints"]);
}

#[test]
fn arrays_parenthesise_unions_and_tuples_follow_prefix_items() {
    assert_eq!(
        prop(json!({"type": "array", "items": {"type": "string"}})).0,
        "string[]"
    );
    assert_eq!(prop(json!({"type": "array"})).0, "unknown[]");
    assert_eq!(
        prop(json!({"type": "array", "items": {"type": ["string", "number"]}})).0,
        "(string | number)[]"
    );
    assert_eq!(
        prop(json!({"items": {"type": "array", "items": {"enum": [1, 2]}}})).0,
        "(1 | 2)[][]"
    );
    assert_eq!(
        prop(json!({"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}], "items": false, "minItems": 1})).0,
        "[number, string?]"
    );
    assert_eq!(
        prop(json!({"type": "array", "items": [{"type": "number"}], "additionalItems": {"type": "string"}, "minItems": 1})).0,
        "[number, ...string[]]"
    );
    assert_eq!(
        prop(json!({"prefixItems": [{"type": ["string", "null"]}]})).0,
        "[(string | null)?, ...unknown[]]"
    );
    let (ty, lost) = prop(
        json!({"type": "array", "items": {"type": "string", "pattern": "^a"}, "uniqueItems": true, "maxItems": 3}),
    );
    assert_eq!(ty, "string[]");
    assert_eq!(lost, ["v: maxItems 3, unique items", "v[]: pattern \"^a\""]);
}

#[test]
fn records_and_additional_properties() {
    assert_eq!(prop(json!({"type": "object"})).0, "Record<string, unknown>");
    assert_eq!(
        prop(json!({"type": "object", "additionalProperties": false})).0,
        "Record<string, never>"
    );
    assert_eq!(
        prop(json!({"type": "object", "additionalProperties": {"type": "number"}})).0,
        "Record<string, number>"
    );
    assert_eq!(
        prop(json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "number"}})).0,
        "{\n    a?: string;\n  } & Record<string, number>"
    );
    let (_, lost) = prop(
        json!({"type": "object", "patternProperties": {"^x-": {}}, "propertyNames": {"maxLength": 3}}),
    );
    assert_eq!(lost, ["v: patternProperties, propertyNames"]);
    // At the root no properties means the tool takes no input.
    let r = render(&json!({"type": "object", "properties": {}}));
    assert_eq!(r.ty, "Record<string, never>");
    assert!(!r.required);
    assert_eq!(
        render(&json!({"type": "object", "additionalProperties": true})).ty,
        "Record<string, unknown>"
    );
}

#[test]
fn keys_that_are_not_identifiers_are_quoted() {
    let r = render(&json!({"properties": {"per-page": {"type": "number"}, "$x": {}}}));
    assert_eq!(r.ty, "{\n  \"per-page\"?: number;\n  $x?: unknown;\n}");
}

#[test]
fn local_references_resolve_and_cycles_stop() {
    let schema = json!({
        "type": "object",
        "properties": {
            "user": {"$ref": "#/$defs/user"},
            "tree": {"$ref": "#/definitions/node"},
            "far": {"$ref": "https://example.com/schema.json"},
            "lost": {"$ref": "#/$defs/nope"}
        },
        "$defs": {"user": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
        "definitions": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/definitions/node"}}}}}
    });
    let r = render(&schema);
    assert_eq!(
        r.ty,
        "{\n  user?: {\n    name: string;\n  };\n  tree?: {\n    children?: unknown[];\n  };\n  far?: unknown;\n  lost?: unknown;\n}"
    );
    assert_eq!(
        r.lost,
        [
            "tree.children[]: recursive $ref #/definitions/node",
            "far: remote $ref https://example.com/schema.json (not followed)",
            "lost: $ref #/$defs/nope that does not resolve"
        ]
    );
    // A root that is only a reference is still the input object.
    let r = render(&json!({
        "$ref": "#/definitions/Input",
        "definitions": {"Input": {"type": "object", "properties": {"a": {"type": "string", "description": "A"}}, "required": ["a"]}}
    }));
    assert_eq!(r.ty, "{\n  a: string;\n}");
    assert_eq!(r.params, ["a A"]);
    assert!(r.required);
    // JSON pointer escapes.
    let (ty, _) = render_with_defs(
        json!({"$ref": "#/$defs/a~1b"}),
        json!({"a/b": {"type": "boolean"}}),
    );
    assert_eq!(ty, "boolean");
}

fn render_with_defs(property: Value, defs: Value) -> (String, Vec<String>) {
    let r = render(&json!({"properties": {"v": property}, "required": ["v"], "$defs": defs}));
    let ty =
        r.ty.strip_prefix("{\n  v: ")
            .and_then(|t| t.strip_suffix(";\n}"))
            .unwrap_or(&r.ty)
            .to_owned();
    (ty, r.lost)
}

#[test]
fn plain_all_of_merges_and_the_rest_intersects() {
    let r = render(&json!({
        "allOf": [
            {"$ref": "#/$defs/base"},
            {"type": "object", "properties": {"b": {"type": "number", "description": "B"}}, "required": ["b"]}
        ],
        "$defs": {"base": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}
    }));
    assert_eq!(r.ty, "{\n  a: string;\n  b: number;\n}");
    assert_eq!(r.params, ["b B"]);
    let (ty, lost) = prop(json!({"allOf": [{"type": "string"}, {"minLength": 2}]}));
    assert_eq!(ty, "string");
    assert_eq!(lost, ["v: minLength 2"]);
    let (ty, _) = prop(json!({"allOf": [{"$ref": "#/properties/v"}, {"type": "object"}]}));
    assert_eq!(
        ty, "Record<string, unknown>",
        "a reference to itself stops at once"
    );
}

#[test]
fn what_a_type_cannot_say_is_listed_by_path() {
    let r = render(&json!({
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email", "pattern": "^.+@.+$", "minLength": 3},
            "opts": {"type": "object", "properties": {"n": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 2}}},
            "x": {"not": {"type": "null"}},
            "y": {"if": {"type": "string"}, "then": {"minLength": 1}},
            "old": {"type": "string", "deprecated": true}
        },
        "minProperties": 1,
        "dependentRequired": {"a": ["b"]}
    }));
    assert_eq!(
        r.lost,
        [
            "(input): minProperties 1, dependentRequired",
            "email: pattern \"^.+@.+$\", format email, minLength 3",
            "opts.n: exclusiveMinimum 0, multipleOf 2",
            "x: not",
            "y: if/then/else",
            "old: deprecated"
        ]
    );
}

#[test]
fn odd_values_where_schemas_belong_are_notes_not_failures() {
    let (ty, lost) = prop(json!(42));
    assert_eq!(ty, "unknown");
    assert_eq!(lost, ["v: a schema that is not an object"]);
    let (ty, lost) = prop(json!({"type": 5, "enum": "x"}));
    assert_eq!(ty, "unknown");
    assert_eq!(lost, ["v: an enum that is not an array"]);
    assert_eq!(prop(json!({"type": "date"})).1, ["v: type \"date\""]);
    assert_eq!(
        prop(json!({"$ref": 3})).1,
        ["v: a $ref that is not a string"]
    );
    assert_eq!(
        prop(json!({"anyOf": {}})).1,
        ["v: an anyOf that is not an array"]
    );
}
