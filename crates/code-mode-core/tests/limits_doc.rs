//! `docs/limits.md` lists every constant of `limits.rs` and `tuning.rs`
//! with its value, in its section "Every fixed value". A constant added,
//! renamed, removed or changed in Rust and not in the page fails here:
//! `UPDATE_LIMITS_DOC=1 cargo test -p code-mode-core --test limits_doc`
//! writes the tables again.

use std::path::Path;
use std::time::Duration;

use code_mode_core::{limits, tuning};

/// A constant's value as the page shows it.
trait Shown {
    fn shown(&self) -> String;
}

macro_rules! shown_as_display {
    ($($t:ty),*) => { $(impl Shown for $t { fn shown(&self) -> String { self.to_string() } })* };
}
shown_as_display!(usize, u64, u32, f64);

impl Shown for Duration {
    fn shown(&self) -> String {
        format!("{self:?}")
    }
}

/// `(name, value)` of each constant named, read from `$module`.
macro_rules! values {
    ($module:ident: $($name:ident),* $(,)?) => {
        vec![$((stringify!($name), $module::$name.shown())),*]
    };
}

fn limits() -> Vec<(&'static str, String)> {
    values![limits:
        MAX_SOURCE_BYTES, MAX_OPENING_UNITS, JS_STACK_BYTES, WORKER_STACK_BYTES,
        MAX_BRIDGE_BYTES, MAX_LEG_INPUT_BYTES, TURN_WORK_MICROS, INPUT_PIECE_BYTES,
        INLINE_INPUT_BYTES, INLINE_BATCH_BYTES, INPUT_PIECE_MEMBERS, MAX_QUEUED_CALLS,
        MAX_QUERY_BYTES, MAX_YIELD_REASON_BYTES, MAX_TIMERS, MAX_TIMER_DELAY_MS,
        MIN_INTERVAL_MS, TIMER_HOST_BYTES, MAX_PARKED_RUNS, MAX_DEPTH, MAX_OBJECT_MEMBERS,
        MAX_ERROR_PART_BYTES, WATCHDOG_GRACE, WATCHDOG_INTERVAL, STRANDED_GRACE,
        MAX_ABANDONED_PER_SESSION, MAX_REPLACED_ABANDONED, MAX_WORKER_THREADS,
        MAX_SUGGESTIONS, PARSE_UNITS_PER_BYTE, PARSE_UNITS_BASE, PARSE_UNITS_MAX,
        MAX_REWRITTEN_CONSTRUCTS, MAX_SAME_NAME_PAIRS, DECLARATION_NODES, DECLARATION_DEPTH,
        DECLARATION_TYPE_BYTES, DECLARATION_LOST_PATHS, NAMESPACE_SCOPE_NODES,
        NAMESPACE_SCOPE_BYTES, NAMESPACE_SCOPE_DEPTH, NAMESPACE_CALLABLES,
        NAMESPACE_TEXT_CHARS, NAMESPACE_REQUIRED_TOOLS, MAX_LISTED_PROBLEMS,
        MAX_PROBLEM_BYTES, MAX_LISTED_INPUT_BYTES, MAX_SCHEMA_PROBLEMS,
        HOST_CHECK_BYTES, NAMESPACE_ARGS_BYTES,
        MAX_CHECK_WORK, MAX_ERROR_WORK, HOST_CHECK_WORK,
        MAX_SCHEMA_VALUES, MAX_SCHEMA_DEPTH, MAX_PATTERN_BYTES, MAX_PATTERN_COST,
        MAX_PATTERN_NFA_BYTES, MAX_SCHEMA_WORK, MAX_SCHEMA_WALK_DEPTH,
        MAX_NEAR_MISS_CANDIDATES, MAX_NEAR_MISS_COMPARED, MAX_CALL_SITES,
        MAX_CALL_NAME_BYTES, MAX_CALL_HOLES, MAX_CALL_SCAN_DEPTH, PIECE_OPEN_DEPTH,
        DECLARATION_DESCRIPTION_LINES, DECLARATION_LINE_CHARS, DECLARATION_WRAP_CHARS,
        DECLARATION_VALUE_CHARS, DECLARATION_PATH_KEY_CHARS, DECLARATION_FEATURES_PER_PATH,
        MAX_LISTED_METHODS, MAX_SANDBOX_STARTS_PER_MINUTE, OWN_SANDBOX_FOR,
        MAX_OWN_SANDBOXES, SANDBOX_ANSWER_GRACE, MAX_FRAME_BYTES, LIGHT_FRAME_BYTES,
        INLINE_BUILD_BYTES, MAX_SANDBOX_CALLS_IN_FLIGHT,
    ]
}

