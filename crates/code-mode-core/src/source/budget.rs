//! A bound on the work swc may do to parse a cell, proportional to its size.
//!
//! Most of swc's parser reads each token once, but its TypeScript grammar
//! guesses and backtracks: at `<` it first tries a generic arrow function or
//! type arguments, at `(...):` inside `? :` an arrow function with a return
//! type; when the guess fails the lexer rewinds and the tokens are read again.
//! A guess can hold further guesses, so `return <any>(<any>(... 1))` doubles
//! the work per level (148 bytes took 7 s), and chains such as
//! `<any><any>...1` or `a < b, a < b, ...` are quadratic or worse. Labels cost
//! the number of labels around them each (`a: a: a: ... 1`, with an error per
//! duplicate). No count of characters can tell those apart from ordinary code
//! without lexing, and lexing JavaScript needs the parser.
//!
//! So the parser itself is metered: the vendored `swc_ecma_parser`
//! (`vendor/swc_ecma_parser/PATCHES.md`) charges a thread-local budget for
//! every token it reads, again after every rewind, for every 32 bytes of a
//! long token or of skipped whitespace, and for that label work; once the
//! budget is spent its lexer reports the end of the input and the parse ends
//! at once. Each parse of a cell (screening, stripping, lowering decorators)
//! gets [`units_for`] its source: ordinary code needs 0.1 to 0.6 units per
//! byte, the densest TypeScript of generic calls and comparisons about 1.9.

use swc_ecma_parser::budget::with_budget;

use crate::limits::{PARSE_UNITS_BASE, PARSE_UNITS_MAX, PARSE_UNITS_PER_BYTE};

/// The budget of one parse of `source_len` bytes.
pub(super) fn units_for(source_len: usize) -> u64 {
    (PARSE_UNITS_BASE + PARSE_UNITS_PER_BYTE * source_len as u64).min(PARSE_UNITS_MAX)
}

/// The budget ran out: the parse would have cost more than [`units_for`]
/// its source.
#[derive(Debug, PartialEq)]
pub(super) struct Exceeded;

/// Runs `parse` (anything that parses `source_len` bytes with swc) under
/// its budget. Past the budget the parser saw a premature end of input: its
/// result, success included, only tells where it stopped.
pub(super) fn run<R>(source_len: usize, parse: impl FnOnce() -> R) -> (R, Result<(), Exceeded>) {
    let (result, spending) = with_budget(units_for(source_len), parse);
    (
        result,
        if spending.spent {
            Err(Exceeded)
        } else {
            Ok(())
        },
    )
}
