//! What the model sees (`docs/surface.md`): the `exec` and `wait` definitions
//! and descriptions, the tool list a run shows the model, the provider-payload
//! check and the hook metadata.

mod plan;
pub use plan::{applies, build_catalog, plan_surface, CatalogParts, SurfacePlan, ToolOutline};

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::{json, Value};

use crate::catalog::{is_legacy_control, ToolSpec};
use crate::config::Language;
use crate::messages;

pub const EXEC: &str = "exec";
pub const WAIT: &str = "wait";
pub const EXEC_TOOL_KIND: &str = "code_mode_exec";
pub const WAIT_TOOL_KIND: &str = "code_mode_wait";

/// A tool definition as the provider payload carries it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelTool {
    pub name: String,
    pub description: String,
    /// A JSON Schema.
    pub parameters: Value,
    /// `code_mode_exec` or `code_mode_wait` on the two controls, else absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_kind: Option<&'static str>,
}

/// What the exec description depends on in one run.
#[derive(Clone, Debug, Default)]
pub struct DescriptionContext {
    /// The run catalog has MCP entries.
    pub has_mcp: bool,
    /// Identifiers of the visible MCP servers, as the `MCP` namespace names them.
    pub mcp_servers: Vec<String>,
    /// The plugin namespaces visible in this run.
    pub namespaces: Vec<NamespacePrompt>,
    /// The enabled languages in config order.
    pub languages: Vec<Language>,
}

#[derive(Clone, Debug, Default)]
pub struct NamespacePrompt {
    pub global_name: String,
    pub description: Option<String>,
    pub prompt: Option<String>,
}

/// The exec input schema: `code` or `command` (neither is `required`, one of
/// them must be given), a flat `language` enum of the enabled languages, and
/// `restartSafe`. The `code` and `language` descriptions are written for this
/// run (its languages, MCP tools and visible namespaces).
pub fn exec_parameters(ctx: &DescriptionContext) -> Value {
    let names: Vec<&str> = enabled(&ctx.languages).iter().map(|l| l.as_str()).collect();
    let namespaces: Vec<&str> = ctx
        .namespaces
        .iter()
        .map(|n| n.global_name.as_str())
        .collect();
    json!({
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": messages::exec_code_param(&names, ctx.has_mcp, &namespaces)},
            "command": {"type": "string", "description": messages::EXEC_COMMAND_PARAM},
            "language": {
                "type": "string",
                "enum": names,
                "description": messages::exec_language_param(&names),
            },
            "restartSafe": {"type": "boolean", "description": messages::EXEC_RESTART_SAFE_PARAM},
        },
        "additionalProperties": false,
    })
}

/// The wait input schema (`run_id` is accepted at runtime but not advertised).
pub fn wait_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "runId": {"type": "string", "description": messages::WAIT_RUN_ID_PARAM},
        },
        "required": ["runId"],
        "additionalProperties": false,
    })
}

/// The exec description, in the order `docs/surface.md` gives: `return`; no modules;
/// `tools.*`; MCP (only with MCP tools); plugin namespaces (only when visible);
/// `language`; how to resume a `waiting` result; then, after a blank line, the
/// namespace prompt (only with visible namespaces or MCP servers).
pub fn exec_description(ctx: &DescriptionContext) -> String {
    let mut lines: Vec<String> = [
        messages::EXEC_INTRO,
        messages::EXEC_NO_MODULES,
        messages::EXEC_CATALOG,
    ]
    .map(str::to_owned)
    .to_vec();
    if ctx.has_mcp {
        lines.push(messages::EXEC_MCP.to_owned());
    }
    if !ctx.namespaces.is_empty() {
        lines.push(messages::EXEC_NAMESPACES.to_owned());
    }
    lines.push(language_line(&ctx.languages));
    lines.push(messages::EXEC_WAITING.to_owned());
    let mut text = lines.join("\n");
    let prompt = namespace_prompt(ctx);
    if !prompt.is_empty() {
        text.push_str("\n\n");
        text.push_str(&prompt);
    }
    text
}

pub fn wait_description() -> String {
    messages::WAIT_DESCRIPTION.to_owned()
}

/// The enabled languages, JavaScript first (the default), for the description.
fn language_line(languages: &[Language]) -> String {
    let enabled = enabled(languages);
    let names: Vec<&str> = [Language::Javascript, Language::Typescript]
        .into_iter()
        .filter(|language| enabled.contains(language))
        .map(Language::as_str)
        .collect();
    messages::exec_language(&names)
}

