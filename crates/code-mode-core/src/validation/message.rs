//! What a rejected input's message says: each problem with its location in
//! the input (`input.items[2].id`), what the schema expected and what the
//! cell gave, and a near miss when a key looks like a typo.

use std::collections::HashSet;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::ValidationError;
use serde_json::Value;

use super::Rejection;
use crate::identifiers::display_path;
use crate::limits::{MAX_LISTED_PROBLEMS, MAX_PROBLEM_BYTES};
use crate::limits::{MAX_NEAR_MISS_CANDIDATES, MAX_NEAR_MISS_COMPARED};
use crate::messages;

/// One thing wrong with an input.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Where, as a cell writes it: `input`, `input.path`, `input.items[2]`.
    pub location: String,
    /// What was expected against what was given.
    pub text: String,
}

/// The problems of an input the validator refused. With `list_all` false
/// (a large input) only the first problem is looked for: listing every one
/// would build an error per bad element, outside any meter.
pub(super) fn reject(
    validator: &jsonschema::Validator,
    instance: &Value,
    schema: &Value,
    list_all: bool,
) -> Rejection {
    let mut problems = Vec::new();
    let mut more = 0;
    // Only the listed problems are described; the rest are counted.
    let mut add = |error: &ValidationError| {
        if problems.len() >= MAX_LISTED_PROBLEMS {
            more += match error.kind() {
                ValidationErrorKind::AdditionalProperties { unexpected }
                | ValidationErrorKind::UnevaluatedProperties { unexpected } => unexpected.len(),
                _ => 1,
            };
            return;
        }
        // Only as many as are still listed are described (each unknown key
        // looks for a near miss among the schema's keys); the rest counted.
        let room = MAX_LISTED_PROBLEMS - problems.len();
        let (described, left) = describe(error, schema, room);
        problems.extend(described);
        more += left;
    };
    if list_all {
        for error in validator.iter_errors(instance) {
            add(&error);
        }
    } else if let Err(error) = validator.validate(instance) {
        add(&error);
    }
    Rejection {
        problems,
        more,
        partial: !list_all && more == 0,
    }
}

/// The message a rejected call's promise rejects with:
/// `Invalid input for <callee>: <problem>; <problem>; and N more. <hint>`.
pub fn invalid_input(callee: &str, rejection: &Rejection, hint: &str) -> String {
    let mut listed: Vec<String> = rejection
        .problems
        .iter()
        .map(|problem| {
            // The place is cut first, so what was wrong survives a long key.
            let location = messages::cut(problem.location.clone(), MAX_PROBLEM_BYTES / 3);
            messages::cut(
                messages::input_problem(&location, &problem.text),
                MAX_PROBLEM_BYTES,
            )
        })
        .collect();
    if rejection.more > 0 {
        listed.push(messages::and_more(rejection.more));
    } else if rejection.partial {
        listed.push(messages::MAYBE_MORE_PROBLEMS.to_owned());
    }
    messages::invalid_tool_input(callee, &listed.join("; "), hint)
}

/// The problems one validation error stands for (an unexpected-properties
/// error names several keys; each is a problem of its own): the first
/// `room` described, and how many more there are.
fn describe(error: &ValidationError, schema: &Value, room: usize) -> (Vec<Problem>, usize) {
    if let ValidationErrorKind::AdditionalProperties { unexpected }
    | ValidationErrorKind::UnevaluatedProperties { unexpected } = error.kind()
    {
        let keys = known_keys(schema, error);
        let location = location(error);
        let described = unexpected
            .iter()
            .take(room)
            .map(|name| {
                let hint = near_miss(name, keys.iter().map(String::as_str))
                    .map(|key| messages::did_you_mean_quoted(&quote(key)))
                    .unwrap_or_default();
                Problem {
                    location: location.clone(),
                    text: messages::unknown_property(&quote(name), &hint),
                }
            })
            .collect();
        return (described, unexpected.len().saturating_sub(room));
    }
    let mut one = describe_one(error, schema);
    let left = one.len().saturating_sub(room);
    one.truncate(room);
    (one, left)
}

/// Where in the input an error is, as a cell writes it.
fn location(error: &ValidationError) -> String {
    let path: Vec<String> = error
        .instance_path()
        .iter()
        .map(|segment| match segment {
            LocationSegment::Property(name) => name.into_owned(),
            LocationSegment::Index(index) => index.to_string(),
        })
        .collect();
    display_path("input", &path)
}

