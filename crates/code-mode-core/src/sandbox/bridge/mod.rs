//! The guest's side of the bridge: `ALL_TOOLS` and `tools` (search, describe,
//! call and convenience functions), and the run's table of nested calls.
//!
//! search and describe are answered here, on the worker. A call becomes a
//! guest promise plus an entry in the [`CallTable`]; the engine dispatches it to
//! the host and feeds the settlement back with [`settle`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rquickjs::function::Rest;
use rquickjs::{qjs, Ctx, Exception, Function, Object, Persistent, Promise, Value};

mod calls;

use calls::Yield;
pub use calls::{resume_yields, settle, CallTable, GuestCall};

use super::control::Stop;
use super::json::{string_lossy, to_json, ConvertError};
use super::prelude::{define, terminate, Shared};
use crate::catalog::{Catalog, CatalogEntry, SearchLimit, ToolSource};
use crate::messages;
use crate::runs::host::CallKey;

/// Queued (not yet dispatched) calls a run may hold (SPEC 14.15).
pub const MAX_QUEUED_CALLS: usize = 1024;

/// Counters of one run surface (SPEC 11, 14.25), shared by all its runs.
#[derive(Debug, Default)]
pub struct Counters {
    pub search: AtomicU64,
    pub describe: AtomicU64,
    pub call: AtomicU64,
    /// The `n` of nested tool call ids (SPEC 14.11), from 1 per run surface.
    pub nested_seq: AtomicU64,
}

/// What the bridge of every run of one surface shares: built once per
/// `prepareRun`.
#[derive(Debug)]
pub struct BridgeScope {
    pub catalog: Arc<Catalog>,
    pub search_default_limit: usize,
    pub max_search_limit: usize,
    pub counters: Counters,
}

/// Installs `ALL_TOOLS` and `tools` for a run surface.
pub fn install<'js>(
    ctx: &Ctx<'js>,
    shared: &Shared,
    scope: &Arc<BridgeScope>,
) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    let all_tools = ctx.json_parse(scope.catalog.all_tools_json())?;
    deep_freeze(ctx, &all_tools);
    define(&globals, "ALL_TOOLS", all_tools)?;

    let tools = Object::new(ctx.clone())?;
    let search = {
        let shared = shared.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
                let mut args = args.0.into_iter();
                let query = args.next();
                let options = args.next();
                let scope = shared.scope()?;
                scope.counters.search.fetch_add(1, Ordering::Relaxed);
                let query = match query {
                    Some(value) if !value.is_undefined() && !value.is_null() => {
                        string_lossy(&ctx, &value)
                    }
                    _ => String::new(),
                };
                let limit = search_limit(options)?;
                let answer = scope
                    .catalog
                    .search(
                        &query,
                        limit,
                        scope.search_default_limit,
                        scope.max_search_limit,
                    )
                    .map(|entries| {
                        let mut json = String::from("[");
                        for (i, entry) in entries.iter().enumerate() {
                            if i > 0 {
                                json.push(',');
                            }
                            json.push_str(entry.compact_json());
                        }
                        json.push(']');
                        json
                    })
                    .map_err(str::to_owned);
                settled_promise(&ctx, answer)
            },
        )?
    };
    let describe = {
        let shared = shared.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
                let scope = shared.scope()?;
                scope.counters.describe.fetch_add(1, Ordering::Relaxed);
                let needle = needle(&ctx, args.0.first());
                let answer = scope
                    .catalog
                    .lookup(&needle)
                    .map(|entry| entry.describe_json());
                settled_promise(&ctx, answer)
            },
        )?
    };
    let call = {
        let shared = shared.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
                let mut args = args.0.into_iter();
                let needle = needle(&ctx, args.next().as_ref());
                let scope = shared.scope()?;
                scope.counters.call.fetch_add(1, Ordering::Relaxed);
                match scope.catalog.lookup(&needle) {
                    Ok(entry) => enqueue(&ctx, &shared, &scope, entry, args.next()),
                    Err(message) => settled_promise(&ctx, Err(message)),
                }
            },
        )?
    };
    define(&tools, "search", search)?;
    define(&tools, "describe", describe)?;
    define(&tools, "call", call)?;

    // The catalog never names `search`, `describe` or `call` here.
    for (name, entry) in scope.catalog.convenience_names() {
        let shared = shared.clone();
        let id = entry.id.clone();
        let function = Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
                let scope = shared.scope()?;
                scope.counters.call.fetch_add(1, Ordering::Relaxed);
                match scope.catalog.lookup(&id) {
                    Ok(entry) => enqueue(&ctx, &shared, &scope, entry, args.0.into_iter().next()),
                    Err(message) => settled_promise(&ctx, Err(message)),
                }
            },
        )?
        .with_name(name)?;
        define(&tools, name, function)?;
    }
    freeze(ctx, &tools);
    define(&globals, "tools", tools)?;

    let yield_control = {
        let shared = shared.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
                let reason = match args.0.first() {
                    Some(value) if !value.is_undefined() && !value.is_null() => {
                        Some(string_lossy(&ctx, value))
                    }
                    _ => None,
                };
                let scope = shared.scope()?;
                let n = scope.counters.nested_seq.fetch_add(1, Ordering::Relaxed) + 1;
                let (promise, resolve, _reject) = ctx.promise()?;
                let mut table = shared.calls.borrow_mut();
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
        )?
    };
    define(&globals, "yield_control", yield_control)?;
    Ok(())
}

