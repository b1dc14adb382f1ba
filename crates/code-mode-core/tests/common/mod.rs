//! Shared by the engine tests: a host whose tools run on plain threads, a
//! small catalog, and helpers that run exec and wait to their result.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use code_mode_core::catalog::{Catalog, ToolSource, ToolSpec};
use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::input::ExecInput;
use code_mode_core::mcp::McpNamespace;
use code_mode_core::runs::host::{CallKey, Dispatch, Host};
use code_mode_core::runs::{AgentRun, Control, Engine, ExecRequest, RunOwner, WaitRequest};
use serde_json::Value;

/// A host whose tools run on plain threads: `echo` returns its input after
/// `input.ms` milliseconds (default 0), `fail` rejects with its input's message;
/// a call its schema refused is rejected with that message, never started.
#[derive(Default)]
pub struct ThreadHost {
    pub state: Arc<HostState>,
}

#[derive(Default)]
pub struct HostState {
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    pub started: Mutex<Vec<String>>,
    pub aborted: Mutex<Vec<CallKey>>,
}

impl Host for ThreadHost {
    fn dispatch(&self, calls: Vec<Dispatch>) {
        for call in calls {
            // A call whose input its schema refused fails without starting
            // its tool, as the binding's host does.
            if let Some(message) = call.call.rejection.clone() {
                call.reply.settle(Err(message));
                continue;
            }
            let state = self.state.clone();
            let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            state.max_in_flight.fetch_max(now, Ordering::SeqCst);
            state
                .started
                .lock()
                .unwrap()
                .push(call.call.tool_call_id.clone());
            let input: Value = serde_json::from_str(&call.input).unwrap();
            let ms = input["ms"].as_u64().unwrap_or(0);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(ms));
                state.in_flight.fetch_sub(1, Ordering::SeqCst);
                match call.call.name.as_str() {
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

pub fn tool(name: &str) -> ToolSpec {
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

/// An agent run over `echo` and `fail`, owned by [`owner`].
pub fn agent_run(host: Arc<ThreadHost>, config: &CodeModeConfig) -> Arc<AgentRun> {
    agent_run_with(host, config, &[tool("echo"), tool("fail")])
}

pub fn agent_run_with(
    host: Arc<ThreadHost>,
    config: &CodeModeConfig,
    tools: &[ToolSpec],
) -> Arc<AgentRun> {
    let catalog = Arc::new(Catalog::build(tools));
    let mcp = Arc::new(McpNamespace::build(&catalog));
    AgentRun::new(
        Arc::new(config.clone()),
        catalog,
        mcp,
        Default::default(),
        host,
        vec!["exec".into(), "wait".into()],
        owner(),
    )
}

/// The same agent run (toolbox, counters, host) seen with another
/// configuration and owner, as a second `prepareRun` of the gateway would.
pub fn variant(run: &AgentRun, config: CodeModeConfig, owner: RunOwner) -> Arc<AgentRun> {
    Arc::new(AgentRun {
        id: AgentRun::new_id(),
        config: Arc::new(config),
        toolbox: run.toolbox.clone(),
        host: run.host.clone(),
        visible_tools: run.visible_tools.clone(),
        owner,
    })
}

pub fn exec_on(
    engine: &Engine,
    agent: Arc<AgentRun>,
    config: CodeModeConfig,
    code: &str,
    language: Language,
) -> Value {
    exec_request(
        engine,
        variant(&agent, config, owner()),
        code,
        language,
        false,
    )
}

pub fn exec_request(
    engine: &Engine,
    agent_run: Arc<AgentRun>,
    code: &str,
    language: Language,
    restart_safe: bool,
) -> Value {
    let (tx, rx) = mpsc::channel();
    let request = ExecRequest {
        input: ExecInput {
            code: code.to_owned(),
            language,
            restart_safe,
        },
        started: Instant::now(),
        agent_run,
        parent_tool_call_id: Some("call_1".into()),
    };
    engine.exec(
        request,
        Arc::new(Control::default()),
        Box::new(move |result| tx.send(result.to_json()).unwrap()),
    );
    serde_json::from_str(&rx.recv().unwrap()).unwrap()
}

pub fn owner() -> RunOwner {
    RunOwner {
        agent_run_id: "run-1".into(),
        session_id: Some("session-1".into()),
        ..RunOwner::default()
    }
}

/// Starts a wait; the receiver gets its result as JSON text.
pub fn wait_start(
    engine: &Engine,
    agent: &AgentRun,
    config: CodeModeConfig,
    run_id: &str,
    owner: RunOwner,
) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let request = WaitRequest {
        run_id: run_id.to_owned(),
        started: Instant::now(),
        agent_run: variant(agent, config, owner),
        parent_tool_call_id: Some("call_2".into()),
    };
    engine.wait(
        request,
        Arc::new(Control::default()),
        Box::new(move |result| tx.send(result.to_json()).unwrap()),
    );
    rx
}

pub fn wait_on(
    engine: &Engine,
    agent: Arc<AgentRun>,
    config: CodeModeConfig,
    run_id: &str,
    owner: RunOwner,
) -> Value {
    let rx = wait_start(engine, &agent, config, run_id, owner);
    serde_json::from_str(&rx.recv().unwrap()).unwrap()
}

pub fn exec_with(engine: &Engine, config: CodeModeConfig, code: &str, language: Language) -> Value {
    let agent = agent_run(Arc::new(ThreadHost::default()), &config);
    exec_on(engine, agent, config, code, language)
}

pub fn exec(code: &str) -> Value {
    let engine = Engine::new(1).unwrap();
    exec_with(
        &engine,
        CodeModeConfig::default(),
        code,
        Language::Javascript,
    )
}
