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
    /// Checks `input` (JSON text) against the schema of `entry`.
    pub fn check(&self, entry: &CatalogEntry, input: &str) -> Result<(), Rejection> {
        if !entry.has_parameters {
            return Ok(());
        }
        let compiled = self.compiled(entry);
        let Compiled::Checked(validator) = compiled.as_ref() else {
            return Ok(());
        };
        let Ok(instance) = serde_json::from_str::<Value>(input) else {
            return Ok(());
        };
        if validator.is_valid(&instance) {
            return Ok(());
        }
        Err(message::reject(
            validator,
            &instance,
            &entry.parameters,
            input.len() <= MAX_LISTED_INPUT_BYTES,
        ))
    }

    fn compiled(&self, entry: &CatalogEntry) -> Arc<Compiled> {
        if let Some(compiled) = self.by_id.lock().get(&entry.id) {
            return compiled.clone();
        }
        // Compiled outside the lock: two cells may compile the same schema
        // once each, and neither waits for the other.
        let compiled = Arc::new(match compile(&entry.parameters) {
            Ok(validator) => Compiled::Checked(validator),
            Err(reason) => {
                record_problem(format!(
                    "tool {} ({}): its input schema does not compile ({reason}); its inputs are not validated.",
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

/// Compiles a schema the way every tool's is compiled.
fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    // No `dfa_size_limit`: a small one made every match of a pattern cost
    // microseconds (measured with `npm run bench`).
    let options = jsonschema::PatternOptions::regex().size_limit(1 << 20);
    jsonschema::options()
        .offline()
        .with_pattern_options(options)
        .should_validate_formats(false)
        .build(schema)
        .map_err(|error| crate::messages::cut(error.to_string(), 300))
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
