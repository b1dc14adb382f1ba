//! `json_bridge`: the JSON bridge both ways, through the public run engine.
//!
//! A real cell calls `tools.reply()`; the host answers with the fuzzed text
//! (host to guest: QuickJS parses it, or the call rejects). The cell writes
//! the value with `json`, `text` and `console.log`, may send it back as a tool
//! input that the host echoes (guest to host and back), may bend it into
//! values JSON cannot hold (lone surrogates, bigints, cycles, holes, throwing
//! getters, `toJSON`, proxies), and returns all of it (guest to host).
//!
//! Input: a mode byte, then the reply text. Mode bits: 0 echo the value
//! through a tool input, 1 bend it, 2 the host rejects with the text instead,
//! 3 a 1 MiB memory limit, 4 a 1 KiB output limit, 5 a restart-safe cell
//! (every await parks; the harness resumes it with `wait`).
//!
//! Checked: every tool input the host receives and every result is JSON; no
//! result is the engine's internal error (a caught panic); and a reply that
//! serde_json reads comes back from the guest as the same value.

use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use code_mode_core::catalog::{Catalog, ToolSource, ToolSpec};
use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::input::ExecInput;
use code_mode_core::mcp::McpNamespace;
use code_mode_core::messages;
use code_mode_core::result::{RunResult, Status};
use code_mode_core::runs::host::{CallKey, Dispatch, Host, Settlement};
use code_mode_core::runs::{AgentRun, Control, Engine, ExecRequest, RunOwner, WaitRequest};
use serde_json::Value;

use super::{is_json, Reader};

const CELL: &str = r#"
let r;
try { r = await tools.reply(); } catch (e) { r = e; }
json(r);
text(r);
console.log(r, [r]);
const out = [r];
if (MODE & 1) {
  try { out.push(await tools.echo(r)); } catch (e) { out.push(e.message); }
}
if (MODE & 2) out.push(bend(r, 0));
return out;

function bend(v, depth) {
  if (depth > 64) return v;
  if (typeof v === 'string') {
    if (v.length % 2) return v.slice(0, -1) + '\ud83d';
    return v.startsWith('x') ? '\udc00' + v : v;
  }
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v) && v % 3 === 0) return BigInt(v) ** 3n;
    if (v % 3 === 1) return v / 0;
    return v < 0 ? -0 : new Date(v);
  }
  if (Array.isArray(v)) {
    const a = v.map((x) => bend(x, depth + 1));
    if (a.length % 3 === 2) a.push(a);
    if (a.length % 4 === 3) a.length += 2;
    return a;
  }
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v)) o[k] = bend(v[k], depth + 1);
    if ('g' in v) Object.defineProperty(o, 'g', { get() { throw new Error(String(v.g)) }, enumerable: true });
    if ('t' in v) o.toJSON = (key) => (key.length % 2 ? v.t : undefined);
    if ('s' in v) o[Symbol('s')] = v.s;
    if ('m' in v) o.m = new Map([[1, v.m]]);
    if ('e' in v) o.e = new RangeError(String(v.e));
    if ('p' in v) return new Proxy(o, { ownKeys: (t) => Reflect.ownKeys(t).concat(['ghost']) });
    return o;
  }
  return v;
}
"#;

const ECHO: u8 = 1;
const REJECT: u8 = 4;
const SMALL_MEMORY: u8 = 8;
const SMALL_OUTPUT: u8 = 16;
const RESTART_SAFE: u8 = 32;

/// More than any leg of this cell needs; a hang fails here, not forever.
const PATIENCE: Duration = Duration::from_secs(60);

pub fn run(data: &[u8]) {
    let mut input = Reader::new(data);
    let mode = input.byte();
    let reply = input.rest();
    let host = Arc::new(FuzzHost {
        reply: match mode & REJECT {
            0 => Ok(reply.clone()),
            _ => Err(reply.clone()),
        },
        inputs: Mutex::default(),
    });
    let result = exec(host.clone(), mode);
    for input in host.inputs.lock().unwrap().iter() {
        assert!(is_json(input), "a tool input is not JSON: {input}");
    }
    let json = result.to_json();
    assert!(is_json(&json), "a result is not JSON: {json}");
    match &result.status {
        Status::Failed { error, .. } => assert_ne!(error, messages::INTERNAL, "{json}"),
        Status::Completed { value } if mode & (REJECT | SMALL_MEMORY | SMALL_OUTPUT) == 0 => {
            check_round_trip(&reply, value.get(), mode & ECHO != 0);
        }
        _ => {}
    }
}

