//! The engine end to end in Rust: cells through the worker pool.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use code_mode_core::catalog::{Catalog, ToolSource, ToolSpec};
use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::input::ExecInput;
use code_mode_core::runs::host::{CallKey, Dispatch, Host};
use code_mode_core::runs::{Engine, ExecRequest, RunScope, RunSurface, WaitRequest};
use code_mode_core::sandbox::bridge::BridgeScope;
use code_mode_core::sandbox::Control;
use serde_json::Value;

/// A host whose tools run on plain threads: `echo` returns its input after
/// `input.ms` milliseconds (default 0), `fail` rejects with its input's message.
#[derive(Default)]
struct ThreadHost {
    state: Arc<HostState>,
}

#[derive(Default)]
struct HostState {
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    started: Mutex<Vec<String>>,
    aborted: Mutex<Vec<CallKey>>,
}

impl Host for ThreadHost {
    fn dispatch(&self, calls: Vec<Dispatch>) {
        for call in calls {
            let state = self.state.clone();
            let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            state.max_in_flight.fetch_max(now, Ordering::SeqCst);
            state
                .started
                .lock()
                .unwrap()
                .push(call.tool_call_id.clone());
            let input: Value = serde_json::from_str(&call.input).unwrap();
            let ms = input["ms"].as_u64().unwrap_or(0);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(ms));
                state.in_flight.fetch_sub(1, Ordering::SeqCst);
                match call.name.as_str() {
                    "fail" => call
                        .reply
                        .settle(Err(input["message"].as_str().unwrap_or("").to_owned())),
                    _ => call.reply.settle(Ok(call.input.clone())),
                }
            });
        }
    }

    fn abort(&self, keys: Vec<CallKey>) {
        self.state.aborted.lock().unwrap().extend(keys);
    }
}

fn tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        label: None,
        description: format!("The {name} tool"),
        parameters: None,
        source: ToolSource::Openclaw,
        source_name: None,
        direct_only: false,
        replay_safe: false,
        mcp: None,
    }
}

fn surface(host: Arc<ThreadHost>, config: &CodeModeConfig) -> Arc<RunSurface> {
    Arc::new(RunSurface {
        bridge: Arc::new(BridgeScope {
            catalog: Arc::new(Catalog::build(&[tool("echo"), tool("fail")])),
            search_default_limit: config.search_default_limit as usize,
            max_search_limit: config.max_search_limit as usize,
            counters: Default::default(),
        }),
        host,
        visible_tools: vec!["exec".into(), "wait".into()],
    })
}

fn exec_on(
    engine: &Engine,
    surface: Arc<RunSurface>,
    config: CodeModeConfig,
    code: &str,
    language: Language,
) -> Value {
    let (tx, rx) = mpsc::channel();
    let request = ExecRequest {
        input: ExecInput {
            code: code.to_owned(),
            language,
            restart_safe: false,
        },
        config: Arc::new(config),
        started: Instant::now(),
        surface,
        parent_tool_call_id: Some("call_1".into()),
        scope: Arc::new(scope()),
    };
    engine.exec(
        request,
        Arc::new(Control::default()),
        Box::new(move |result| tx.send(result.to_json()).unwrap()),
    );
    serde_json::from_str(&rx.recv().unwrap()).unwrap()
}

fn scope() -> RunScope {
    RunScope {
        agent_run_id: "run-1".into(),
        session_id: Some("session-1".into()),
        ..RunScope::default()
    }
}

fn wait_on(
    engine: &Engine,
    surface: Arc<RunSurface>,
    config: CodeModeConfig,
    run_id: &str,
    scope: RunScope,
) -> Value {
    let (tx, rx) = mpsc::channel();
    let request = WaitRequest {
        run_id: run_id.to_owned(),
        config: Arc::new(config),
        started: Instant::now(),
        surface,
        parent_tool_call_id: Some("call_2".into()),
        scope,
    };
    engine.wait(
        request,
        Arc::new(Control::default()),
        Box::new(move |result| tx.send(result.to_json()).unwrap()),
    );
    serde_json::from_str(&rx.recv().unwrap()).unwrap()
}

