//! The guest's side of the bridge: `ALL_TOOLS`, `tools` (search, describe,
//! call and convenience functions), `yield_control`, `MCP`, `API`,
//! `namespaces` and the plugin namespace globals.
//!
//! search and describe are answered here, on the worker. A call becomes a
//! guest promise plus an entry in the run's [`CallTable`](super::calls::CallTable)
//! (see [`enqueue`]); the engine dispatches it to the host and feeds the
//! settlement back with [`feed::settle`].

mod enqueue;
pub(super) mod feed;
mod mcp;
mod namespace;

use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Function, Persistent, Promise, Value};

use super::calls::Yield;
use super::js::{define, freeze};
use super::json::to_text;
use super::lazy;
use super::state::{SharedState, VmState};
use super::toolbox::Toolbox;
use crate::catalog::SearchLimit;
use crate::limits::{MAX_QUERY_BYTES, MAX_QUEUED_CALLS, MAX_YIELD_REASON_BYTES};
use crate::messages;
use enqueue::{enqueue, Call, Callee};
use feed::settled_promise;

/// Installs `ALL_TOOLS`, `tools`, `yield_control`, `MCP`, `API` and the plugin
/// namespaces for an agent run.
pub(super) fn install<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    toolbox: &Arc<Toolbox>,
) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    // Both made when first used, so a fresh VM costs the same whatever the
    // catalog's size (`sandbox/lazy`).
    state.global_maker.set(Some(make_global));
    lazy::define_global(ctx, "ALL_TOOLS")?;
    let members = Rc::new(ToolsMembers {
        state: state.clone(),
        toolbox: toolbox.clone(),
    });
    let tools = lazy::object(ctx, state.lazy_class.get(), members)?;
    define(&globals, "tools", tools)?;
    define(&globals, "yield_control", yield_function(ctx, state)?)?;
    mcp::install(ctx, state, toolbox)?;
    namespace::install(ctx, state, toolbox)
}

/// The lazy globals of the bridge.
fn make_global<'js>(
    ctx: &Ctx<'js>,
    state: &VmState,
    name: &str,
) -> rquickjs::Result<Option<Value<'js>>> {
    match name {
        "ALL_TOOLS" => all_tools(ctx, &*state.toolbox()?).map(Some),
        _ => Ok(None),
    }
}

/// The members of `tools`: `search`, `describe`, `call`, then one
/// convenience function per name that gets one, in catalog order.
struct ToolsMembers {
    state: SharedState,
    toolbox: Arc<Toolbox>,
}

/// `tools`' helpers; their keys are their places here. A convenience
/// function's key is `HELPERS.len()` plus its catalog entry's index.
const HELPERS: [&str; 3] = ["search", "describe", "call"];

impl lazy::Members for ToolsMembers {
    fn names(&self) -> Vec<&str> {
        let shortcuts = self.toolbox.catalog.convenience_names();
        HELPERS
            .iter()
            .copied()
            .chain(shortcuts.into_iter().map(|(name, _)| name))
            .collect()
    }

    fn find(&self, name: &str) -> Option<u32> {
        if let Some(helper) = HELPERS.iter().position(|&helper| helper == name) {
            return Some(helper as u32);
        }
        let index = self.toolbox.catalog.shortcut(name)?;
        Some((HELPERS.len() + index) as u32)
    }

    fn enumerable(&self) -> bool {
        false
    }

    fn make<'js>(&self, ctx: &Ctx<'js>, key: u32) -> rquickjs::Result<Value<'js>> {
        let state = &self.state;
        let function = match key {
            0 => search_function(ctx, state)?,
            1 => describe_function(ctx, state)?,
            2 => call_function(ctx, state)?,
            _ => {
                let entries = self.toolbox.catalog.entries();
                let entry = entries
                    .get(key as usize - HELPERS.len())
                    .ok_or(rquickjs::Error::Unknown)?;
                convenience_function(ctx, state, entry.id.clone(), entry.name.clone())?
                    .with_name(&entry.name)?
            }
        };
        Ok(function.into_value())
    }
}

/// `ALL_TOOLS`: the compact guest entries, each frozen, in a frozen array.
fn all_tools<'js>(ctx: &Ctx<'js>, toolbox: &Toolbox) -> rquickjs::Result<Value<'js>> {
    let all_tools = ctx.json_parse(toolbox.catalog.all_tools_json())?;
    if let Some(array) = all_tools.as_array() {
        for item in array.iter::<Value>().flatten() {
            if let Some(object) = item.as_object() {
                freeze(ctx, object);
            }
        }
    }
    if let Some(object) = all_tools.as_object() {
        freeze(ctx, object);
    }
    Ok(all_tools)
}

/// `tools.search(query, {limit})`, answered on the worker.
fn search_function<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
            let mut args = args.0.into_iter();
            let (query, options) = (args.next(), args.next());
            let toolbox = state.toolbox()?;
            toolbox.counters.search.fetch_add(1, Ordering::Relaxed);
            let query = match text_argument(&ctx, query.as_ref()) {
                Ok(query) => query,
                Err(error) => return rejected_by_guest(&ctx, &state, error),
            };
            let limit = search_limit(options)?;
            let answer = toolbox
                .catalog
                .search(
                    &query,
                    limit,
                    toolbox.search_default_limit,
                    toolbox.max_search_limit,
                )
                .map(|entries| {
                    let compact: Vec<&str> = entries.iter().map(|e| e.compact_json()).collect();
                    format!("[{}]", compact.join(","))
                })
                .map_err(str::to_owned);
            settled_promise(&ctx, answer)
        },
    )
}

