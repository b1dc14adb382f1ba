//! The core's [`Host`] over Node: nested calls reach the gateway's
//! `executeTool` on the JavaScript thread through one threadsafe function per
//! `CodeMode`, one message per batch; `host.js` starts them and reports each
//! settlement back, which goes straight into the run's inbox.
//!
//! The threadsafe function is unreferenced: it never keeps the process alive.
//! An exec or wait in progress holds its own promise, which does.

use std::collections::HashMap;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::{Arc, Weak};

use code_mode_core::catalog::ToolSource;
use code_mode_core::messages;
use code_mode_core::runs::host::{CallKey, Dispatch, Host, Reply};
use napi::bindgen_prelude::{FunctionRef, JsObjectValue, Object, ObjectRef, Unknown};
use napi::{sys, Env, JsString, JsValue, Result, ValueType};
use parking_lot::Mutex;

/// The JavaScript half, compiled once per channel.
const HOST_JS: &str = include_str!("host.js");

/// How long the JavaScript thread stays awake after nested-call activity, in
/// milliseconds: waking an idle thread costs tens of microseconds on small
/// virtual machines, paid twice per call by a cell that awaits calls one
/// after another.
const HOT_MS: f64 = 0.15;

/// Work for the JavaScript thread.
enum Message {
    Dispatch(Arc<Executor>, Vec<Dispatch>),
    Abort(Vec<CallKey>),
}

/// A raw threadsafe function pointer; only used under [`Channel`]'s lock.
struct Tsfn(sys::napi_threadsafe_function);

// SAFETY: Node-API threadsafe functions may be called from any thread; the
// pointer is only used while the lock proves it was not released or finalized.
unsafe impl Send for Tsfn {}

/// `start` and `abort` of the compiled `host.js`.
struct Functions {
    start: ObjectRef<false>,
    abort: ObjectRef<false>,
}

struct ChannelState {
    tsfn: Mutex<Option<Tsfn>>,
    /// Only used on the JavaScript thread.
    functions: Mutex<Option<Functions>>,
    /// Where each call in flight settles.
    replies: Mutex<HashMap<CallKey, Reply>>,
}

/// The queue from worker threads to the JavaScript thread of one `CodeMode`.
pub struct Channel {
    state: Arc<ChannelState>,
}

impl Channel {
    pub fn new(env: &Env) -> Result<Self> {
        let state = Arc::new(ChannelState {
            tsfn: Mutex::new(None),
            functions: Mutex::new(None),
            replies: Mutex::new(HashMap::new()),
        });
        *state.functions.lock() = Some(compile(env, Arc::downgrade(&state))?);
        let name = env.create_string("code-mode-host")?;
        let finalize_data = Arc::into_raw(state.clone()) as *mut c_void;
        let mut raw = ptr::null_mut();
        // SAFETY: plain Node-API calls on the JS thread with valid arguments; the
        // finalizer reclaims `finalize_data` exactly once.
        unsafe {
            let status = sys::napi_create_threadsafe_function(
                env.raw(),
                ptr::null_mut(),
                ptr::null_mut(),
                name.raw(),
                0,
                1,
                finalize_data,
                Some(finalize),
                finalize_data,
                Some(call_js),
                &mut raw,
            );
            if status != sys::Status::napi_ok {
                drop(Arc::from_raw(finalize_data as *const ChannelState));
                return Err(napi::Error::from_reason(
                    "code mode could not create its host channel",
                ));
            }
            sys::napi_unref_threadsafe_function(env.raw(), raw);
        }
        *state.tsfn.lock() = Some(Tsfn(raw));
        Ok(Self { state })
    }

    fn send(&self, message: Message) {
        let guard = self.state.tsfn.lock();
        let Some(tsfn) = guard.as_ref() else {
            return;
        };
        let data = Box::into_raw(Box::new(message));
        // SAFETY: the pointer is live (checked under the lock); on failure the
        // message was not queued and is reclaimed here.
        let status = unsafe {
            sys::napi_call_threadsafe_function(
                tsfn.0,
                data.cast(),
                sys::ThreadsafeFunctionCallMode::nonblocking,
            )
        };
        if status != sys::Status::napi_ok {
            // SAFETY: not queued, so still ours.
            drop(unsafe { Box::from_raw(data) });
        }
    }

