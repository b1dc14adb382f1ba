//! `tools.codeMode` resolution: defaults, clamps, shorthands and the per-agent merge
//! (`docs/configuration.md`).

use serde::Serialize;
use serde_json::{Map, Value};

/// A language a cell may be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Javascript,
    Typescript,
}

impl Language {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "javascript" => Some(Self::Javascript),
            "typescript" => Some(Self::Typescript),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Javascript => "javascript",
            Self::Typescript => "typescript",
        }
    }
}

/// The resolved configuration. Every field is always present and in range.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeModeConfig {
    pub enabled: bool,
    pub timeout_ms: u64,
    pub memory_limit_bytes: u64,
    pub max_output_bytes: u64,
    pub max_snapshot_bytes: u64,
    pub max_pending_tool_calls: u64,
    pub snapshot_ttl_seconds: u64,
    pub search_default_limit: u64,
    pub max_search_limit: u64,
    pub languages: Vec<Language>,
    /// Check each nested call's input against its tool's schema before the
    /// executor sees it (`validateToolInputs`, default true).
    pub validate_tool_inputs: bool,
}

const MIB: u64 = 1024 * 1024;

impl Default for CodeModeConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            timeout_ms: 10_000,
            memory_limit_bytes: 64 * MIB,
            max_output_bytes: 64 * 1024,
            max_snapshot_bytes: 10 * MIB,
            max_pending_tool_calls: 16,
            snapshot_ttl_seconds: 900,
            search_default_limit: 8,
            max_search_limit: 50,
            languages: vec![Language::Javascript, Language::Typescript],
            validate_tool_inputs: true,
        }
    }
}

impl CodeModeConfig {
    /// Resolves raw `tools.codeMode` values: the per-agent value is shallow-merged
    /// over the global one. Either may be a boolean, an object, or absent.
    pub fn resolve(global: &Value, agent: &Value) -> Self {
        let mut merged = shorthand(global);
        merged.extend(shorthand(agent));
        Self::from_fields(&merged)
    }

    fn from_fields(fields: &Map<String, Value>) -> Self {
        let d = Self::default();
        let max_search_limit = int_field(fields, "maxSearchLimit", d.max_search_limit, 1, 50);
        Self {
            enabled: fields.get("enabled") == Some(&Value::Bool(true)),
            timeout_ms: int_field(fields, "timeoutMs", d.timeout_ms, 100, 60_000),
            memory_limit_bytes: int_field(
                fields,
                "memoryLimitBytes",
                d.memory_limit_bytes,
                MIB,
                1024 * MIB,
            ),
            max_output_bytes: int_field(
                fields,
                "maxOutputBytes",
                d.max_output_bytes,
                1024,
                10 * MIB,
            ),
            max_snapshot_bytes: int_field(
                fields,
                "maxSnapshotBytes",
                d.max_snapshot_bytes,
                1024,
                256 * MIB,
            ),
            max_pending_tool_calls: int_field(
                fields,
                "maxPendingToolCalls",
                d.max_pending_tool_calls,
                1,
                128,
            ),
            snapshot_ttl_seconds: int_field(
                fields,
                "snapshotTtlSeconds",
                d.snapshot_ttl_seconds,
                1,
                86_400,
            ),
            search_default_limit: int_field(
                fields,
                "searchDefaultLimit",
                d.search_default_limit.min(max_search_limit),
                1,
                max_search_limit,
            ),
            max_search_limit,
            languages: languages(fields.get("languages")),
            validate_tool_inputs: fields.get("validateToolInputs") != Some(&Value::Bool(false)),
        }
    }

    /// Whether cells in `language` are accepted.
    pub fn allows(&self, language: Language) -> bool {
        self.languages.contains(&language)
    }
}

/// `true` is `{enabled: true}`, `false` is `{enabled: false}`; objects are taken as
/// they are and anything else contributes nothing.
fn shorthand(value: &Value) -> Map<String, Value> {
    match value {
        Value::Bool(enabled) => Map::from_iter([("enabled".to_owned(), Value::Bool(*enabled))]),
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    }
}

/// A positive integer is clamped into `min..=max`; anything else is the default.
fn int_field(fields: &Map<String, Value>, key: &str, default: u64, min: u64, max: u64) -> u64 {
    let Some(number) = fields.get(key).and_then(Value::as_f64) else {
        return default;
    };
    if !(number.is_finite() && number > 0.0 && number.fract() == 0.0) {
        return default;
    }
    // Saturating float-to-int conversion, then clamp.
    (number as u64).clamp(min, max)
}

