//! `createCodeMode` and the `CodeMode` instance a gateway holds per process.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};

use code_mode_core::catalog::{read_tools, Keep};
use code_mode_core::config::CodeModeConfig as CoreConfig;
use code_mode_core::limits::MAX_WORKER_THREADS;
use code_mode_core::messages;
use code_mode_core::model::{self, SurfacePlan};
use code_mode_core::result::Telemetry;
use code_mode_core::runs::Engine as ThreadEngine;
use napi::bindgen_prelude::{Function, JsObjectValue, Object, Unknown};
use napi::{Env, Error, JsValue, Result, ValueType};
use napi_derive::napi;

use crate::checks::Checker;
use crate::config::CodeModeConfig;
use crate::context::RunContext;
use crate::early;
use crate::engine::Engine;
use crate::host::{self, Executor, InputCheck, NodeHost};
use crate::js::{self, json_text, to_json_value};
use crate::namespaces::{self, RunBinding};
use crate::prepared::{Builder, Prepared, Recipe, RunInputs};
use crate::runtime::Runtime;
use crate::surface::{CodeModeRunSurface, SurfaceParts};
use crate::tools::{self, PrepareJs};

/// One code-mode runtime: its configuration, worker threads and parked runs.
#[napi]
pub struct CodeMode {
    runtime: Arc<Runtime>,
    global: serde_json::Value,
    config: CodeModeConfig,
    /// `prepare.js`, compiled for this instance.
    prepare: PrepareJs,
}

/// Creates a code-mode runtime. `config` is the raw global `tools.codeMode` value;
/// `workerThreads` defaults to the number of cores (1..16); `isolation`
/// says where cells run (`docs/isolation.md`).
#[napi(
    catch_unwind,
    ts_args_type = "options?: { config?: unknown; workerThreads?: number; isolation?: 'thread' | 'process'; sandboxProcesses?: number; sandboxBinary?: string }"
)]
pub fn create_code_mode(env: Env, options: Option<Object>) -> Result<CodeMode> {
    let (global, workers, isolation) = match &options {
        Some(options) => {
            let config: Option<Unknown> = options.get_named_property("config").ok();
            let workers: Unknown = options.get_named_property("workerThreads")?;
            (
                to_json_value(&env, config)?,
                worker_count(workers)?,
                Isolation::read(options)?,
            )
        }
        None => (
            serde_json::Value::Null,
            ThreadEngine::default_workers(),
            Isolation::read_default()?,
        ),
    };
    let engine = isolation.engine(workers)?;
    let config = CodeModeConfig::from(&CoreConfig::resolve(&global, &serde_json::Value::Null));
    let builder = Builder::start()
        .map_err(|e| Error::from_reason(messages::workers_failed(&e.to_string())))?;
    let checker = Arc::new(Checker::new());
    let (channel, results) = host::open(&env, checker.clone())?;
    let runtime = Runtime {
        engine: Arc::new(engine),
        channel: Arc::new(channel),
        results,
        builder,
        checker,
        early: Default::default(),
    };
    Ok(CodeMode {
        runtime: Arc::new(runtime),
        global,
        config,
        prepare: PrepareJs::compile(&env)?,
    })
}

/// Where cells run, as `createCodeMode` was told.
enum Isolation {
    Thread,
    Process {
        processes: usize,
        binary: Option<PathBuf>,
    },
}

/// Sandbox processes sessions share when `sandboxProcesses` is not given:
/// one, so that `workerThreads` and the scheduling between sessions mean
/// what they mean with threads; a session whose sandbox stopped gets one
/// of its own (`docs/isolation.md`).
const DEFAULT_SANDBOX_PROCESSES: usize = 1;