    /// Releases the threadsafe function. Queued messages are still delivered.
    pub fn close(&self) {
        if let Some(tsfn) = self.state.tsfn.lock().take() {
            // SAFETY: taken under the lock, so released exactly once.
            unsafe {
                sys::napi_release_threadsafe_function(
                    tsfn.0,
                    sys::ThreadsafeFunctionReleaseMode::release,
                )
            };
        }
    }
}

/// Compiles `host.js` and binds it to this channel's `settle`.
fn compile(env: &Env, state: Weak<ChannelState>) -> Result<Functions> {
    let factory: Unknown = env.run_script(HOST_JS)?;
    let settle = env.create_function_from_closure::<(), (), _>("codeModeSettle", move |ctx| {
        let key: f64 = ctx.get(0)?;
        let ok: bool = ctx.get(1)?;
        let payload: Unknown = ctx.get(2)?;
        let payload = match payload.get_type()? {
            // SAFETY: the type was checked just above.
            ValueType::String => unsafe { payload.cast::<JsString>()? }
                .into_utf8()?
                .into_owned()?,
            _ => messages::TOOL_CALL_FAILED.to_owned(),
        };
        let reply = state
            .upgrade()
            .and_then(|state| state.replies.lock().remove(&CallKey(key as u64)));
        if let Some(reply) = reply {
            reply.settle(if ok { Ok(payload) } else { Err(payload) });
        }
        Ok(())
    })?;
    let aborted = env.create_string(messages::ABORTED)?;
    let failed = env.create_string(messages::TOOL_CALL_FAILED)?;
    let hot = env.create_double(HOT_MS)?;
    let host = call_function(
        env,
        factory.raw(),
        &[settle.raw(), aborted.raw(), failed.raw(), hot.raw()],
    )
    .map_err(|_| napi::Error::from_reason("code mode could not start its host bridge"))?;
    let host = Object::from_raw(env.raw(), host);
    let function = |name: &str| -> Result<ObjectRef<false>> {
        let value: Unknown = host.get_named_property(name)?;
        // SAFETY: `host.js` returns functions under these names.
        let object: Object = unsafe { value.cast()? };
        object.create_ref()
    };
    Ok(Functions {
        start: function("start")?,
        abort: function("abort")?,
    })
}

/// One run surface's executor and event sink.
pub struct Executor {
    pub execute: FunctionRef<(), ()>,
    pub on_event: Option<FunctionRef<(), ()>>,
    pub channel: Arc<Channel>,
}

/// The core's host for one run surface.
pub struct NodeHost {
    pub executor: Arc<Executor>,
}

impl Host for NodeHost {
    fn dispatch(&self, calls: Vec<Dispatch>) {
        self.executor
            .channel
            .send(Message::Dispatch(self.executor.clone(), calls));
    }

    fn abort(&self, keys: Vec<CallKey>) {
        self.executor.channel.send(Message::Abort(keys));
    }
}

unsafe extern "C" fn finalize(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the `Arc` leaked in `Channel::new`, reclaimed once here.
    let state = unsafe { Arc::from_raw(data as *const ChannelState) };
    state.tsfn.lock().take();
    state.functions.lock().take();
}

unsafe extern "C" fn call_js(
    env: sys::napi_env,
    _callback: sys::napi_value,
    context: *mut c_void,
    data: *mut c_void,
) {
    // SAFETY: every queued item is a `Box<Message>` from `Channel::send`.
    let message = unsafe { Box::from_raw(data as *mut Message) };
    if env.is_null() {
        return;
    }
    // Node calls this on the JS thread with a live env.
    let env = Env::from_raw(env);
    // SAFETY: the context is the channel state, alive until `finalize`, after
    // which Node calls this no more.
    let state = unsafe { &*(context as *const ChannelState) };
    let _ = catch_unwind(AssertUnwindSafe(|| match *message {
        Message::Dispatch(executor, calls) => dispatch(&env, state, &executor, calls),
        Message::Abort(keys) => {
            if let Err(error) = abort(&env, state, &keys) {
                eprintln!("code mode: nested calls could not be aborted: {error}");
            }
        }
    }));
}

/// One call of a batch, as `host.js` reads it: key, id, name, source,
/// sourceName, toolCallId, parentToolCallId, codeModeRunId, input JSON.
type BatchCall<'a> = (
    u64,
    &'a str,
    &'a str,
    &'static str,
    Option<&'a str>,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    &'a str,
);