fn tunings() -> Vec<(&'static str, String)> {
    values![tuning:
        HOST_HOT_MS, HOST_COLD_MS, TOOLS_FIRST_SLICE, TOOLS_MAX_SLICE, WORKER_SPIN,
        WORKER_NEXT_JOB_SPIN, WORKER_SPIN_AFTER_SLOW, HOST_CORE_FRESH, STEP_ASIDE_EVERY,
        CONTENTION_WINDOW, CONTENTION_WINDOW_STALE, BLOCK_BELOW_CORES, POLL_FROM_CORES,
    ]
}

fn crate_file(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).expect(name)
}

/// The names of the `pub const`s of a source file, in order.
fn declared(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|line| line.strip_prefix("pub const "))
        .map(|rest| rest.split(':').next().unwrap_or_default().trim().to_owned())
        .collect()
}

fn table(values: &[(&str, String)]) -> String {
    let mut out = String::from("| Constant | Value |\n|---|---:|\n");
    for (name, value) in values {
        out.push_str(&format!("| `{name}` | {value} |\n"));
    }
    out
}

const HEADING: &str = "## Every fixed value\n";

/// The section as this test writes it.
fn section() -> String {
    format!(
        "{HEADING}\n\
         Each constant of `crates/code-mode-core/src/limits.rs` and of\n\
         `tuning.rs` beside it, by its name there, with its value (sizes in\n\
         bytes unless the name says otherwise). A test\n\
         (`crates/code-mode-core/tests/limits_doc.rs`) keeps these tables in\n\
         step with the code.\n\n\
         ### Bounds (`limits.rs`)\n\n{}\n\
         ### Hand-off timings (`tuning.rs`)\n\n{}",
        table(&limits()),
        table(&tunings()),
    )
}

#[test]
fn every_constant_of_limits_and_tuning_is_listed_here() {
    for (file, listed) in [("src/limits.rs", limits()), ("src/tuning.rs", tunings())] {
        let names: Vec<&str> = listed.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            declared(&crate_file(file)),
            names,
            "{file}'s constants and this test's list differ: list them here, in order"
        );
    }
}

#[test]
fn docs_limits_md_lists_every_fixed_value() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/limits.md");
    let page = std::fs::read_to_string(&path).expect("docs/limits.md");
    let start = page
        .find(HEADING)
        .expect("docs/limits.md has a section \"Every fixed value\"");
    let end = page[start + HEADING.len()..]
        .find("\n## ")
        .map_or(page.len(), |at| start + HEADING.len() + at + 1);
    let expected = section();
    if std::env::var_os("UPDATE_LIMITS_DOC").is_some_and(|value| value == "1") {
        let written = format!("{}{expected}{}", &page[..start], &page[end..]);
        std::fs::write(&path, written).expect("write docs/limits.md");
        return;
    }
    assert!(
        page[start..end] == expected,
        "docs/limits.md's \"Every fixed value\" is not in step with limits.rs and tuning.rs: \
         run `UPDATE_LIMITS_DOC=1 cargo test -p code-mode-core --test limits_doc`\n--- expected\n{expected}\n--- found\n{}",
        &page[start..end],
    );
}
