//! `cell {json}`: runs one cell on the engine inside the locked-down
//! process and answers its result as JSON. Nested calls are not connected
//! to the addon yet: the one tool, `echo`, is answered inside the sandbox,
//! from a thread of its own, with its input. The engine and its worker threads are
//! made at the first cell, after the lockdown, so every thread runs under
//! the seccomp filter. This is how the tests see the allow-list hold for
//! QuickJS, the TypeScript compiler, the workers, timers, deadlines, the
//! memory limit and the hand-offs of nested calls; the protocol that replaces it carries the addon's runs.

use std::sync::{mpsc, Arc, OnceLock};
use std::time::Instant;

use code_mode_core::catalog::{Catalog, ToolSource, ToolSpec};
use code_mode_core::config::CodeModeConfig;
use code_mode_core::input::{Field, RawExecInput};
use code_mode_core::mcp::McpNamespace;
use code_mode_core::runs::host::{CallKey, Dispatch, Host};
use code_mode_core::runs::{AgentRun, Control, Engine, ExecRequest, RunOwner};
use serde_json::Value;

/// Worker threads of the sandbox's engine.
const WORKERS: usize = 2;

/// `echo`, answered with its input from a thread of its own, as a
/// gateway's tool answers from another thread than the worker's.
struct Echo;

impl Host for Echo {
    fn dispatch(&self, calls: Vec<Dispatch>) {
        for call in calls {
            let _ = std::thread::Builder::new()
                .name("sandbox-echo".into())
                .spawn(move || call.reply.settle(Ok(call.input.clone())));
        }
    }

    fn abort(&self, _keys: Vec<CallKey>) {}
}

fn echo() -> ToolSpec {
    ToolSpec {
        name: "echo".into(),
        label: None,
        description: "Answers its input.".into(),
        parameters: None,
        source: ToolSource::Openclaw,
        source_name: None,
        direct_only: false,
        replay_safe: false,
        mcp: None,
    }
}

static ENGINE: OnceLock<Result<Engine, String>> = OnceLock::new();

/// The catalog and its `MCP` namespace, the same for every cell: built once.
static TOOLS: OnceLock<(Arc<Catalog>, Arc<McpNamespace>)> = OnceLock::new();

/// Runs the cell `request` describes (`code`, `language`, and `config`, the
/// `tools.codeMode` fields) and answers its result's JSON, or `error ...`.
pub fn run(request: &str) -> String {
    let engine = ENGINE.get_or_init(|| Engine::new(WORKERS).map_err(|error| error.to_string()));
    let engine = match engine {
        Ok(engine) => engine,
        Err(error) => return format!("error engine: {error}"),
    };
    let request: Value = match serde_json::from_str(request) {
        Ok(request) => request,
        Err(error) => return format!("error request: {error}"),
    };
    let config = CodeModeConfig::resolve(&request["config"], &Value::Null);
    let text = |name: &str| match &request[name] {
        Value::String(text) => Field::Str(text.clone()),
        _ => Field::Absent,
    };
    let raw = RawExecInput {
        code: text("code"),
        language: text("language"),
        ..RawExecInput::default()
    };
    let input = match raw.validate(&config) {
        Ok(input) => input,
        Err(message) => return format!("error input: {message}"),
    };
    let (catalog, mcp) = TOOLS.get_or_init(|| {
        let catalog = Arc::new(Catalog::build(&[echo()]));
        let mcp = Arc::new(McpNamespace::build(&catalog));
        (catalog, mcp)
    });
    let agent_run = AgentRun::new(
        Arc::new(config),
        catalog.clone(),
        mcp.clone(),
        Default::default(),
        Arc::new(Echo),
        vec!["exec".into(), "wait".into()],
        RunOwner::default(),
    );
    let (sender, answer) = mpsc::channel();
    engine.exec(
        ExecRequest {
            input,
            started: Instant::now(),
            agent_run,
            parent_tool_call_id: None,
        },
        Arc::new(Control::default()),
        Box::new(move |result| {
            let _ = sender.send(result.to_json());
        }),
    );
    answer
        .recv()
        .unwrap_or_else(|_| "error the engine dropped the cell".to_owned())
}
