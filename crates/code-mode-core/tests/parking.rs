//! Parked runs end to end in Rust: waiting, wait, yield, scope, limits,
//! restartSafe, expiry, and VMs that move between threads.

mod common;

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use code_mode_core::catalog::Catalog;
use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::input::ExecInput;
use code_mode_core::runs::{Engine, ExecRequest, RunScope, RunSurface, WaitRequest};
use code_mode_core::sandbox::bridge::BridgeScope;
use code_mode_core::sandbox::Control;
use common::*;
use serde_json::Value;

#[test]
fn calls_pending_at_the_deadline_park_and_wait_resumes() {
    let engine = Engine::new(1).unwrap();
    let host = Arc::new(ThreadHost::default());
    let config = CodeModeConfig {
        timeout_ms: 150,
        ..CodeModeConfig::default()
    };
    let surface = surface(host, &config);
    let code = "text('before'); const r = await tools.echo({ms: 400, v: 7}); text('after'); return r.v * 6";
    let waiting = exec_on(
        &engine,
        surface.clone(),
        config.clone(),
        code,
        Language::Javascript,
    );
    assert_eq!(waiting["status"], "waiting", "{waiting}");
    assert_eq!(waiting["reason"], "pending_tools");
    let run_id = waiting["runId"].as_str().unwrap().to_owned();
    assert!(run_id.starts_with("cm_") && run_id.len() == 39, "{run_id}");
    assert_eq!(
        waiting["pendingToolCalls"],
        serde_json::json!([{"id": "code_mode:call_1:echo:1", "method": "call", "toolId": "openclaw:core:echo"}])
    );
    assert_eq!(
        waiting["output"],
        serde_json::json!([{"type": "text", "text": "before"}])
    );
    assert!(waiting["snapshotBytes"].as_u64().unwrap() > 10_000);
    assert_eq!(engine.suspended_runs(), 1);

    // Nothing settled yet: parks again under the same id.
    let again = wait_on(&engine, surface.clone(), config.clone(), &run_id, scope());
    assert_eq!(again["status"], "waiting", "{again}");
    assert_eq!(again["runId"], run_id.as_str());
    assert_eq!(again["output"], serde_json::json!([]));

    std::thread::sleep(Duration::from_millis(300));
    let done = wait_on(&engine, surface, config, &run_id, scope());
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["value"], 42);
    assert_eq!(
        done["output"],
        serde_json::json!([{"type": "text", "text": "after"}])
    );
    assert_eq!(engine.suspended_runs(), 0);
}

#[test]
fn wait_refuses_unknown_foreign_and_concurrent() {
    let engine = Engine::new(1).unwrap();
    let host = Arc::new(ThreadHost::default());
    let config = CodeModeConfig {
        timeout_ms: 100,
        ..CodeModeConfig::default()
    };
    let surface = surface(host, &config);
    let waiting = exec_on(
        &engine,
        surface.clone(),
        config.clone(),
        "await tools.echo({ms: 60000}); return 1",
        Language::Javascript,
    );
    let run_id = waiting["runId"].as_str().unwrap().to_owned();
    let error = |scope: RunScope, id: &str| {
        wait_on(&engine, surface.clone(), config.clone(), id, scope)["error"].clone()
    };
    assert_eq!(
        error(scope(), "cm_nope"),
        "code mode run is unavailable or expired."
    );
    let other_run = RunScope {
        agent_run_id: "run-2".into(),
        ..scope()
    };
    assert_eq!(
        error(other_run, &run_id),
        "code mode run belongs to a different agent run."
    );
    let other_session = RunScope {
        session_id: Some("session-2".into()),
        ..scope()
    };
    assert_eq!(
        error(other_session, &run_id),
        "code mode run belongs to a different session."
    );
    // A wait in progress (its budget is long) refuses a second one.
    let slow = CodeModeConfig {
        timeout_ms: 1000,
        ..config.clone()
    };
    let first = {
        let (engine_surface, id) = (surface.clone(), run_id.clone());
        let (tx, rx) = mpsc::channel();
        engine.wait(
            WaitRequest {
                run_id: id,
                config: Arc::new(slow),
                started: Instant::now(),
                surface: engine_surface,
                parent_tool_call_id: None,
                scope: scope(),
            },
            Arc::new(Control::default()),
            Box::new(move |result| tx.send(result.to_json()).unwrap()),
        );
        rx
    };
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        error(scope(), &run_id),
        "code mode run is already being resumed."
    );
    let first: Value = serde_json::from_str(&first.recv().unwrap()).unwrap();
    assert_eq!(first["status"], "waiting");
    assert_eq!(first["runId"], run_id.as_str());
}

#[test]
fn yield_parks_and_resumes_with_its_reason() {
    let engine = Engine::new(1).unwrap();
    let config = CodeModeConfig::default();
    let surface = surface(Arc::new(ThreadHost::default()), &config);
    let waiting = exec_on(
        &engine,
        surface.clone(),
        config.clone(),
        "const r = await yield_control('checkpoint'); return r",
        Language::Javascript,
    );
    assert_eq!(waiting["status"], "waiting", "{waiting}");
    assert_eq!(waiting["reason"], "yield");
    assert_eq!(waiting["pendingToolCalls"][0]["method"], "yield");
    let done = wait_on(
        &engine,
        surface,
        config,
        waiting["runId"].as_str().unwrap(),
        scope(),
    );
    assert_eq!(
        done["value"],
        serde_json::json!({"status": "yielded", "reason": "checkpoint"})
    );
}

