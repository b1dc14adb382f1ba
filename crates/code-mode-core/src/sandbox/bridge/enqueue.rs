//! A nested call from the guest: its input converted to JSON within the run's
//! bridge budget, a guest promise, and an entry queued in the call table.

use std::sync::atomic::Ordering;

use rquickjs::{Ctx, Persistent, Promise, Value};

use super::feed::settled_promise;
use crate::catalog::{CatalogEntry, ToolSource};
use crate::limits::{MAX_LEG_INPUT_BYTES, MAX_QUEUED_CALLS, NAMESPACE_ARGS_BYTES};
use crate::mcp::InputRules;
use crate::messages;
use crate::records::{CallKind, NestedCall};
use crate::sandbox::calls::{CallKey, GuestCall, NamespaceTarget};
use crate::sandbox::control::Stop;
use crate::sandbox::js::terminate;
use crate::sandbox::json::{to_json, ConvertError, Depth};
use crate::sandbox::state::SharedState;
use crate::sandbox::toolbox::Toolbox;

/// One nested call as the guest made it.
pub(super) struct Call<'a, 'js> {
    pub entry: &'a CatalogEntry,
    /// `call` (`tools.*`), `mcp` or `namespace`.
    pub kind: CallKind,
    pub input: Option<Value<'js>>,
    /// `MCP.<server>.<tool>`: the one-object rule, with the tool's defaults
    /// and required keys.
    pub mcp: Option<McpInput<'a>>,
    /// A plugin namespace function: its arguments (`input` is unused) and
    /// the namespace path the host checks and maps.
    pub namespace: Option<NamespaceInput<'js>>,
    /// How the cell called it, for the message of an input its schema refuses.
    pub callee: Callee<'a>,
}

/// How the cell named the tool it called.
#[derive(Clone, Copy)]
pub(super) enum Callee<'a> {
    /// `tools.call(needle, ...)`.
    Call(&'a str),
    /// `tools.<name>(...)`.
    Shortcut(&'a str),
    /// `MCP.<server>.<path>(...)`; a tool whose schema does not describe an
    /// object goes out unchecked, as its declaration says.
    Mcp {
        server: &'a str,
        path: &'a [String],
        object_schema: bool,
    },
    /// A plugin namespace function: checked on the host, after its mapper.
    Namespace,
}

impl Callee<'_> {
    /// `tools.call("read")`, `tools.read`, `MCP.github.createIssue`, and the
    /// hint that points at the tool's schema.
    fn describe(self, entry: &CatalogEntry) -> (String, String) {
        match self {
            Callee::Call(needle) => (
                format!(
                    "tools.call({})",
                    serde_json::Value::String(needle.to_owned())
                ),
                messages::describe_hint(&entry.id),
            ),
            Callee::Shortcut(name) => (format!("tools.{name}"), messages::describe_hint(&entry.id)),
            Callee::Mcp { server, path, .. } => (
                format!("MCP.{server}.{}", path.join(".")),
                messages::mcp_schema_hint(server, &path.join(".")),
            ),
            Callee::Namespace => (String::new(), String::new()),
        }
    }
}

impl<'a, 'js> Call<'a, 'js> {
    /// `tools.call` or a convenience function.
    pub fn catalog(entry: &'a CatalogEntry, input: Option<Value<'js>>, callee: Callee<'a>) -> Self {
        Call {
            entry,
            kind: CallKind::Call,
            input,
            mcp: None,
            namespace: None,
            callee,
        }
    }
}

/// What a namespace call sends: the arguments, and where the call was made.
pub(super) struct NamespaceInput<'js> {
    pub args: Vec<Value<'js>>,
    pub target: NamespaceTarget,
}

/// What an `MCP` call checks of its arguments.
pub(super) struct McpInput<'a> {
    pub rules: &'a InputRules,
    /// The guest passed more than one argument.
    pub extra_arguments: bool,
}

