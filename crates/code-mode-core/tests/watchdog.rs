//! The watchdog's path: a worker held in native code past its deadline (the
//! `__block(ms)` test hook stands for a builtin that never polls, and a host
//! whose `dispatch` holds the worker until the test lets go stands for host
//! work that never polls) is answered from outside and abandoned; the runs it
//! held carry on elsewhere; a job no worker starts is answered at its
//! deadline even when every worker is stuck; abandoned threads are charged
//! to their session, which waits at its limit while other sessions run; and
//! past the process-wide cap an abandoned worker is replaced only when there
//! is room again.
//!
//! These tests count process-wide abandoned workers, so they run one at a time.

mod common;

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use code_mode_core::catalog::Catalog;
use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::input::ExecInput;
use code_mode_core::limits::{MAX_ABANDONED_PER_SESSION, MAX_REPLACED_ABANDONED};
use code_mode_core::mcp::McpNamespace;
use code_mode_core::messages;
use code_mode_core::runs::host::{CallKey, Dispatch, Host};
use code_mode_core::runs::{
    abandoned_workers, answered_in_queue, AgentRun, Control, Engine, ExecRequest, RunOwner, Stop,
    WaitRequest,
};
use common::{agent_run, owner, tool, variant, ThreadHost};
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

/// Gates the tests open: `hold` keeps the worker thread that starts it inside
/// `dispatch` until its gate opens (host work that never polls the interrupt
/// flag, as a long validation would); `later` settles once its gate opens,
/// without holding anyone. Each settles with its input.
#[derive(Default)]
struct Gates {
    open: Mutex<(HashSet<String>, bool)>,
    changed: Condvar,
    /// Workers held in `hold` now.
    holding: AtomicUsize,
    /// `later` calls dispatched so far.
    later: AtomicUsize,
}

impl Gates {
    fn open(&self, gate: &str) {
        self.open.lock().unwrap().0.insert(gate.to_owned());
        self.changed.notify_all();
    }

    fn open_all(&self) {
        self.open.lock().unwrap().1 = true;
        self.changed.notify_all();
    }

    fn pass(&self, gate: &str) {
        let mut open = self.open.lock().unwrap();
        while !open.1 && !open.0.contains(gate) {
            open = self.changed.wait(open).unwrap();
        }
    }

    /// Returns once `count` workers are held (a hang guard, not a timing).
    fn until_holding(&self, count: usize) {
        until("workers held in the host", || {
            self.holding.load(Ordering::SeqCst) == count
        });
    }
}

struct GateHost {
    gates: Arc<Gates>,
}

impl Host for GateHost {
    fn dispatch(&self, calls: Vec<Dispatch>) {
        for call in calls {
            let input: Value = serde_json::from_str(&call.input).unwrap();
            let gate = input["gate"].as_str().unwrap_or_default().to_owned();
            match call.call.name.as_str() {
                "hold" => {
                    self.gates.holding.fetch_add(1, Ordering::SeqCst);
                    self.gates.pass(&gate);
                    self.gates.holding.fetch_sub(1, Ordering::SeqCst);
                    call.reply.settle(Ok(call.input.clone()));
                }
                "later" => {
                    self.gates.later.fetch_add(1, Ordering::SeqCst);
                    let gates = self.gates.clone();
                    std::thread::spawn(move || {
                        gates.pass(&gate);
                        call.reply.settle(Ok(call.input.clone()));
                    });
                }
                _ => call.reply.settle(Ok(call.input.clone())),
            }
        }
    }

    fn abort(&self, _keys: Vec<CallKey>) {}
}

/// The gates of one test, all opened when it ends (a failed one included), so
/// that no thread stays held for the next test.
struct Opened(Arc<Gates>);

impl std::ops::Deref for Opened {
    type Target = Gates;

    fn deref(&self) -> &Gates {
        &self.0
    }
}

impl Drop for Opened {
    fn drop(&mut self) {
        self.0.open_all();
    }
}

