//! The watchdog's path: a worker held in native code past its deadline (the
//! `__block(ms)` test hook stands for a builtin that never polls) is answered
//! from outside and abandoned; the runs it held carry on elsewhere; and an
//! engine stops replacing abandoned workers past the cap.
//!
//! These tests count process-wide abandoned workers, so they run one at a time.

mod common;

use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::input::ExecInput;
use code_mode_core::limits::MAX_ABANDONED_WORKERS;
use code_mode_core::runs::{abandoned_workers, AgentRun, Control, Engine, ExecRequest};
use common::{agent_run, owner, variant, ThreadHost};
use serde_json::Value;

static SERIAL: Mutex<()> = Mutex::new(());

fn config(timeout_ms: u64) -> CodeModeConfig {
    CodeModeConfig {
        timeout_ms,
        ..Default::default()
    }
}

/// Starts an exec; the receiver gets its result.
fn start(
    engine: &Engine,
    agent: &AgentRun,
    config: CodeModeConfig,
    code: &str,
) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    let request = ExecRequest {
        input: ExecInput {
            code: code.to_owned(),
            language: Language::Javascript,
            restart_safe: false,
        },
        started: Instant::now(),
        agent_run: variant(agent, config, owner()),
        parent_tool_call_id: Some("call_1".into()),
    };
    engine.exec(
        request,
        Arc::new(Control::default()),
        Box::new(move |result| {
            let _ = tx.send(serde_json::from_str(&result.to_json()).unwrap());
        }),
    );
    rx
}

fn answer(rx: &mpsc::Receiver<Value>) -> Value {
    rx.recv_timeout(Duration::from_secs(60)).expect("answered")
}

/// Waits until no abandoned worker of this process is still running.
fn settle_abandoned() {
    let until = Instant::now() + Duration::from_secs(60);
    while abandoned_workers().1 != 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(abandoned_workers().1, 0, "abandoned workers got back");
}

#[test]
fn a_stuck_call_is_answered_while_its_worker_is_still_stuck() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    let engine = Engine::new(1).unwrap();
    let agent = agent_run(Arc::new(ThreadHost::default()), &config(100));
    let (total, _) = abandoned_workers();
    let result = answer(&start(
        &engine,
        &agent,
        config(100),
        "__block(8000); return 1",
    ));
    assert_eq!(result["code"], "timeout", "{result}");
    assert_eq!(result["error"], "code mode timeout exceeded.");
    // Answered from outside: the worker is still inside its 8 s call.
    let (total_after, running) = abandoned_workers();
    assert_eq!(total_after, total + 1);
    assert_eq!(running, 1);
    // A fresh worker took its place.
    let next = answer(&start(&engine, &agent, config(5000), "return 2"));
    assert_eq!(next["value"], 2, "{next}");
    engine.close();
    settle_abandoned();
}

#[test]
fn runs_held_by_a_stuck_worker_finish_on_another() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    let engine = Engine::new(1).unwrap();
    let agent = agent_run(Arc::new(ThreadHost::default()), &config(10_000));
    let innocent = start(
        &engine,
        &agent,
        config(10_000),
        "const r = await tools.echo({ ms: 1500, v: 7 }); return r.v",
    );
    std::thread::sleep(Duration::from_millis(100));
    let stuck = answer(&start(&engine, &agent, config(100), "__block(5000)"));
    assert_eq!(stuck["code"], "timeout", "{stuck}");
    let result = answer(&innocent);
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], 7);
    engine.close();
    settle_abandoned();
}

#[test]
fn past_the_cap_abandoned_workers_are_replaced_only_when_one_gets_back() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    let engine = Engine::new(1).unwrap();
    let agent = agent_run(Arc::new(ThreadHost::default()), &config(100));
    // Each stuck call takes the one worker; the first MAX are replaced at
    // once, the next one is not.
    let blocks = MAX_ABANDONED_WORKERS + 1;
    for n in 0..blocks {
        // The last one blocks for less, so that the owed replacement starts
        // within the test's patience.
        let ms = if n + 1 == blocks { 4000 } else { 6000 };
        let result = answer(&start(
            &engine,
            &agent,
            config(100),
            &format!("__block({ms})"),
        ));
        assert_eq!(result["code"], "timeout", "{result}");
    }
    assert_eq!(abandoned_workers().1, blocks);
    // No worker now: this exec waits in the queue until the last stuck one
    // gets back and owes its replacement, then runs normally.
    let queued = start(&engine, &agent, config(60_000), "return 'ran'");
    assert!(
        queued.recv_timeout(Duration::from_millis(300)).is_err(),
        "no worker runs while the cap is reached"
    );
    let result = answer(&queued);
    assert_eq!(result["value"], "ran", "{result}");
    assert!(abandoned_workers().1 < blocks, "the last one got back");
    engine.close();
    settle_abandoned();
}