fn exec_with(engine: &Engine, config: CodeModeConfig, code: &str, language: Language) -> Value {
    let surface = surface(Arc::new(ThreadHost::default()), &config);
    exec_on(engine, surface, config, code, language)
}

fn exec(code: &str) -> Value {
    let engine = Engine::new(1).unwrap();
    exec_with(
        &engine,
        CodeModeConfig::default(),
        code,
        Language::Javascript,
    )
}

#[test]
fn returns_values_and_output() {
    let result = exec("console.log('a', 1, {b: 2}); text({x: 1}); json([1n, NaN]); return 1 + 1");
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], 2);
    assert_eq!(
        result["output"],
        serde_json::json!([
            {"type": "text", "text": "a 1 {\"b\":2}"},
            {"type": "text", "text": "{\"x\":1}"},
            {"type": "json", "value": ["1", null]}
        ])
    );
}

#[test]
fn json_safe_edge_cases() {
    let result = exec(
        r#"
        const cyc = {name: 'c'}; cyc.self = cyc;
        const shared = {s: 1};
        const bad = {toJSON() { throw new Error('no') }};
        class Tagged { get [Symbol.toStringTag]() { return 'T' } toJSON() { throw 1 } }
        return {
          d: new Date(0), m: new Map([[1, 2]]), s: new Set([1]), f() {}, u: undefined,
          arr: [undefined, () => 1, Symbol('x'), NaN, Infinity, -0, 1.5, 2 ** 60],
          big: 10n ** 30n, err: new TypeError('bad'), cyc, pair: [shared, shared],
          bad, tagged: new Tagged(), nested: {deep: {er: new RangeError('r')}},
        };
    "#,
    );
    assert_eq!(result["status"], "completed", "{result}");
    let v = &result["value"];
    assert_eq!(v["d"], "1970-01-01T00:00:00.000Z");
    assert_eq!(v["m"], serde_json::json!({}));
    assert_eq!(v["s"], serde_json::json!({}));
    assert!(v.get("f").is_none() && v.get("u").is_none());
    assert_eq!(
        v["arr"],
        serde_json::json!([null, null, null, null, null, 0, 1.5, 1152921504606846976.0])
    );
    assert_eq!(v["big"], "1000000000000000000000000000000");
    assert_eq!(
        v["err"],
        serde_json::json!({"name": "TypeError", "message": "bad"})
    );
    assert_eq!(
        v["cyc"],
        serde_json::json!({"name": "c", "self": "[Circular]"})
    );
    assert_eq!(v["pair"], serde_json::json!([{"s": 1}, {"s": 1}]));
    assert_eq!(v["bad"], "[object Object]");
    assert_eq!(v["tagged"], "[object T]");
    assert_eq!(v["nested"]["deep"]["er"]["name"], "RangeError");
}

#[test]
fn top_level_oddities_become_null() {
    for code in [
        "return undefined",
        "return () => 1",
        "return Symbol('x')",
        "1 + 1",
    ] {
        let result = exec(code);
        assert_eq!(result["status"], "completed");
        assert_eq!(result["value"], Value::Null, "{code}");
    }
}

#[test]
fn uncaught_errors_name_message_and_location() {
    let result = exec("const a = 1;\n  nope + a;");
    assert_eq!(result["code"], "internal_error");
    assert_eq!(
        result["error"],
        "ReferenceError: nope is not defined at line 2:3"
    );
    let result = exec("await null;\nthrow new TypeError('bad thing')");
    assert_eq!(result["error"], "TypeError: bad thing at line 2:11");
    let result = exec("throw new Error('interrupted')");
    assert_eq!(result["code"], "internal_error");
    assert_eq!(result["error"], "Error: interrupted at line 1:11");
}