/// An agent run over `hold` and `later`, and the gates its host waits on.
fn gated() -> (Opened, Arc<AgentRun>) {
    let gates = Arc::new(Gates::default());
    let catalog = Arc::new(Catalog::build(&[tool("hold"), tool("later")]));
    let mcp = Arc::new(McpNamespace::build(&catalog));
    let agent = AgentRun::new(
        Arc::new(config(10_000)),
        catalog,
        mcp,
        Default::default(),
        Arc::new(GateHost {
            gates: gates.clone(),
        }),
        vec!["exec".into(), "wait".into()],
        owner(),
    );
    (Opened(gates), agent)
}

/// An owner whose scheduling session is `key` (its `sessionKey`); all share
/// the agent run and the session id.
fn session(key: &str) -> RunOwner {
    RunOwner {
        session_key: Some(key.into()),
        ..owner()
    }
}

/// Starts an exec as `owner`, stopped through `control`.
fn start_as(
    engine: &Engine,
    agent: &AgentRun,
    timeout_ms: u64,
    owner: RunOwner,
    code: &str,
    control: Arc<Control>,
) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    let request = ExecRequest {
        input: ExecInput {
            code: code.to_owned(),
            language: Language::Javascript,
            restart_safe: false,
        },
        started: Instant::now(),
        agent_run: variant(agent, config(timeout_ms), owner),
        parent_tool_call_id: Some("call_1".into()),
    };
    engine.exec(
        request,
        control,
        Box::new(move |result| {
            let _ = tx.send(serde_json::from_str(&result.to_json()).unwrap());
        }),
    );
    rx
}

/// [`start_as`] without a stop.
fn exec_as(
    engine: &Engine,
    agent: &AgentRun,
    timeout_ms: u64,
    owner: RunOwner,
    code: &str,
) -> mpsc::Receiver<Value> {
    start_as(engine, agent, timeout_ms, owner, code, Arc::default())
}

fn wait_as(
    engine: &Engine,
    agent: &AgentRun,
    timeout_ms: u64,
    owner: RunOwner,
    run_id: &str,
) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    let request = WaitRequest {
        run_id: run_id.to_owned(),
        started: Instant::now(),
        agent_run: variant(agent, config(timeout_ms), owner),
        parent_tool_call_id: Some("call_2".into()),
    };
    engine.wait(
        request,
        Arc::default(),
        Box::new(move |result| {
            let _ = tx.send(serde_json::from_str(&result.to_json()).unwrap());
        }),
    );
    rx
}

/// Returns once `done` holds (a hang guard, not a timing).
fn until(what: &str, done: impl Fn() -> bool) {
    let give_up = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < give_up, "gave up waiting for: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

const HOLD_A: &str = "await tools.hold({ gate: 'a' }); return 'a'";
const HOLD_B: &str = "await tools.hold({ gate: 'b' }); return 'b'";

fn hold(gate: &str) -> String {
    format!("await tools.hold({{ gate: '{gate}' }}); return 'held'")
}

fn assert_timeout(result: &Value) {
    assert_eq!(result["code"], "timeout", "{result}");
    assert_eq!(result["error"], "code mode timeout exceeded.");
}

#[test]
fn a_queued_exec_is_answered_at_its_deadline_while_every_worker_is_stuck() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    // One worker, and one thread more for a second session: a and b hold
    // both, well within their budgets, so nobody is abandoned.
    let engine = Engine::new(1).unwrap();
    let (gates, agent) = gated();
    let a = exec_as(&engine, &agent, 60_000, session("a"), HOLD_A);
    gates.until_holding(1);
    let b = exec_as(&engine, &agent, 60_000, session("b"), HOLD_B);
    gates.until_holding(2);
    let before = answered_in_queue();
    let queued = answer(&exec_as(&engine, &agent, 300, session("c"), "return 1 + 1"));
    // Answered from the queue, by the end of its budget: the pool was only
    // busy, so it is the timeout of an exec a worker takes too late.
    assert_timeout(&queued);
    assert_eq!(answered_in_queue() - before, 1);
    assert_eq!(gates.holding.load(Ordering::SeqCst), 2, "both still held");
    assert_eq!(abandoned_workers().1, 0);
    gates.open_all();
    assert_eq!(answer(&a)["value"], "a");
    assert_eq!(answer(&b)["value"], "b");
    engine.close();
    settle_abandoned();
}

