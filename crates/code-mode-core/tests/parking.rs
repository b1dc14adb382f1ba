//! Parked runs end to end in Rust: waiting, wait, yield, scope, limits,
//! restartSafe, expiry, and VMs that move between threads.

mod common;

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::limits::MAX_PARKED_RUNS;
use code_mode_core::runs::{Control, Engine, RunOwner, Stop, WaitRequest};
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
    let agent = agent_run(host, &config);
    let code = "text('before'); const r = await tools.echo({ms: 400, v: 7}); text('after'); return r.v * 6";
    let waiting = exec_on(
        &engine,
        agent.clone(),
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
    let again = wait_on(&engine, agent.clone(), config.clone(), &run_id, owner());
    assert_eq!(again["status"], "waiting", "{again}");
    assert_eq!(again["runId"], run_id.as_str());
    assert_eq!(again["output"], serde_json::json!([]));

    std::thread::sleep(Duration::from_millis(300));
    let done = wait_on(&engine, agent, config, &run_id, owner());
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
    let agent = agent_run(host, &config);
    let waiting = exec_on(
        &engine,
        agent.clone(),
        config.clone(),
        "await tools.echo({ms: 60000}); return 1",
        Language::Javascript,
    );
    let run_id = waiting["runId"].as_str().unwrap().to_owned();
    let error = |waiter: RunOwner, id: &str| {
        wait_on(&engine, agent.clone(), config.clone(), id, waiter)["error"].clone()
    };
    assert_eq!(
        error(owner(), "cm_nope"),
        "code mode run is unavailable or expired."
    );
    let other_run = RunOwner {
        agent_run_id: "run-2".into(),
        ..owner()
    };
    assert_eq!(
        error(other_run, &run_id),
        "code mode run belongs to a different agent run."
    );
    let other_session = RunOwner {
        session_id: Some("session-2".into()),
        ..owner()
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
    // `Engine::wait` takes the run (and marks it) before it returns.
    let first = wait_start(&engine, &agent, slow, &run_id, owner());
    assert_eq!(
        error(owner(), &run_id),
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
    let agent = agent_run(Arc::new(ThreadHost::default()), &config);
    let waiting = exec_on(
        &engine,
        agent.clone(),
        config.clone(),
        "const r = await yield_control('checkpoint'); return r",
        Language::Javascript,
    );
    assert_eq!(waiting["status"], "waiting", "{waiting}");
    assert_eq!(waiting["reason"], "yield");
    assert_eq!(waiting["pendingToolCalls"][0]["method"], "yield");
    let done = wait_on(
        &engine,
        agent,
        config,
        waiting["runId"].as_str().unwrap(),
        owner(),
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
    let agent = agent_run_with(
        Arc::new(ThreadHost::default()),
        &config,
        &[echo, tool("fail")],
    );
    let exec_safe =
        |code: &str| exec_request(&engine, agent.clone(), code, Language::Javascript, true);
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
        agent.clone(),
        config.clone(),
        parked["runId"].as_str().unwrap(),
        owner(),
    );
    assert_eq!(second["status"], "waiting", "every await parks: {second}");
    assert_ne!(second["runId"], parked["runId"]);
    std::thread::sleep(Duration::from_millis(50));
    let done = wait_on(
        &engine,
        agent,
        config,
        second["runId"].as_str().unwrap(),
        owner(),
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
    let agent = agent_run(host, &config);
    let big = exec_on(
        &engine,
        agent.clone(),
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
        agent.clone(),
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
        agent,
        config,
        waiting["runId"].as_str().unwrap(),
        owner(),
    );
    assert_eq!(gone["error"], "code mode run is unavailable or expired.");
}

/// A wait's result, with the `Control` of its call kept to stop it.
fn wait_with_control(
    engine: &Engine,
    agent: &Arc<code_mode_core::runs::AgentRun>,
    config: CodeModeConfig,
    run_id: &str,
    waiter: RunOwner,
) -> (Arc<Control>, mpsc::Receiver<String>) {
    let (tx, rx) = mpsc::channel();
    let control = Arc::new(Control::default());
    let request = WaitRequest {
        run_id: run_id.to_owned(),
        started: Instant::now(),
        agent_run: variant(agent, config, waiter),
        parent_tool_call_id: Some("call_2".into()),
    };
    engine.wait(
        request,
        control.clone(),
        Box::new(move |result| tx.send(result.to_json()).unwrap()),
    );
    (control, rx)
}

/// The owner of the runs below: every field set, so that each can differ.
fn full_owner() -> RunOwner {
    RunOwner {
        agent_run_id: "run-1".into(),
        session_id: Some("session-1".into()),
        session_key: Some("key-1".into()),
        agent_id: Some("agent-1".into()),
    }
}

/// Waiters that differ from [`full_owner`] in one field each (changed or
/// missing), with the refusal each gets: the session's three fields are
/// checked before the agent run.
fn foreign_waiters() -> Vec<(RunOwner, &'static str)> {
    let owner = full_owner();
    let session = "code mode run belongs to a different session.";
    let agent_run = "code mode run belongs to a different agent run.";
    vec![
        (
            RunOwner {
                session_id: Some("session-2".into()),
                ..owner.clone()
            },
            session,
        ),
        (
            RunOwner {
                session_id: None,
                ..owner.clone()
            },
            session,
        ),
        (
            RunOwner {
                session_key: Some("key-2".into()),
                ..owner.clone()
            },
            session,
        ),
        (
            RunOwner {
                session_key: None,
                ..owner.clone()
            },
            session,
        ),
        (
            RunOwner {
                agent_id: Some("agent-2".into()),
                ..owner.clone()
            },
            session,
        ),
        (
            RunOwner {
                agent_id: None,
                ..owner.clone()
            },
            session,
        ),
        (
            RunOwner {
                agent_run_id: "run-2".into(),
                ..owner.clone()
            },
            agent_run,
        ),
        (
            RunOwner {
                agent_run_id: "run-2".into(),
                session_key: Some("key-2".into()),
                ..owner.clone()
            },
            session,
        ),
    ]
}

#[test]
fn wait_checks_each_field_of_the_owner() {
    let engine = Engine::new(1).unwrap();
    let config = CodeModeConfig::default();
    let agent = agent_run(Arc::new(ThreadHost::default()), &config);
    let parked = exec_request(
        &engine,
        variant(&agent, config.clone(), full_owner()),
        "await yield_control('x'); return 7",
        Language::Javascript,
        false,
    );
    assert_eq!(parked["status"], "waiting", "{parked}");
    let run_id = parked["runId"].as_str().unwrap().to_owned();
    for (waiter, refusal) in foreign_waiters() {
        let refused = wait_on(
            &engine,
            agent.clone(),
            config.clone(),
            &run_id,
            waiter.clone(),
        );
        assert_eq!(refused["code"], "invalid_input", "{waiter:?}: {refused}");
        assert_eq!(refused["error"], refusal, "{waiter:?}");
    }
    // Refused waits leave the run parked for its owner.
    assert_eq!(engine.suspended_runs(), 1);
    let done = wait_on(&engine, agent, config, &run_id, full_owner());
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["value"], 7);
}

#[test]
fn a_run_being_resumed_tells_a_foreign_wait_it_is_foreign() {
    let engine = Engine::new(1).unwrap();
    let host = Arc::new(ThreadHost::default());
    let state = host.state.clone();
    let config = CodeModeConfig::default();
    let agent = agent_run(host, &config);
    let parked = exec_request(
        &engine,
        variant(&agent, config.clone(), full_owner()),
        "await yield_control('x'); await tools.echo({ms: 60000}); return 1",
        Language::Javascript,
        false,
    );
    assert_eq!(parked["status"], "waiting", "{parked}");
    let run_id = parked["runId"].as_str().unwrap().to_owned();
    // The owner's wait resumes the run, which then awaits its call until the
    // wait is stopped: the run is being resumed all along.
    let slow = CodeModeConfig {
        timeout_ms: 600_000,
        ..config.clone()
    };
    let (control, first) = wait_with_control(&engine, &agent, slow, &run_id, full_owner());
    let started = Instant::now();
    while state.started.lock().unwrap().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the resumed run never called its tool"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    for (waiter, refusal) in foreign_waiters() {
        let refused = wait_on(
            &engine,
            agent.clone(),
            config.clone(),
            &run_id,
            waiter.clone(),
        );
        assert_eq!(refused["error"], refusal, "{waiter:?}");
    }
    let again = wait_on(
        &engine,
        agent.clone(),
        config.clone(),
        &run_id,
        full_owner(),
    );
    assert_eq!(again["error"], "code mode run is already being resumed.");
    assert!(control.stop(Stop::Aborted));
    let first: Value = serde_json::from_str(&first.recv().unwrap()).unwrap();
    assert_eq!(first["code"], "aborted", "{first}");
    // Its marker went with it.
    let gone = wait_on(&engine, agent, config, &run_id, full_owner());
    assert_eq!(gone["error"], "code mode run is unavailable or expired.");
}

#[test]
fn the_store_parks_max_parked_runs_and_refuses_one_more() {
    assert_eq!(MAX_PARKED_RUNS, 64);
    let engine = Engine::new(1).unwrap();
    let host = Arc::new(ThreadHost::default());
    let state = host.state.clone();
    let config = CodeModeConfig::default();
    let agent = agent_run(host, &config);
    let park = |code: &str| {
        exec_on(
            &engine,
            agent.clone(),
            config.clone(),
            code,
            Language::Javascript,
        )
    };
    let twice = "await yield_control('a'); await yield_control('b'); return 2";
    let mut ids = Vec::new();
    for _ in 0..MAX_PARKED_RUNS {
        let parked = park(twice);
        assert_eq!(parked["status"], "waiting", "{parked}");
        ids.push(parked["runId"].as_str().unwrap().to_owned());
    }
    assert_eq!(engine.suspended_runs(), MAX_PARKED_RUNS);
    // One more is answered with what it did, and its calls are aborted.
    let short = CodeModeConfig {
        timeout_ms: 100,
        ..config.clone()
    };
    let full = exec_on(
        &engine,
        agent.clone(),
        short,
        "text('kept'); await tools.echo({ms: 60000}); return 1",
        Language::Javascript,
    );
    assert_eq!(full["status"], "failed", "{full}");
    assert_eq!(full["code"], "invalid_input");
    assert_eq!(full["error"], "too many suspended code mode runs.");
    assert_eq!(
        full["output"],
        serde_json::json!([{"type": "text", "text": "kept"}])
    );
    assert_eq!(engine.suspended_runs(), MAX_PARKED_RUNS);
    let aborted = Instant::now();
    while state.aborted.lock().unwrap().is_empty() {
        assert!(aborted.elapsed() < Duration::from_secs(60), "no abort");
        std::thread::sleep(Duration::from_millis(5));
    }
    // A run resumed at the cap parks again: its own place is free first.
    let again = wait_on(&engine, agent.clone(), config.clone(), &ids[0], owner());
    assert_eq!(again["status"], "waiting", "{again}");
    assert_ne!(again["runId"], ids[0].as_str());
    assert_eq!(engine.suspended_runs(), MAX_PARKED_RUNS);
    // A run that ends frees its place for a new one.
    let done = wait_on(&engine, agent.clone(), config.clone(), &ids[1], owner());
    assert_eq!(done["status"], "waiting", "{done}");
    let done = wait_on(
        &engine,
        agent.clone(),
        config.clone(),
        done["runId"].as_str().unwrap(),
        owner(),
    );
    assert_eq!(done["value"], 2, "{done}");
    assert_eq!(engine.suspended_runs(), MAX_PARKED_RUNS - 1);
    let last = park(twice);
    assert_eq!(last["status"], "waiting", "{last}");
    assert_eq!(engine.suspended_runs(), MAX_PARKED_RUNS);
}

#[test]
fn a_wait_stopped_before_it_starts_drops_the_run_and_its_marker() {
    let engine = Engine::new(1).unwrap();
    let host = Arc::new(ThreadHost::default());
    let state = host.state.clone();
    let config = CodeModeConfig {
        timeout_ms: 100,
        ..CodeModeConfig::default()
    };
    let agent = agent_run(host, &config);
    let parked = exec_on(
        &engine,
        agent.clone(),
        config.clone(),
        "await tools.echo({ms: 60000}); return 1",
        Language::Javascript,
    );
    assert_eq!(parked["status"], "waiting", "{parked}");
    let run_id = parked["runId"].as_str().unwrap().to_owned();
    // The call is stopped before the engine sees it (its signal had fired).
    let (tx, rx) = mpsc::channel();
    let control = Arc::new(Control::default());
    assert!(control.stop(Stop::Aborted));
    engine.wait(
        WaitRequest {
            run_id: run_id.clone(),
            started: Instant::now(),
            agent_run: variant(&agent, config.clone(), owner()),
            parent_tool_call_id: Some("call_2".into()),
        },
        control,
        Box::new(move |result| tx.send(result.to_json()).unwrap()),
    );
    let stopped: Value = serde_json::from_str(&rx.recv().unwrap()).unwrap();
    assert_eq!(stopped["code"], "aborted", "{stopped}");
    // The run is gone, marker and all, and its call was aborted at once.
    assert_eq!(engine.suspended_runs(), 0);
    assert_eq!(state.aborted.lock().unwrap().len(), 1);
    let gone = wait_on(&engine, agent, config, &run_id, owner());
    assert_eq!(gone["error"], "code mode run is unavailable or expired.");
}
