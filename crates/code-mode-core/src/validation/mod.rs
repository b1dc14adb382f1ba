//! Nested-call inputs checked against their tool's JSON Schema before the
//! executor sees them (`docs/nested-calls.md`, "Input validation").
//!
//! Each tool's schema is compiled once per agent run, on first use, by the
//! `jsonschema` crate with every retriever off: a `$ref` that is not inside
//! the schema never resolves, so nothing is fetched or read. Patterns use the
//! `regex` crate, whose matching is linear in the input (a guest chooses the
//! input, so a backtracking engine could be made to run for ever), and
//! `format` is an annotation, not checked. A schema the crate cannot compile
//! turns validation off for that tool only, and says so in
//! [`schema_problems`].

mod analysis;
mod message;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;

use crate::catalog::CatalogEntry;
use crate::limits::{MAX_LISTED_INPUT_BYTES, MAX_SCHEMA_PROBLEMS};

pub use self::message::{invalid_input, Problem};

/// A tool's compiled schema, or why it has none.
enum Compiled {
    Checked(jsonschema::Validator),
    /// No schema, or one that did not compile: inputs go out unchecked.
    Unchecked,
}

/// The validators of one agent run's tools, compiled as they are first used.
#[derive(Default)]
pub struct InputValidators {
    by_id: Mutex<HashMap<String, Arc<Compiled>>>,
}

impl std::fmt::Debug for InputValidators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputValidators").finish_non_exhaustive()
    }
}

/// What a check found: nothing, or the problems (at most `MAX_PROBLEMS`
/// listed, `more` counted) of an input that does not match.
#[derive(Debug, PartialEq)]
pub struct Rejection {
    pub problems: Vec<Problem>,
    pub more: usize,
    /// Only the first problem was looked for (a large input).
    pub partial: bool,
}

impl InputValidators {
    /// Checks `input` (JSON text) against the schema of `entry`. With
    /// `thorough` false (the Node thread), only the first problem is looked
    /// for.
    pub fn check(
        &self,
        entry: &CatalogEntry,
        input: &str,
        thorough: bool,
    ) -> Result<(), Rejection> {
        if !entry.has_parameters {
            return Ok(());
        }
        let compiled = self.compiled(entry);
        let Compiled::Checked(validator) = compiled.as_ref() else {
            return Ok(());
        };
        // Inputs nest as deep as the bridge allows (1000 levels), deeper than
        // serde's default limit and than a small stack may follow: the parse
        // and the check grow the stack as they need.
        stacker::maybe_grow(64 * 1024, 32 * 1024 * 1024, || {
            let instance = parse(input).ok_or_else(|| Rejection {
                problems: vec![Problem {
                    location: "input".to_owned(),
                    text: "is not JSON the check can read".to_owned(),
                }],
                more: 0,
                partial: false,
            })?;
            if validator.is_valid(&instance) {
                return Ok(());
            }
            let list_all = thorough && input.len() <= MAX_LISTED_INPUT_BYTES;
            Err(message::reject(
                validator,
                &instance,
                entry.parameters.value(),
                list_all,
            ))
        })
    }

    fn compiled(&self, entry: &CatalogEntry) -> Arc<Compiled> {
        if let Some(compiled) = self.by_id.lock().get(&entry.id) {
            return compiled.clone();
        }
        // Compiled outside the lock: two cells may compile the same schema
        // once each, and neither waits for the other.
        let compiled = Arc::new(match compile(entry.parameters.value()) {
            Ok(validator) => Compiled::Checked(validator),
            Err(why) => {
                record_problem(format!(
                    "tool {} ({}): its input schema {why}; its inputs are not validated.",
                    entry.name, entry.id
                ));
                Compiled::Unchecked
            }
        });
        self.by_id
            .lock()
            .entry(entry.id.clone())
            .or_insert(compiled)
            .clone()
    }
}

/// JSON text as a value, at any depth; lone surrogates (which the bridge
/// writes as escapes, and serde refuses) read as U+FFFD.
fn parse(input: &str) -> Option<Value> {
    let read = |text: &str| -> Option<Value> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        deserializer.disable_recursion_limit();
        serde::Deserialize::deserialize(&mut deserializer).ok()
    };
    read(input).or_else(|| read(&well_formed(input)))
}

/// `input` with every `\uXXXX` escape of a lone surrogate replaced by
/// `\ufffd`.
fn well_formed(input: &str) -> String {
    let bytes = input.as_bytes();
    let hex = |at: usize| -> Option<u32> {
        let digits = input.get(at..at + 4)?;
        u32::from_str_radix(digits, 16).ok()
    };
    let escape_at = |at: usize| bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u');
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex(i + 2) else {
            i += 2;
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&unit)
            && escape_at(i + 6)
            && hex(i + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            i += 12;
        } else if (0xD800..0xE000).contains(&unit) {
            out.push_str(&input[copied..i]);
            out.push_str("\\ufffd");
            i += 6;
            copied = i;
        } else {
            i += 6;
        }
    }
    out.push_str(&input[copied..]);
    out
}

/// Compiles a schema the way every tool's is compiled: OpenAPI's
/// `nullable: true` read as allowing `null`, and refused when checking it
/// could cost what the input chooses ([`analysis`]).
fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    let schema = nullable_as_null(schema, 0);
    if let Some(reason) = analysis::unsafe_to_check(&schema) {
        return Err(format!("is not checked: {reason}"));
    }
    let schema = &schema;
    // No `dfa_size_limit`: a small one made every match of a pattern cost
    // microseconds (measured with `npm run bench`).
    let options = jsonschema::PatternOptions::regex().size_limit(1 << 20);
    jsonschema::options()
        .offline()
        .with_pattern_options(options)
        .should_validate_formats(false)
        .build(schema)
        .map_err(|error| {
            format!(
                "does not compile ({})",
                crate::messages::cut(error.to_string(), 300)
            )
        })
}

/// `schema` with each `nullable: true` (OpenAPI) turned into a `type` that
/// includes `"null"`.
fn nullable_as_null(schema: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(map) if depth < 256 => {
            let mut out = serde_json::Map::with_capacity(map.len());
            for (key, value) in map {
                out.insert(key.clone(), nullable_as_null(value, depth + 1));
            }
            if map.get("nullable") == Some(&Value::Bool(true)) {
                match out.get_mut("type") {
                    Some(Value::String(kind)) if kind != "null" => {
                        let kind = std::mem::take(kind);
                        out.insert("type".to_owned(), serde_json::json!([kind, "null"]));
                    }
                    Some(Value::Array(kinds)) if !kinds.iter().any(|k| k == "null") => {
                        kinds.push(Value::String("null".to_owned()));
                    }
                    _ => {}
                }
            }
            Value::Object(out)
        }
        Value::Array(items) if depth < 256 => Value::Array(
            items
                .iter()
                .map(|item| nullable_as_null(item, depth + 1))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Schemas that did not compile, newest last, for `codeModeDiagnostics()`.
static PROBLEMS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn record_problem(problem: String) {
    let mut problems = PROBLEMS.lock();
    if problems.contains(&problem) {
        return;
    }
    if problems.len() >= MAX_SCHEMA_PROBLEMS {
        problems.remove(0);
    }
    problems.push(problem);
}

/// The tools whose input schema did not compile in this process (the last
/// [`MAX_SCHEMA_PROBLEMS`], one sentence each).
pub fn schema_problems() -> Vec<String> {
    PROBLEMS.lock().clone()
}
