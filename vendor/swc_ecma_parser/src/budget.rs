//! code-mode patch: an opt-in bound on the work one parse may do.
//!
//! TypeScript parsing backtracks (`try_parse_ts`, `ts_look_ahead`): a failed
//! attempt rewinds the lexer and the same tokens are read again. Attempts
//! nest, so some inputs take quadratic or exponential time (`<any>(<any>(...`
//! doubles the work per level). Labels cost the depth of the enclosing labels
//! each. A budget set with [`with_budget`] is charged for every token the
//! lexer reads (re-reads after a rewind included, long tokens and skipped
//! whitespace by their length) and for that label work; once it is spent, the
//! lexer reports the end of the input, so every pending attempt fails at its
//! next token and the parse ends after work proportional to the budget.
//!
//! Without a budget (the default) nothing is charged and nothing changes.

use std::cell::Cell;

thread_local! {
    /// Units left on this thread, or `None` when no budget is set.
    static LEFT: Cell<Option<u64>> = const { Cell::new(None) };
    /// Whether the current budget ran out.
    static SPENT: Cell<bool> = const { Cell::new(false) };
}

/// Bytes of input that cost as much as one token.
pub const BYTES_PER_UNIT: u32 = 32;

/// What a parse under [`with_budget`] spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spending {
    /// Units charged (at most the budget).
    pub used: u64,
    /// Whether the budget ran out: the parse then saw a premature end of
    /// input, so its result (success included) says nothing about the source.
    pub spent: bool,
}

/// Runs `f` with at most `units` of parsing work on this thread, for every
/// parser `f` runs. Budgets nest: an inner one replaces the outer one until
/// it returns (its work is not charged to the outer one).
pub fn with_budget<R>(units: u64, f: impl FnOnce() -> R) -> (R, Spending) {
    struct Restore(Option<u64>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            LEFT.with(|left| left.set(self.0));
            SPENT.with(|spent| spent.set(self.1));
        }
    }
    let _restore = Restore(
        LEFT.with(|left| left.replace(Some(units))),
        SPENT.with(|spent| spent.replace(false)),
    );
    let result = f();
    let left = LEFT.with(Cell::get).unwrap_or(0);
    let spending = Spending {
        used: units - left,
        spent: SPENT.with(Cell::get),
    };
    (result, spending)
}

/// Charges `units`; returns whether the budget is spent.
#[inline]
pub(crate) fn charge(units: u64) -> bool {
    LEFT.with(|left| match left.get() {
        None => false,
        Some(have) if have >= units => {
            left.set(Some(have - units));
            false
        }
        Some(_) => {
            left.set(Some(0));
            SPENT.with(|spent| spent.set(true));
            true
        }
    })
}

/// Charges one token that advanced the input by `bytes`.
#[inline]
pub(crate) fn charge_token(bytes: u32) -> bool {
    charge(1 + u64::from(bytes / BYTES_PER_UNIT))
}

/// Whether the current budget is spent.
#[inline]
pub(crate) fn spent() -> bool {
    SPENT.with(Cell::get)
}
