//! `resolveCodeModeConfig` and the JavaScript shape of a resolved configuration.

use code_mode_core::config::CodeModeConfig as CoreConfig;
use napi::bindgen_prelude::Unknown;
use napi::{Env, Result};
use napi_derive::napi;

use crate::js::to_json_value;

/// The resolved `tools.codeMode` configuration: every field present and in range.
#[napi(object)]
#[derive(Clone)]
pub struct CodeModeConfig {
    pub enabled: bool,
    pub timeout_ms: f64,
    pub memory_limit_bytes: f64,
    pub max_output_bytes: f64,
    pub max_snapshot_bytes: f64,
    pub max_pending_tool_calls: f64,
    pub snapshot_ttl_seconds: f64,
    pub search_default_limit: f64,
    pub max_search_limit: f64,
    #[napi(ts_type = "Array<'javascript' | 'typescript'>")]
    pub languages: Vec<String>,
    /// Nested-call inputs are checked against their tool's schema before the
    /// executor sees them.
    pub validate_tool_inputs: bool,
}

impl From<&CoreConfig> for CodeModeConfig {
    fn from(config: &CoreConfig) -> Self {
        Self {
            enabled: config.enabled,
            timeout_ms: config.timeout_ms as f64,
            memory_limit_bytes: config.memory_limit_bytes as f64,
            max_output_bytes: config.max_output_bytes as f64,
            max_snapshot_bytes: config.max_snapshot_bytes as f64,
            max_pending_tool_calls: config.max_pending_tool_calls as f64,
            snapshot_ttl_seconds: config.snapshot_ttl_seconds as f64,
            search_default_limit: config.search_default_limit as f64,
            max_search_limit: config.max_search_limit as f64,
            languages: config
                .languages
                .iter()
                .map(|l| l.as_str().to_owned())
                .collect(),
            validate_tool_inputs: config.validate_tool_inputs,
        }
    }
}

/// Resolves raw `tools.codeMode` values (a boolean or an object each): the agent's
/// value is shallow-merged over the global one, then defaults and clamps apply.
#[napi(catch_unwind)]
pub fn resolve_code_mode_config(
    env: Env,
    #[napi(ts_arg_type = "unknown")] global: Option<Unknown>,
    #[napi(ts_arg_type = "unknown")] agent: Option<Unknown>,
) -> Result<CodeModeConfig> {
    let global = to_json_value(&env, global)?;
    let agent = to_json_value(&env, agent)?;
    Ok(CodeModeConfig::from(&CoreConfig::resolve(&global, &agent)))
}
