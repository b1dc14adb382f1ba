//! The guest's side of the bridge: `ALL_TOOLS` and `tools` (search, describe,
//! call and convenience functions), and the run's table of nested calls.
//!
//! search and describe are answered here, on the worker. A call becomes a
//! guest promise plus an entry in the [`CallTable`]; the engine dispatches it to
//! the host and feeds the settlement back with [`settle`].

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rquickjs::function::Rest;
use rquickjs::{qjs, Ctx, Exception, Function, Object, Persistent, Promise, Value};

use super::control::Stop;
use super::json::{string_lossy, to_json, ConvertError};
use super::prelude::{define, terminate, Shared};
use crate::catalog::{Catalog, CatalogEntry, SearchLimit, ToolSource};
use crate::messages;
use crate::result::PendingCall;
use crate::runs::host::CallKey;

/// Guest-facing helper names that convenience functions never shadow.
const HELPERS: [&str; 3] = ["search", "describe", "call"];

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

/// One nested call made by the guest.
pub struct GuestCall {
    pub tool_id: String,
    pub name: String,
    pub source: ToolSource,
    pub source_name: Option<String>,
    /// Taken when the call is dispatched.
    pub input: String,
    input_len: usize,
    pub tool_call_id: String,
    pub parent_tool_call_id: Option<String>,
    pub method: &'static str,
    pub in_flight: bool,
    resolve: Persistent<Function<'static>>,
    reject: Persistent<Function<'static>>,
}

/// A `yield_control(reason)` waiting for the next `wait`.
struct Yield {
    id: String,
    reason: Option<String>,
    resolve: Persistent<Function<'static>>,
}

/// The run's nested calls: queued ones (FIFO) and in-flight ones, and yields.
#[derive(Default)]
pub struct CallTable {
    /// Only search, describe, yield and replay-safe OpenClaw tools (SPEC 8).
    pub(super) restart_safe: bool,
    yields: Vec<Yield>,
    pub(super) scope: Option<Arc<BridgeScope>>,
    /// The exec/wait call that new nested calls belong to.
    parent: Option<String>,
    calls: BTreeMap<CallKey, GuestCall>,
    queued: VecDeque<CallKey>,
    in_flight: usize,
    /// Bytes of tool input held for queued and in-flight calls.
    input_bytes: usize,
    /// Byte cap of one tool result crossing the bridge, and of the inputs of
    /// all pending calls together (host memory the guest's meter cannot see).
    pub(super) max_bridge_bytes: usize,
}

impl CallTable {
    pub fn set_parent(&mut self, parent: Option<String>) {
        self.parent = parent;
    }

    /// Whether anything is queued, in flight or yielded.
    pub fn has_host_work(&self) -> bool {
        !self.calls.is_empty() || !self.yields.is_empty()
    }

    /// Whether the guest asked to yield.
    pub fn yielded(&self) -> bool {
        !self.yields.is_empty()
    }

