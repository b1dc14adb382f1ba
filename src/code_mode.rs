//! `createCodeMode` and the `CodeMode` instance a gateway holds per process.

use std::sync::Arc;

use code_mode_core::catalog::Catalog;
use code_mode_core::config::CodeModeConfig as CoreConfig;
use code_mode_core::model;
use code_mode_core::runs::{Engine, RunScope, RunSurface};
use code_mode_core::sandbox::bridge::BridgeScope;
use napi::bindgen_prelude::{Function, JsObjectValue, Object, Unknown};
use napi::{Env, Error, Result, ValueType};
use napi_derive::napi;

use crate::config::CodeModeConfig;
use crate::host::{Channel, Executor, NodeHost};
use crate::js::{field, to_json_value};
use crate::surface::{CodeModeRunSurface, SurfacePlan};
use crate::tools::parse_tools;

/// One code-mode runtime: its configuration, worker threads and parked runs.
#[napi]
pub struct CodeMode {
    engine: Arc<Engine>,
    channel: Arc<Channel>,
    global: serde_json::Value,
    config: CodeModeConfig,
}

/// A code-mode instance that is garbage-collected without `close()` still
/// stops its threads and drops its parked runs, off the JavaScript thread.
impl Drop for CodeMode {
    fn drop(&mut self) {
        if self.engine.is_closed() {
            return;
        }
        self.engine.begin_close();
        let (engine, channel) = (self.engine.clone(), self.channel.clone());
        let _ = std::thread::Builder::new()
            .name("code-mode-close".into())
            .spawn(move || {
                engine.close();
                channel.close();
            });
    }
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
    Ok(CodeMode {
        engine: Arc::new(engine),
        channel: Arc::new(Channel::new(&env)?),
        global,
        config,
    })
}

fn worker_count(value: Unknown) -> Result<usize> {
    match value.get_type()? {
        ValueType::Undefined | ValueType::Null => Ok(Engine::default_workers()),
        ValueType::Number => {
            // SAFETY: the type was checked just above.
            let n: f64 = unsafe { value.cast()? };
            if !(n.is_finite() && n >= 1.0 && n.fract() == 0.0) {
                return Err(Error::from_reason(
                    "workerThreads must be a positive integer.",
                ));
            }
            Ok((n as usize).min(16))
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
        let agent: Option<Unknown> = ctx.get_named_property("agentConfig").ok();
        let agent = to_json_value(&env, agent)?;
        let config = Arc::new(CoreConfig::resolve(&self.global, &agent));
        let tools: Option<Unknown> = ctx.get_named_property("tools").ok();
        let specs = parse_tools(&to_json_value(&env, tools)?)?;
        let disable_tools = matches!(
            field(&ctx, "disableTools")?,
            code_mode_core::input::Field::Bool(true)
        );
        let toolless = disable_tools || specs.is_empty();
        let active = config.enabled && !toolless;
        let catalog = Arc::new(Catalog::build(if active { &specs } else { &[] }));
        let description = model::exec_description(&model::DescriptionContext {
            has_mcp: false,
            mcp_servers: Vec::new(),
            namespaces: Vec::new(),
            languages: config.languages.clone(),
        });
        let model_tools = if toolless {
            Vec::new()
        } else {
            model::model_tools(active, &specs, description, &config.languages)
        };
        let visible_tools: Vec<String> = model_tools.iter().map(|tool| tool.name.clone()).collect();
        let allowed_payload = if active {
            visible_tools
                .iter()
                .filter(|name| !matches!(name.as_str(), "exec" | "wait"))
                .cloned()
                .collect()
        } else {
            visible_tools.clone()
        };
        let execute: Unknown = ctx.get_named_property("executeTool")?;
        let on_event: Unknown = ctx.get_named_property("onEvent")?;
        let executor = if execute.get_type()? == ValueType::Function {
            // SAFETY: the type was checked just above.
            let execute: Function<(), ()> = unsafe { execute.cast()? };
            let on_event = if on_event.get_type()? == ValueType::Function {
                // SAFETY: the type was checked just above.
                let on_event: Function<(), ()> = unsafe { on_event.cast()? };
                Some(on_event.create_ref()?)
            } else {
                None
            };
            Some(Arc::new(Executor {
                execute: execute.create_ref()?,
                on_event,
                channel: self.channel.clone(),
            }))
        } else {
            None
        };
        let surface = executor.map(|executor| {
            Arc::new(RunSurface {
                bridge: Arc::new(BridgeScope {
                    catalog: catalog.clone(),
                    search_default_limit: config.search_default_limit as usize,
                    max_search_limit: config.max_search_limit as usize,
                    counters: Default::default(),
                }),
                host: Arc::new(NodeHost { executor }),
                visible_tools: visible_tools.clone(),
            })
        });
        let text = |name: &str| -> Result<Option<String>> {
            Ok(match field(&ctx, name)? {
                code_mode_core::input::Field::Str(text) => Some(text),
                _ => None,
            })
        };
        let scope = Arc::new(RunScope {
            agent_run_id: text("runId")?.unwrap_or_default(),
            session_id: text("sessionId")?,
            session_key: text("sessionKey")?,
            agent_id: text("agentId")?,
        });
        let plan = SurfacePlan {
            scope,
            active,
            config,
            surface,
            model_tools_json: serde_json::to_string(&model_tools)
                .map_err(|e| Error::from_reason(e.to_string()))?,
            catalog_json: catalog.all_tools_json().to_owned(),
            allowed_payload,
        };
        Ok(CodeModeRunSurface::new(self.engine.clone(), plan))
    }

    /// Suspended runs held now (diagnostics).
    #[napi]
    pub fn suspended_run_count(&self) -> u32 {
        self.engine.suspended_runs() as u32
    }

    /// Drops every parked run and stops the workers (gateway shutdown). Cells in
    /// progress settle promptly with `runtime_unavailable`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        // Closed from this call on: execs and waits made after it are refused
        // and the legs in progress stop now; the rest happens off this thread.
        self.engine.begin_close();
        let (deferred, promise) = env.create_deferred::<(), _>()?;
        let engine = self.engine.clone();
        let channel = self.channel.clone();
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
