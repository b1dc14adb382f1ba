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
//!
//! The crate has no step hook, and a check runs on a worker (a plugin
//! namespace call's on the runtime's checker thread, or on the Node thread
//! when [`InputValidators::cheap`] says so), so what a cell can make it
//! cost is bounded before it starts. Compiling: [`screen`] reads the schema once and
//! refuses one too large, too deep, with costly patterns or with identifiers
//! that make `$ref`s depend on the path. Checking: [`analysis`] bounds what
//! one check costs per input value and byte, and refuses a schema whose
//! bound passes `MAX_SCHEMA_WORK` or whose `$ref`s loop; each input is then checked
//! only when its bound is within [`MAX_CHECK_WORK`]. A refused schema leaves
//! its tool unchecked and says why in [`schema_problems`].

mod analysis;
mod message;
mod screen;

#[cfg(test)]
mod analysis_tests;
#[cfg(test)]
mod calibrate;
#[cfg(test)]
mod cost_tests;
#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod message_tests;
#[cfg(test)]
mod read_tests;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;

use crate::catalog::CatalogEntry;
use crate::limits::{
    HOST_CHECK_BYTES, HOST_CHECK_WORK, MAX_CHECK_WORK, MAX_ERROR_WORK, MAX_LISTED_INPUT_BYTES,
    MAX_PATTERN_NFA_BYTES, MAX_SCHEMA_PROBLEMS,
};

pub use self::message::{invalid_input, Problem};

pub use self::analysis::{Bound, Work};

/// A tool's compiled schema, or why it has none.
enum Compiled {
    /// The validator, and what a check costs per input value and byte.
    Checked(jsonschema::Validator, Bound),
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
    /// Checks `input` (JSON text) against the schema of `entry`, compiling
    /// it on first use.
    pub fn check(&self, entry: &CatalogEntry, input: &str) -> Result<(), Rejection> {
        if !entry.has_parameters {
            return Ok(());
        }
        let compiled = self.compiled(entry);
        let Compiled::Checked(validator, bound) = compiled.as_ref() else {
            return Ok(());
        };
        // A text's values and keys are at most its bytes: an input whose
        // bound is over the budget even so is not read at all.
        let bytes = input.len() as u64;
        if bound.valid.of(0, bytes) > MAX_CHECK_WORK {
            return Ok(());
        }
        // Inputs nest as deep as the bridge allows (1000 levels), deeper than
        // serde's default limit and than a small stack may follow: the parse
        // and the check grow the stack as they need.
        stacker::maybe_grow(64 * 1024, 32 * 1024 * 1024, || {
            let instance = parse(input).ok_or_else(|| Rejection {
                problems: vec![Problem {
                    location: "input".to_owned(),
                    text: crate::messages::INPUT_NOT_JSON.to_owned(),
                }],
                more: 0,
                partial: false,
            })?;
            let values = values(&instance);
            if bound.valid.of(values, bytes) > MAX_CHECK_WORK {
                return Ok(());
            }
            if validator.is_valid(&instance) {
                return Ok(());
            }
            // Invalid. Where, when finding it stays within its budget.
            if bound.errors.of(values, bytes) > MAX_ERROR_WORK {
                return Err(Rejection {
                    problems: vec![Problem {
                        location: "input".to_owned(),
                        text: crate::messages::INPUT_UNLOCATED.to_owned(),
                    }],
                    more: 0,
                    partial: false,
                });
            }
            Err(message::reject(
                validator,
                &instance,
                entry.parameters.value(),
                input.len() <= MAX_LISTED_INPUT_BYTES,
            ))
        })
    }

    /// Whether checking an input of `bytes` bytes against the schema of
    /// `entry` is known to cost little enough for the Node thread: at most
    /// [`HOST_CHECK_BYTES`], and a check (finding the problems included)
    /// bounded by [`HOST_CHECK_WORK`]. False while the schema is not
    /// compiled: nothing is compiled here.
    pub fn cheap(&self, entry: &CatalogEntry, bytes: usize) -> bool {
        if !entry.has_parameters {
            return true;
        }
        if bytes > HOST_CHECK_BYTES {
            return false;
        }
        let Some(compiled) = self.by_id.lock().get(&entry.id).cloned() else {
            return false;
        };
        match compiled.as_ref() {
            Compiled::Unchecked => true,
            // A text's values and keys are at most its bytes.
            Compiled::Checked(_, bound) => {
                let bytes = bytes as u64;
                bound
                    .valid
                    .of(bytes, bytes)
                    .max(bound.errors.of(bytes, bytes))
                    <= HOST_CHECK_WORK
            }
        }
    }

