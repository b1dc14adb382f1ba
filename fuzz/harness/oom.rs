//! `oom`: a cell run through the real engine while its VM's allocator
//! refuses one allocation, the Nth from the VM's bind on, as if the memory
//! limit were reached exactly there. A sweep over N reaches every
//! allocation of the cell's whole run: the globals QuickJS and code mode
//! make on first use, compilation, the bridge, MCP, plugin namespaces,
//! timers and output.
//!
//! What must hold at every N: the process survives (no abort, no panic), the
//! cell gets an answer (completed, or a failure with a code; never a hang),
//! and the VM is freed normally: a runtime the engine had to retire (it
//! found objects QuickJS leaked, `retiredVms` in the diagnostics) is a
//! finding, even though the process survives it.
//!
//! Input of the fuzz target: decimal digits (N, at most 1,000,000), one byte
//! (`t` for TypeScript, anything else JavaScript), then the cell's source.
//! The seeds (`fuzz/seeds/oom/`) are the corpus cells: `N` of `0` runs a
//! cell with no fault, so the fuzzer learns what it allocates.

use std::sync::mpsc;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use code_mode_core::catalog::{Catalog, McpMeta, ToolSource, ToolSpec};
use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::input::ExecInput;
use code_mode_core::mcp::McpNamespace;
use code_mode_core::namespaces::{self, Registration, RunNamespaces};
use code_mode_core::runs::host::{CallKey, Dispatch, Host};
use code_mode_core::runs::{
    fault, retired_vms, AgentRun, Control, Engine, ExecRequest, RunOwner, WaitRequest,
};
use serde_json::{json, Value};

use super::Reader;

/// How long one cell may take before the harness calls it a hang: far past
/// any corpus cell's budget (`timeoutMs` below) plus the watchdog's grace.
const HANG: Duration = Duration::from_secs(60);

/// Waits after which a run that keeps parking (a fuzzed cell may yield in a
/// loop) is left parked: the engine holds at most 64 parked runs and
/// refuses to park more, so leaving them is bounded. A leg with a live
/// interval runs its whole budget, so a cell takes at most (1 + MAX_WAITS)
/// budgets: 20 s, under libFuzzer's 25 s timeout (`scripts/fuzz.sh`); with
/// 20 waits a fuzzed `setInterval` that never clears took 105 s.
const MAX_WAITS: usize = 3;

/// The budget of each exec and wait.
const TIMEOUT_MS: u64 = 5_000;

pub fn run(data: &[u8]) {
    let mut reader = Reader::new(data);
    let nth = reader.number(1_000_000) as u64;
    let language = match reader.byte() {
        b't' => Language::Typescript,
        _ => Language::Javascript,
    };
    let code = reader.rest();
    if code.trim().is_empty() {
        return;
    }
    let retired = retired_vms();
    run_cell(&code, language, nth);
    // A completed cell's VM is freed after its answer: one more run on the
    // same (only) worker comes after it.
    run_cell("return 1", Language::Javascript, 0);
    assert_eq!(
        retired_vms(),
        retired,
        "N={nth}: a VM had to be retired (QuickJS leaked objects) running:\n{code}"
    );
}

/// What one run of a cell came to.
#[derive(Debug)]
pub struct Ran {
    /// The final result (after any waits), as JSON.
    pub result: Value,
    /// Allocations the VM made (or was refused) from its bind on, when a
    /// fault was planned; the sweep is done once this is below N.
    pub allocations: Option<u64>,
}

