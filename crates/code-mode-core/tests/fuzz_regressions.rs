//! Replays the fuzz seeds (`fuzz/seeds/<target>/`) and every saved fuzz
//! finding (`fuzz/regressions/<target>/`) through the fuzz harness itself,
//! included by path, so `cargo test` keeps both passing without nightly Rust
//! or cargo-fuzz. `docs/fuzzing.md` describes the targets and their inputs.

#[allow(dead_code)]
#[path = "../../../fuzz/harness/mod.rs"]
mod harness;

use std::panic::catch_unwind;
use std::path::{Path, PathBuf};

type Run = fn(&[u8]);

const TARGETS: [(&str, Run); 5] = [
    ("source", harness::source::run),
    ("json_bridge", harness::json_bridge::run),
    ("catalog_search", harness::catalog_search::run),
    ("exec_input", harness::exec_input::run),
    ("oom", harness::oom::run),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `fuzz/<kind>/<target>/`, sorted; none when it is missing.
fn files(kind: &str, target: &str) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(fuzz_dir().join(kind).join(target)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = dir
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Runs every seed and regression of `target`; fails naming each input
/// that panicked (its message is printed above).
fn replay(target: &str) {
    let (_, run) = TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .expect("a known target");
    let seeds = files("seeds", target);
    assert!(!seeds.is_empty(), "no seeds for {target}");
    let failed: Vec<PathBuf> = seeds
        .into_iter()
        .chain(files("regressions", target))
        .filter(|path| {
            let data = std::fs::read(path).expect("a readable input");
            catch_unwind(|| run(&data)).is_err()
        })
        .collect();
    assert!(failed.is_empty(), "{target} failed on {failed:?}");
}

#[test]
fn source() {
    replay("source");
}

#[test]
fn json_bridge() {
    replay("json_bridge");
}

#[test]
fn catalog_search() {
    replay("catalog_search");
}

#[test]
fn exec_input() {
    replay("exec_input");
}

/// The corpus cells with no fault (`crates/code-mode-core/tests/oom.rs`
/// sweeps them), and the fuzzer's findings, each at its N.
#[test]
fn oom() {
    replay("oom");
}

/// A finding saved under a misspelled target would never be replayed.
#[test]
fn every_regression_directory_is_a_target() {
    let Ok(dir) = std::fs::read_dir(fuzz_dir().join("regressions")) else {
        return;
    };
    for entry in dir {
        let path = entry.expect("a readable directory entry").path();
        let name = path.file_name().and_then(|name| name.to_str());
        assert!(
            !path.is_dir() || TARGETS.iter().any(|(target, _)| Some(*target) == name),
            "{path:?} is not a fuzz target"
        );
    }
}

/// The fuzz workspace is not the root workspace, so it repeats the root's
/// `[patch.crates-io]`: the core must be fuzzed with the crates it ships with.
#[test]
fn the_fuzz_workspace_patches_what_the_root_patches() {
    let patches = |manifest: PathBuf, vendor: &str| {
        let text = std::fs::read_to_string(&manifest).expect("a readable manifest");
        let mut lines: Vec<String> = text
            .lines()
            .map(str::trim)
            .skip_while(|line| *line != "[patch.crates-io]")
            .skip(1)
            .take_while(|line| !line.starts_with('['))
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(|line| line.replace(vendor, "\"vendor/"))
            .collect();
        lines.sort();
        lines
    };
    let root = fuzz_dir().join("..");
    assert_eq!(
        patches(root.join("Cargo.toml"), "\"vendor/"),
        patches(fuzz_dir().join("Cargo.toml"), "\"../vendor/"),
        "fuzz/Cargo.toml must repeat the root's [patch.crates-io]"
    );
}