/// The problem of an error that names one.
fn describe_one(error: &ValidationError, schema: &Value) -> Vec<Problem> {
    let location = location(error);
    let given = error.instance();
    let one = |text: String| {
        vec![Problem {
            location: location.clone(),
            text,
        }]
    };
    match error.kind() {
        ValidationErrorKind::Type { kind } => {
            one(messages::expected_got(&types(kind), &shown(given)))
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            // The input's keys the schema does not know, looked up in a set:
            // both lists may be long.
            let keys: HashSet<String> = known_keys(schema, error).into_iter().collect();
            let extra: Vec<&str> = given
                .as_object()
                .map(|map| {
                    map.keys()
                        .map(String::as_str)
                        .filter(|key| !keys.contains(*key))
                        .collect()
                })
                .unwrap_or_default();
            let hint = near_miss(name, extra.iter().copied())
                .map(|typo| messages::input_has_typo(&quote(typo), &quote(name)))
                .unwrap_or_default();
            one(messages::missing_required_property(&quote(name), &hint))
        }
        ValidationErrorKind::Enum { options } => {
            let options = options.as_array().map(Vec::as_slice).unwrap_or_default();
            let hint = given
                .as_str()
                .and_then(|text| near_miss(text, options.iter().filter_map(Value::as_str)))
                .map(|option| messages::did_you_mean_quoted(&quote(option)))
                .unwrap_or_default();
            one(messages::expected_one_of(
                &listed(options),
                &shown(given),
                &hint,
            ))
        }
        ValidationErrorKind::Constant { expected_value } => one(messages::expected_got(
            &shown(expected_value),
            &shown(given),
        )),
        ValidationErrorKind::Minimum { limit } => {
            one(messages::expected_at_least(limit, &shown(given)))
        }
        ValidationErrorKind::Maximum { limit } => {
            one(messages::expected_at_most(limit, &shown(given)))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            one(messages::expected_more_than(limit, &shown(given)))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            one(messages::expected_less_than(limit, &shown(given)))
        }
        ValidationErrorKind::MultipleOf { .. } => one(messages::expected_multiple_of(
            &keyword(schema, error, "multipleOf"),
            &shown(given),
        )),
        ValidationErrorKind::MinLength { limit } => {
            one(messages::expected_at_least_characters(limit, &shown(given)))
        }
        ValidationErrorKind::MaxLength { limit } => {
            one(messages::expected_at_most_characters(limit, &shown(given)))
        }
        ValidationErrorKind::MinItems { limit } => {
            one(messages::expected_at_least_items(limit, &shown(given)))
        }
        ValidationErrorKind::MaxItems { limit } => {
            one(messages::expected_at_most_items(limit, &shown(given)))
        }
        ValidationErrorKind::MinProperties { limit } => {
            one(messages::expected_at_least_properties(limit, &shown(given)))
        }
        ValidationErrorKind::MaxProperties { limit } => {
            one(messages::expected_at_most_properties(limit, &shown(given)))
        }
        ValidationErrorKind::Pattern { pattern } => one(messages::expected_pattern(
            &messages::cut(pattern.clone(), 80),
            &shown(given),
        )),
        ValidationErrorKind::UniqueItems => one(messages::EXPECTED_UNIQUE_ITEMS.to_owned()),
        ValidationErrorKind::AnyOf { .. } => one(messages::expected_any_of(&shown(given))),
        ValidationErrorKind::OneOfNotValid { .. } => {
            one(messages::expected_one_of_none(&shown(given)))
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            one(messages::expected_one_of_several(&shown(given)))
        }
        ValidationErrorKind::FalseSchema => one(messages::no_value_allowed(&shown(given))),
        ValidationErrorKind::Not { .. } => one(messages::expected_not(&shown(given))),
        ValidationErrorKind::Contains => one(messages::EXPECTED_CONTAINS.to_owned()),
        _ => one(messages::cut(error.to_string(), MAX_PROBLEM_BYTES)),
    }
}

/// `string`, `string or null`.
fn types(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(kind) => kind.to_string(),
        TypeKind::Multiple(kinds) => messages::type_alternatives(
            &kinds
                .iter()
                .map(|kind| kind.to_string())
                .collect::<Vec<_>>(),
        ),
    }
}