#[test]
fn a_run_held_by_a_busy_worker_resumes_on_another_thread() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    // One worker: a's run awaits `later` on it; then b's cell holds it in the
    // host (busy, well within its budget: not stuck). When a's call
    // settles, the watchdog hands a's run to a thread added for a, which
    // computes nothing; without that, a would wait for b's worker.
    let engine = Engine::new(1).unwrap();
    let (gates, agent) = gated();
    let a = exec_as(
        &engine,
        &agent,
        60_000,
        session("a"),
        "await tools.later({ gate: 'l' }); return 'a'",
    );
    until("a's call dispatched", || {
        gates.later.load(Ordering::SeqCst) == 1
    });
    let b = exec_as(&engine, &agent, 60_000, session("b"), HOLD_B);
    gates.until_holding(1);
    gates.open("l");
    let a = answer(&a);
    assert_eq!(a["value"], "a", "{a}");
    assert_eq!(gates.holding.load(Ordering::SeqCst), 1, "b still held");
    assert_eq!(abandoned_workers().1, 0);
    gates.open_all();
    assert_eq!(answer(&b)["value"], "b");
    engine.close();
    settle_abandoned();
}

/// Starts [`HOLD_A`] for session `a` with a ten-minute budget (only a stop
/// can end it before the tests' hang guard), aborts it once the host holds
/// its worker, and returns its answer.
fn abort_held(engine: &Engine, agent: &AgentRun, gates: &Gates) -> Value {
    let control = Arc::new(Control::default());
    let stuck = start_as(
        engine,
        agent,
        600_000,
        session("a"),
        HOLD_A,
        control.clone(),
    );
    gates.until_holding(1);
    control.stop(Stop::Aborted);
    answer(&stuck)
}

#[test]
fn an_aborted_leg_stuck_in_the_host_is_answered_and_its_worker_abandoned() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    let engine = Engine::new(1).unwrap();
    let (gates, agent) = gated();
    let (total, _) = abandoned_workers();
    let result = abort_held(&engine, &agent, &gates);
    assert_eq!(result["code"], "aborted", "{result}");
    assert_eq!(result["error"], "code mode run was aborted.");
    // Answered from outside: the worker is still held, and abandoned.
    assert_eq!(gates.holding.load(Ordering::SeqCst), 1);
    assert_eq!(abandoned_workers(), (total + 1, 1));
    // A replacement serves the next cell.
    let next = answer(&exec_as(&engine, &agent, 60_000, session("a"), "return 2"));
    assert_eq!(next["value"], 2, "{next}");
    gates.open_all();
    engine.close();
    settle_abandoned();
}

#[test]
fn after_an_abandonment_the_pool_still_runs_its_size_and_as_many_again() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    // Two workers: a's held one is aborted and abandoned while the other is
    // idle; the idle one must stay idle (available), beside the replacement.
    let engine = Engine::new(2).unwrap();
    let (gates, agent) = gated();
    assert_eq!(abort_held(&engine, &agent, &gates)["code"], "aborted");
    gates.open("a");
    gates.until_holding(0);
    // Two cells on the two idle workers, two more on threads added for
    // sessions that compute nothing (the pool's size again): four at once.
    let cells: Vec<_> = ["b", "c", "d", "e"]
        .into_iter()
        .enumerate()
        .map(|(held, key)| {
            let rx = exec_as(&engine, &agent, 60_000, session(key), &hold(key));
            gates.until_holding(held + 1);
            rx
        })
        .collect();
    gates.open_all();
    for rx in cells {
        assert_eq!(answer(&rx)["value"], "held");
    }
    engine.close();
    settle_abandoned();
}

