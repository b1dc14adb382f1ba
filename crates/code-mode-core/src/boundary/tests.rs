use std::path::PathBuf;

use super::javascript;
use crate::runs::pieces::PieceOp;

/// `src-js/` of the binding, beside this crate.
fn src_js(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../src-js")
        .join(name)
}

/// Compares `path` with `expected`; with `UPDATE_BOUNDARY=1`, writes it.
fn check_written(path: PathBuf, expected: &str) {
    if std::env::var_os("UPDATE_BOUNDARY").is_some_and(|value| value == "1") {
        std::fs::write(&path, expected).expect("write");
        return;
    }
    let found = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        found == expected,
        "{} is not what the core writes: run `UPDATE_BOUNDARY=1 cargo test -p code-mode-core boundary` \
         and commit it\n--- expected\n{expected}\n--- found\n{found}",
        path.display(),
    );
}

#[test]
fn src_js_boundary_js_is_what_the_core_writes() {
    check_written(src_js("boundary.js"), &javascript());
}

#[test]
fn src_js_records_d_ts_is_what_the_core_writes() {
    check_written(src_js("records.d.ts"), &crate::records::typescript());
}

#[test]
fn every_piece_op_has_its_own_code_and_is_found_by_it() {
    for op in PieceOp::ALL {
        assert_eq!(PieceOp::of(&format!("{}rest", op.code())), Some(op));
        assert_eq!(
            PieceOp::ALL
                .iter()
                .filter(|other| other.code() == op.code())
                .count(),
            1
        );
    }
    assert_eq!(PieceOp::of(""), None);
    assert_eq!(PieceOp::of("x"), None);
}

/// Inputs that exercise every operation: nested containers opened past the
/// piece size, empty ones, `__proto__` keys, escapes, members and elements
/// in several runs.
fn piece_cases() -> Vec<String> {
    let wide: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
    let long = "x".repeat(100);
    vec![
        format!("{{{}}}", wide.join(",")),
        format!("[{}]", (0..50).map(|i| i.to_string()).collect::<Vec<_>>().join(",")),
        format!(
            "{{\"__proto__\":{{\"polluted\":true,\"pad\":\"{long}\"}},\"a\":[[],{{}},[1,[2,[3]]],\"{long}\"],\"\\u00e9\\\"q\":{{\"nested\":{{\"deep\":[\"{long}\",{{\"__proto__\":1}}]}}}}}}"
        ),
        format!("[{{\"a\":\"{long}\"}},[\"{long}\",[]],{{}},null,true,\"\\ud83d\\ude00\"]"),
    ]
}

#[test]
fn the_js_tests_pieces_fixture_is_what_split_cuts() {
    use crate::runs::pieces::{split, PieceSize};
    let size = PieceSize {
        bytes: 48,
        members: 8,
    };
    let cases: Vec<serde_json::Value> = piece_cases()
        .into_iter()
        .map(|json| {
            let pieces = split(&json, size).expect("every case is cut");
            serde_json::json!({ "json": json, "pieces": pieces })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&cases).expect("json");
    text.push('\n');
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../__test__/fixtures/pieces.json");
    check_written(path, &text);
}
