//! A VM moved between threads at every leg, as parked runs are.

use std::sync::mpsc;
use std::sync::Arc;

use super::{CellOutcome, Control, Toolbox, Vm, VmLimits};
use crate::catalog::Catalog;
use crate::config::Language;

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

fn limits() -> VmLimits {
    VmLimits {
        memory_bytes: 64 << 20,
        stack_bytes: 1 << 20,
        max_output_bytes: 1 << 16,
        max_bridge_bytes: 1 << 20,
    }
}

#[test]
fn a_vm_resumed_on_another_thread_keeps_its_stack_budget() {
    let limits = limits();
    let script = crate::source::prepare(
        "const f = (n) => n === 0 ? 0 : 1 + f(n - 1); for (let i = 0; i < 20; i++) { await yield_control(); f(200) } return f(200)",
        Language::Javascript,
    )
    .unwrap()
    .script;
    // Two threads alive at once, so their stacks lie apart; the VM moves
    // between them at every leg.
    type Leg = (Vm, usize);
    let spawn = |name: &str| {
        let (tx, rx) = mpsc::channel::<Leg>();
        let (back_tx, back_rx) = mpsc::channel::<Leg>();
        let handle = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                for (mut vm, leg) in rx {
                    vm.rebind(Arc::new(Control::default()));
                    let outcome = vm.settle(Vec::new(), true);
                    match (leg, &outcome) {
                        (19, CellOutcome::Completed(value)) => assert_eq!(value.get(), "200"),
                        (_, CellOutcome::Pending) => {}
                        _ => panic!("leg {leg}: {outcome:?}"),
                    }
                    back_tx.send((vm, leg)).unwrap();
                }
            })
            .unwrap();
        (tx, back_rx, handle)
    };
    let mut vm = Vm::blank(limits.stack_bytes).unwrap();
    vm.bind(limits, Arc::new(Control::default()), toolbox())
        .unwrap();
    assert!(matches!(vm.start(&script), CellOutcome::Pending));
    let threads = [spawn("leg-a"), spawn("leg-b")];
    for leg in 0..20 {
        let (tx, rx, _) = &threads[leg % 2];
        tx.send((vm, leg)).unwrap();
        vm = rx.recv().expect("the leg thread panicked").0;
    }
    drop(vm);
    for (tx, _, handle) in threads {
        drop(tx);
        handle.join().unwrap();
    }
}

/// What a parked minimal run holds, by part: `cargo test parked_run_parts --
/// --nocapture` prints the table. The bound guards the total against a
/// regression (it moved from 186 KB to 124 KB with 1 KiB QuickJS arenas,
/// `vendor/rquickjs-sys/PATCHES.md`).
#[cfg(target_os = "linux")]
#[test]
fn parked_run_parts() {
    use super::alloc::{CountingAllocator, Meter};
    use rquickjs::{Context, Runtime};

    let limits = limits();
    let (runtime_alone, with_context) = {
        let meter = Meter::new(usize::MAX);
        let runtime = Runtime::new_with_alloc(CountingAllocator::new(meter.clone())).unwrap();
        let alone = meter.used();
        let context = Context::custom::<super::vm::Intrinsics>(&runtime).unwrap();
        runtime.run_gc();
        let with_context = meter.used();
        drop(context);
        (alone, with_context)
    };
    let vm = Vm::blank(limits.stack_bytes).unwrap();
    vm.collect_garbage();
    let blank = vm.heap_bytes();
    vm.bind(limits, Arc::new(Control::default()), toolbox())
        .unwrap();
    vm.collect_garbage();
    let bound = vm.heap_bytes();
    let script = crate::source::prepare(
        "const r = await yield_control('x')\nreturn r",
        Language::Javascript,
    )
    .unwrap()
    .script;
    let mut vm = vm;
    assert!(matches!(vm.start(&script), CellOutcome::Pending));
    vm.collect_garbage();
    let parked = vm.heap_bytes();
    let parts = [
        ("runtime (atoms, classes, shapes)", runtime_alone),
        (
            "standard globals (intrinsics)",
            with_context - runtime_alone,
        ),
        ("output globals and timers", blank - with_context),
        ("tools, MCP, namespaces", bound - blank),
        ("the cell, parked at an await", parked - bound),
        ("total", parked),
    ];
    for (part, bytes) in parts {
        println!("{part:>40}: {bytes:>7} bytes");
    }
    assert!(
        parked <= 128 * 1024,
        "a minimal parked run holds {parked} bytes"
    );
}