#[test]
fn loops_time_out_even_after_await() {
    let engine = Engine::new(1).unwrap();
    let config = CodeModeConfig {
        timeout_ms: 200,
        ..Default::default()
    };
    for code in [
        "for(;;){}",
        "await null; for(;;){}",
        "await Promise.resolve(); while(true){ try { for(;;){} } catch {} }",
    ] {
        let started = Instant::now();
        let result = exec_with(&engine, config.clone(), code, Language::Javascript);
        assert_eq!(result["code"], "timeout", "{code}: {result}");
        assert_eq!(result["error"], "code mode timeout exceeded.");
        assert!(started.elapsed().as_millis() < 5000);
    }
}

#[test]
fn memory_bomb_fails_and_the_next_cell_runs() {
    let engine = Engine::new(1).unwrap();
    let config = CodeModeConfig {
        memory_limit_bytes: 8 * 1024 * 1024,
        ..Default::default()
    };
    for code in [
        "const a = []; for(;;) a.push({x: a.length});",
        "let s = 'x'; try { for(;;) { s += s; s.indexOf('y') } } catch (e) {} return 1",
        "try { new ArrayBuffer(1e9) } catch (e) {} return 2",
    ] {
        let result = exec_with(&engine, config.clone(), code, Language::Javascript);
        assert_eq!(
            result["error"], "code mode memory limit exceeded.",
            "{code}: {result}"
        );
        assert_eq!(result["code"], "internal_error");
    }
    let result = exec_with(&engine, config, "return 'ok'", Language::Javascript);
    assert_eq!(result["value"], "ok");
}

#[test]
fn deep_recursion_is_a_range_error() {
    let result = exec("function f(n) { return f(n + 1) + 1 } return f(0)");
    assert_eq!(result["code"], "internal_error");
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .starts_with("RangeError: "),
        "{result}"
    );
    let caught =
        exec("function f(n) { return f(n + 1) + 1 } try { f(0) } catch (e) { return e.name }");
    assert_eq!(caught["value"], "RangeError");
}

#[test]
fn typescript_cells_run_and_locate_errors() {
    let engine = Engine::new(1).unwrap();
    let ts = "interface P { n: number }\nconst p = {n: 2} as P;\nfunction id<T>(x: T): T { return x }\nreturn id<number>(p.n) * 21";
    let result = exec_with(&engine, CodeModeConfig::default(), ts, Language::Typescript);
    assert_eq!(result["value"], 42, "{result}");
    let ts = "type T = { a: string };\nconst x: T = { a: 'b' };\n      missing(x);";
    let result = exec_with(&engine, CodeModeConfig::default(), ts, Language::Typescript);
    assert_eq!(
        result["error"],
        "ReferenceError: missing is not defined at line 3:7"
    );
}

#[test]
fn output_limits() {
    let engine = Engine::new(1).unwrap();
    let config = CodeModeConfig {
        max_output_bytes: 2048,
        ..Default::default()
    };
    let result = exec_with(
        &engine,
        config.clone(),
        "for (let i = 0; ; i++) text('line ' + i)",
        Language::Javascript,
    );
    assert_eq!(result["code"], "output_limit_exceeded", "{result}");
    let kept = result["output"].as_array().unwrap();
    assert!(!kept.is_empty() && serde_json::to_string(kept).unwrap().len() <= 2048);
    let result = exec_with(
        &engine,
        config,
        "return 'x'.repeat(5000)",
        Language::Javascript,
    );
    assert_eq!(result["code"], "output_limit_exceeded");
}

#[test]
fn guest_cannot_reach_host_or_forbidden_globals() {
    let result = exec(
        "return [typeof require, typeof process, typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly, typeof setTimeout, typeof performance]",
    );
    assert_eq!(
        result["value"],
        serde_json::json!(vec!["undefined"; 7]),
        "{result}"
    );
    let result = exec("text = 1; console.log = null; return [typeof text, typeof console.log, Object.isFrozen(console)]");
    assert_eq!(
        result["value"],
        serde_json::json!(["function", "function", true])
    );
}

