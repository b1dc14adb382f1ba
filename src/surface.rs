//! `CodeModeRunSurface`: one agent run's exec and wait, as JavaScript sees it.

use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use code_mode_core::config::CodeModeConfig;
use code_mode_core::input::{ExecInput, Field, RawExecInput};
use code_mode_core::messages;
use code_mode_core::model;
use code_mode_core::result::{ErrorCode, RunResult, Telemetry};
use code_mode_core::runs::{AgentRun, Control, Done, ExecRequest, Stop, WaitRequest};
use napi::bindgen_prelude::{
    FnArgs, Function, FunctionRef, JsObjectValue, Object, ObjectRef, ToNapiValue, Unknown,
};
use napi::{sys, Env, Error, JsValue, Result};
use napi_derive::napi;

use crate::early::{self, Call, Early, Onward};
use crate::engine::Engine;
use crate::host::ResultText;
use crate::js::{self, call_function, field, parse_json};
use crate::prepared::{Built, Prepared};
use crate::runtime::Runtime;
use crate::scopes;

/// What a run surface presents, planned by `prepareRun`.
pub struct SurfaceParts {
    pub active: bool,
    pub model_tools_json: String,
    /// Names a provider payload may carry besides exec and wait (active), or
    /// the run's unchanged tool names (inactive).
    pub allowed_payload: Vec<String>,
    /// The run's plugin namespaces' `scopes(budgetMs, signal, done)`, when
    /// it has visible ones.
    pub scopes: Option<Arc<FunctionRef<(), ()>>>,
    /// The run's configuration; `None` without `executeTool`.
    pub config: Option<Arc<CodeModeConfig>>,
    /// What a call answered before the catalog is built reports.
    pub telemetry: Telemetry,
    /// `later(ms, fn)` of `prepare.js`: an unreferenced timer.
    pub later: FunctionRef<(), ()>,
    /// The catalog and agent run, built off the JavaScript thread.
    pub prepared: Arc<Prepared>,
    /// `finish()` of the tools still being written in the background
    /// (`tools.rs`); it does nothing once they all are.
    pub finish: Option<FunctionRef<(), ()>>,
}

/// The model-facing surface of one agent run.
#[napi]
pub struct CodeModeRunSurface {
    /// Kept open while this surface lives (`code_mode.rs`).
    runtime: Arc<Runtime>,
    engine: Arc<Engine>,
    parts: SurfaceParts,
}

impl CodeModeRunSurface {
    pub fn new(runtime: Arc<Runtime>, parts: SurfaceParts) -> Self {
        Self {
            engine: runtime.engine.clone(),
            runtime,
            parts,
        }
    }
}

/// A surface is dropped on the JavaScript thread, in the turn after the
/// garbage collector found it unreachable; its build (catalog, `MCP`
/// namespace, agent run) is freed on the builder thread instead.
impl Drop for CodeModeRunSurface {
    fn drop(&mut self) {
        let prepared = std::mem::replace(&mut self.parts.prepared, Prepared::retired());
        if self.runtime.engine.is_process() {
            // The sandboxes forget their copies of its agent run (once
            // built: a build that ends later is forgotten then).
            let engine = self.runtime.engine.clone();
            prepared.when_built(Box::new(move |built| {
                if let Some(agent_run) = built.as_ref().ok().and_then(|b| b.agent_run.as_ref()) {
                    engine.forget(agent_run.id);
                }
            }));
        }
        self.runtime.builder.retire(prepared);
    }
}

/// A result's JSON text (cut into pieces on the thread that finished the
/// call, when long), turned into a JavaScript object on the JS thread: at
/// once, or, from pieces, over several turns (the promise resolves with a
/// promise of it).
struct Delivered(ResultText, Arc<Runtime>);

impl ToNapiValue for Delivered {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let env = Env::from_raw(env);
        val.1.results.value(&env, val.0)
    }
}

#[napi]
impl CodeModeRunSurface {
    /// Whether code mode applies to this run.
    #[napi(getter)]
    pub fn active(&self) -> bool {
        self.parts.active
    }

