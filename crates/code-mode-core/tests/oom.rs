//! Out-of-memory at every allocation: the corpus cells of `fuzz/seeds/oom/`
//! run through the engine with their VM's allocator refusing its Nth
//! allocation (`fuzz/harness/oom.rs`). `npm test` runs a slice of N per
//! cell; `npm run fuzz` sweeps every N (the ignored test below) and fuzzes.
//! A second test walks the guest's globals and the builtins' own properties
//! and fails for any that no corpus cell names, so a new global cannot skip
//! the sweep.

#[allow(dead_code)]
#[path = "../../../fuzz/harness/mod.rs"]
mod harness;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use code_mode_core::config::Language;
use harness::oom;

/// Faults per cell in `npm test`, spread over the cell's allocations.
const SLICE: u64 = 12;

fn corpus() -> Vec<(PathBuf, String, Language)> {
    // `OOM_CORPUS` points the sweeps at another directory of cells.
    let dir = std::env::var_os("OOM_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/oom"),
        PathBuf::from,
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fuzz/seeds/oom exists")
        .map(|entry| entry.expect("a readable entry").path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).expect("a readable seed");
            let (code, language) = oom::decode(&bytes);
            (path, code, language)
        })
        .collect()
}

#[test]
fn every_corpus_cell_survives_a_slice_of_allocation_failures() {
    let cells = corpus();
    assert!(cells.len() >= 20, "the corpus has {} cells", cells.len());
    let mut runs = 0;
    for (index, (path, code, language)) in cells.iter().enumerate() {
        let total = oom::allocations(code, *language);
        let stride = (total / SLICE).max(1);
        // Each cell starts at a different offset, so the slices of all cells
        // together reach more distinct points of the shared paths.
        let first = 1 + (index as u64 * 7919) % stride;
        runs += oom::sweep_from(code, *language, first, stride);
        println!("{}: {total} allocations", path.display());
    }
    println!("{} cells, {runs} runs", cells.len());
}

/// Every N of every corpus cell: `npm run fuzz` (scripts/fuzz.sh) runs it.
#[test]
#[ignore = "the full sweep takes minutes: npm run fuzz"]
fn every_corpus_cell_survives_every_allocation_failure() {
    let (mut cells, mut runs) = (0, 0);
    for (path, code, language) in corpus() {
        let made = oom::sweep_from(&code, language, 1, 1);
        println!("{}: {made} runs", path.display());
        cells += 1;
        runs += made;
    }
    println!("oom sweep: {cells} cells, {runs} runs (cells x N)");
}

/// Globals that exist only in test builds.
const TEST_ONLY: [&str; 1] = ["__block"];

#[test]
fn the_corpus_names_every_global_and_every_builtin_property() {
    let walked = oom::run_cell(oom::WALK, Language::Javascript, 0);
    assert_eq!(walked.result["status"], "completed", "{}", walked.result);
    let names: Vec<String> = serde_json::from_value(walked.result["value"].clone()).unwrap();
    assert!(names.len() > 300, "the walk found {} names", names.len());
    let text: String = corpus()
        .into_iter()
        .map(|(_, code, _)| code + "\n")
        .collect();
    let tokens: BTreeSet<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|token| !token.is_empty())
        .collect();
    let missing: Vec<&String> = names
        .iter()
        .filter(|name| !TEST_ONLY.iter().any(|hook| name.contains(hook)))
        .filter(|name| {
            let last = name.rsplit('.').next().unwrap_or(name);
            // `[Symbol.iterator]` is named by its well-known symbol.
            match last.strip_prefix('[').and_then(|key| key.strip_suffix(']')) {
                Some(symbol) => !text.contains(&format!("Symbol.{symbol}")),
                None => !tokens.contains(last),
            }
        })
        .collect();
    assert!(
        missing.is_empty(),
        "no corpus cell in fuzz/seeds/oom/ names these ({}); add a cell that uses them:\n{}",
        missing.len(),
        missing
            .iter()
            .map(|name| name.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Replays one cell at one N, for a finding: `OOM_CELL=fuzz/seeds/oom/x.js
/// OOM_N=37 cargo test --profile ci --test oom replay_one -- --ignored
/// --nocapture` (add `OOM_TRACE=1` to print where the refused allocation
/// was made).
#[test]
#[ignore = "a tool for findings, driven by OOM_CELL and OOM_N"]
fn replay_one() {
    let path = std::env::var("OOM_CELL").expect("OOM_CELL names a seed file");
    // One N, or several separated by commas, run in turn.
    let list = std::env::var("OOM_N").expect("OOM_N is the allocation to refuse");
    let bytes = std::fs::read(&path).expect("a readable seed");
    let (code, language) = oom::decode(&bytes);
    for nth in list.split(',') {
        let nth: u64 = nth.trim().parse().expect("OOM_N is a list of numbers");
        let ran = oom::run_cell(&code, language, nth);
        println!("N={nth}: {}", ran.result);
    }
}
