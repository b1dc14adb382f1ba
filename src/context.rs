//! Reading a `RunContext` from JavaScript: everything `prepareRun` needs, read
//! once, before anything is planned or built.

use code_mode_core::input::Field;
use code_mode_core::runs::RunOwner;
use napi::bindgen_prelude::{FunctionRef, JsObjectValue, Object, Unknown};
use napi::{Env, JsValue, Result};

use crate::js::{self, field, to_json_value};

/// A `RunContext`, as Rust values; its `tools` are read apart (`tools.rs`).
pub struct RunContext {
    /// The raw per-agent `tools.codeMode` value.
    pub agent_config: serde_json::Value,
    pub disable_tools: bool,
    /// `executeTool`, when it is a function.
    pub execute: Option<FunctionRef<(), ()>>,
    /// `onEvent`, when it is a function.
    pub on_event: Option<FunctionRef<(), ()>>,
    pub owner: RunOwner,
}

impl RunContext {
    pub fn read(env: &Env, ctx: &Object) -> Result<Self> {
        let agent: Option<Unknown> = ctx.get_named_property("agentConfig").ok();
        let agent_config = to_json_value(env, agent)?;
        let disable_tools = matches!(field(ctx, "disableTools")?, Field::Bool(true));
        let execute = function_ref(ctx, "executeTool")?;
        let on_event = function_ref(ctx, "onEvent")?;
        let text = |name: &str| -> Result<Option<String>> {
            Ok(match field(ctx, name)? {
                Field::Str(text) => Some(text),
                _ => None,
            })
        };
        let owner = RunOwner {
            agent_run_id: text("runId")?.unwrap_or_default(),
            session_id: text("sessionId")?,
            session_key: text("sessionKey")?,
            agent_id: text("agentId")?,
        };
        Ok(Self {
            agent_config,
            disable_tools,
            execute,
            on_event,
            owner,
        })
    }
}

impl RunContext {
    /// What a namespace's `createScope(ctx)` gets besides `signal`, taken
    /// now: `agentId`, `sessionKey`, `sessionId`, `runId` and `config` (the
    /// context's `scopeContext`, as the gateway passed it).
    pub fn scope_context<'env>(&self, env: &'env Env, ctx: &Object) -> Result<Unknown<'env>> {
        let mut base = Object::new(env)?;
        let owner = &self.owner;
        let fields = [
            ("agentId", owner.agent_id.as_deref()),
            ("sessionKey", owner.session_key.as_deref()),
            ("sessionId", owner.session_id.as_deref()),
            ("runId", Some(owner.agent_run_id.as_str())),
        ];
        for (name, value) in fields {
            match value {
                Some(value) => base.set_named_property(name, value)?,
                None => base.set_named_property(name, ())?,
            }
        }
        let config: Unknown = ctx.get_named_property("scopeContext")?;
        base.set_named_property("config", config)?;
        Ok(base.to_unknown())
    }
}

/// A reference to the function at `ctx[name]`, when it is one.
fn function_ref(ctx: &Object, name: &str) -> Result<Option<FunctionRef<(), ()>>> {
    let value: Unknown = ctx.get_named_property(name)?;
    js::function::<(), ()>(&value)?
        .map(|function| function.create_ref())
        .transpose()
}