/// Runs `code` with the Nth allocation refused (0: none); panics when the
/// engine breaks a promise (see the module doc).
pub fn run_cell(code: &str, language: Language, nth: u64) -> Ran {
    let harness = &*HARNESS;
    // One cell at a time: the fault plan is process-wide.
    let _serial = harness.serial.lock();
    let retired = retired_vms();
    if std::env::var_os("OOM_VERBOSE").is_some() {
        println!("oom: N={nth}");
    }
    fault::fail_next_run_at(nth);
    let mut result = harness.exec(code, language);
    // A run that parked (a long timer, a yield) is resumed until it ends.
    let mut waits = 0;
    while result["status"] == "waiting" && waits < MAX_WAITS {
        waits += 1;
        let run_id = result["runId"]
            .as_str()
            .expect("a waiting run's id")
            .to_owned();
        result = harness.wait(&run_id);
    }
    let allocations = if nth == 0 {
        None
    } else {
        fault::armed_allocations()
    };
    fault::fail_next_run_at(0);
    match result["status"].as_str() {
        Some("completed") | Some("waiting") => {}
        Some("failed") => assert!(
            result["code"].is_string() && result["error"].is_string(),
            "N={nth}: a failure without code and message: {result}"
        ),
        _ => panic!("N={nth}: not a result: {result}"),
    }
    // A failed cell's VM is freed before its answer; a completed one's
    // right after, on the same (only) worker: the next exec sees it.
    if result["status"] == "failed" {
        assert_eq!(
            retired_vms(),
            retired,
            "N={nth}: the VM had to be retired (QuickJS leaked objects) running:\n{code}"
        );
    }
    Ran {
        result,
        allocations,
    }
}

/// A fuzz input's cell: its language and source (its N is skipped).
pub fn decode(data: &[u8]) -> (String, Language) {
    let mut reader = Reader::new(data);
    reader.number(1_000_000);
    let language = match reader.byte() {
        b't' => Language::Typescript,
        _ => Language::Javascript,
    };
    (reader.rest(), language)
}

/// How many allocations `code` makes from its VM's bind on, run with no
/// fault; panics unless it completes.
pub fn allocations(code: &str, language: Language) -> u64 {
    let clean = run_cell(code, language, u64::MAX);
    assert_eq!(
        clean.result["status"], "completed",
        "a corpus cell must complete without a fault: {}\n{code}",
        clean.result
    );
    clean.allocations.expect("counted")
}

/// Runs `code` with its allocation `first` refused, then `first + stride`,
/// and so on while the cell still reaches it; returns the runs made. Panics
/// on the first broken promise, naming N.
pub fn sweep_from(code: &str, language: Language, first: u64, stride: u64) -> u64 {
    let retired = retired_vms();
    let mut runs = 0;
    let mut nth = first.max(1);
    loop {
        let ran = run_cell(code, language, nth);
        runs += 1;
        let Some(made) = ran.allocations else {
            panic!(
                "N={nth}: the fault was not armed in the cell's VM: {}",
                ran.result
            );
        };
        if made < nth {
            // The run ended before its Nth allocation: every one was reached.
            break;
        }
        nth += stride.max(1);
    }
    // Completed runs' VMs are freed after their answers: one more run on
    // the same (only) worker comes after all of them.
    run_cell("return 1", Language::Javascript, 0);
    assert_eq!(
        retired_vms(),
        retired,
        "a VM had to be retired (QuickJS leaked objects) in the sweep of:\n{code}"
    );
    runs
}

/// A cell that lists every global (`name`), every own property of each
/// global object or function (`Global.property`), of its prototype
/// (`Global.prototype.property`), of the objects below (`MCP.docs`), and of
/// the intrinsics no global names (`%TypedArray%`, the iterator
/// prototypes). Symbol keys are written `[description]`.
pub const WALK: &str = r#"
const hidden = {
  '%TypedArray%': Object.getPrototypeOf(Int8Array),
  '%ArrayIteratorPrototype%': Object.getPrototypeOf([][Symbol.iterator]()),
  '%MapIteratorPrototype%': Object.getPrototypeOf(new Map()[Symbol.iterator]()),
  '%SetIteratorPrototype%': Object.getPrototypeOf(new Set()[Symbol.iterator]()),
  '%StringIteratorPrototype%': Object.getPrototypeOf(''[Symbol.iterator]()),
  '%RegExpStringIteratorPrototype%': Object.getPrototypeOf(/a/[Symbol.matchAll]('')),
  '%IteratorPrototype%': Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())),
  '%AsyncIteratorPrototype%': Object.getPrototypeOf(Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})()))),
  '%GeneratorFunction%': Object.getPrototypeOf(function* () {}).constructor,
  '%GeneratorPrototype%': Object.getPrototypeOf(function* () {}).prototype,
  '%AsyncGeneratorFunction%': Object.getPrototypeOf(async function* () {}).constructor,
  '%AsyncGeneratorPrototype%': Object.getPrototypeOf(async function* () {}).prototype,
  '%AsyncFunction%': Object.getPrototypeOf(async function () {}).constructor,
  '%IteratorHelperPrototype%': Object.getPrototypeOf([].values().map((x) => x)),
  '%WrapForValidIteratorPrototype%': Object.getPrototypeOf(Iterator.from({ next() { return { done: true } } })),
  '%AsyncFromSyncIteratorPrototype%': undefined,
}
const names = []
const seen = new Set([Object.prototype, Function.prototype])
const key = (k) => typeof k === 'symbol' ? '[' + String(k.description).replace(/^Symbol\./, '') + ']' : k
function visit(path, object, depth) {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function')) return
  if (seen.has(object)) return
  seen.add(object)
  for (const k of Reflect.ownKeys(object)) {
    const name = path + '.' + key(k)
    names.push(name)
    const d = Object.getOwnPropertyDescriptor(object, k)
    if (depth < 3 && d && 'value' in d && k !== 'constructor') visit(name, d.value, depth + 1)
  }
}
for (const k of Reflect.ownKeys(globalThis)) {
  names.push(key(k))
  const d = Object.getOwnPropertyDescriptor(globalThis, k)
  if (d && 'value' in d && d.value !== globalThis) visit(key(k), d.value, 1)
}
for (const p of ['Object.prototype', 'Function.prototype']) {
  seen.delete(p === 'Object.prototype' ? Object.prototype : Function.prototype)
  visit(p, p === 'Object.prototype' ? Object.prototype : Function.prototype, 2)
}
for (const [name, object] of Object.entries(hidden)) visit(name, object, 2)
return [...new Set(names)]
"#;

