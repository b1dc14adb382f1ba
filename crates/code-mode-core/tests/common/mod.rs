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
use code_mode_core::runs::host::{CallKey, Dispatch, Host};
use code_mode_core::runs::{Engine, ExecRequest, RunScope, RunSurface, WaitRequest};
use code_mode_core::sandbox::bridge::BridgeScope;
use code_mode_core::sandbox::Control;
use serde_json::Value;

/// A host whose tools run on plain threads: `echo` returns its input after
/// `input.ms` milliseconds (default 0), `fail` rejects with its input's message.
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

pub fn surface(host: Arc<ThreadHost>, config: &CodeModeConfig) -> Arc<RunSurface> {
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

pub fn exec_on(
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

pub fn scope() -> RunScope {
    RunScope {
        agent_run_id: "run-1".into(),
        session_id: Some("session-1".into()),
        ..RunScope::default()
    }
}

pub fn wait_on(
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

pub fn exec_with(engine: &Engine, config: CodeModeConfig, code: &str, language: Language) -> Value {
    let surface = surface(Arc::new(ThreadHost::default()), &config);
    exec_on(engine, surface, config, code, language)
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