    /// What the provider payload may contain: `exec`, `wait`, then the
    /// direct-only tools (or the unchanged tools when inactive).
    #[napi(getter, ts_return_type = "ModelToolDefinition[]")]
    pub fn model_tools<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        parse_json(env, &self.parts.model_tools_json)
    }

    /// The guest-facing catalog (no MCP, no direct-only); empty when inactive.
    #[napi(getter, ts_return_type = "ToolCatalogEntry[]")]
    pub fn catalog<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        parse_json(env, self.built(env)?.catalog.all_tools_json())
    }

    /// What the gateway could fix about the tools it passed, one sentence each
    /// naming the tool and what to do: MCP tools without `mcp` metadata, with
    /// no or a non-object input schema, with an unknown `mcp.operation`, or
    /// whose identifier collided after camel-casing. None of them stops the
    /// run; the declarations tell the model the same. Empty when all is well.
    /// Tools whose `parameters` `JSON.stringify` could not write are listed
    /// too (they have no schema).
    #[napi(getter)]
    pub fn diagnostics(&self, env: &Env) -> Result<Vec<String>> {
        Ok(self.built(env)?.diagnostics.clone())
    }

    /// Throws unless `names` is exactly exec, wait and the run's direct-only
    /// tools; when inactive, only the run's unchanged tool names.
    #[napi(catch_unwind)]
    pub fn assert_provider_payload(&self, names: Vec<String>) -> Result<()> {
        model::assert_provider_payload(&names, self.parts.active, &self.parts.allowed_payload)
            .map_err(Error::from_reason)
    }

    /// Runs one cell. Resolves to a `CodeModeResult`; never rejects for anything
    /// the model caused.
    #[napi(
        catch_unwind,
        ts_args_type = "input: unknown, call?: { toolCallId?: string; signal?: AbortSignal }",
        ts_return_type = "Promise<CodeModeResult>"
    )]
    pub fn exec<'env>(
        &self,
        env: &'env Env,
        input: Unknown,
        call: Option<Object>,
    ) -> Result<Object<'env>> {
        let started = Instant::now();
        let (config, agent_run) = self.runnable()?;
        // Everything is read from JavaScript before the promise exists, so a
        // throwing getter leaves nothing pending behind.
        let raw = read_input(&input)?;
        let input = match self.engine.is_closed() {
            true => Err((ErrorCode::RuntimeUnavailable, messages::CLOSED.to_owned())),
            false => match raw {
                None => Err((ErrorCode::InvalidInput, messages::CODE_REQUIRED.to_owned())),
                Some(raw) => raw
                    .validate(&config)
                    .map_err(|message| (ErrorCode::InvalidInput, message)),
            },
        };
        let input = match input {
            Ok(input) => input,
            Err((code, message)) => return self.refused(env, agent_run, code, &message),
        };
        let signal: Unknown = match &call {
            Some(call) => call.get_named_property("signal")?,
            None => js::value(env, js::undefined(env)).to_owned(),
        };
        let Some(agent_run) = agent_run else {
            return self.exec_early(env, &config, input, signal, call, started);
        };
        let call = CallOptions::read(env, call)?;
        let ready = agent_run.toolbox.namespaces.ready();
        let request = ExecRequest {
            input,
            started,
            agent_run,
            parent_tool_call_id: call.tool_call_id.clone(),
        };
        let control = call.control.clone();
        let (settle, promise) = call.promise(env, self.runtime.clone())?;
        // An exec aborted before it starts runs nothing, createScope included.
        match (&self.parts.scopes, ready || control.stopped().is_some()) {
            (Some(scopes), false) => scopes::exec_after_scopes(
                env,
                &self.engine,
                scopes,
                signal,
                request,
                control,
                settle,
            ),
            _ => self.engine.exec(request, control, settle),
        }
        Ok(promise)
    }

    /// Resumes a suspended run: `input` is `{runId}` (or `{run_id}`). Resolves
    /// to a `CodeModeResult`; never rejects for anything the model caused.
    #[napi(
        catch_unwind,
        ts_args_type = "input: unknown, call?: { toolCallId?: string; signal?: AbortSignal }",
        ts_return_type = "Promise<CodeModeResult>"
    )]
    pub fn wait<'env>(
        &self,
        env: &'env Env,
        input: Unknown,
        call: Option<Object>,
    ) -> Result<Object<'env>> {
        let started = Instant::now();
        let (config, agent_run) = self.runnable()?;
        let run_id = read_run_id(&input)?;
        let run_id = match (self.engine.is_closed(), run_id) {
            (true, _) => Err((ErrorCode::RuntimeUnavailable, messages::CLOSED)),
            (false, None) => Err((ErrorCode::InvalidInput, messages::RUN_ID_REQUIRED)),
            (false, Some(run_id)) => Ok(run_id),
        };
        let run_id = match run_id {
            Ok(run_id) => run_id,
            Err((code, message)) => return self.refused(env, agent_run, code, message),
        };
        let call = CallOptions::read(env, call)?;
        let Some(agent_run) = agent_run else {
            return self.early(env, &config, Call::Wait(run_id), None, call, started);
        };
        let request = WaitRequest {
            run_id,
            started,
            agent_run,
            parent_tool_call_id: call.tool_call_id.clone(),
        };
        let control = call.control.clone();
        let (settle, promise) = call.promise(env, self.runtime.clone())?;
        self.engine.wait(request, control, settle);
        Ok(promise)
    }
}