/// A reply serde_json reads is what the guest returns, and what the echo
/// brought back.
fn check_round_trip(reply: &str, value: &str, echoed: bool) {
    let Ok(sent) = serde_json::from_str::<Value>(reply) else {
        return;
    };
    let returned: Vec<Value> = match serde_json::from_str(value) {
        Ok(returned) => returned,
        // One level deeper than serde_json follows: `is_json` checked it.
        Err(error) if error.to_string().contains("recursion limit") => return,
        Err(error) => panic!("{error}: {value}"),
    };
    assert!(
        same(&sent, &returned[0]),
        "sent {reply}, the guest returned {value}"
    );
    if echoed {
        assert!(
            same(&sent, &returned[1]),
            "sent {reply}, the echo returned {value}"
        );
    }
}

/// Equal as JavaScript sees JSON: numbers as doubles, keys in any order.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        (a, b) => a == b,
    }
}

/// Runs the cell, resuming it while it parks; returns the last result.
fn exec(host: Arc<FuzzHost>, mode: u8) -> RunResult {
    let config = CodeModeConfig {
        timeout_ms: 5_000,
        memory_limit_bytes: if mode & SMALL_MEMORY != 0 {
            1 << 20
        } else {
            64 << 20
        },
        max_output_bytes: if mode & SMALL_OUTPUT != 0 {
            1 << 10
        } else {
            1 << 20
        },
        ..CodeModeConfig::default()
    };
    let catalog = catalog();
    let mcp = Arc::new(McpNamespace::build(&catalog));
    let agent_run = AgentRun::new(
        Arc::new(config),
        catalog,
        mcp,
        Default::default(),
        host,
        vec!["exec".into(), "wait".into()],
        RunOwner {
            agent_run_id: "fuzz".into(),
            ..RunOwner::default()
        },
    );
    let request = ExecRequest {
        input: ExecInput {
            code: format!("const MODE = {mode};\n{CELL}"),
            language: Language::Javascript,
            restart_safe: mode & RESTART_SAFE != 0,
        },
        started: Instant::now(),
        agent_run: agent_run.clone(),
        parent_tool_call_id: Some("call_exec".into()),
    };
    let mut result = answer(|done| engine().exec(request, Arc::new(Control::default()), done));
    // Two calls, so at most three legs; more is a run that never ends.
    for _ in 0..4 {
        let Status::Waiting { run_id, .. } = &result.status else {
            return result;
        };
        assert!(is_json(&result.to_json()));
        let request = WaitRequest {
            run_id: run_id.clone(),
            started: Instant::now(),
            agent_run: agent_run.clone(),
            parent_tool_call_id: Some("call_wait".into()),
        };
        result = answer(|done| engine().wait(request, Arc::new(Control::default()), done));
    }
    panic!("the run kept parking: {}", result.to_json());
}

/// Starts a leg and waits for its result.
fn answer(start: impl FnOnce(Box<dyn FnOnce(RunResult) + Send>)) -> RunResult {
    let (tx, rx) = mpsc::channel();
    start(Box::new(move |result| {
        let _ = tx.send(result);
    }));
    rx.recv_timeout(PATIENCE)
        .expect("the engine answered the leg")
}

/// One engine for the whole process, as the binding has.
fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::new(1).expect("an engine"))
}

fn catalog() -> Arc<Catalog> {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    let tool = |name: &str| ToolSpec {
        name: name.into(),
        label: None,
        description: format!("The {name} tool"),
        parameters: None,
        source: ToolSource::Openclaw,
        source_name: None,
        direct_only: false,
        replay_safe: true,
        mcp: None,
    };
    CATALOG
        .get_or_init(|| Arc::new(Catalog::build(&[tool("reply"), tool("echo")])))
        .clone()
}

/// `reply` answers with the fuzzed text, `echo` with its input. Every input
/// is kept for the checks.
struct FuzzHost {
    reply: Settlement,
    inputs: Mutex<Vec<String>>,
}

impl Host for FuzzHost {
    fn dispatch(&self, calls: Vec<Dispatch>) {
        for call in calls {
            let settlement = match call.call.name.as_str() {
                "echo" => Ok(call.input.clone()),
                _ => self.reply.clone(),
            };
            self.inputs.lock().unwrap().push(call.input);
            call.reply.settle(settlement);
        }
    }

    fn abort(&self, _keys: Vec<CallKey>) {}
}
