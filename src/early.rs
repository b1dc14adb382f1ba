//! Execs and waits that come before their run's catalog is built.
//!
//! The catalog, the `MCP` namespace and the agent run are built on the
//! runtime's builder thread (`prepared.rs`); building them costs time in
//! proportion to the gateway's tool list (hundreds of milliseconds for tens
//! of thousands of tools). An exec or wait made before it is done never
//! waits for it on the JavaScript thread: its promise is returned at once,
//! and the call waits here ([`Early`]) until one of these comes first:
//!
//! - the build ends: the thread that ended it (the builder) hands the call
//!   on to the engine, as the JavaScript thread would have; a first exec
//!   that must wait for plugin namespace scopes goes back to the JavaScript
//!   thread through the host channel, since `createScope` runs there;
//! - its budget ends (a timer armed at its deadline: the budget clock
//!   started when the JavaScript call was made), or its signal aborts, or
//!   `close()` is called: it is answered at once, with the result an exec
//!   or wait gets when it is stopped before it starts (`timeout`,
//!   `aborted`, `runtime_unavailable`).
//!
//! Such an answer carries the telemetry the agent run would give: the
//! catalog's size and sources are counted by `prepareRun`'s scan, and no
//! cell of the run can have counted anything yet.

use std::sync::Arc;
use std::time::Instant;

use code_mode_core::input::ExecInput;
use code_mode_core::messages;
use code_mode_core::result::{ErrorCode, RunResult, SourceCounts, Telemetry};
use code_mode_core::runs::{Control, Done, ExecRequest, Stop, WaitRequest};
use napi::bindgen_prelude::{FunctionRef, ObjectRef};
use napi::{Env, JsValue};
use parking_lot::Mutex;

use crate::engine::Engine;
use crate::host::{HostChannel, Message};
use crate::prepared::{Built, Prepared};

/// What an early call is, besides its budget and answer.
pub enum Call {
    Exec(ExecInput),
    Wait(String),
}

/// What continuing a call needs once the catalog is built.
#[derive(Clone)]
pub struct Onward {
    pub engine: Arc<Engine>,
    pub channel: Arc<HostChannel>,
    /// The run's plugin namespaces' `scopes`, when it has visible ones.
    pub scopes: Option<Arc<FunctionRef<(), ()>>>,
}

/// The early call itself, taken once: by the build's end, or by whatever
/// answers it first.
struct Pending {
    call: Call,
    started: Instant,
    parent_tool_call_id: Option<String>,
    control: Arc<Control>,
    settle: Done,
    /// The exec's signal, for the namespaces' `scopes` (only when the run
    /// has them); released on the JavaScript thread.
    signal: Option<ObjectRef<false>>,
    /// Keeps the build going while the call waits for it, even when the
    /// gateway drops the surface meanwhile.
    _prepared: Arc<Prepared>,
}

/// One exec or wait waiting for its run's catalog.
pub struct Early {
    pending: Mutex<Option<Pending>>,
    telemetry: Telemetry,
    restart_safe: bool,
}

/// The telemetry of a run whose catalog holds `sources` tools and which
/// shows `visible_tools` to the model, before any of its cells ran.
pub fn telemetry(sources: SourceCounts, visible_tools: &[String]) -> Telemetry {
    Telemetry {
        catalog_size: sources.openclaw + sources.mcp + sources.client,
        sources,
        visible_tools: visible_tools.to_vec(),
        ..Telemetry::default()
    }
}

/// A failure answered with `telemetry`.
pub fn failure(
    telemetry: &Telemetry,
    replay_safe: bool,
    code: ErrorCode,
    message: &str,
) -> RunResult {
    let mut result = RunResult::failed(code, message);
    result.telemetry = telemetry.clone();
    result.replay_safe = replay_safe;
    result
}

/// The parts of an early call, as the surface read them.
pub struct Parts {
    pub call: Call,
    pub started: Instant,
    pub parent_tool_call_id: Option<String>,
    pub control: Arc<Control>,
    pub settle: Done,
    pub signal: Option<ObjectRef<false>>,
    pub prepared: Arc<Prepared>,
}

impl Early {
    /// Holds the call until the build of `parts.prepared` ends, then hands
    /// it on with `onward`.
    pub fn hold(parts: Parts, telemetry: Telemetry, onward: Onward) -> Arc<Self> {
        let restart_safe = matches!(&parts.call, Call::Exec(input) if input.restart_safe);
        let prepared = parts.prepared.clone();
        let early = Arc::new(Self {
            pending: Mutex::new(Some(Pending {
                call: parts.call,
                started: parts.started,
                parent_tool_call_id: parts.parent_tool_call_id,
                control: parts.control,
                settle: parts.settle,
                signal: parts.signal,
                _prepared: parts.prepared,
            })),
            telemetry,
            restart_safe,
        });
        let waiting = early.clone();
        prepared.when_built(Box::new(move |built| waiting.onward(built, &onward)));
        early
    }