impl CodeModeRunSurface {
    /// What exec and wait run against: the run's configuration, and its
    /// agent run once the catalog is built (`None` before). A host error
    /// when they cannot run, or when the build failed.
    fn runnable(&self) -> Result<(Arc<CodeModeConfig>, Option<Arc<AgentRun>>)> {
        if !self.parts.active {
            return Err(Error::from_reason(messages::NOT_ACTIVE));
        }
        let config = self
            .parts
            .config
            .clone()
            .ok_or_else(|| Error::from_reason(messages::EXECUTE_TOOL_REQUIRED))?;
        let agent_run = match self.parts.prepared.get() {
            None => None,
            Some(built) => built.clone().map_err(Error::from_reason)?.agent_run.clone(),
        };
        Ok((config, agent_run))
    }

    /// A promise already resolved with a failure (input refused, engine
    /// closed): with the agent run's telemetry, or before the catalog is
    /// built, with what it will report.
    fn refused<'env>(
        &self,
        env: &'env Env,
        agent_run: Option<Arc<AgentRun>>,
        code: ErrorCode,
        message: &str,
    ) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<Delivered, _>()?;
        let runtime = self.runtime.clone();
        let done: Done = Box::new(move |result: RunResult| {
            let text = ResultText::new(result.to_json());
            deferred.resolve(move |_| Ok(Delivered(text, runtime)));
        });
        match agent_run {
            Some(agent_run) => self.engine.refuse(agent_run, code, message, done),
            None => done(early::failure(&self.parts.telemetry, false, code, message)),
        }
        Ok(promise)
    }

    /// An exec made before the catalog is built: its signal is kept for the
    /// namespaces' `scopes` when the run has them.
    fn exec_early<'env>(
        &self,
        env: &'env Env,
        config: &CodeModeConfig,
        input: ExecInput,
        signal: Unknown,
        call: Option<Object>,
        started: Instant,
    ) -> Result<Object<'env>> {
        let signal = match (&self.parts.scopes, js::object(&signal)?) {
            (Some(_), Some(signal)) => Some(signal.create_ref::<false>()?),
            _ => None,
        };
        let call = CallOptions::read(env, call);
        let call = match call {
            Ok(call) => call,
            Err(error) => {
                if let Some(signal) = signal {
                    let _ = signal.unref(env);
                }
                return Err(error);
            }
        };
        self.early(env, config, Call::Exec(input), signal, call, started)
    }

    /// Holds an exec or wait until the catalog is built (`early.rs`),
    /// answering it at its deadline, on abort or on `close()` if those come
    /// first. Returns its promise at once.
    fn early<'env>(
        &self,
        env: &'env Env,
        config: &CodeModeConfig,
        call_kind: Call,
        signal: Option<ObjectRef<false>>,
        call: CallOptions,
        started: Instant,
    ) -> Result<Object<'env>> {
        let deadline = started + Duration::from_millis(config.timeout_ms);
        let control = call.control.clone();
        control.arm(deadline);
        let parent_tool_call_id = call.tool_call_id.clone();
        let hook = call.early.clone();
        let (settle, promise) = call.promise(env, self.runtime.clone())?;
        let onward = Onward {
            engine: self.engine.clone(),
            channel: self.runtime.channel.clone(),
            scopes: self.parts.scopes.clone(),
        };
        let parts = early::Parts {
            call: call_kind,
            started,
            parent_tool_call_id,
            control: control.clone(),
            settle,
            signal,
            prepared: self.parts.prepared.clone(),
        };
        let early = Early::hold(parts, self.parts.telemetry.clone(), onward);
        if !early.waiting() {
            return Ok(promise);
        }
        // Aborted already, or while it waits; closed while it waits.
        let _ = hook.set(Arc::downgrade(&early));
        if control.stopped().is_some() {
            early.stop(env, Stop::Aborted);
            return Ok(promise);
        }
        self.runtime.hold_early(&early);
        // At its deadline: the budget runs from the JavaScript call.
        let watched = Arc::downgrade(&early);
        let lapse =
            env.create_function_from_closure::<(), (), _>("codeModeEarlyDeadline", move |ctx| {
                if let Some(early) = watched.upgrade() {
                    early.stop(ctx.env, Stop::Timeout);
                }
                Ok(())
            })?;
        let left = deadline.saturating_duration_since(Instant::now());
        // Whole milliseconds, rounded up: a timer never fires early.
        let millis = env.create_double(left.as_micros().div_ceil(1000) as f64)?;
        let later = self.parts.later.borrow_back(env)?;
        call_function(env, later.raw(), &[millis.raw(), lapse.raw()])
            .map_err(|thrown| Error::from_reason(js::error_message(env, thrown)))?;
        Ok(promise)
    }
}

