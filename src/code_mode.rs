//! `createCodeMode` and the `CodeMode` instance a gateway holds per process.

use std::sync::{Arc, OnceLock, Weak};

use code_mode_core::config::CodeModeConfig as CoreConfig;
use code_mode_core::limits::{
    MAX_HOST_CHECKED_INPUT_BYTES, MAX_HOST_LISTED_INPUT_BYTES, MAX_WORKER_THREADS,
};
use code_mode_core::model::{self, RunPlan};
use code_mode_core::runs::{AgentRun, Engine, Toolbox};
use napi::bindgen_prelude::{FunctionRef, JsObjectValue, Object, Unknown};
use napi::{Env, Error, Result, ValueType};
use napi_derive::napi;

use crate::config::CodeModeConfig;
use crate::context::RunContext;
use crate::host::{self, Executor, NodeHost};
use crate::js::{self, json_text, to_json_value};
use crate::namespaces::{self, RunBinding};
use crate::runtime::Runtime;
use crate::surface::{CodeModeRunSurface, SurfaceParts};

/// One code-mode runtime: its configuration, worker threads and parked runs.
#[napi]
pub struct CodeMode {
    runtime: Arc<Runtime>,
    global: serde_json::Value,
    config: CodeModeConfig,
}

/// Creates a code-mode runtime. `config` is the raw global `tools.codeMode` value;
/// `workerThreads` defaults to the number of cores (1..16).
#[napi(
    catch_unwind,
    ts_args_type = "options?: { config?: unknown; workerThreads?: number }"
)]
pub fn create_code_mode(env: Env, options: Option<Object>) -> Result<CodeMode> {
    let (global, workers) = match options {
        Some(options) => {
            let config: Option<Unknown> = options.get_named_property("config").ok();
            let workers: Unknown = options.get_named_property("workerThreads")?;
            (to_json_value(&env, config)?, worker_count(workers)?)
        }
        None => (serde_json::Value::Null, Engine::default_workers()),
    };
    let engine = Engine::new(workers)
        .map_err(|e| Error::from_reason(format!("code mode workers could not start: {e}")))?;
    let config = CodeModeConfig::from(&CoreConfig::resolve(&global, &serde_json::Value::Null));
    let runtime = Runtime {
        engine: Arc::new(engine),
        channel: Arc::new(host::open(&env)?),
    };
    Ok(CodeMode {
        runtime: Arc::new(runtime),
        global,
        config,
    })
}

fn worker_count(value: Unknown) -> Result<usize> {
    if matches!(value.get_type()?, ValueType::Undefined | ValueType::Null) {
        return Ok(Engine::default_workers());
    }
    match js::number(&value)? {
        Some(n) if n.is_finite() && n >= 1.0 && n.fract() == 0.0 => {
            Ok((n as usize).min(MAX_WORKER_THREADS))
        }
        _ => Err(Error::from_reason(
            "workerThreads must be a positive integer.",
        )),
    }
}

#[napi]
impl CodeMode {
    /// The resolved global configuration.
    #[napi(getter)]
    pub fn config(&self) -> CodeModeConfig {
        self.config.clone()
    }

    /// Plans the model-facing surface of one agent run and binds its executor.
    #[napi(catch_unwind, ts_args_type = "ctx: RunContext")]
    pub fn prepare_run(&self, env: Env, ctx: Object) -> Result<CodeModeRunSurface> {
        let context = RunContext::read(&env, &ctx)?;
        let config = Arc::new(CoreConfig::resolve(&self.global, &context.agent_config));
        let snapshot = namespaces::snapshot(&env)?;
        let registrations = snapshot
            .as_ref()
            .map(|snapshot| snapshot.registrations.clone())
            .unwrap_or_default();
        let plan = model::plan_run(
            &config,
            &context.tools,
            context.disable_tools,
            registrations,
        );
        let binding = match (&snapshot, plan.namespaces.is_empty(), &context.execute) {
            (Some(snapshot), false, Some(_)) => {
                let visible: Vec<usize> = plan.namespaces.visible.iter().map(|v| v.index).collect();
                let base = context.scope_context(&env, &ctx)?;
                Some(namespaces::bind(&env, snapshot, &visible, base)?)
            }
            _ => None,
        };
        self.build(&env, context, config, plan, binding)
    }