/// Makes the guest promise of a nested call and queues the call.
fn enqueue<'js>(
    ctx: &Ctx<'js>,
    shared: &Shared,
    scope: &BridgeScope,
    entry: &CatalogEntry,
    input: Option<Value<'js>>,
) -> rquickjs::Result<Promise<'js>> {
    let restart_safe = shared.calls.borrow().restart_safe;
    if restart_safe && !(entry.replay_safe && entry.source == ToolSource::Openclaw) {
        return Err(terminate(ctx, &shared.control(), Stop::RestartSafeTool));
    }
    let too_many = || settled_promise(ctx, Err(messages::TOO_MANY_QUEUED_CALLS.to_owned()));
    if shared.calls.borrow().queued.len() >= MAX_QUEUED_CALLS {
        return too_many();
    }
    let input = input.unwrap_or_else(|| Value::new_undefined(ctx.clone()));
    let (max, held) = {
        let table = shared.calls.borrow();
        (table.max_bridge_bytes, table.input_bytes)
    };
    let input = if input.is_undefined() {
        "{}".to_owned()
    } else {
        let tag = shared.tag(ctx)?;
        match to_json(
            ctx,
            &tag,
            &shared.control(),
            input,
            max.saturating_sub(held),
        ) {
            Ok(json) => json,
            Err(ConvertError::TooLarge) => {
                return settled_promise(ctx, Err(messages::tool_input_too_large(max)));
            }
            Err(ConvertError::Stopped) => {
                return Err(terminate(ctx, &shared.control(), Stop::Timeout))
            }
        }
    };
    // Getters in the input may have queued calls of their own meanwhile.
    {
        let table = shared.calls.borrow();
        if table.queued.len() >= MAX_QUEUED_CALLS {
            drop(table);
            return too_many();
        }
        if table.input_bytes + input.len() > max {
            drop(table);
            return settled_promise(ctx, Err(messages::tool_input_too_large(max)));
        }
    }
    let (promise, resolve, reject) = ctx.promise()?;
    let n = scope.counters.nested_seq.fetch_add(1, Ordering::Relaxed) + 1;
    let mut table = shared.calls.borrow_mut();
    table.input_bytes += input.len();
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
            tool_id: entry.id.clone(),
            name: entry.name.clone(),
            source: entry.source,
            source_name: entry.source_name.clone(),
            input_len: input.len(),
            input,
            tool_call_id,
            parent_tool_call_id: parent,
            method: "call",
            in_flight: false,
            resolve: Persistent::save(ctx, resolve),
            reject: Persistent::save(ctx, reject),
        },
    );
    table.queued.push_back(key);
    Ok(promise)
}

/// The id or name argument of describe/call, as text.
fn needle(ctx: &Ctx<'_>, value: Option<&Value<'_>>) -> String {
    match value {
        Some(value) if value.is_string() => string_lossy(ctx, value),
        Some(value) if !value.is_undefined() && !value.is_null() => string_lossy(ctx, value),
        _ => String::new(),
    }
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

/// A promise already resolved with parsed JSON or rejected with a plain Error.
fn settled_promise<'js>(
    ctx: &Ctx<'js>,
    answer: Result<String, String>,
) -> rquickjs::Result<Promise<'js>> {
    let (promise, resolve, reject) = ctx.promise()?;
    match answer {
        Ok(json) => {
            let value = ctx.json_parse(json)?;
            resolve.call::<_, ()>((value,))?;
        }
        Err(message) => {
            let error = Exception::from_message(ctx.clone(), &message)?;
            reject.call::<_, ()>((error,))?;
        }
    }
    Ok(promise)
}

fn freeze(ctx: &Ctx<'_>, object: &Object<'_>) {
    // SAFETY: `object` belongs to `ctx`.
    unsafe { qjs::JS_FreezeObject(ctx.as_raw().as_ptr(), object.as_raw()) };
}

/// Freezes an array of flat objects and each of its elements.
fn deep_freeze(ctx: &Ctx<'_>, value: &Value<'_>) {
    if let Some(array) = value.as_array() {
        for item in array.iter::<Value>().flatten() {
            if let Some(object) = item.as_object() {
                freeze(ctx, object);
            }
        }
    }
    if let Some(object) = value.as_object() {
        freeze(ctx, object);
    }
}

impl Shared {
    fn scope(&self) -> rquickjs::Result<Arc<BridgeScope>> {
        self.calls
            .borrow()
            .scope
            .clone()
            .ok_or(rquickjs::Error::Unknown)
    }
}