/// Timers fire only when due, earliest first, each after the microtasks
/// queued before it; a waiting run lists them and counts their host bytes;
/// the VM takes them along when it goes.
#[test]
fn timers_fire_when_due_in_due_order() {
    use crate::limits::TIMER_HOST_BYTES;
    use std::time::Instant;

    let limits = limits();
    let script = crate::source::prepare(
        "const order = []
         setTimeout(() => order.push('late'), 40)
         setTimeout(() => { order.push('zero'); Promise.resolve().then(() => order.push('micro')) }, 0)
         setTimeout(() => order.push('zero2'), 0)
         const tick = setInterval(() => { order.push('tick'); if (order.filter((x) => x === 'tick').length === 2) clearInterval(tick) }, 15)
         await new Promise((r) => setTimeout(r, 60))
         return order",
        Language::Javascript,
    )
    .unwrap()
    .script;
    let mut vm = Vm::blank(limits.stack_bytes).unwrap();
    vm.bind(limits, Arc::new(Control::default()), toolbox())
        .unwrap();
    let empty = vm.held_bytes();
    assert!(matches!(vm.start(&script), CellOutcome::Pending));
    // Five live timers, listed earliest first, none fired yet.
    let pending: Vec<&str> = vm
        .pending_calls()
        .iter()
        .map(|call| call.method.as_str())
        .collect();
    assert_eq!(
        pending,
        [
            "setTimeout",
            "setTimeout",
            "setInterval",
            "setTimeout",
            "setTimeout"
        ]
    );
    assert!(vm.held_bytes() >= empty + 5 * TIMER_HOST_BYTES);
    assert!(vm.has_host_work());
    let mut legs = 0;
    let outcome = loop {
        let due = vm
            .next_timer_due()
            .expect("a timer is live while the cell waits");
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        legs += 1;
        match vm.settle(Vec::new(), false) {
            CellOutcome::Pending => assert!(legs < 100),
            outcome => break outcome,
        }
    };
    let CellOutcome::Completed(value) = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(
        value.get(),
        r#"["zero","micro","zero2","tick","tick","late"]"#
    );
    // Every timer fired or was cleared.
    assert!(vm.next_timer_due().is_none());
    assert_eq!(vm.held_bytes(), empty);
}

/// A runtime whose teardown finds leaked objects is retired, not aborted:
/// the process goes on, every block of its heap is released, what its host
/// functions held outside the heap is dropped, and the event is counted.
#[test]
fn a_vm_that_leaked_objects_is_retired_and_released_in_full() {
    let cases = [
        // One plain object.
        "({ a: [1, 2, 3] })",
        // A large block outside QuickJS's arenas.
        "new Array(100000).fill(7)",
        // The global object: the whole context, host functions included.
        "globalThis",
        // A closure: its bytecode and the context it belongs to.
        "(() => { const big = 'x'.repeat(1 << 16); return () => big })()",
    ];
    for code in cases {
        let before = super::retired_vms();
        let vm = Vm::blank(limits().stack_bytes).unwrap();
        vm.bind(limits(), Arc::new(Control::default()), toolbox())
            .unwrap();
        vm.leak_for_test(code);
        let (state, meter) = (vm.state_weak(), vm.meter());
        assert!(vm.free(), "{code}: retired");
        assert!(super::retired_vms() > before, "{code}: counted");
        assert_eq!(meter.used(), 0, "{code}: every block released");
        assert!(
            state.upgrade().is_none(),
            "{code}: the host functions' shared state dropped"
        );
    }
    // A VM with no leak is freed normally, with nothing left to reclaim.
    let vm = Vm::blank(limits().stack_bytes).unwrap();
    vm.bind(limits(), Arc::new(Control::default()), toolbox())
        .unwrap();
    let meter = vm.meter();
    assert!(!vm.free());
    assert_eq!(meter.reclaimed(), (0, 0));
    assert_eq!(meter.used(), 0);
}