#[test]
fn an_aborted_queued_exec_is_answered_while_every_worker_is_stuck() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    let engine = Engine::new(1).unwrap();
    let (gates, agent) = gated();
    let a = exec_as(&engine, &agent, 60_000, session("a"), HOLD_A);
    gates.until_holding(1);
    let b = exec_as(&engine, &agent, 60_000, session("b"), HOLD_B);
    gates.until_holding(2);
    let control = Arc::new(Control::default());
    let queued = start_as(
        &engine,
        &agent,
        60_000,
        session("c"),
        "return 1",
        control.clone(),
    );
    control.stop(Stop::Aborted);
    let result = answer(&queued);
    assert_eq!(result["code"], "aborted", "{result}");
    assert_eq!(result["error"], "code mode run was aborted.");
    gates.open_all();
    assert_eq!(answer(&a)["value"], "a");
    assert_eq!(answer(&b)["value"], "b");
    engine.close();
    settle_abandoned();
}

#[test]
fn a_queued_wait_is_answered_waiting_and_its_run_stays_parked() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    let engine = Engine::new(1).unwrap();
    let (gates, agent) = gated();
    // c's run parks, awaiting `later`.
    let parked = answer(&exec_as(
        &engine,
        &agent,
        200,
        session("c"),
        "const r = await tools.later({ gate: 'c', v: 5 }); return r.v",
    ));
    assert_eq!(parked["status"], "waiting", "{parked}");
    let run_id = parked["runId"].as_str().unwrap().to_owned();
    let a = exec_as(&engine, &agent, 60_000, session("a"), HOLD_A);
    gates.until_holding(1);
    let b = exec_as(&engine, &agent, 60_000, session("b"), HOLD_B);
    gates.until_holding(2);
    // No worker comes free: the wait is answered at its deadline as one a
    // worker takes too late is, `waiting` under the same id, its run kept.
    let waited = answer(&wait_as(&engine, &agent, 300, session("c"), &run_id));
    assert_eq!(waited["status"], "waiting", "{waited}");
    assert_eq!(waited["runId"], run_id.as_str());
    assert_eq!(waited["reason"], "pending_tools");
    let pending = waited["pendingToolCalls"].as_array().unwrap();
    assert_eq!(pending.len(), 1, "{waited}");
    assert!(pending[0]["toolId"].as_str().unwrap().ends_with("later"));
    assert_eq!(engine.suspended_runs(), 1);
    gates.open_all();
    assert_eq!(answer(&a)["value"], "a");
    assert_eq!(answer(&b)["value"], "b");
    let done = answer(&wait_as(&engine, &agent, 30_000, session("c"), &run_id));
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["value"], 5);
    engine.close();
    settle_abandoned();
}

#[test]
fn four_stuck_calls_of_one_session_leave_the_pool_to_another() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    let engine = Engine::new(2).unwrap();
    let (gates, agent) = gated();
    let first: Vec<_> = (0..2)
        .map(|n| exec_as(&engine, &agent, 200, session("a"), &hold(&format!("a{n}"))))
        .collect();
    for rx in &first {
        assert_timeout(&answer(rx));
    }
    // Two abandoned threads charged to a: its next calls wait behind them
    // and get no worker, instead of taking the replacements.
    let more: Vec<_> = (2..4)
        .map(|n| exec_as(&engine, &agent, 300, session("a"), &hold(&format!("a{n}"))))
        .collect();
    let more: Vec<Value> = more.iter().map(answer).collect();
    // Another session's cell, once a's calls are all answered.
    let quiet = answer(&exec_as(
        &engine,
        &agent,
        1000,
        session("b"),
        "return 1 + 1",
    ));
    assert_eq!(quiet["value"], 2, "{quiet}");
    for result in &more {
        assert_eq!(result["code"], "runtime_unavailable", "{result}");
        assert_eq!(result["error"], messages::session_threads_stuck());
    }
    assert_eq!(
        gates.holding.load(Ordering::SeqCst),
        2,
        "the first two only"
    );
    gates.open_all();
    engine.close();
    settle_abandoned();
}