struct Harness {
    engine: Engine,
    agent_run: Arc<AgentRun>,
    serial: parking_lot::Mutex<()>,
}

static HARNESS: LazyLock<Harness> = LazyLock::new(|| {
    // One worker: a cell's VM is freed before the next cell starts.
    let engine = Engine::new(1).expect("the engine starts");
    let config = CodeModeConfig {
        timeout_ms: TIMEOUT_MS,
        ..CodeModeConfig::default()
    };
    Harness {
        engine,
        agent_run: agent_run(config),
        serial: parking_lot::Mutex::new(()),
    }
});

impl Harness {
    fn exec(&self, code: &str, language: Language) -> Value {
        let (tx, rx) = mpsc::channel();
        let request = ExecRequest {
            input: ExecInput {
                code: code.to_owned(),
                language,
                restart_safe: false,
            },
            started: Instant::now(),
            agent_run: self.agent_run.clone(),
            parent_tool_call_id: Some("call_oom".into()),
        };
        self.engine.exec(
            request,
            Arc::new(Control::default()),
            Box::new(move |result| {
                let _ = tx.send(result.to_json());
            }),
        );
        answer(&rx)
    }

    fn wait(&self, run_id: &str) -> Value {
        let (tx, rx) = mpsc::channel();
        let request = WaitRequest {
            run_id: run_id.to_owned(),
            started: Instant::now(),
            agent_run: self.agent_run.clone(),
            parent_tool_call_id: Some("call_oom_wait".into()),
        };
        self.engine.wait(
            request,
            Arc::new(Control::default()),
            Box::new(move |result| {
                let _ = tx.send(result.to_json());
            }),
        );
        answer(&rx)
    }
}

fn answer(rx: &mpsc::Receiver<String>) -> Value {
    let text = rx
        .recv_timeout(HANG)
        .expect("the cell was answered (no hang)");
    serde_json::from_str(&text).expect("a result is JSON")
}