    /// Suspended runs held now (diagnostics).
    #[napi]
    pub fn suspended_run_count(&self) -> u32 {
        self.runtime.engine.suspended_runs() as u32
    }

    /// Drops every parked run and stops the workers (gateway shutdown). Cells in
    /// progress settle promptly with `runtime_unavailable`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        // Closed from this call on: execs and waits made after it are refused
        // and the legs in progress stop now; the rest happens off this thread.
        self.runtime.engine.begin_close();
        let (deferred, promise) = env.create_deferred::<(), _>()?;
        let engine = self.runtime.engine.clone();
        let channel = self.runtime.channel.clone();
        std::thread::Builder::new()
            .name("code-mode-close".into())
            .spawn(move || {
                engine.close();
                channel.close();
                deferred.resolve(|_| Ok(()));
            })
            .map_err(|e| Error::from_reason(e.to_string()))?;
        Ok(promise)
    }
}

impl CodeMode {
    /// The run surface of a plan: an agent run bound to the context's
    /// executor (none without `executeTool`, and exec then throws).
    fn build(
        &self,
        env: &Env,
        context: RunContext,
        config: Arc<CoreConfig>,
        plan: RunPlan,
        binding: Option<RunBinding>,
    ) -> Result<CodeModeRunSurface> {
        let (scopes, input) = match binding {
            Some(RunBinding { scopes, input }) => (Some(scopes), Some(input)),
            None => (None, None),
        };
        let mut executor_of_run = None;
        let agent_run = context.execute.map(|execute| {
            let executor = Arc::new(Executor {
                execute,
                on_event: context.on_event,
                namespace_input: input,
                validate: OnceLock::new(),
                channel: self.runtime.channel.clone(),
            });
            executor_of_run = Some(executor.clone());
            AgentRun::new(
                config,
                plan.catalog.clone(),
                plan.mcp.clone(),
                plan.namespaces.clone(),
                Arc::new(NodeHost { executor }),
                plan.visible_tools.clone(),
                context.owner,
            )
        });
        if let (Some(agent_run), Some(executor)) = (&agent_run, executor_of_run) {
            if !agent_run.toolbox.namespaces.is_empty() {
                let _ = executor
                    .validate
                    .set(validator(env, Arc::downgrade(&agent_run.toolbox))?);
            }
        }
        let parts = SurfaceParts {
            active: plan.active,
            agent_run,
            model_tools_json: json_text(&plan.model_tools)?,
            catalog: plan.catalog.clone(),
            allowed_payload: plan.allowed_payload,
            diagnostics: plan.mcp.problems.clone(),
            scopes,
        };
        Ok(CodeModeRunSurface::new(self.runtime.clone(), parts))
    }
}

/// `validate(toolId, callee, inputText)` for `host.js`: a namespace call's
/// mapped input against its tool's schema; the message of a refusal, or
/// null. Runs on the JavaScript thread, bounded by the input's size.
fn validator(env: &Env, toolbox: Weak<Toolbox>) -> Result<FunctionRef<(), Option<String>>> {
    env.create_function_from_closure::<(), Option<String>, _>("codeModeValidate", move |ctx| {
        let id: String = ctx.get(0)?;
        let callee: String = ctx.get(1)?;
        let input: String = ctx.get(2)?;
        // This runs on the JavaScript thread: a large mapped input goes
        // unchecked rather than hold the event loop while it is parsed.
        if input.len() > MAX_HOST_CHECKED_INPUT_BYTES {
            return Ok(None);
        }
        let Some(toolbox) = toolbox.upgrade() else {
            return Ok(None);
        };
        let Some(entry) = toolbox.catalog.exact(&id) else {
            return Ok(None);
        };
        // On the JavaScript thread every problem is listed only for a small
        // input; a larger one gets its first.
        let thorough = input.len() <= MAX_HOST_LISTED_INPUT_BYTES;
        Ok(toolbox.check_input(entry, &input, thorough, || {
            (callee, code_mode_core::messages::describe_hint(&id))
        }))
    })?
    .create_ref()
}