/// Per visible namespace `- <globalName>: <description>` and its prompt on the
/// following line(s); then the MCP servers. Blank texts count as absent.
fn namespace_prompt(ctx: &DescriptionContext) -> String {
    let text = |value: &Option<String>| {
        value
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    let mut lines = Vec::new();
    for namespace in &ctx.namespaces {
        let description = text(&namespace.description);
        lines.push(messages::namespace_prompt_line(
            &namespace.global_name,
            description.as_deref(),
        ));
        lines.extend(text(&namespace.prompt));
    }
    if !ctx.mcp_servers.is_empty() {
        lines.push(messages::mcp_servers_prompt(&ctx.mcp_servers));
    }
    lines.join("\n")
}

/// The configuration never yields an empty list; treat one as both, like it does.
fn enabled(languages: &[Language]) -> Vec<Language> {
    if languages.is_empty() {
        vec![Language::Javascript, Language::Typescript]
    } else {
        languages.to_vec()
    }
}

/// The tools the model sees.
///
/// Inactive: every input tool unchanged, as a definition (a tool without a schema
/// gets `{"type":"object","properties":{}}`). A run that intentionally has no
/// tools (`disableTools`, or an empty list) shows none: callers pass
/// an empty `tools` for it.
///
/// Active: `exec`, `wait`, then the direct-only tools in input order. Legacy
/// tool-search controls are dropped even when direct-only, and so is a
/// direct-only tool named `exec` or `wait`, which the payload could not carry
/// next to the controls.
pub fn model_tools(
    active: bool,
    tools: &[ToolSpec],
    exec_description: String,
    ctx: &DescriptionContext,
) -> Vec<ModelTool> {
    if !active {
        return tools.iter().map(definition).collect();
    }
    let controls = [
        ModelTool {
            name: EXEC.to_owned(),
            description: exec_description,
            parameters: exec_parameters(ctx),
            tool_kind: Some(EXEC_TOOL_KIND),
        },
        ModelTool {
            name: WAIT.to_owned(),
            description: wait_description(),
            parameters: wait_parameters(),
            tool_kind: Some(WAIT_TOOL_KIND),
        },
    ];
    let direct = tools.iter().filter(|tool| {
        tool.direct_only && !is_legacy_control(&tool.name) && tool.name != EXEC && tool.name != WAIT
    });
    controls.into_iter().chain(direct.map(definition)).collect()
}

fn definition(tool: &ToolSpec) -> ModelTool {
    ModelTool {
        name: tool.name.clone(),
        description: tool.description.clone(),
        parameters: tool
            .parameters
            .as_ref()
            .filter(|schema| !schema.is_null())
            .map(|schema| (**schema.value()).clone())
            .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
        tool_kind: None,
    }
}

/// The provider-payload check. `allowed` is, when active, the run's direct-only model tools and,
/// when inactive, the run's unchanged tool names. Active: `exec` and `wait`
/// exactly once each, every other name allowed and at most once; inactive: every
/// name allowed and at most once. Order does not matter; allowed tools may be
/// absent. The error names every offending name.
pub fn assert_provider_payload(
    names: &[String],
    active: bool,
    allowed: &[String],
) -> Result<(), String> {
    let allowed: HashSet<&str> = allowed.iter().map(String::as_str).collect();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for name in names {
        let count = counts.entry(name.as_str()).or_insert(0);
        if *count == 0 {
            order.push(name);
        }
        *count += 1;
    }
    let is_control = |name: &str| active && (name == EXEC || name == WAIT);
    let (mut unexpected, mut duplicate) = (Vec::new(), Vec::new());
    for name in order {
        if !is_control(name) && !allowed.contains(name) {
            unexpected.push(name);
        } else if counts[name] > 1 {
            duplicate.push(name);
        }
    }
    let missing: Vec<&str> = if active {
        [EXEC, WAIT]
            .into_iter()
            .filter(|control| !counts.contains_key(control))
            .collect()
    } else {
        Vec::new()
    };
    if unexpected.is_empty() && missing.is_empty() && duplicate.is_empty() {
        return Ok(());
    }
    Err(messages::provider_payload_not_allowed(
        &unexpected,
        &missing,
        &duplicate,
    ))
}

/// `codeModeHookMetadata(input)` (`docs/surface.md`): the kind of an exec call for hooks.
/// No language (absent, `null`, or a non-object input) is JavaScript; an unknown
/// language leaves `toolInputKind` out.
pub fn hook_metadata(input: &Value) -> Value {
    let language = match input.get("language") {
        None | Some(Value::Null) => Some(Language::Javascript),
        Some(Value::String(name)) => Language::parse(name),
        Some(_) => None,
    };
    let mut metadata = json!({"toolKind": EXEC_TOOL_KIND});
    if let Some(language) = language {
        metadata["toolInputKind"] = json!(language.as_str());
    }
    metadata
}

#[cfg(test)]
mod tests;
