//! Nested-call inputs checked against their schemas (`validation/`): the
//! message of a rejected call and each of its problems, the descriptions of
//! the values they show, and why a schema is not checked (a gateway
//! diagnostic).

use std::fmt::Display;

use crate::limits::{
    MAX_PATTERN_BYTES, MAX_PATTERN_COST, MAX_SCHEMA_DEPTH, MAX_SCHEMA_VALUES, MAX_SCHEMA_WALK_DEPTH,
};

// --- A rejected call ---

/// `Invalid input for tools.call("read"): input.path: expected string, got 42. <hint>`
pub fn invalid_tool_input(callee: &str, problems: &str, hint: &str) -> String {
    format!("Invalid input for {callee}: {problems}. {hint}")
}

/// The hint of a rejected catalog or namespace call.
pub fn describe_hint(tool_id: &str) -> String {
    format!(
        "tools.describe({}) shows its input schema.",
        serde_json::Value::String(tool_id.to_owned())
    )
}

/// The hint of a rejected MCP call.
pub fn mcp_schema_hint(server: &str, method: &str) -> String {
    format!(
        "MCP.{server}.$api({}, {{ schema: true }}) shows its input schema.",
        serde_json::Value::String(method.to_owned())
    )
}

/// One listed problem: `input.items[2].id: expected string, got 42`.
pub fn input_problem(location: &str, text: &str) -> String {
    format!("{location}: {text}")
}

/// After the listed problems, when the input is too large to look for
/// more than the first.
pub const MAYBE_MORE_PROBLEMS: &str = "and maybe more (the input is too large to list them all)";

// --- Problems (each after `<place>: `) ---

/// The problem of an input known to be invalid whose problems would cost
/// more to find than one check may (`MAX_ERROR_WORK`).
pub const INPUT_UNLOCATED: &str =
    "does not match the schema (finding where would cost more than one check may)";

/// An input the check could not parse as JSON.
pub const INPUT_NOT_JSON: &str = "is not JSON the check can read";

/// ` (did you mean "key"?)`, after an unknown property or enum value;
/// `quoted` as JSON.
pub fn did_you_mean_quoted(quoted: &str) -> String {
    format!(" (did you mean {quoted}?)")
}

/// ` (the input has "nmae": did you mean "name"?)`, after a missing
/// required property.
pub fn input_has_typo(typo: &str, name: &str) -> String {
    format!(" (the input has {typo}: did you mean {name}?)")
}

/// `unknown property "k"`, and a near miss `hint`.
pub fn unknown_property(name: &str, hint: &str) -> String {
    format!("unknown property {name}{hint}")
}

/// `missing required property "k"`, and a near miss `hint`.
pub fn missing_required_property(name: &str, hint: &str) -> String {
    format!("missing required property {name}{hint}")
}

/// A value of the wrong type, or not the schema's `const`.
pub fn expected_got(expected: &str, given: &str) -> String {
    format!("expected {expected}, got {given}")
}

/// A value not among the schema's `enum` options.
pub fn expected_one_of(options: &str, given: &str, hint: &str) -> String {
    format!("expected one of {options}, got {given}{hint}")
}

pub fn expected_at_least(limit: impl Display, given: &str) -> String {
    format!("expected at least {limit}, got {given}")
}

pub fn expected_at_most(limit: impl Display, given: &str) -> String {
    format!("expected at most {limit}, got {given}")
}

pub fn expected_more_than(limit: impl Display, given: &str) -> String {
    format!("expected more than {limit}, got {given}")
}

pub fn expected_less_than(limit: impl Display, given: &str) -> String {
    format!("expected less than {limit}, got {given}")
}

pub fn expected_multiple_of(divisor: &str, given: &str) -> String {
    format!("expected a multiple of {divisor}, got {given}")
}

pub fn expected_at_least_characters(limit: impl Display, given: &str) -> String {
    format!("expected at least {limit} characters, got {given}")
}

pub fn expected_at_most_characters(limit: impl Display, given: &str) -> String {
    format!("expected at most {limit} characters, got {given}")
}

pub fn expected_at_least_items(limit: impl Display, given: &str) -> String {
    format!("expected at least {limit} items, got {given}")
}

pub fn expected_at_most_items(limit: impl Display, given: &str) -> String {
    format!("expected at most {limit} items, got {given}")
}