#[test]
fn restart_safe_cells_refuse_side_effects_and_park_at_every_await() {
    let engine = Engine::new(1).unwrap();
    let config = CodeModeConfig::default();
    let mut echo = tool("echo");
    echo.replay_safe = true;
    let surface = Arc::new(RunSurface {
        bridge: Arc::new(BridgeScope {
            catalog: Arc::new(Catalog::build(&[echo, tool("fail")])),
            search_default_limit: 8,
            max_search_limit: 50,
            counters: Default::default(),
        }),
        host: Arc::new(ThreadHost::default()),
        visible_tools: vec![],
    });
    let exec_safe = |code: &str| {
        let (tx, rx) = mpsc::channel();
        engine.exec(
            ExecRequest {
                input: ExecInput {
                    code: code.into(),
                    language: Language::Javascript,
                    restart_safe: true,
                },
                config: Arc::new(config.clone()),
                started: Instant::now(),
                surface: surface.clone(),
                parent_tool_call_id: None,
                scope: Arc::new(scope()),
            },
            Arc::new(Control::default()),
            Box::new(move |result| tx.send(result.to_json()).unwrap()),
        );
        serde_json::from_str::<Value>(&rx.recv().unwrap()).unwrap()
    };
    let refused = exec_safe("await tools.search('x'); await tools.fail({}); return 1");
    assert_eq!(refused["status"], "failed", "{refused}");
    assert_eq!(refused["code"], "invalid_input");
    assert_eq!(
        refused["error"],
        "restart-safe code mode cannot call side-effecting tools."
    );
    assert_eq!(refused["replaySafe"], true);

    let parked = exec_safe(
        "const a = await tools.echo({v: 1}); const b = await tools.echo({v: 2}); return a.v + b.v",
    );
    assert_eq!(parked["status"], "waiting", "{parked}");
    assert_eq!(parked["replaySafe"], true);
    std::thread::sleep(Duration::from_millis(50));
    let second = wait_on(
        &engine,
        surface.clone(),
        config.clone(),
        parked["runId"].as_str().unwrap(),
        scope(),
    );
    assert_eq!(second["status"], "waiting", "every await parks: {second}");
    assert_ne!(second["runId"], parked["runId"]);
    std::thread::sleep(Duration::from_millis(50));
    let done = wait_on(
        &engine,
        surface,
        config,
        second["runId"].as_str().unwrap(),
        scope(),
    );
    assert_eq!(done["value"], 3, "{done}");
}

#[test]
fn snapshot_limit_and_expiry() {
    let engine = Engine::new(1).unwrap();
    let host = Arc::new(ThreadHost::default());
    let state = host.state.clone();
    let config = CodeModeConfig {
        timeout_ms: 100,
        max_snapshot_bytes: 1024,
        ..CodeModeConfig::default()
    };
    let surface = surface(host, &config);
    let big = exec_on(
        &engine,
        surface.clone(),
        config.clone(),
        "await tools.echo({ms: 60000}); return 1",
        Language::Javascript,
    );
    assert_eq!(big["status"], "failed", "{big}");
    assert_eq!(big["code"], "snapshot_limit_exceeded");
    assert_eq!(state.aborted.lock().unwrap().len(), 1);

    let config = CodeModeConfig {
        timeout_ms: 100,
        snapshot_ttl_seconds: 1,
        ..CodeModeConfig::default()
    };
    let waiting = exec_on(
        &engine,
        surface.clone(),
        config.clone(),
        "await tools.echo({ms: 60000}); return 1",
        Language::Javascript,
    );
    assert_eq!(waiting["status"], "waiting");
    assert_eq!(engine.suspended_runs(), 1);
    let deadline = Instant::now() + Duration::from_secs(5);
    while engine.suspended_runs() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        engine.suspended_runs(),
        0,
        "expired by the timer, with no call"
    );
    assert_eq!(
        state.aborted.lock().unwrap().len(),
        2,
        "the expired run's call was aborted"
    );
    let gone = wait_on(
        &engine,
        surface,
        config,
        waiting["runId"].as_str().unwrap(),
        scope(),
    );
    assert_eq!(gone["error"], "code mode run is unavailable or expired.");
}

#[test]
fn a_vm_resumed_on_another_thread_keeps_its_stack_budget() {
    use code_mode_core::sandbox::{CellOutcome, Vm, VmLimits};
    let config = CodeModeConfig::default();
    let scope = surface(Arc::new(ThreadHost::default()), &config)
        .bridge
        .clone();
    let limits = VmLimits {
        memory_bytes: 64 << 20,
        stack_bytes: 1 << 20,
        max_output_bytes: 1 << 16,
        max_bridge_bytes: 1 << 20,
    };
    let script = code_mode_core::source::prepare(
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
    let mut vm = Vm::new(limits, Arc::new(Control::default()), Some(scope)).unwrap();
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
