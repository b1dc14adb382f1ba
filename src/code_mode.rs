//! `createCodeMode` and the `CodeMode` instance a gateway holds per process.

use std::sync::Arc;

use code_mode_core::config::CodeModeConfig as CoreConfig;
use code_mode_core::runs::Engine;
use napi::bindgen_prelude::{JsObjectValue, Object, Unknown};
use napi::{Env, Error, JsValue, Result, ValueType};
use napi_derive::napi;

use crate::config::CodeModeConfig;
use crate::js::{field, to_json_value};
use crate::surface::{CodeModeRunSurface, SurfacePlan};

/// One code-mode runtime: its configuration, worker threads and parked runs.
#[napi]
pub struct CodeMode {
    engine: Arc<Engine>,
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
    Ok(CodeMode {
        engine: Arc::new(engine),
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
        let tools: Unknown = ctx.get_named_property("tools")?;
        let tool_count = if tools.is_array()? {
            // SAFETY: checked to be an array just above.
            let tools: Object = unsafe { tools.cast()? };
            tools.get_array_length()?
        } else {
            0
        };
        let disable_tools = matches!(
            field(&ctx, "disableTools")?,
            code_mode_core::input::Field::Bool(true)
        );
        let executor: Unknown = ctx.get_named_property("executeTool")?;
        let plan = SurfacePlan {
            active: config.enabled && !disable_tools && tool_count > 0,
            has_executor: executor.get_type()? == ValueType::Function,
            config,
        };
        Ok(CodeModeRunSurface::new(self.engine.clone(), plan))
    }

    /// Suspended runs held now (diagnostics).
    #[napi]
    pub fn suspended_run_count(&self) -> u32 {
        0
    }

    /// Drops every parked run and stops the workers (gateway shutdown). Cells in
    /// progress settle promptly with `runtime_unavailable`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<(), _>()?;
        let engine = self.engine.clone();
        std::thread::Builder::new()
            .name("code-mode-close".into())
            .spawn(move || {
                engine.close();
                deferred.resolve(|_| Ok(()));
            })
            .map_err(|e| Error::from_reason(e.to_string()))?;
        Ok(promise)
    }
}