impl Isolation {
    fn read(options: &Object) -> Result<Self> {
        let isolation: Unknown = options.get_named_property("isolation")?;
        let process = match isolation.get_type()? {
            ValueType::Undefined => return Self::read_default_with(options),
            _ => match js::string(&isolation)?.as_deref() {
                Some("thread") => false,
                Some("process") => true,
                _ => return Err(Error::from_reason(messages::ISOLATION_INVALID)),
            },
        };
        match process {
            false => Ok(Self::Thread),
            true => Self::process(Some(options)),
        }
    }

    /// `isolation` not given: `CODE_MODE_ISOLATION`, else threads.
    fn read_default() -> Result<Self> {
        match std::env::var("CODE_MODE_ISOLATION").ok().as_deref() {
            None | Some("") | Some("thread") => Ok(Self::Thread),
            Some("process") => Self::process(None),
            Some(_) => Err(Error::from_reason(messages::ISOLATION_ENV_INVALID)),
        }
    }

    fn read_default_with(options: &Object) -> Result<Self> {
        match Self::read_default()? {
            Self::Thread => Ok(Self::Thread),
            Self::Process { .. } => Self::process(Some(options)),
        }
    }

    fn process(options: Option<&Object>) -> Result<Self> {
        let (mut processes, mut binary) = (DEFAULT_SANDBOX_PROCESSES, None);
        if let Some(options) = options {
            let count: Unknown = options.get_named_property("sandboxProcesses")?;
            if !matches!(count.get_type()?, ValueType::Undefined) {
                processes = match js::number(&count)? {
                    Some(n) if n.fract() == 0.0 && (1.0..=16.0).contains(&n) => n as usize,
                    _ => return Err(Error::from_reason(messages::SANDBOX_PROCESSES_INVALID)),
                };
            }
            let path: Unknown = options.get_named_property("sandboxBinary")?;
            if !matches!(path.get_type()?, ValueType::Undefined) {
                binary = match js::string(&path)? {
                    Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
                    _ => return Err(Error::from_reason(messages::SANDBOX_BINARY_INVALID)),
                };
            }
        }
        Ok(Self::Process { processes, binary })
    }

    fn engine(self, workers: usize) -> Result<Engine> {
        match self {
            Self::Thread => ThreadEngine::new(workers)
                .map(Engine::Thread)
                .map_err(|e| Error::from_reason(messages::workers_failed(&e.to_string()))),
            Self::Process { processes, binary } => process_engine(processes, binary, workers),
        }
    }
}

#[cfg(target_os = "linux")]
fn process_engine(processes: usize, binary: Option<PathBuf>, workers: usize) -> Result<Engine> {
    use code_mode_sandbox::client::{address_space_for, Sandboxes, Settings};
    use code_mode_sandbox::launch::Options;

    let binary = binary
        .or_else(crate::engine::sandbox_beside_addon)
        .unwrap_or_else(|| PathBuf::from(crate::engine::SANDBOX_EXECUTABLE));
    if !binary.is_file() {
        let shown = binary.display().to_string();
        return Err(Error::from_reason(messages::sandbox_binary_missing(&shown)));
    }
    Ok(Engine::Process(Sandboxes::new(Settings {
        binary,
        processes,
        options: Options {
            address_space_bytes: Some(address_space_for(workers)),
            workers: Some(workers),
        },
    })))
}

#[cfg(not(target_os = "linux"))]
fn process_engine(_: usize, _: Option<PathBuf>, _: usize) -> Result<Engine> {
    Err(Error::from_reason(messages::PROCESS_ISOLATION_UNSUPPORTED))
}

