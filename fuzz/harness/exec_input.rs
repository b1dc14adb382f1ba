//! `exec_input`: `tools.codeMode` resolution (`CodeModeConfig::resolve`) and
//! exec input validation (`RawExecInput::validate`) from fuzzed JSON.
//!
//! Input: JSON text. An array `[input, global, agent]` is an exec input and
//! the two raw `tools.codeMode` values; anything else is the exec input alone,
//! with the default configuration. Input fields map as the binding reads
//! them: absent and `null` are absent, strings and booleans are themselves,
//! anything else is another type.

use code_mode_core::config::CodeModeConfig;
use code_mode_core::input::{Field, RawExecInput};
use code_mode_core::messages;
use serde_json::Value;

pub fn run(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let (input, config) = match &value {
        Value::Array(parts) if parts.len() == 3 => {
            (&parts[0], CodeModeConfig::resolve(&parts[1], &parts[2]))
        }
        input => (input, CodeModeConfig::default()),
    };
    check_config(&config);
    let raw = RawExecInput {
        code: field(input, "code"),
        command: field(input, "command"),
        language: field(input, "language"),
        restart_safe: field(input, "restartSafe"),
    };
    let source = |field: &Field| match field {
        Field::Str(text) if !text.trim().is_empty() => Some(text.trim().to_owned()),
        _ => None,
    };
    let (code, command) = (source(&raw.code), source(&raw.command));
    match raw.validate(&config) {
        Ok(valid) => {
            assert!(!valid.code.is_empty() && valid.code == valid.code.trim());
            assert!(code.as_ref().or(command.as_ref()) == Some(&valid.code));
            assert!(config.allows(valid.language));
        }
        Err(message) => assert!(
            [
                messages::CODE_AND_COMMAND_MISMATCH,
                messages::CODE_REQUIRED,
                messages::BAD_LANGUAGE,
                messages::BAD_RESTART_SAFE,
            ]
            .contains(&message.as_str())
                || message == messages::language_disabled("javascript")
                || message == messages::language_disabled("typescript"),
            "unexpected refusal: {message}"
        ),
    }
}

fn field(input: &Value, name: &str) -> Field {
    match input.get(name) {
        None | Some(Value::Null) => Field::Absent,
        Some(Value::String(text)) => Field::Str(text.clone()),
        Some(Value::Bool(value)) => Field::Bool(*value),
        Some(_) => Field::Other,
    }
}

/// Every resolved field is in its documented range (`docs/configuration.md`).
fn check_config(config: &CodeModeConfig) {
    const MIB: u64 = 1024 * 1024;
    let ranges = [
        (config.timeout_ms, 100, 60_000),
        (config.memory_limit_bytes, MIB, 1024 * MIB),
        (config.max_output_bytes, 1024, 10 * MIB),
        (config.max_snapshot_bytes, 1024, 256 * MIB),
        (config.max_pending_tool_calls, 1, 128),
        (config.snapshot_ttl_seconds, 1, 86_400),
        (config.max_search_limit, 1, 50),
        (config.search_default_limit, 1, config.max_search_limit),
    ];
    for (value, min, max) in ranges {
        assert!((min..=max).contains(&value), "{config:?}");
    }
    let languages = &config.languages;
    assert!(
        !languages.is_empty() && languages.len() <= 2,
        "{languages:?}"
    );
    assert!(languages.first() != languages.get(1), "{languages:?}");
}