    /// Whether it is still waiting.
    pub fn waiting(&self) -> bool {
        self.pending.lock().is_some()
    }

    /// Answers the call now for `stop` (or the reason its control was
    /// stopped for first), unless it was handed on or answered already. On
    /// the JavaScript thread.
    pub fn stop(&self, env: &Env, stop: Stop) {
        let Some(pending) = self.pending.lock().take() else {
            return;
        };
        pending.control.stop(stop);
        let (code, message) = pending.control.stopped().unwrap_or(stop).error();
        if let Some(signal) = pending.signal {
            let _ = signal.unref(env);
        }
        let replay_safe = self.restart_safe && stop == Stop::Timeout;
        (pending.settle)(failure(&self.telemetry, replay_safe, code, message));
    }

    /// The build ended: hands the call on, on this thread (the builder's),
    /// or to the JavaScript thread when it must wait for namespace scopes.
    fn onward(&self, built: &Result<Arc<Built>, String>, onward: &Onward) {
        let Some(pending) = self.pending.lock().take() else {
            return;
        };
        let agent_run = match built {
            Ok(built) => built.agent_run.clone(),
            Err(_) => None,
        };
        let Some(agent_run) = agent_run else {
            let message = match built {
                Err(message) => message.as_str(),
                Ok(_) => messages::EXECUTE_TOOL_REQUIRED,
            };
            let result = failure(&self.telemetry, false, ErrorCode::InternalError, message);
            return finish_on_js(onward, pending.signal, move || (pending.settle)(result));
        };
        let Pending {
            call,
            started,
            parent_tool_call_id,
            control,
            settle,
            signal,
            _prepared: _,
        } = pending;
        let input = match call {
            Call::Wait(run_id) => {
                let request = WaitRequest {
                    run_id,
                    started,
                    agent_run,
                    parent_tool_call_id,
                };
                return onward.engine.wait(request, control, settle);
            }
            Call::Exec(input) => input,
        };
        let request = ExecRequest {
            input,
            started,
            agent_run,
            parent_tool_call_id,
        };
        let scoped = agent_run_needs_scopes(&request) && control.stopped().is_none();
        match (&onward.scopes, scoped) {
            (Some(scopes), true) => {
                let (engine, scopes) = (onward.engine.clone(), scopes.clone());
                let hop = Hop(Some((request, control, settle, signal)));
                onward.channel.send(Message::Run(Box::new(move |env| {
                    hop.run(env, &engine, &scopes)
                })));
            }
            _ => {
                finish_on_js(onward, signal, || ());
                onward.engine.exec(request, control, settle);
            }
        }
    }
}

fn agent_run_needs_scopes(request: &ExecRequest) -> bool {
    !request.agent_run.toolbox.namespaces.ready()
}

/// Runs `then` now, and releases `signal` (a JavaScript reference) on the
/// JavaScript thread.
fn finish_on_js(onward: &Onward, signal: Option<ObjectRef<false>>, then: impl FnOnce()) {
    if let Some(signal) = signal {
        onward.channel.send(Message::Run(Box::new(move |env| {
            let _ = signal.unref(env);
        })));
    }
    then();
}

/// An exec going back to the JavaScript thread for its namespace scopes.
/// Dropped without running (the channel closed first), it is answered as
/// closed.
struct Hop(Option<(ExecRequest, Arc<Control>, Done, Option<ObjectRef<false>>)>);

impl Hop {
    fn run(mut self, env: &Env, engine: &Arc<Engine>, scopes: &FunctionRef<(), ()>) {
        let Some((request, control, settle, signal)) = self.0.take() else {
            return;
        };
        let value = signal
            .as_ref()
            .and_then(|signal| signal.get_value(env).ok())
            .map_or_else(|| crate::js::undefined(env), |signal| signal.raw());
        let signal_value = crate::js::value(env, value);
        crate::scopes::exec_after_scopes(
            env,
            engine,
            scopes,
            signal_value,
            request,
            control,
            settle,
        );
        if let Some(signal) = signal {
            let _ = signal.unref(env);
        }
    }
}

impl Drop for Hop {
    fn drop(&mut self) {
        if let Some((request, control, settle, _)) = self.0.take() {
            control.stop(Stop::Closed);
            let (code, message) = Stop::Closed.error();
            let telemetry = request.agent_run.telemetry();
            settle(failure(&telemetry, false, code, message));
        }
    }
}