/// Makes the guest promise of a nested call and queues the call. A call that
/// cannot be queued rejects its promise; a restart-safe refusal ends the run.
pub(super) fn enqueue<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    toolbox: &Toolbox,
    call: Call<'_, 'js>,
) -> rquickjs::Result<Promise<'js>> {
    let Call {
        entry,
        kind,
        input,
        mcp,
        namespace,
        callee,
    } = call;
    let restart_safe = state.calls.borrow().restart_safe;
    if restart_safe && namespace.is_some() {
        return Err(terminate(ctx, &state.control(), Stop::RestartSafeNamespace));
    }
    if restart_safe && !(entry.replay_safe && entry.source == ToolSource::Openclaw) {
        return Err(terminate(ctx, &state.control(), Stop::RestartSafeTool));
    }
    if state.calls.borrow().waiting() >= MAX_QUEUED_CALLS {
        return settled_promise(ctx, Err(messages::TOO_MANY_QUEUED_CALLS.to_owned()));
    }
    if mcp.as_ref().is_some_and(|mcp| mcp.extra_arguments) {
        return settled_promise(ctx, Err(messages::MCP_ONE_OBJECT.to_owned()));
    }
    let (input, target) = match namespace {
        Some(NamespaceInput { args, target }) => (args_json(ctx, state, args)?, Some(target)),
        None => (input_json(ctx, state, input)?, None),
    };
    let input = match input {
        Ok(input) => input,
        Err(message) => return settled_promise(ctx, Err(message)),
    };
    let input = match mcp {
        None => input,
        Some(_) if !input.starts_with('{') => {
            return settled_promise(ctx, Err(messages::MCP_ONE_OBJECT.to_owned()))
        }
        Some(mcp) => match mcp.rules.apply(input) {
            Ok(input) => input,
            Err(message) => return settled_promise(ctx, Err(message)),
        },
    };
    // Checked against the tool's schema here, except a namespace call's,
    // which the host checks once the plugin's mapper has made its input. A
    // refused call still goes to the host, which shows it as a failed call
    // and never starts the tool.
    let checked = !matches!(
        callee,
        Callee::Namespace
            | Callee::Mcp {
                object_schema: false,
                ..
            }
    );
    let rejection = match checked {
        true => toolbox.check_input(entry, &input, || callee.describe(entry)),
        false => {
            // Compiled here, so that the host knows what checking its
            // mapped input costs.
            if matches!(callee, Callee::Namespace) {
                toolbox.prepare_check(entry);
            }
            None
        }
    };
    // Getters in the input may have queued calls of their own meanwhile.
    {
        let table = state.calls.borrow();
        let refusal = if table.waiting() >= MAX_QUEUED_CALLS {
            Some(messages::TOO_MANY_QUEUED_CALLS.to_owned())
        } else if table.input_bytes + input.len() > table.max_bridge_bytes {
            Some(messages::tool_input_too_large(table.max_bridge_bytes))
        } else if table.leg_input_bytes + input.len() > MAX_LEG_INPUT_BYTES {
            Some(messages::leg_input_budget(MAX_LEG_INPUT_BYTES))
        } else {
            None
        };
        drop(table);
        if let Some(message) = refusal {
            return settled_promise(ctx, Err(message));
        }
    }
    let (promise, resolve, reject) = ctx.promise()?;
    let n = toolbox.counters.nested_seq.fetch_add(1, Ordering::Relaxed) + 1;
    let mut table = state.calls.borrow_mut();
    table.input_bytes += input.len();
    table.leg_input_bytes += input.len();
    let parent = table.parent.clone();
    let key = CallKey::next();
    let tool_call_id = format!(
        "code_mode:{}:{}:{n}",
        parent.as_deref().unwrap_or("exec"),
        entry.name
    );
    table.calls.insert(
        key,
        GuestCall {
            call: NestedCall {
                key: key.0,
                kind,
                tool_id: entry.id.clone(),
                name: entry.name.clone(),
                source: entry.source,
                source_name: entry.source_name.clone(),
                tool_call_id,
                parent_tool_call_id: parent.as_deref().map(str::to_owned),
                code_mode_run_id: None,
                namespace: target,
                rejection,
            },
            input_len: input.len(),
            input,
            in_flight: false,
            resolve: Persistent::save(ctx, resolve),
            reject: Persistent::save(ctx, reject),
        },
    );
    table.queued.push_back(key);
    Ok(promise)
}