/// The run every cell of the harness belongs to: plain tools, MCP tools of
/// two servers (one with a schema), and a plugin namespace.
fn agent_run(config: CodeModeConfig) -> Arc<AgentRun> {
    let tools = tools();
    let catalog = Arc::new(Catalog::build(&tools));
    let mcp = Arc::new(McpNamespace::build(&catalog));
    let registration = Registration {
        id: "github-issues".into(),
        plugin_id: "github".into(),
        global_name: "Issues".into(),
        description: Some("GitHub issues.".into()),
        prompt: None,
        required_tool_names: vec!["list_issues".into(), "update_issue".into()],
    };
    let visible = namespaces::visible(vec![registration], |plugin, name| {
        tools.iter().any(|tool| {
            tool.source == ToolSource::Openclaw
                && tool.source_name.as_deref() == Some(plugin)
                && tool.name == name
        })
    });
    let namespaces = RunNamespaces::resolve(visible, &catalog);
    namespaces
        .accept(
            &json!([{
                "tree": {"repo": "openclaw/openclaw", "list": null, "issue": {"update": null}},
                "callables": [
                    {"path": ["list"], "tool": "list_issues"},
                    {"path": ["issue", "update"], "tool": "update_issue"}
                ]
            }])
            .to_string(),
        )
        .expect("the namespace scope is well formed");
    AgentRun::new(
        Arc::new(config),
        catalog,
        mcp,
        Arc::new(namespaces),
        Arc::new(InlineHost::start()),
        vec!["exec".into(), "wait".into()],
        RunOwner {
            agent_run_id: "run-oom".into(),
            session_id: Some("session-oom".into()),
            ..RunOwner::default()
        },
    )
}

fn tools() -> Vec<ToolSpec> {
    let tool = |name: &str, source: ToolSource, plugin: Option<&str>| ToolSpec {
        name: name.into(),
        label: None,
        description: format!("The {name} tool: returns what it is given."),
        parameters: None,
        source,
        source_name: plugin.map(str::to_owned),
        direct_only: false,
        replay_safe: false,
        mcp: None,
    };
    let mcp = |server: &str, name: &str, schema: Option<Value>| ToolSpec {
        name: format!("{server}__{name}"),
        label: None,
        description: format!("MCP tool {name} of {server}."),
        parameters: schema.map(Into::into),
        source: ToolSource::Mcp,
        source_name: Some(server.into()),
        direct_only: false,
        replay_safe: false,
        mcp: Some(McpMeta {
            server: server.into(),
            tool: name.into(),
            operation: None,
        }),
    };
    let search_schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50}
        },
        "required": ["query"]
    });
    let echo_schema = json!({
        "type": "object",
        "properties": {"text": {"type": "string"}, "ms": {"type": "integer"}},
        "additionalProperties": true
    });
    vec![
        ToolSpec {
            parameters: Some(echo_schema.into()),
            ..tool("echo", ToolSource::Openclaw, Some("core"))
        },
        tool("fail", ToolSource::Openclaw, Some("core")),
        tool("list_issues", ToolSource::Openclaw, Some("github")),
        tool("update_issue", ToolSource::Openclaw, Some("github")),
        mcp("docs", "search_docs", Some(search_schema)),
        mcp("docs", "get-page", None),
        mcp("github", "create_issue", None),
    ]
}

/// A host whose tools run on one thread of its own: every tool returns its
/// input, except `fail`, which rejects with its input's `message`, and
/// `list_issues`, which returns a list. Inputs with `ms` settle that much
/// later.
struct InlineHost {
    calls: parking_lot::Mutex<mpsc::Sender<Dispatch>>,
}

impl InlineHost {
    fn start() -> Self {
        let (tx, rx) = mpsc::channel::<Dispatch>();
        std::thread::Builder::new()
            .name("oom-host".into())
            .spawn(move || {
                for call in rx {
                    if let Some(reason) = &call.call.rejection {
                        call.reply.settle(Err(reason.clone()));
                        continue;
                    }
                    let input: Value = serde_json::from_str(&call.input).unwrap_or(Value::Null);
                    if let Some(ms) = input.get("ms").and_then(Value::as_u64) {
                        std::thread::sleep(Duration::from_millis(ms.min(50)));
                    }
                    let settlement = match call.call.name.as_str() {
                        "fail" => Err(input["message"].as_str().unwrap_or("failed").to_owned()),
                        "list_issues" => Ok(json!({
                            "details": [{"number": 1, "title": "First"}, {"number": 2, "title": "Second"}]
                        })
                        .to_string()),
                        _ => Ok(call.input.clone()),
                    };
                    call.reply.settle(settlement);
                }
            })
            .expect("the host thread starts");
        Self {
            calls: parking_lot::Mutex::new(tx),
        }
    }
}

impl Host for InlineHost {
    fn dispatch(&self, calls: Vec<Dispatch>) {
        let sender = self.calls.lock();
        for call in calls {
            let _ = sender.send(call);
        }
    }

    fn abort(&self, _keys: Vec<CallKey>) {}
}