#[test]
fn nested_calls_round_trip_with_bounded_concurrency() {
    let engine = Engine::new(2).unwrap();
    let host = Arc::new(ThreadHost::default());
    let state = host.state.clone();
    let config = CodeModeConfig {
        max_pending_tool_calls: 4,
        ..CodeModeConfig::default()
    };
    let surface = surface(host, &config);
    let code = r#"
        const one = await tools.call('echo', {a: 1});
        const all = await Promise.all(Array.from({length: 20}, (_, i) => tools.echo({i, ms: 2})));
        let failed;
        try { await tools.call('openclaw:core:fail', {message: 'denied by policy'}) } catch (e) { failed = [e instanceof Error, e.message] }
        return {one, n: all.length, last: all[19], failed};
    "#;
    let result = exec_on(
        &engine,
        surface.clone(),
        config.clone(),
        code,
        Language::Javascript,
    );
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"]["one"], serde_json::json!({"a": 1}));
    assert_eq!(result["value"]["n"], 20);
    assert_eq!(
        result["value"]["last"],
        serde_json::json!({"i": 19, "ms": 2})
    );
    assert_eq!(
        result["value"]["failed"],
        serde_json::json!([true, "denied by policy"])
    );
    assert!(state.max_in_flight.load(Ordering::SeqCst) <= 4);
    assert_eq!(result["telemetry"]["callCount"], 22);
    let started = state.started.lock().unwrap().clone();
    assert_eq!(started[0], "code_mode:call_1:echo:1");
    assert_eq!(started.len(), 22);
}

#[test]
fn search_describe_and_lookup_errors_answer_in_the_worker() {
    let result = exec(
        r#"
        const found = await tools.search('echo');
        const described = await tools.describe('echo');
        let unknown, limit;
        try { await tools.call('ech', {}) } catch (e) { unknown = e.message }
        try { await tools.search('x', {limit: 0}) } catch (e) { limit = e.message }
        return {found: found.map(t => t.id), params: described.parameters, unknown, limit, all: ALL_TOOLS.length, frozen: Object.isFrozen(ALL_TOOLS) && Object.isFrozen(tools)};
    "#,
    );
    assert_eq!(result["status"], "completed", "{result}");
    let v = &result["value"];
    assert_eq!(v["found"], serde_json::json!(["openclaw:core:echo"]));
    assert_eq!(v["params"], serde_json::json!({}));
    assert!(
        v["unknown"]
            .as_str()
            .unwrap()
            .starts_with("Unknown tool id: ech."),
        "{v}"
    );
    assert_eq!(v["limit"], "limit must be a positive integer.");
    assert_eq!(v["all"], 2);
    assert_eq!(v["frozen"], true);
    assert_eq!(result["telemetry"]["searchCount"], 2);
    assert_eq!(result["telemetry"]["describeCount"], 1);
}

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
fn a_waiting_worker_runs_other_cells() {
    // One worker: a cell awaiting a slow tool must not hold up another cell.
    let engine = Arc::new(Engine::new(1).unwrap());
    let config = CodeModeConfig::default();
    let host = Arc::new(ThreadHost::default());
    let slow = {
        let (engine, surface, config) = (
            engine.clone(),
            surface(host.clone(), &config),
            config.clone(),
        );
        std::thread::spawn(move || {
            exec_on(
                &engine,
                surface,
                config,
                "await tools.echo({ms: 500}); return 'slow'",
                Language::Javascript,
            )
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    let started = Instant::now();
    let fast = exec_on(
        &engine,
        surface(host, &config),
        config.clone(),
        "return 'fast'",
        Language::Javascript,
    );
    assert_eq!(fast["value"], "fast");
    assert!(
        started.elapsed() < Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(slow.join().unwrap()["value"], "slow");
}

#[test]
fn a_pending_promise_without_host_work_fails() {
    let result = exec("await new Promise(() => {}); return 1");
    assert_eq!(result["status"], "failed");
    assert_eq!(
        result["error"],
        "code mode promise is pending without host work."
    );
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