/// A namespace call's arguments as a JSON array within what is left of the
/// run's bridge budget. Trailing `undefined`s are dropped (`f(a, undefined)`
/// sends `[a]`); each argument nests at most as deep as a tool input.
fn args_json<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    mut args: Vec<Value<'js>>,
) -> rquickjs::Result<Result<String, String>> {
    while args.last().is_some_and(Value::is_undefined) {
        args.pop();
    }
    let (max, held) = {
        let table = state.calls.borrow();
        (table.max_bridge_bytes, table.input_bytes)
    };
    // The host maps and converts a namespace call's arguments in one go on
    // the Node thread, so they are bounded more tightly than tool inputs.
    let max = max.min(held + NAMESPACE_ARGS_BYTES);
    let mut json = String::from("[");
    for (i, arg) in args.into_iter().enumerate() {
        // Separators and `null`s count too: a call spread over a million
        // `undefined`s is refused like any other large input.
        if held + json.len() + 5 > max {
            return Ok(Err(messages::namespace_args_too_large()));
        }
        if i > 0 {
            json.push(',');
        }
        if arg.is_undefined() {
            json.push_str("null");
            continue;
        }
        // Written only as far as the room left, the closing `]` counted: an
        // argument past it is not converted to the end.
        let room = max.saturating_sub(held + json.len() + 1);
        match value_json(ctx, state, arg, room)? {
            Ok(text) => json.push_str(&text),
            Err(error) => return Ok(Err(refusal(error, messages::namespace_args_too_large))),
        }
    }
    json.push(']');
    Ok(Ok(json))
}

/// The input as JSON text within what is left of the run's bridge budget
/// (`undefined` is `{}`), or the message the call rejects with. A stop during
/// the conversion (getters are guest code) ends the run.
fn input_json<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    input: Option<Value<'js>>,
) -> rquickjs::Result<Result<String, String>> {
    let input = input.unwrap_or_else(|| Value::new_undefined(ctx.clone()));
    if input.is_undefined() {
        return Ok(Ok("{}".to_owned()));
    }
    let (max, held) = {
        let table = state.calls.borrow();
        (table.max_bridge_bytes, table.input_bytes)
    };
    Ok(value_json(ctx, state, input, max.saturating_sub(held))?
        .map_err(|error| refusal(error, || messages::tool_input_too_large(max))))
}

/// One value as JSON text of at most `room` bytes, refusing what nests too
/// deep or too wide. A stop during the conversion ends the run.
fn value_json<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    input: Value<'js>,
    room: usize,
) -> rquickjs::Result<Result<String, ConvertError>> {
    let tag = state.tag(ctx)?;
    let control = state.control();
    match to_json(ctx, &tag, &control, input, room, Depth::Refuse) {
        Err(ConvertError::Stopped) => Err(terminate(ctx, &control, Stop::Timeout)),
        converted => Ok(converted),
    }
}

/// The message a refused conversion rejects the call with; how a value too
/// large is worded is the caller's (a stop never gets here: it ends the run).
fn refusal(error: ConvertError, too_large: impl FnOnce() -> String) -> String {
    match error {
        ConvertError::TooDeep => messages::tool_input_too_deep(),
        ConvertError::TooWide => messages::tool_input_too_wide(),
        ConvertError::TooLarge | ConvertError::Stopped => too_large(),
    }
}