/// `tools.describe(id)`, answered on the worker.
fn describe_function<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
            let toolbox = state.toolbox()?;
            toolbox.counters.describe.fetch_add(1, Ordering::Relaxed);
            let needle = match text_argument(&ctx, args.0.first()) {
                Ok(needle) => needle,
                Err(error) => return rejected_by_guest(&ctx, &state, error),
            };
            let answer = toolbox
                .catalog
                .lookup(&needle)
                .map(|entry| entry.described.get_or_init(|| described(entry)).clone());
            settled_promise(&ctx, answer)
        },
    )
}

/// `tools.describe`'s answer: the entry with its `parameters`, and
/// `declaration`, the TypeScript signature of its input.
fn described(entry: &crate::catalog::CatalogEntry) -> String {
    let declaration = crate::mcp::declarations::tool_signature(
        &entry.name,
        &entry.id,
        &entry.description,
        entry.parameters.value(),
        entry.has_parameters,
    );
    let json = entry.describe_json();
    let declaration = serde_json::Value::String(declaration);
    match json.strip_suffix('}') {
        Some(open) => format!("{open},\"declaration\":{declaration}}}"),
        None => json,
    }
}

/// `tools.call(id, input)`: a nested call.
fn call_function<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
            let mut args = args.0.into_iter();
            let needle = match text_argument(&ctx, args.next().as_ref()) {
                Ok(needle) => needle,
                Err(error) => return rejected_by_guest(&ctx, &state, error),
            };
            let toolbox = state.toolbox()?;
            toolbox.counters.call.fetch_add(1, Ordering::Relaxed);
            match toolbox.catalog.lookup(&needle) {
                Ok(entry) => enqueue(
                    &ctx,
                    &state,
                    &toolbox,
                    Call::catalog(entry, args.next(), Callee::Call(&needle)),
                ),
                Err(message) => settled_promise(&ctx, Err(message)),
            }
        },
    )
}

/// `tools.<name>(input)`: `tools.call` with the entry's exact id.
fn convenience_function<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    id: String,
    name: String,
) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
            let toolbox = state.toolbox()?;
            toolbox.counters.call.fetch_add(1, Ordering::Relaxed);
            match toolbox.catalog.lookup(&id) {
                Ok(entry) => enqueue(
                    &ctx,
                    &state,
                    &toolbox,
                    Call::catalog(entry, args.0.into_iter().next(), Callee::Shortcut(&name)),
                ),
                Err(message) => settled_promise(&ctx, Err(message)),
            }
        },
    )
}

/// `yield_control(reason?)`: parks the run at once; the next `wait` resolves
/// the promise with `{status: "yielded", reason}`.
fn yield_function<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
            let reason = match args.0.first() {
                Some(value) if !value.is_undefined() && !value.is_null() => {
                    match to_text(&ctx, value, MAX_YIELD_REASON_BYTES) {
                        Ok(reason) => Some(reason),
                        Err(error) => return rejected_by_guest(&ctx, &state, error),
                    }
                }
                _ => None,
            };
            if state.calls.borrow().waiting() >= MAX_QUEUED_CALLS {
                return settled_promise(&ctx, Err(messages::TOO_MANY_QUEUED_CALLS.to_owned()));
            }
            let toolbox = state.toolbox()?;
            let n = toolbox.counters.nested_seq.fetch_add(1, Ordering::Relaxed) + 1;
            let (promise, resolve, _reject) = ctx.promise()?;
            let mut table = state.calls.borrow_mut();
            let id = format!(
                "code_mode:{}:yield_control:{n}",
                table.parent.as_deref().unwrap_or("exec")
            );
            table.yields.push(Yield {
                id,
                reason,
                resolve: Persistent::save(&ctx, resolve),
            });
            Ok(promise)
        },
    )
}

/// The query, id or name argument as text: `undefined` and `null` are empty,
/// anything else goes through `String(value)`, which may run guest code.
fn text_argument(ctx: &Ctx<'_>, value: Option<&Value<'_>>) -> rquickjs::Result<String> {
    match value {
        Some(value) if !value.is_undefined() && !value.is_null() => {
            to_text(ctx, value, MAX_QUERY_BYTES)
        }
        _ => Ok(String::new()),
    }
}

/// What the guest's own code threw while an argument was read (a `toString`
/// that throws), as the rejection of the call's promise, like every other
/// failure of the call. A stop (timeout, abort) is not caught: it ends the run.
fn rejected_by_guest<'js>(
    ctx: &Ctx<'js>,
    state: &VmState,
    error: rquickjs::Error,
) -> rquickjs::Result<Promise<'js>> {
    if !matches!(error, rquickjs::Error::Exception) || state.control().stopped().is_some() {
        return Err(error);
    }
    let thrown = ctx.catch();
    let (promise, _resolve, reject) = ctx.promise()?;
    reject.call::<_, ()>((thrown,))?;
    Ok(promise)
}

fn search_limit(options: Option<Value<'_>>) -> rquickjs::Result<SearchLimit> {
    let Some(options) = options.and_then(|value| value.into_object()) else {
        return Ok(SearchLimit::Absent);
    };
    let limit: Value = options.get("limit")?;
    Ok(if limit.is_undefined() {
        SearchLimit::Absent
    } else if let Some(n) = limit.as_number() {
        SearchLimit::Number(n)
    } else {
        SearchLimit::Invalid
    })
}