pub fn expected_at_least_properties(limit: impl Display, given: &str) -> String {
    format!("expected at least {limit} properties, got {given}")
}

pub fn expected_at_most_properties(limit: impl Display, given: &str) -> String {
    format!("expected at most {limit} properties, got {given}")
}

pub fn expected_pattern(pattern: &str, given: &str) -> String {
    format!("expected a string matching /{pattern}/, got {given}")
}

pub const EXPECTED_UNIQUE_ITEMS: &str = "expected items that are all different";

pub fn expected_any_of(given: &str) -> String {
    format!("expected a value matching at least one of the anyOf alternatives, got {given}")
}

pub fn expected_one_of_none(given: &str) -> String {
    format!(
        "expected a value matching exactly one of the oneOf alternatives, got {given} (it matches none)"
    )
}

pub fn expected_one_of_several(given: &str) -> String {
    format!(
        "expected a value matching exactly one of the oneOf alternatives, got {given} (it matches several)"
    )
}

/// A value where the schema is `false`.
pub fn no_value_allowed(given: &str) -> String {
    format!("no value is allowed here, got {given}")
}

pub fn expected_not(given: &str) -> String {
    format!("expected a value that does not match the \"not\" schema, got {given}")
}

pub const EXPECTED_CONTAINS: &str = "expected an array with at least one matching item";

// --- What a problem shows of the schema and the input ---

/// Types a value may have: `string`, `string or null`.
pub fn type_alternatives(kinds: &[String]) -> String {
    kinds.join(" or ")
}

pub const EMPTY_OBJECT: &str = "an empty object";

/// `an object with 2 keys`.
pub fn object_with_keys(count: usize) -> String {
    format!(
        "an object with {count} {}",
        if count == 1 { "key" } else { "keys" }
    )
}

pub const EMPTY_ARRAY: &str = "an empty array";

/// `an array of 3 items`.
pub fn array_of_items(count: usize) -> String {
    format!(
        "an array of {count} {}",
        if count == 1 { "item" } else { "items" }
    )
}

/// After the first options of a long enum: `... (40 in all)`.
pub fn options_in_all(count: usize) -> String {
    format!("... ({count} in all)")
}

// --- Schemas that are not checked (gateway diagnostics) ---

/// `tool <name> (<id>): its input schema <why>; its inputs are not validated.`
pub fn schema_not_validated(name: &str, id: &str, why: &str) -> String {
    format!("tool {name} ({id}): its input schema {why}; its inputs are not validated.")
}

/// A schema refused before it is compiled or checked.
pub fn not_checked(reason: &str) -> String {
    format!("is not checked: {reason}")
}

/// A schema the validator could not compile.
pub fn does_not_compile(error: &str) -> String {
    format!("does not compile ({error})")
}

// Why (after `is not checked: `): compiling it would cost too much
// (`validation/screen.rs`) ...

pub fn schema_too_large() -> String {
    format!(
        "it is larger than {MAX_SCHEMA_VALUES} values and keys, more than compiling one may cost"
    )
}

pub fn schema_too_deep() -> String {
    format!("it nests deeper than {MAX_SCHEMA_DEPTH} levels")
}

/// `what` is one of the identifiers below, or the keyword itself.
pub fn schema_identifier(what: &str) -> String {
    format!("it uses {what}, which makes where a $ref leads depend on how it is reached")
}

pub const ID_BELOW_ROOT: &str = "a $id below the root";
pub const DRAFT4_ID_BELOW_ROOT: &str = "an id below the root";

pub fn pattern_too_long() -> String {
    format!("it has a pattern longer than {MAX_PATTERN_BYTES} bytes")
}

pub fn patterns_too_costly() -> String {
    format!("its patterns cost more than {MAX_PATTERN_COST} units to compile together")
}

// ... or checking an input against it could (`validation/analysis.rs`).

pub const SCHEMA_RECURSIVE: &str = "it is recursive (a $ref refers back to where it is), so checking it could cost what the input chooses";
pub const SCHEMA_COSTLY: &str = "its alternatives multiply past what one check may cost";

pub fn schema_refs_too_deep() -> String {
    format!("its subschemas nest deeper than {MAX_SCHEMA_WALK_DEPTH} levels through $refs")
}

pub const SCHEMA_REMOTE_REF: &str =
    "it has a $ref to another document, which the check does not follow";
