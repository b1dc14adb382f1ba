//! "No Rust panic reaches Node" (ARCHITECTURE.md): a panic in each step of a
//! run becomes `internal_error`, and one in VM teardown is contained, with
//! the worker alive for the next cell. The panics come from a test host
//! whose `dispatch` panics for one tool (a `Host` is the binding's code, run
//! inside `Job::start` and `Run::poll`), and from the test-only hook in
//! `Run::discard` ([`panics_in_teardown`]).

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::host::{CallKey, Dispatch, Host};
use super::{AgentRun, Control, Engine, ExecRequest, RunOwner, WaitRequest};
use crate::catalog::{Catalog, ToolSource, ToolSpec};
use crate::config::{CodeModeConfig, Language};
use crate::input::ExecInput;
use crate::mcp::McpNamespace;

/// The agent run id whose VM teardown panics (after the VM is freed), inside
/// `Run::discard`'s `catch_unwind`.
const TEARDOWN_PANICS: &str = "panic-tests: teardown panics";

/// Test hook of `Run::discard`: whether this run's teardown panics.
pub(in crate::runs) fn panics_in_teardown(agent_run: &AgentRun) -> bool {
    agent_run.owner.agent_run_id == TEARDOWN_PANICS
}

/// A hang guard, not a timing assertion: without the catch a panicking
/// worker thread dies and its call is never answered (or answered by the
/// watchdog as a timeout), and the test must fail rather than hang.
const PATIENCE: Duration = Duration::from_secs(60);

/// `boom` panics in `dispatch`, on the worker; every other tool answers its
/// input at once, from the dispatching thread.
#[derive(Default)]
struct PanickingHost {
    aborted: Mutex<Vec<CallKey>>,
}

impl Host for PanickingHost {
    fn dispatch(&self, calls: Vec<Dispatch>) {
        for call in calls {
            if call.call.name == "boom" {
                panic!("panic-tests: the host panics in dispatch");
            }
            call.reply.settle(Ok(call.input.clone()));
        }
    }

    fn abort(&self, keys: Vec<CallKey>) {
        self.aborted.lock().unwrap().extend(keys);
    }
}

fn tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        label: None,
        description: String::new(),
        parameters: None,
        source: ToolSource::Openclaw,
        source_name: None,
        direct_only: false,
        replay_safe: false,
        mcp: None,
    }
}

fn agent_run(agent_run_id: &str) -> Arc<AgentRun> {
    let config = CodeModeConfig {
        timeout_ms: 5000,
        ..CodeModeConfig::default()
    };
    let catalog = Arc::new(Catalog::build(&[tool("echo"), tool("boom")]));
    let mcp = Arc::new(McpNamespace::build(&catalog));
    AgentRun::new(
        Arc::new(config),
        catalog,
        mcp,
        Default::default(),
        Arc::new(PanickingHost::default()),
        vec!["exec".into(), "wait".into()],
        RunOwner {
            agent_run_id: agent_run_id.into(),
            session_id: Some("session".into()),
            ..RunOwner::default()
        },
    )
}

fn answer(rx: mpsc::Receiver<String>) -> Value {
    let text = rx
        .recv_timeout(PATIENCE)
        .expect("the call was answered (a worker that panicked answers nothing)");
    serde_json::from_str(&text).unwrap()
}

fn exec(engine: &Engine, agent_run: &Arc<AgentRun>, code: &str) -> Value {
    let (tx, rx) = mpsc::channel();
    let request = ExecRequest {
        input: ExecInput {
            code: code.into(),
            language: Language::Javascript,
            restart_safe: false,
        },
        started: Instant::now(),
        agent_run: agent_run.clone(),
        parent_tool_call_id: Some("call_exec".into()),
    };
    engine.exec(
        request,
        Arc::new(Control::default()),
        Box::new(move |result| {
            let _ = tx.send(result.to_json());
        }),
    );
    answer(rx)
}

fn wait(engine: &Engine, agent_run: &Arc<AgentRun>, run_id: &str) -> Value {
    let (tx, rx) = mpsc::channel();
    let request = WaitRequest {
        run_id: run_id.into(),
        started: Instant::now(),
        agent_run: agent_run.clone(),
        parent_tool_call_id: Some("call_wait".into()),
    };
    engine.wait(
        request,
        Arc::new(Control::default()),
        Box::new(move |result| {
            let _ = tx.send(result.to_json());
        }),
    );
    answer(rx)
}

fn assert_internal(result: &Value, what: &str) {
    assert_eq!(result["status"], "failed", "{what}: {result}");
    assert_eq!(result["code"], "internal_error", "{what}: {result}");
    assert_eq!(
        result["error"], "code mode internal error.",
        "{what}: {result}"
    );
}

/// The one worker is alive: it runs the next cell.
fn assert_serves(engine: &Engine) {
    let next = exec(engine, &agent_run("next"), "return 6 * 7");
    assert_eq!(next["value"], 42, "the worker serves the next cell: {next}");
}

#[test]
fn a_panic_while_a_leg_starts_is_internal_error() {
    // Job::start: the guest's first dispatch happens inside `Run::begin`.
    let engine = Engine::new(1).unwrap();
    let result = exec(
        &engine,
        &agent_run("start"),
        "text('before'); await tools.boom({}); return 1",
    );
    assert_internal(&result, "exec");
    assert_serves(&engine);
    engine.close();
}

#[test]
fn a_panic_in_a_later_step_is_internal_error() {
    // Run::poll: the echo settles, the worker steps the run, and the guest's
    // second dispatch panics inside `Run::step`.
    let engine = Engine::new(1).unwrap();
    let result = exec(
        &engine,
        &agent_run("poll"),
        "const a = await tools.echo({ n: 1 }); await tools.boom({}); return a.n",
    );
    assert_internal(&result, "exec");
    assert_serves(&engine);
    engine.close();
}

#[test]
fn a_panic_while_a_wait_resumes_is_internal_error_and_frees_the_run() {
    // Job::start for a wait: `Run::resume` answers the yield, and the guest's
    // next dispatch panics.
    let engine = Engine::new(1).unwrap();
    let agent_run = agent_run("resume");
    let parked = exec(
        &engine,
        &agent_run,
        "await yield_control('r'); await tools.boom({}); return 1",
    );
    assert_eq!(parked["status"], "waiting", "{parked}");
    let run_id = parked["runId"].as_str().unwrap().to_owned();
    let result = wait(&engine, &agent_run, &run_id);
    assert_internal(&result, "wait");
    // The "being resumed" marker went with the run.
    let again = wait(&engine, &agent_run, &run_id);
    assert_eq!(
        again["error"], "code mode run is unavailable or expired.",
        "{again}"
    );
    assert_eq!(engine.suspended_runs(), 0);
    assert_serves(&engine);
    engine.close();
}

#[test]
fn a_panic_in_vm_teardown_is_contained() {
    // Run::discard, on the worker, after the result went out.
    let engine = Engine::new(1).unwrap();
    let panicking = agent_run(TEARDOWN_PANICS);
    let done = exec(&engine, &panicking, "return 1");
    assert_eq!(done["value"], 1, "{done}");
    assert_serves(&engine);
    // Run::discard of a parked run, on the thread that closes the engine.
    let parked = exec(&engine, &panicking, "await yield_control(); return 1");
    assert_eq!(parked["status"], "waiting", "{parked}");
    engine.close();
    assert_eq!(engine.suspended_runs(), 0);
}