    /// What a `waiting` result lists: calls in the order they were made, then
    /// yields.
    pub fn pending_calls(&self) -> Vec<PendingCall> {
        let calls = self.calls.values().map(|call| PendingCall {
            id: call.tool_call_id.clone(),
            method: call.method,
            tool_id: Some(call.tool_id.clone()),
        });
        let yields = self.yields.iter().map(|entry| PendingCall {
            id: entry.id.clone(),
            method: "yield",
            tool_id: None,
        });
        calls.chain(yields).collect()
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Bytes of tool input held for pending calls (part of a parked run's size).
    pub fn input_bytes(&self) -> usize {
        self.input_bytes
    }

    /// Takes queued calls, oldest first, while fewer than `max_in_flight` are in
    /// flight, and marks them in flight.
    pub fn start_queued(&mut self, max_in_flight: usize) -> Vec<(CallKey, &mut GuestCall)> {
        let mut started = Vec::new();
        while self.in_flight < max_in_flight {
            let Some(key) = self.queued.pop_front() else {
                break;
            };
            if let Some(call) = self.calls.get_mut(&key) {
                call.in_flight = true;
                self.in_flight += 1;
                started.push(key);
            }
        }
        self.calls
            .iter_mut()
            .filter(|(key, _)| started.contains(key))
            .map(|(key, call)| (*key, call))
            .collect()
    }

    /// Keys of in-flight calls.
    pub fn in_flight_keys(&self) -> Vec<CallKey> {
        self.calls
            .iter()
            .filter(|(_, call)| call.in_flight)
            .map(|(key, _)| *key)
            .collect()
    }

    /// Drops every in-flight call (the run is ending) and returns their keys.
    pub fn forget_in_flight(&mut self) -> Vec<CallKey> {
        let keys = self.in_flight_keys();
        for key in &keys {
            self.remove(*key);
        }
        keys
    }

    fn remove(&mut self, key: CallKey) -> Option<GuestCall> {
        let call = self.calls.remove(&key)?;
        self.input_bytes -= call.input_len;
        if call.in_flight {
            self.in_flight -= 1;
        } else {
            self.queued.retain(|queued| *queued != key);
        }
        Some(call)
    }

    /// Drops every handle into the VM (before the runtime is freed).
    pub(super) fn clear(&mut self) {
        self.yields.clear();
        self.input_bytes = 0;
        self.calls.clear();
        self.queued.clear();
        self.in_flight = 0;
    }
}

/// Feeds one settlement into the guest: resolves the call's promise with the
/// parsed value, or rejects it with a plain `Error`. Unknown keys (a call that
/// was already settled) are ignored. Returns whether the key was known.
pub fn settle(
    ctx: &Ctx<'_>,
    shared: &Shared,
    key: CallKey,
    settlement: Result<String, String>,
) -> bool {
    let Some(call) = shared.calls.borrow_mut().remove(key) else {
        return false;
    };
    let max = shared.calls.borrow().max_bridge_bytes;
    let outcome = match settlement {
        Ok(json) if json.len() > max => Err(messages::tool_result_too_large(json.len(), max)),
        Ok(json) => match ctx.json_parse(json) {
            Ok(value) => Ok(value),
            Err(_) => {
                // An out-of-memory here ends the VM (the interrupt handler sees
                // the meter); anything else is a result the guest cannot read.
                let _ = ctx.catch();
                Err(messages::TOOL_RESULT_UNREADABLE.to_owned())
            }
        },
        Err(message) => Err(message),
    };
    let (function, argument) = match outcome {
        Ok(value) => (call.resolve.restore(ctx), Ok(value)),
        Err(message) => (call.reject.restore(ctx), Err(message)),
    };
    let argument = match argument {
        Ok(value) => Ok(value),
        Err(message) => Exception::from_message(ctx.clone(), &message).map(|e| e.into_value()),
    };
    if let (Ok(function), Ok(argument)) = (function, argument) {
        let _ = function.call::<_, ()>((argument,));
    }
    true
}

/// Resolves every pending `yield_control` with `{status: "yielded", reason}`.
/// Returns whether there was any.
pub fn resume_yields(ctx: &Ctx<'_>, shared: &Shared) -> bool {
    let yields = std::mem::take(&mut shared.calls.borrow_mut().yields);
    let resumed = !yields.is_empty();
    for entry in yields {
        let answer = (|| -> rquickjs::Result<()> {
            let value = Object::new(ctx.clone())?;
            value.set("status", "yielded")?;
            if let Some(reason) = entry.reason {
                value.set("reason", reason)?;
            }
            let resolve = entry.resolve.restore(ctx)?;
            resolve.call::<_, ()>((value,))
        })();
        if answer.is_err() {
            let _ = ctx.catch();
        }
    }
    resumed
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

    for (name, entry) in scope.catalog.convenience_names() {
        if HELPERS.contains(&name) {
            continue;
        }
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
