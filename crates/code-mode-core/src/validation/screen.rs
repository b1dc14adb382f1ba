//! What compiling a schema may cost, bounded before the crate compiles it.
//!
//! Compiling runs on first use, on a worker or, for a plugin namespace call,
//! on the Node thread; the crate has no step hook. So a schema is compiled
//! only when, read once from end to end (linear in its size), it stays under
//! these bounds:
//!
//! - its size ([`MAX_SCHEMA_VALUES`] JSON values and keys) and depth
//!   ([`MAX_SCHEMA_DEPTH`] levels): the crate's compile is linear in them
//!   once every `$ref` resolves in one place (below);
//! - its patterns: each at most [`MAX_PATTERN_BYTES`] of text, whose
//!   compiling, estimated from their syntax, costs at most
//!   [`MAX_PATTERN_COST`] together (at most 128 patterns, then: each costs a
//!   fixed part): a `\p{L}` costs its Unicode ranges, not its five
//!   characters;
//! - identifiers: a `$id` below the root, an `$anchor`, `$dynamicAnchor` or
//!   `$recursiveAnchor`, and any `$dynamicRef` or `$recursiveRef`. Each of
//!   them makes where a `$ref` leads depend on the path to it, and the crate
//!   compiles a target once per path (its dynamic scope): a chain of such
//!   resources compiles exponentially often. Without them every local `$ref`
//!   is a JSON pointer into the one document, which [`super::analysis`]
//!   follows exactly.
//!
//! The patterns found are returned with the weight [`super::analysis`]
//! charges for matching one byte against each.

use std::collections::HashMap;

use crate::limits::{
    MAX_PATTERN_BYTES, MAX_PATTERN_COST, MAX_PATTERN_NFA_BYTES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_VALUES,
};
use crate::messages;
use regex_automata::nfa::thompson;
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::Value;

/// Why a schema is not compiled.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    Large,
    Deep,
    Identifiers(&'static str),
    Patterns(String),
}

impl Refusal {
    pub fn reason(&self) -> String {
        match self {
            Refusal::Large => messages::schema_too_large(),
            Refusal::Deep => messages::schema_too_deep(),
            Refusal::Identifiers(keyword) => messages::schema_identifier(keyword),
            Refusal::Patterns(why) => why.clone(),
        }
    }
}

/// Each distinct pattern the engine compiles, with the weight of matching
/// one byte against it (see [`weight`]).
pub type Patterns = HashMap<String, u64>;

/// Reads `schema` once and says whether compiling it stays within the
/// bounds above; if it does, its patterns and their weights.
pub fn screen(schema: &Value) -> Result<Patterns, Refusal> {
    let draft4 = schema
        .get("$schema")
        .and_then(Value::as_str)
        .is_some_and(|uri| uri.contains("draft-04") || uri.contains("draft-03"));
    let mut values = 0usize;
    let mut found: Vec<&str> = Vec::new();
    // (value, depth, is the value of a `patternProperties` keyword)
    let mut stack: Vec<(&Value, usize, bool)> = vec![(schema, 0, false)];
    while let Some((value, depth, pattern_keys)) = stack.pop() {
        values += 1;
        if values > MAX_SCHEMA_VALUES {
            return Err(Refusal::Large);
        }
        if depth > MAX_SCHEMA_DEPTH {
            return Err(Refusal::Deep);
        }
        match value {
            Value::Object(map) => {
                values += map.len();
                if pattern_keys {
                    found.extend(map.keys().map(String::as_str));
                }
                for (key, member) in map {
                    let root = depth == 0;
                    let identifier = match (key.as_str(), member) {
                        ("$id", Value::String(_)) if !root => Some(messages::ID_BELOW_ROOT),
                        ("id", Value::String(_)) if !root && draft4 => {
                            Some(messages::DRAFT4_ID_BELOW_ROOT)
                        }
                        ("$anchor", Value::String(_)) => Some("$anchor"),
                        ("$dynamicAnchor", Value::String(_)) => Some("$dynamicAnchor"),
                        ("$recursiveAnchor", Value::Bool(true)) => Some("$recursiveAnchor"),
                        ("$dynamicRef", Value::String(_)) => Some("$dynamicRef"),
                        ("$recursiveRef", Value::String(_)) => Some("$recursiveRef"),
                        _ => None,
                    };
                    if let Some(keyword) = identifier {
                        return Err(Refusal::Identifiers(keyword));
                    }
                    if let ("pattern", Value::String(pattern)) = (key.as_str(), member) {
                        found.push(pattern);
                    }
                    stack.push((member, depth + 1, key == "patternProperties"));
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1, false))),
            _ => {}
        }
    }
    patterns(found)
}