/// Invalid entries are dropped, duplicates removed, order kept; nothing left means both.
fn languages(value: Option<&Value>) -> Vec<Language> {
    let mut out = Vec::new();
    if let Some(Value::Array(items)) = value {
        for language in items
            .iter()
            .filter_map(|v| v.as_str().and_then(Language::parse))
        {
            if !out.contains(&language) {
                out.push(language);
            }
        }
    }
    if out.is_empty() {
        out = vec![Language::Javascript, Language::Typescript];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resolve(global: Value, agent: Value) -> CodeModeConfig {
        CodeModeConfig::resolve(&global, &agent)
    }

    #[test]
    fn defaults_when_absent() {
        let config = resolve(Value::Null, Value::Null);
        assert_eq!(config, CodeModeConfig::default());
        assert!(!config.enabled);
    }

    #[test]
    fn boolean_shorthands() {
        assert!(resolve(json!(true), Value::Null).enabled);
        assert!(!resolve(json!(false), Value::Null).enabled);
        assert!(!resolve(json!(true), json!(false)).enabled);
        assert!(resolve(json!(false), json!(true)).enabled);
    }

    #[test]
    fn only_enabled_true_enables() {
        assert!(!resolve(json!({"timeoutMs": 500}), Value::Null).enabled);
        assert!(!resolve(json!({"enabled": "true"}), Value::Null).enabled);
        assert!(!resolve(json!({"enabled": 1}), Value::Null).enabled);
        assert!(resolve(json!({"enabled": true}), Value::Null).enabled);
    }

    #[test]
    fn agent_value_is_shallow_merged_over_global() {
        let config = resolve(
            json!({"enabled": true, "timeoutMs": 2000, "languages": ["typescript"]}),
            json!({"timeoutMs": 3000}),
        );
        assert!(config.enabled);
        assert_eq!(config.timeout_ms, 3000);
        assert_eq!(config.languages, vec![Language::Typescript]);
        let off = resolve(json!({"enabled": true, "timeoutMs": 2000}), json!(false));
        assert!(!off.enabled);
        assert_eq!(off.timeout_ms, 2000);
    }

    #[test]
    fn out_of_range_numbers_clamp() {
        let config = resolve(
            json!({
                "timeoutMs": 5, "memoryLimitBytes": 1e12, "maxOutputBytes": 10,
                "maxSnapshotBytes": 1, "maxPendingToolCalls": 1000,
                "snapshotTtlSeconds": 1e9, "maxSearchLimit": 99, "searchDefaultLimit": 70
            }),
            Value::Null,
        );
        assert_eq!(config.timeout_ms, 100);
        assert_eq!(config.memory_limit_bytes, 1024 * MIB);
        assert_eq!(config.max_output_bytes, 1024);
        assert_eq!(config.max_snapshot_bytes, 1024);
        assert_eq!(config.max_pending_tool_calls, 128);
        assert_eq!(config.snapshot_ttl_seconds, 86_400);
        assert_eq!(config.max_search_limit, 50);
        assert_eq!(config.search_default_limit, 50);
    }

    #[test]
    fn non_positive_integers_fall_back_to_default() {
        for bad in [
            json!(0),
            json!(-5),
            json!(1.5),
            json!("100"),
            json!(null),
            json!(true),
        ] {
            let config = resolve(
                json!({"timeoutMs": bad.clone(), "maxPendingToolCalls": bad}),
                Value::Null,
            );
            assert_eq!(config.timeout_ms, 10_000);
            assert_eq!(config.max_pending_tool_calls, 16);
        }
    }

    #[test]
    fn search_default_limit_is_clamped_to_max_search_limit() {
        let config = resolve(json!({"maxSearchLimit": 5}), Value::Null);
        assert_eq!(config.max_search_limit, 5);
        assert_eq!(config.search_default_limit, 5);
        let config = resolve(
            json!({"maxSearchLimit": 5, "searchDefaultLimit": 3}),
            Value::Null,
        );
        assert_eq!(config.search_default_limit, 3);
    }

    #[test]
    fn languages_are_filtered_deduplicated_and_default_to_both() {
        let both = vec![Language::Javascript, Language::Typescript];
        assert_eq!(
            resolve(json!({"languages": []}), Value::Null).languages,
            both
        );
        assert_eq!(
            resolve(json!({"languages": ["python", 3]}), Value::Null).languages,
            both
        );
        assert_eq!(
            resolve(json!({"languages": "javascript"}), Value::Null).languages,
            both
        );
        assert_eq!(
            resolve(
                json!({"languages": ["typescript", "python", "javascript", "typescript"]}),
                Value::Null
            )
            .languages,
            vec![Language::Typescript, Language::Javascript]
        );
    }
}
