//! The engine end to end in Rust: cells and nested calls through the workers.

mod common;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use code_mode_core::catalog::Catalog;
use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::mcp::McpNamespace;
use code_mode_core::runs::host::{CallKey, Dispatch, Host};
use code_mode_core::runs::{AgentRun, Engine};
use common::*;
use serde_json::Value;

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
        let result = exec_with(&engine, config.clone(), code, Language::Javascript);
        assert_eq!(result["code"], "timeout", "{code}: {result}");
        assert_eq!(result["error"], "code mode timeout exceeded.");
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
fn a_cell_recurses_thousands_of_levels_on_its_js_stack_bytes() {
    // JS_STACK_BYTES (4 MiB) holds about 6500 frames of this function in
    // an optimised QuickJS; a quarter of it held about 1600.
    assert_eq!(code_mode_core::limits::JS_STACK_BYTES, 4 * 1024 * 1024);
    let depth = exec(
        "let d = 0; function f() { d++; f() } \
         try { f() } catch (e) { return [d, e.name] }",
    );
    let levels = depth["value"][0].as_u64().unwrap_or(0);
    assert!(levels >= 4000, "{depth}");
    assert_eq!(depth["value"][1], "RangeError", "{depth}");
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
        "return [typeof require, typeof process, typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly, typeof performance, typeof setImmediate]",
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
    let agent = agent_run(host, &config);
    let code = r#"
        const one = await tools.call('echo', {a: 1});
        const all = await Promise.all(Array.from({length: 20}, (_, i) => tools.echo({i, ms: 2})));
        let failed;
        try { await tools.call('openclaw:core:fail', {message: 'denied by policy'}) } catch (e) { failed = [e instanceof Error, e.message] }
        return {one, n: all.length, last: all[19], failed};
    "#;
    let result = exec_on(
        &engine,
        agent.clone(),
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

/// A host whose calls wait, unanswered, until the test answers them.
#[derive(Default)]
struct GateHost {
    held: Mutex<Vec<Dispatch>>,
    arrived: Condvar,
}

impl Host for GateHost {
    fn dispatch(&self, calls: Vec<Dispatch>) {
        self.held.lock().unwrap().extend(calls);
        self.arrived.notify_all();
    }

    fn abort(&self, _keys: Vec<CallKey>) {}
}

#[test]
fn a_waiting_worker_runs_other_cells() {
    // One worker: a cell awaiting a tool must not hold up another cell. The
    // tool answers only when the test says so, so the other cell's result
    // must come while the first still waits (no clock is read).
    let engine = Arc::new(Engine::new(1).unwrap());
    let config = CodeModeConfig::default();
    let gate = Arc::new(GateHost::default());
    let catalog = Arc::new(Catalog::build(&[tool("echo")]));
    let waiting_run = AgentRun::new(
        Arc::new(config.clone()),
        catalog.clone(),
        Arc::new(McpNamespace::build(&catalog)),
        Default::default(),
        gate.clone(),
        vec!["exec".into(), "wait".into()],
        owner(),
    );
    let slow = {
        let engine = engine.clone();
        std::thread::spawn(move || {
            exec_request(
                &engine,
                waiting_run,
                "const r = await tools.echo({v: 'slow'}); return r.v",
                Language::Javascript,
                false,
            )
        })
    };
    // The slow cell's call reached the host: the cell now awaits it.
    {
        let held = gate.held.lock().unwrap();
        let (held, _) = gate
            .arrived
            .wait_timeout_while(held, Duration::from_secs(60), |held| held.is_empty())
            .unwrap();
        assert_eq!(held.len(), 1, "the slow cell's call was dispatched");
    }
    let fast = exec_on(
        &engine,
        agent_run(Arc::new(ThreadHost::default()), &config),
        config.clone(),
        "return 'fast'",
        Language::Javascript,
    );
    assert_eq!(fast["value"], "fast");
    assert!(!slow.is_finished(), "the slow cell still awaits its call");
    for call in gate.held.lock().unwrap().drain(..) {
        call.reply.settle(Ok(call.input.clone()));
    }
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