fn worker_count(value: Unknown) -> Result<usize> {
    if matches!(value.get_type()?, ValueType::Undefined | ValueType::Null) {
        return Ok(ThreadEngine::default_workers());
    }
    match js::number(&value)? {
        Some(n) if n.is_finite() && n >= 1.0 && n.fract() == 0.0 => {
            Ok((n as usize).min(MAX_WORKER_THREADS))
        }
        _ => Err(Error::from_reason(messages::WORKER_THREADS_INVALID)),
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
    ///
    /// Every tool is checked now, so a malformed list throws here. The
    /// catalog is built in the background during the next turns of the
    /// event loop, or at once by whatever needs it first (`exec`, `wait`,
    /// `catalog`, `diagnostics`); tools' `parameters` are read then, so
    /// change none of them after this call.
    #[napi(catch_unwind, ts_args_type = "ctx: RunContext")]
    pub fn prepare_run(&self, env: Env, ctx: Object) -> Result<CodeModeRunSurface> {
        let context = RunContext::read(&env, &ctx)?;
        let config = Arc::new(CoreConfig::resolve(&self.global, &context.agent_config));
        let snapshot = namespaces::snapshot(&env)?;
        let registrations = snapshot
            .as_ref()
            .map(|snapshot| snapshot.registrations.clone())
            .unwrap_or_default();
        let required: HashSet<(String, String)> = registrations
            .iter()
            .flat_map(|registration| {
                let plugin = &registration.plugin_id;
                let names = registration.required_tool_names.iter();
                names.map(|name| (plugin.clone(), name.clone()))
            })
            .collect();
        let tools: Unknown = ctx.get_named_property("tools")?;
        let scanned = self.prepare.scan(&env, tools, &required)?;
        let active = model::applies(&config, scanned.outline.count, context.disable_tools);
        // The tools the model sees are read now: direct-only ones, or all of
        // an inactive run's.
        let shown_tools = active.then_some(&scanned.direct);
        let shown_text = self.prepare.serialize(&env, &scanned.table, shown_tools)?;
        let (mut shown, mut problems) = (Vec::new(), Vec::new());
        for text in shown_text.split('\n') {
            read_tools(text, Keep::All, &mut shown, &mut problems).map_err(Error::from_reason)?;
        }
        let sources = scanned.outline.sources.clone();
        let outline = tools::into_outline(scanned.outline, shown);
        let plan = model::plan_surface(&config, &outline, context.disable_tools, registrations);
        let binding = match (&snapshot, plan.namespaces.is_empty(), &context.execute) {
            (Some(snapshot), false, Some(_)) => {
                let visible: Vec<usize> = plan.namespaces.iter().map(|(index, _)| *index).collect();
                let base = context.scope_context(&env, &ctx)?;
                Some(namespaces::bind(&env, snapshot, &visible, base)?)
            }
            _ => None,
        };
        let table = active.then_some(&scanned.table);
        let telemetry = early::telemetry(sources, &plan.visible_tools);
        let parts = Planned {
            plan,
            binding,
            problems,
            telemetry,
        };
        self.build(&env, context, config, parts, table)
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
        self.runtime.close_early(env);
        self.runtime.builder.stop();
        self.runtime.checker.stop();
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
    /// executor (none without `executeTool`, and exec then throws), made
    /// with the catalog once the tools of `table` (the scanned one; `None`
    /// for an inactive run, whose catalog is empty) are read.
    fn build(
        &self,
        env: &Env,
        context: RunContext,
        config: Arc<CoreConfig>,
        planned: Planned,
        table: Option<&Unknown>,
    ) -> Result<CodeModeRunSurface> {
        let Planned {
            plan,
            binding,
            problems,
            telemetry,
        } = planned;
        let (scopes, input) = match binding {
            Some(RunBinding { scopes, input }) => (Some(Arc::new(scopes)), Some(input)),
            None => (None, None),
        };
        let run_config = context.execute.as_ref().map(|_| config.clone());
        let executor = context.execute.map(|execute| {
            Arc::new(Executor {
                execute,
                on_event: context.on_event,
                namespace_input: input,
                check: OnceLock::new(),
                channel: self.runtime.channel.clone(),
            })
        });
        let recipe = Recipe {
            active: plan.active,
            namespaces: plan.namespaces.clone(),
            run: executor.clone().map(|executor| RunInputs {
                engine: self.runtime.engine.clone(),
                config,
                host: Arc::new(NodeHost { executor }),
                visible_tools: plan.visible_tools.clone(),
                owner: context.owner,
            }),
            problems,
        };
        let (prepared, finish) = match table {
            None => (Prepared::empty(recipe), None),
            Some(table) => {
                let prepared = Prepared::reading(recipe);
                let push = pusher(env, &prepared, Arc::downgrade(&self.runtime))?;
                let fail = failer(env, &prepared)?;
                let finish = self.prepare.stream(env, table, push.raw(), fail.raw())?;
                (prepared, Some(finish))
            }
        };
        if let Some(executor) = executor {
            if !plan.namespaces.is_empty() {
                let check: Arc<dyn InputCheck> = Arc::new(RunCheck {
                    prepared: Arc::downgrade(&prepared),
                });
                let _ = executor.check.set(check);
            }
        }
        let parts = SurfaceParts {
            active: plan.active,
            model_tools_json: json_text(&plan.model_tools)?,
            allowed_payload: plan.allowed_payload,
            scopes,
            config: run_config,
            telemetry,
            later: self.prepare.later(env)?,
            prepared,
            finish,
        };
        Ok(CodeModeRunSurface::new(self.runtime.clone(), parts))
    }
}

/// `push(text, last)` for `prepare.js`: hands a slice of the tools to the
/// build, and the build to the builder thread after the last. False once the
/// surface is gone: nothing is built for it.
fn pusher<'env>(
    env: &'env Env,
    prepared: &Arc<Prepared>,
    runtime: Weak<Runtime>,
) -> Result<Function<'env, (), bool>> {
    let prepared = Arc::downgrade(prepared);
    env.create_function_from_closure::<(), bool, _>("codeModePushTools", move |ctx| {
        let text: String = ctx.get(0)?;
        let last: bool = ctx.get(1)?;
        let Some(prepared) = prepared.upgrade() else {
            return Ok(false);
        };
        let runtime = runtime.upgrade();
        prepared.push(text, last, runtime.as_ref().map(|runtime| &runtime.builder));
        Ok(true)
    })
}