#[test]
fn a_session_at_its_limit_of_stuck_threads_waits_while_other_sessions_run() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    let engine = Engine::new(1).unwrap();
    let (gates, agent) = gated();
    let run = |owner: RunOwner, code: &str| answer(&exec_as(&engine, &agent, 30_000, owner, code));
    for n in 0..MAX_ABANDONED_PER_SESSION {
        let stuck = answer(&exec_as(
            &engine,
            &agent,
            200,
            session("a"),
            &hold(&format!("a{n}")),
        ));
        assert_timeout(&stuck);
        if n + 1 < MAX_ABANDONED_PER_SESSION {
            // Below the limit the session still starts cells.
            assert_eq!(run(session("a"), "return 'a'")["value"], "a");
        }
    }
    // At the limit: its next cell waits for a worker until its budget ends,
    // and is told why.
    let refused = answer(&exec_as(&engine, &agent, 300, session("a"), "return 'a'"));
    assert_eq!(refused["code"], "runtime_unavailable", "{refused}");
    assert_eq!(refused["error"], messages::session_threads_stuck());
    // The threads are charged to a alone: a session that differs only by
    // its key, and one known only by its agent run, keep the pool.
    assert_eq!(run(session("b"), "return 'b'")["value"], "b");
    let by_run = RunOwner {
        agent_run_id: "run-2".into(),
        ..RunOwner::default()
    };
    assert_eq!(run(by_run, "return 'r'")["value"], "r");
    // One of a's threads gets back: a starts cells again.
    gates.open("a0");
    until("a thread of a got back", || {
        abandoned_workers().1 == MAX_ABANDONED_PER_SESSION - 1
    });
    assert_eq!(run(session("a"), "return 'a'")["value"], "a");
    gates.open_all();
    engine.close();
    settle_abandoned();
}

#[test]
fn past_the_process_cap_an_abandoned_worker_is_replaced_only_when_there_is_room() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    settle_abandoned();
    let (gates, agent) = gated();
    // The cap's worth of abandoned threads, one per session, each replaced.
    let wide = Engine::new(MAX_REPLACED_ABANDONED).unwrap();
    let stuck: Vec<_> = (0..MAX_REPLACED_ABANDONED)
        .map(|n| {
            let gate = format!("s{n}");
            exec_as(&wide, &agent, 200, session(&gate), &hold(&gate))
        })
        .collect();
    for rx in &stuck {
        assert_timeout(&answer(rx));
    }
    assert_eq!(abandoned_workers().1, MAX_REPLACED_ABANDONED);
    let whole = answer(&exec_as(&wide, &agent, 30_000, session("x"), "return 1"));
    assert_eq!(whole["value"], 1, "at the cap the pool is whole: {whole}");
    // One more, on another engine: the process has no room, so its only
    // worker is not replaced, and a cell there is told why it got none.
    let narrow = Engine::new(1).unwrap();
    let over = answer(&exec_as(&narrow, &agent, 200, session("y"), &hold("y")));
    assert_timeout(&over);
    let refused = answer(&exec_as(&narrow, &agent, 300, session("z"), "return 2"));
    assert_eq!(refused["code"], "runtime_unavailable", "{refused}");
    assert_eq!(refused["error"], messages::process_threads_stuck());
    // A thread of the first engine gets back: room again, and the narrow
    // engine's owed replacement starts.
    gates.open("s0");
    let after = answer(&exec_as(&narrow, &agent, 30_000, session("z"), "return 2"));
    assert_eq!(after["value"], 2, "{after}");
    gates.open_all();
    wide.close();
    narrow.close();
    settle_abandoned();
}