impl CodeModeRunSurface {
    /// The catalog and agent run: built by now, or finished here (the tools
    /// left are written at once, and the build runs or is waited for). Only
    /// the `catalog` and `diagnostics` getters, which must answer at once.
    fn built(&self, env: &Env) -> Result<Arc<Built>> {
        let built = match self.parts.prepared.get() {
            Some(built) => built.clone(),
            None => {
                if let Some(finish) = &self.parts.finish {
                    let finish = finish.borrow_back(env)?;
                    call_function(env, finish.raw(), &[])
                        .map_err(|thrown| Error::from_reason(js::error_message(env, thrown)))?;
                }
                self.parts.prepared.finish()
            }
        };
        built.map_err(Error::from_reason)
    }
}

/// The `call` argument of exec and wait: its `toolCallId`, and a control block
/// that its `signal` stops.
struct CallOptions {
    control: Arc<Control>,
    tool_call_id: Option<String>,
    /// The signal and the listener added to it, removed when the call settles.
    listening: Option<(ObjectRef<false>, FunctionRef<(), ()>)>,
    /// The call while it waits for the catalog, which an abort answers.
    early: EarlyHook,
}

/// Where an early call is found by its abort listener.
type EarlyHook = Arc<OnceLock<Weak<Early>>>;

impl CallOptions {
    fn read(env: &Env, call: Option<Object>) -> Result<Self> {
        let control = Arc::new(Control::default());
        let early = EarlyHook::default();
        let Some(call) = call else {
            return Ok(Self {
                control,
                tool_call_id: None,
                listening: None,
                early,
            });
        };
        let tool_call_id = match field(&call, "toolCallId")? {
            Field::Str(id) if !id.is_empty() => Some(id),
            _ => None,
        };
        let listening = watch_signal(env, &call, &control, &early)?;
        Ok(Self {
            control,
            tool_call_id,
            listening,
            early,
        })
    }