/// `fail(message)` for `prepare.js`: the tools could not all be written in
/// a background turn, so the build ends with that error.
fn failer<'env>(env: &'env Env, prepared: &Arc<Prepared>) -> Result<Function<'env, (), ()>> {
    let prepared = Arc::downgrade(prepared);
    env.create_function_from_closure::<(), (), _>("codeModeToolsFailed", move |ctx| {
        let message: String = ctx.get(0)?;
        if let Some(prepared) = prepared.upgrade() {
            prepared.fail(message);
        }
        Ok(())
    })
}

/// What `prepareRun` planned, for `build`.
struct Planned {
    plan: SurfacePlan,
    binding: Option<RunBinding>,
    problems: Vec<String>,
    /// What a call answered before the catalog is built reports.
    telemetry: Telemetry,
}

/// A run's check of its namespace calls' mapped inputs: the check every
/// call's input gets (`Toolbox::check_input`), on the run's toolbox once
/// its build is done (namespace calls come from cells, which run after it).
struct RunCheck {
    prepared: Weak<Prepared>,
}

impl InputCheck for RunCheck {
    fn cheap(&self, tool_id: &str, bytes: usize) -> bool {
        let Some(toolbox) = self.prepared.upgrade().and_then(|p| p.toolbox()) else {
            return true;
        };
        toolbox
            .catalog
            .exact(tool_id)
            .is_none_or(|entry| toolbox.cheap_check(entry, bytes))
    }

    fn check(&self, tool_id: &str, callee: String, input: &str) -> Option<String> {
        let toolbox = self.prepared.upgrade().and_then(|p| p.toolbox())?;
        let entry = toolbox.catalog.exact(tool_id)?;
        toolbox.check_input(entry, input, || {
            (callee, code_mode_core::messages::describe_hint(tool_id))
        })
    }
}