/// Starts a batch through `host.js`. When the bridge itself fails (not the
/// gateway: `host.js` catches what it throws), every call of the batch fails
/// with that message, so no run waits for a call that never started.
fn dispatch(env: &Env, state: &ChannelState, executor: &Executor, calls: Vec<Dispatch>) {
    {
        let mut replies = state.replies.lock();
        for call in &calls {
            replies.insert(call.key, call.reply.clone());
        }
    }
    let started = (|| -> std::result::Result<(), String> {
        let batch: Vec<BatchCall> = calls
            .iter()
            .map(|call| {
                (
                    call.key.0,
                    call.tool_id.as_str(),
                    call.name.as_str(),
                    source_name(call.source),
                    call.source_name.as_deref(),
                    call.tool_call_id.as_str(),
                    call.parent_tool_call_id.as_deref(),
                    call.code_mode_run_id.as_deref(),
                    call.input.as_str(),
                )
            })
            .collect();
        let reason = |error: napi::Error| error.reason.clone();
        let batch = serde_json::to_string(&batch).map_err(|e| e.to_string())?;
        let start = {
            let functions = state.functions.lock();
            let functions = functions
                .as_ref()
                .ok_or_else(|| messages::CLOSED.to_owned())?;
            functions.start.get_value(env).map_err(reason)?.raw()
        };
        let execute = executor.execute.borrow_back(env).map_err(reason)?.raw();
        let on_event = match &executor.on_event {
            Some(on_event) => on_event.borrow_back(env).map_err(reason)?.raw(),
            None => undefined(env),
        };
        let batch = env.create_string(&batch).map_err(reason)?;
        call_function(env, start, &[execute, on_event, batch.raw()])
            .map(|_| ())
            .map_err(|thrown| crate::js::error_message(env, thrown))
    })();
    if let Err(message) = started {
        let mut replies = state.replies.lock();
        for call in &calls {
            if let Some(reply) = replies.remove(&call.key) {
                reply.settle(Err(message.clone()));
            }
        }
    }
}

fn abort(env: &Env, state: &ChannelState, keys: &[CallKey]) -> Result<()> {
    let abort = {
        let functions = state.functions.lock();
        let Some(functions) = functions.as_ref() else {
            return Ok(());
        };
        functions.abort.get_value(env)?.raw()
    };
    let keys: Vec<u64> = keys.iter().map(|key| key.0).collect();
    let keys = serde_json::to_string(&keys).map_err(|e| napi::Error::from_reason(e.to_string()))?;
    let keys = env.create_string(&keys)?;
    let _ = call_function(env, abort, &[keys.raw()]);
    Ok(())
}

fn source_name(source: ToolSource) -> &'static str {
    match source {
        ToolSource::Openclaw => "openclaw",
        ToolSource::Mcp => "mcp",
        ToolSource::Client => "client",
    }
}

fn undefined(env: &Env) -> sys::napi_value {
    let mut value = ptr::null_mut();
    // SAFETY: plain Node-API call on the JS thread.
    unsafe { sys::napi_get_undefined(env.raw(), &mut value) };
    value
}

/// Calls `function(...args)` with `this` undefined; `Err` holds what it threw.
pub fn call_function(
    env: &Env,
    function: sys::napi_value,
    args: &[sys::napi_value],
) -> std::result::Result<sys::napi_value, sys::napi_value> {
    let mut result = ptr::null_mut();
    // SAFETY: plain Node-API call on the JS thread with live values.
    let status = unsafe {
        sys::napi_call_function(
            env.raw(),
            undefined(env),
            function,
            args.len(),
            args.as_ptr(),
            &mut result,
        )
    };
    if status == sys::Status::napi_ok {
        return Ok(result);
    }
    Err(take_exception(env).unwrap_or_else(|| undefined(env)))
}

/// Takes the pending exception, if any.
pub fn take_exception(env: &Env) -> Option<sys::napi_value> {
    let mut pending = false;
    // SAFETY: plain Node-API calls on the JS thread.
    unsafe {
        sys::napi_is_exception_pending(env.raw(), &mut pending);
        if !pending {
            return None;
        }
        let mut exception = ptr::null_mut();
        sys::napi_get_and_clear_last_exception(env.raw(), &mut exception);
        Some(exception)
    }
}