    /// The call's promise, and what settles it (on any thread): it resolves
    /// the promise and removes the abort listener on the JavaScript thread.
    /// The runtime stays open until the call settles, even when nothing
    /// else holds it. Settling handles what the workers sent before the
    /// result (the aborts of calls the run left in flight) first.
    fn promise<'env>(self, env: &'env Env, runtime: Arc<Runtime>) -> Result<(Done, Object<'env>)> {
        let (deferred, promise) = env.create_deferred::<Delivered, _>()?;
        let listening = self.listening;
        let settle: Done = Box::new(move |result: RunResult| {
            let text = ResultText::new(result.to_json());
            deferred.resolve(move |env| {
                // The worker sent the aborts of the run's calls still in
                // flight before this result: their signals fire first.
                runtime.channel.drain(&env);
                if let Some((signal, listener)) = listening {
                    unwatch_signal(&env, &signal, &listener);
                    // The reference is strong: without this, every signal
                    // passed to exec or wait would stay alive for good.
                    let _ = signal.unref(&env);
                }
                Ok(Delivered(text, runtime))
            });
        });
        Ok((settle, promise))
    }
}

/// `runId` (or its alias `run_id`), trimmed; `None` when absent or blank.
fn read_run_id(input: &Unknown) -> Result<Option<String>> {
    let Some(object) = js::object(input)? else {
        return Ok(None);
    };
    for name in ["runId", "run_id"] {
        if let Field::Str(id) = field(&object, name)? {
            let id = id.trim();
            if !id.is_empty() {
                return Ok(Some(id.to_owned()));
            }
        }
    }
    Ok(None)
}

fn read_input(input: &Unknown) -> Result<Option<RawExecInput>> {
    let Some(object) = js::object(input)? else {
        return Ok(None);
    };
    Ok(Some(RawExecInput {
        code: field(&object, "code")?,
        command: field(&object, "command")?,
        language: field(&object, "language")?,
        restart_safe: field(&object, "restartSafe")?,
    }))
}

/// An already-aborted signal stops the cell before it runs; a later abort stops
/// it where it is. Returns the signal and the listener added to it.
fn watch_signal(
    env: &Env,
    call: &Object,
    control: &Arc<Control>,
    early: &EarlyHook,
) -> Result<Option<(ObjectRef<false>, FunctionRef<(), ()>)>> {
    let signal: Unknown = call.get_named_property("signal")?;
    let Some(signal) = js::object(&signal)? else {
        return Ok(None);
    };
    if matches!(field(&signal, "aborted")?, Field::Bool(true)) {
        control.stop(Stop::Aborted);
        return Ok(None);
    }
    let add: Unknown = signal.get_named_property("addEventListener")?;
    let Some(add) = js::function::<FnArgs<(&str, Function<(), ()>, Object)>, Unknown>(&add)? else {
        return Ok(None);
    };
    let watched = Arc::downgrade(control);
    let early = early.clone();
    let listener = env.create_function_from_closure("onCodeModeAbort", move |ctx| {
        if let Some(control) = watched.upgrade() {
            control.stop(Stop::Aborted);
        }
        if let Some(early) = early.get().and_then(Weak::upgrade) {
            early.stop(ctx.env, Stop::Aborted);
        }
        Ok(())
    })?;
    let mut options = Object::new(env)?;
    options.set_named_property("once", true)?;
    let listening = (signal.create_ref()?, listener.create_ref()?);
    add.apply(signal, FnArgs::from(("abort", listener, options)))?;
    Ok(Some(listening))
}

/// `signal.removeEventListener('abort', listener)`; what it throws is ignored.
fn unwatch_signal(env: &Env, signal: &ObjectRef<false>, listener: &FunctionRef<(), ()>) {
    let removed = (|| -> Result<()> {
        let signal = signal.get_value(env)?;
        let listener = listener.borrow_back(env)?;
        let remove: Unknown = signal.get_named_property("removeEventListener")?;
        let Some(remove) = js::function::<FnArgs<(&str, Function<(), ()>)>, Unknown>(&remove)?
        else {
            return Ok(());
        };
        remove.apply(signal, FnArgs::from(("abort", listener)))?;
        Ok(())
    })();
    if removed.is_err() {
        js::take_exception(env);
    }
}