/// The weight of each distinct pattern, or why together they cost too much
/// to compile.
///
/// Compiling a pattern in the engine costs about a microsecond per range of
/// its character classes, repeated as often as its repetitions say (`\p{L}`
/// has 677 ranges; `[\p{L}\p{N}]{0,10}` 7700), plus a fixed part: that
/// estimate, read from the pattern's syntax tree, is what
/// [`MAX_PATTERN_COST`] bounds, before anything is compiled. Then each
/// pattern's automaton is built here (with the same bound on its size) to
/// count its states, which sets what matching a byte costs.
fn patterns(found: Vec<&str>) -> Result<Patterns, Refusal> {
    let mut weights = Patterns::new();
    let mut left = MAX_PATTERN_COST;
    let mut spend = |cost: u64| -> Result<(), Refusal> {
        left = left.checked_sub(cost).ok_or_else(too_costly)?;
        Ok(())
    };
    for pattern in found {
        if weights.contains_key(pattern) {
            continue;
        }
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(Refusal::Patterns(messages::pattern_too_long()));
        }
        // Patterns the crate matches without the engine (a prefix, an exact
        // text, a few alternatives, `^\S*$`).
        if jsonschema_regex::analyze_pattern(pattern).is_some() {
            weights.insert(pattern.to_owned(), 1);
            continue;
        }
        // The crate's translation parses the pattern again for each `\cX`
        // it rewrites: charged (a unit per 32 bytes read) before it runs.
        let parses = 1 + pattern.matches("\\c").count() as u64;
        spend(PATTERN_BASE_COST + (pattern.len() as u64).saturating_mul(parses) / 32)?;
        // A pattern the translation or the engine's parser refuses does not
        // compile in the crate either: the schema is refused there.
        let Ok(translated) = jsonschema_regex::to_rust_regex(pattern) else {
            weights.insert(pattern.to_owned(), 1);
            continue;
        };
        // `^[a-z]{1,64}$` and the like: characters counted, no engine.
        if let Some(jsonschema_regex::Search::RepeatedClass(_)) =
            jsonschema_regex::search_form(pattern, &translated)
        {
            weights.insert(pattern.to_owned(), 2);
            continue;
        }
        let Ok(hir) = regex_syntax::ParserBuilder::new()
            .nest_limit(250)
            .build()
            .parse(&translated)
        else {
            weights.insert(pattern.to_owned(), 1);
            continue;
        };
        spend(estimate(&hir))?;
        let nfa = thompson::Compiler::new()
            .configure(thompson::Config::new().nfa_size_limit(Some(MAX_PATTERN_NFA_BYTES)))
            .build_from_hir(&hir);
        let Ok(nfa) = nfa else {
            // Over the size limit the crate compiles with: it refuses it too.
            weights.insert(pattern.to_owned(), 1);
            continue;
        };
        weights.insert(pattern.to_owned(), weight(nfa.states().len()));
    }
    Ok(weights)
}

/// The units of compiling a pattern beyond its classes: about 64 µs.
const PATTERN_BASE_COST: u64 = 64;

/// What compiling a pattern costs, from its syntax tree: each character
/// class its ranges, each literal its bytes, times the most a repetition
/// repeats them (an unbounded one counts once, a `{0,100}` a hundred times).
fn estimate(hir: &Hir) -> u64 {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 1,
        HirKind::Literal(literal) => literal.0.len() as u64,
        HirKind::Class(Class::Unicode(class)) => class.ranges().len() as u64,
        HirKind::Class(Class::Bytes(class)) => class.ranges().len() as u64,
        HirKind::Repetition(repetition) => {
            let times = repetition.max.unwrap_or(repetition.min).max(1);
            estimate(&repetition.sub).saturating_mul(u64::from(times))
        }
        HirKind::Capture(capture) => estimate(&capture.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().map(estimate).fold(1u64, u64::saturating_add)
        }
    }
}

fn too_costly() -> Refusal {
    Refusal::Patterns(messages::patterns_too_costly())
}

/// What matching one byte against a pattern of `states` automaton states
/// costs, in the units of [`super::analysis`]. The engine's lazy DFA matches
/// a byte in constant time, but a pattern whose DFA has too many states
/// (`(a|b)*a(a|b){24}`) makes it give up, and the engine then simulates the
/// automaton: measured at up to 40 ns per state and byte
/// (`bench/validation.mjs`). Which patterns can do that is not known
/// without building their DFA, which costs more than matching: every
/// pattern is charged as if it did.
pub fn weight(states: usize) -> u64 {
    (states as u64)
        .saturating_mul(UNITS_PER_STATE)
        .saturating_add(1)
}

/// Units charged per automaton state and byte matched.
const UNITS_PER_STATE: u64 = 40;
