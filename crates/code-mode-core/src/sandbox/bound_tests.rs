//! The timer bounds of `limits.rs` at their value and one past it:
//! [`MIN_INTERVAL_MS`], [`MAX_TIMER_DELAY_MS`] and [`TIMER_HOST_BYTES`].
//!
//! No assertion reads a clock against a duration. A timer's due time is
//! checked against the instants taken just before and just after the cell
//! armed it (a bracket that load only widens), and a clamp is shown by the
//! order of two timers: the one armed first with the clamped delay is due no
//! later than the one armed next with the bound itself.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{CellOutcome, Control, Toolbox, Vm, VmLimits};
use crate::catalog::Catalog;
use crate::config::Language;
use crate::limits::{MAX_TIMER_DELAY_MS, MIN_INTERVAL_MS, TIMER_HOST_BYTES};

fn toolbox() -> Arc<Toolbox> {
    Arc::new(Toolbox {
        catalog: Arc::new(Catalog::build(&[])),
        mcp: Default::default(),
        namespaces: Default::default(),
        validate: true,
        validators: Default::default(),
        search_default_limit: 8,
        max_search_limit: 50,
        counters: Default::default(),
    })
}

/// A VM that ran `code` (which arms timers and then waits): it, and the
/// instants just before and after it armed them.
fn armed(code: &str) -> (Vm, Instant, Instant) {
    let limits = VmLimits {
        memory_bytes: 64 << 20,
        stack_bytes: 1 << 20,
        max_output_bytes: 1 << 16,
        max_bridge_bytes: 1 << 20,
    };
    let script = crate::source::prepare(
        &format!("{code}\nawait new Promise(() => {{}})"),
        Language::Javascript,
    )
    .unwrap()
    .script;
    let mut vm = Vm::blank(limits.stack_bytes).unwrap();
    vm.bind(limits, Arc::new(Control::default()), toolbox())
        .unwrap();
    let before = Instant::now();
    let outcome = vm.start(&script);
    let after = Instant::now();
    assert!(matches!(outcome, CellOutcome::Pending), "{outcome:?}");
    (vm, before, after)
}

fn ms(value: f64) -> Duration {
    Duration::from_micros((value * 1000.0) as u64)
}

/// The earliest timer is due `delay` after it was armed.
fn assert_due_after(code: &str, delay: Duration) {
    let (vm, before, after) = armed(code);
    let due = vm.next_timer_due().expect("a live timer");
    assert!(
        before + delay <= due && due <= after + delay,
        "{code}: due {:?} after the cell started, expected {delay:?}",
        due - before
    );
}

/// The methods and sequence numbers of the live timers, earliest due first.
fn order(vm: &Vm) -> Vec<String> {
    vm.pending_calls()
        .into_iter()
        .map(|call| call.id.rsplit(':').take(2).collect::<Vec<_>>().join("@"))
        .collect()
}

#[test]
fn an_interval_period_is_at_least_min_interval_ms() {
    // At the bound, the period is the bound.
    assert_due_after("setInterval(() => {}, 10)", ms(MIN_INTERVAL_MS));
    assert_due_after("setInterval(() => {}, 11)", ms(MIN_INTERVAL_MS + 1.0));
    // One below (and 0) is raised to it: an interval of 9 ms armed after a
    // 10 ms timeout is not due before it.
    for shorter in ["9", "9.999", "0"] {
        let (vm, ..) = armed(&format!(
            "setTimeout(() => {{}}, 10); setInterval(() => {{}}, {shorter})"
        ));
        assert_eq!(
            order(&vm),
            ["1@setTimeout", "2@setInterval"],
            "setInterval(f, {shorter})"
        );
    }
    // A timeout has no minimum.
    assert_due_after("setTimeout(() => {}, 9)", ms(9.0));
}

#[test]
fn a_delay_is_at_most_max_timer_delay_ms() {
    assert_eq!(MAX_TIMER_DELAY_MS, 2_147_483_647.0);
    assert_due_after("setTimeout(() => {}, 2147483647)", ms(MAX_TIMER_DELAY_MS));
    assert_due_after("setInterval(() => {}, 2147483647)", ms(MAX_TIMER_DELAY_MS));
    // Past it, the delay is the bound: a timer of 2^31 ms armed before one
    // of 2^31 - 1 ms is due first (or at the same time, then in the order
    // they were armed).
    for longer in ["2147483648", "1e300", "Infinity"] {
        let (vm, ..) = armed(&format!(
            "setTimeout(() => {{}}, {longer}); setTimeout(() => {{}}, 2147483647)"
        ));
        assert_eq!(
            order(&vm),
            ["1@setTimeout", "2@setTimeout"],
            "setTimeout(f, {longer})"
        );
        assert_due_after(
            &format!("setTimeout(() => {{}}, {longer})"),
            ms(MAX_TIMER_DELAY_MS),
        );
    }
}

#[test]
fn each_live_timer_holds_timer_host_bytes() {
    // Without a parent call id (no leg started), a table holds exactly
    // TIMER_HOST_BYTES per live timer.
    for count in [1, 2, 3] {
        let (vm, ..) = armed(&"setTimeout(() => {}, 60000);".repeat(count));
        assert_eq!(vm.held_bytes(), count * TIMER_HOST_BYTES, "{count} timers");
    }
    let (vm, ..) = armed(
        "const t = setTimeout(() => {}, 60000); setTimeout(() => {}, 60000); clearTimeout(t)",
    );
    assert_eq!(
        vm.held_bytes(),
        TIMER_HOST_BYTES,
        "a cleared timer frees its bytes"
    );
}
