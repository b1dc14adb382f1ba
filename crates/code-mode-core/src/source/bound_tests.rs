//! The source bounds of `limits.rs` at their value and one past it: the parse
//! budget ([`PARSE_UNITS_BASE`], [`PARSE_UNITS_PER_BYTE`],
//! [`PARSE_UNITS_MAX`]), what a parse may spend of it, and
//! [`MAX_SAME_NAME_PAIRS`]. (`MAX_SOURCE_BYTES`, `MAX_OPENING_UNITS` and
//! `MAX_REWRITTEN_CONSTRUCTS` are tested at N and N + 1 by
//! `__test__/adversarial-source.test.mjs`, `guard.rs` and
//! `tests/source_bounds.rs`.)

use swc_common::BytePos;
use swc_ecma_parser::budget::with_budget;
use swc_ecma_parser::{StringInput, Syntax, TsSyntax};

use super::budget::units_for;
use super::screen::parser;
use super::{prepare, SourceError};
use crate::config::Language;
use crate::limits::{MAX_SAME_NAME_PAIRS, PARSE_UNITS_BASE, PARSE_UNITS_MAX, PARSE_UNITS_PER_BYTE};

#[test]
fn the_budget_grows_by_two_units_a_byte_up_to_its_maximum() {
    assert_eq!(PARSE_UNITS_BASE, 16 * 1024);
    assert_eq!(PARSE_UNITS_PER_BYTE, 2);
    assert_eq!(PARSE_UNITS_MAX, 1024 * 1024);
    assert_eq!(units_for(0), 16_384);
    assert_eq!(units_for(1), 16_386);
    // The maximum is reached at (1048576 - 16384) / 2 = 516096 bytes.
    assert_eq!(units_for(516_095), 1_048_574);
    assert_eq!(units_for(516_096), 1_048_576);
    assert_eq!(units_for(516_097), 1_048_576);
    assert_eq!(units_for(1 << 20), 1_048_576);
}

/// Parses `source` as TypeScript under a budget of `units`: whether the
/// budget ran out, and what it used.
fn parse_with(source: &str, units: u64) -> (bool, u64) {
    let ((), spending) = with_budget(units, || {
        let input = StringInput::new(source, BytePos(1), BytePos(1 + source.len() as u32));
        let mut parser = parser(Syntax::Typescript(TsSyntax::default()), input);
        let _ = parser.parse_script();
    });
    (spending.spent, spending.used)
}

#[test]
fn a_parse_may_spend_its_whole_budget_and_not_one_unit_more() {
    // Backtracking TypeScript and labels inside labels: units well above
    // the token count.
    for source in [
        "const f = <T,>(x: T) => x; let a = b < c, d = e > (f);\nreturn f(a)",
        &"a: ".repeat(40).to_string(),
        "return <any>(<any>(<any>(1)))",
    ] {
        let (spent, used) = parse_with(source, u64::MAX / 2);
        assert!(!spent && used > 0, "{source}");
        assert_eq!(parse_with(source, used), (false, used), "{source}: at N");
        assert!(
            parse_with(source, used - 1).0,
            "{source}: at N - 1 the budget runs out"
        );
    }
}

/// A TypeScript cell that swc rewrites (a `<T>x` assertion) and that
/// declares names `E0`, `E1`, ... as often as `counts` says.
fn declaring(counts: &[usize]) -> String {
    let mut cell = String::from("let z = <any>1;\n");
    for (name, &count) in counts.iter().enumerate() {
        cell.push_str(&format!("{{ let E{name} = 1; E{name}; }}\n").repeat(count));
    }
    cell.push_str("return z");
    cell
}

fn pairs(counts: &[usize]) -> u64 {
    counts.iter().map(|&n| (n * (n - 1) / 2) as u64).sum()
}

#[test]
fn same_name_pairs_are_allowed_up_to_the_bound() {
    assert_eq!(MAX_SAME_NAME_PAIRS, 1_000_000);
    // 998991 + 990 + 15 + 3 + 1 pairs: exactly the bound.
    let at = [1414, 45, 6, 3, 2];
    assert_eq!(pairs(&at), MAX_SAME_NAME_PAIRS);
    let prepared = prepare(&declaring(&at), Language::Typescript);
    assert!(prepared.is_ok(), "{:?}", prepared.err());
    // One more pair.
    let past = [1414, 45, 6, 3, 2, 2];
    assert_eq!(pairs(&past), MAX_SAME_NAME_PAIRS + 1);
    assert!(matches!(
        prepare(&declaring(&past), Language::Typescript),
        Err(SourceError::TooManySameNames { .. })
    ));
}