/// A given value, short: a string or number as JSON (clipped), else its kind.
fn shown(value: &Value) -> String {
    match value {
        Value::Object(map) => match map.len() {
            0 => messages::EMPTY_OBJECT.to_owned(),
            n => messages::object_with_keys(n),
        },
        Value::Array(items) => match items.len() {
            0 => messages::EMPTY_ARRAY.to_owned(),
            n => messages::array_of_items(n),
        },
        Value::String(text) => quote(&messages::cut(text.clone(), 60)),
        other => messages::cut(other.to_string(), 60),
    }
}

/// The first options of an enum, as JSON.
fn listed(options: &[Value]) -> String {
    const SHOWN: usize = 8;
    let mut parts: Vec<String> = options.iter().take(SHOWN).map(shown).collect();
    if options.len() > SHOWN {
        parts.push(messages::options_in_all(options.len()));
    }
    parts.join(", ")
}

fn quote(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// The value of `name` in the schema the error came from.
fn keyword(schema: &Value, error: &ValidationError, name: &str) -> String {
    subschema(schema, error)
        .and_then(|node| node.get(name))
        .map_or_else(String::new, Value::to_string)
}

/// The keys the schema that raised `error` knows for its object: its
/// `properties` and `required`.
fn known_keys(schema: &Value, error: &ValidationError) -> Vec<String> {
    let Some(node) = subschema(schema, error) else {
        return Vec::new();
    };
    let mut keys: Vec<String> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|map| map.keys().cloned().collect())
        .unwrap_or_default();
    let mut seen: HashSet<String> = keys.iter().cloned().collect();
    for key in node
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(key) = key.as_str() {
            if seen.insert(key.to_owned()) {
                keys.push(key.to_owned());
            }
        }
    }
    keys
}

/// The schema object whose keyword raised `error`: its schema path without
/// the keyword. The crate reports that path where references lead
/// (`/$defs/item/additionalProperties` for a keyword reached through
/// `{"$ref": "#/$defs/item"}`), so it holds no `$ref` to follow.
fn subschema<'s>(root: &'s Value, error: &ValidationError) -> Option<&'s Value> {
    let segments: Vec<String> = error
        .schema_path()
        .iter()
        .map(|segment| match segment {
            LocationSegment::Property(name) => name.into_owned(),
            LocationSegment::Index(index) => index.to_string(),
        })
        .collect();
    let (_, parents) = segments.split_last()?;
    let mut node = root;
    for (hops, segment) in parents.iter().enumerate() {
        if hops > 64 {
            return None;
        }
        node = match (node, segment.as_str()) {
            (Value::Object(map), key) => map.get(key)?,
            (Value::Array(items), index) => items.get(index.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// The candidate that `name` most likely misspells: the same text in
/// another case or with `_`/`-` moved, or within a small edit distance.
pub(super) fn near_miss<'c>(
    name: &str,
    candidates: impl Iterator<Item = &'c str>,
) -> Option<&'c str> {
    let squash = |text: &str| -> Vec<char> {
        text.chars()
            .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = squash(name);
    if wanted.is_empty() || wanted.len() > 64 {
        return None;
    }
    let allowed = (wanted.len() / 3).clamp(1, 3);
    // Both lists may be long (a cell chooses the input's keys): the first
    // candidates only, and the edit distance only for lengths that can be
    // near.
    let mut compared = 0;
    candidates
        .take(MAX_NEAR_MISS_CANDIDATES)
        .filter(|candidate| *candidate != name && candidate.len() <= 256)
        .filter_map(|candidate| {
            let squashed = squash(candidate);
            if squashed.len().abs_diff(wanted.len()) > allowed || compared >= MAX_NEAR_MISS_COMPARED
            {
                return None;
            }
            compared += 1;
            let distance = edit_distance(&wanted, &squashed);
            (distance <= allowed).then_some((distance, candidate))
        })
        .min_by_key(|(distance, candidate)| (*distance, candidate.len()))
        .map(|(_, candidate)| candidate)
}

/// Edit distance where swapping two neighbours counts as one edit
/// (`titel` is one edit from `title`): optimal string alignment.
pub(super) fn edit_distance(a: &[char], b: &[char]) -> usize {
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}