    /// Compiles the schema of `entry` now, if it has one and it is not yet:
    /// on a worker, for a call whose input the host makes and checks later
    /// (a namespace call's), so that [`InputValidators::cheap`] knows its cost.
    pub fn prepare(&self, entry: &CatalogEntry) {
        if entry.has_parameters {
            self.compiled(entry);
        }
    }

    fn compiled(&self, entry: &CatalogEntry) -> Arc<Compiled> {
        if let Some(compiled) = self.by_id.lock().get(&entry.id) {
            return compiled.clone();
        }
        // Compiled outside the lock: two cells may compile the same schema
        // once each, and neither waits for the other.
        let compiled = Arc::new(match compile(entry.parameters.value()) {
            Ok((validator, bound)) => Compiled::Checked(validator, bound),
            Err(why) => {
                record_problem(crate::messages::schema_not_validated(
                    &entry.name,
                    &entry.id,
                    &why,
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

/// JSON values and keys in `value`.
fn values(value: &Value) -> u64 {
    let mut count = 0u64;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        count += 1;
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                count += map.len() as u64;
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    count
}

/// Compiles a schema the way every tool's is compiled: OpenAPI's
/// `nullable: true` read as allowing `null`, and refused when compiling it
/// ([`screen`]) or checking it ([`analysis`]) could cost what the input or
/// the schema chooses. With the validator, what one check costs.
fn compile(schema: &Value) -> Result<(jsonschema::Validator, Bound), String> {
    let schema = nullable_as_null(schema, 0);
    let not_checked = |reason: String| crate::messages::not_checked(&reason);
    let patterns = screen::screen(&schema).map_err(|refusal| not_checked(refusal.reason()))?;
    let bound =
        analysis::cost(&schema, &patterns).map_err(|refusal| not_checked(refusal.reason()))?;
    let validator = stacker::maybe_grow(64 * 1024, 8 * 1024 * 1024, || {
        options().build(&schema).map_err(|error| {
            crate::messages::does_not_compile(&crate::messages::cut(error.to_string(), 300))
        })
    })?;
    Ok((validator, bound))
}

/// The crate's options for every schema: nothing fetched or read, `format`
/// not asserted, patterns in the `regex` crate (linear-time matching; no
/// `dfa_size_limit`: a small one made every match of a pattern cost
/// microseconds, measured with `npm run bench`).
fn options() -> jsonschema::ValidationOptions<'static> {
    let patterns = jsonschema::PatternOptions::regex().size_limit(MAX_PATTERN_NFA_BYTES);
    jsonschema::options()
        .offline()
        .with_pattern_options(patterns)
        .should_validate_formats(false)
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

/// Problems recorded in this process so far (a count that only grows: a
/// sandbox tells the addon of its new ones when it changes).
static RECORDED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn record_problem(problem: String) {
    let mut problems = PROBLEMS.lock();
    if problems.contains(&problem) {
        return;
    }
    RECORDED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if problems.len() >= MAX_SCHEMA_PROBLEMS {
        problems.remove(0);
    }
    problems.push(problem);
}

/// Records a problem found elsewhere (a sandbox process's, where the
/// schema was compiled), cut to [`MAX_PROBLEM_BYTES`] per sentence.
pub fn record_schema_problem(problem: String) {
    record_problem(crate::messages::cut(
        problem,
        crate::limits::MAX_PROBLEM_BYTES * 4,
    ));
}

/// How many problems this process has recorded so far.
pub fn schema_problems_recorded() -> u64 {
    RECORDED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The tools whose input schema did not compile in this process (the last
/// [`MAX_SCHEMA_PROBLEMS`], one sentence each).
pub fn schema_problems() -> Vec<String> {
    PROBLEMS.lock().clone()
}
