//! The core's [`Host`] over Node: nested calls reach the gateway's
//! `executeTool` on the JavaScript thread through one [`Channel`] per
//! `CodeMode`, one message per batch; `host.js` starts them and reports each
//! settlement back, which goes straight into the run's arrivals.
//!
//! A batch carries the calls' metadata as JSON text, written on the worker
//! thread, and the short inputs inline ([`INLINE_INPUT_BYTES`], at most
//! [`INLINE_BATCH_BYTES`] a batch). The other inputs stay here until
//! `host.js` starts each call and takes its input (`takeInput`), so the
//! JavaScript thread spends at most [`TURN_WORK_MICROS`] per turn of its event
//! loop starting calls, however many cells flood it. An input longer than
//! [`INPUT_PIECE_BYTES`] is cut into pieces on the worker thread
//! ([`pieces::split`]), which `host.js` assembles over as many turns as it
//! needs. Settlements come back in batches too (`settleBatch`): every call
//! that ended in one run of microtasks, delivered with one wake-up per run.
//!
//! The channel is unreferenced: it never keeps the process alive. An exec or
//! wait in progress holds its own promise, which does.

mod batch;
mod mapped;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};

use code_mode_core::messages;
use code_mode_core::records::{HostFunctions, Settled};
use code_mode_core::runs::host::{CallKey, Dispatch, Host, Reply};
use napi::bindgen_prelude::Either;
use napi::bindgen_prelude::{FunctionRef, JsObjectValue, Object, Unknown};
use napi::{sys, Env, JsValue, Result};
use parking_lot::Mutex;

pub use self::batch::{Batch, ResultText, Results};
use self::batch::{Input, Kept, Partial};
pub use self::mapped::InputCheck;
use crate::checks::Checker;
use crate::js::{self, call_function, undefined};
use crate::tsfn::{Channel, Poller};

/// Work for the JavaScript thread.
pub enum Message {
    Dispatch(Arc<Executor>, Batch),
    Abort(Vec<CallKey>),
    /// Work another thread hands back (`early.rs`: an exec that waited for
    /// its catalog and must now wait for namespace scopes).
    Run(Box<dyn FnOnce(&Env) + Send>),
    /// A namespace call's mapped input was checked on the checker thread
    /// (`checks.rs`): why it was refused, if it was; the input waits for
    /// `takeInput`.
    Checked(CallKey, Option<String>),
}

/// `start`, `abort`, `warn` and `checked` of the compiled `host.js`.
struct Functions {
    start: FunctionRef<(), ()>,
    abort: FunctionRef<(), ()>,
    warn: FunctionRef<(), ()>,
    checked: FunctionRef<(), ()>,
}

/// What the JavaScript-thread side keeps: the compiled functions, and where
/// each call in flight settles.
struct Bridge {
    functions: OnceLock<Functions>,
    replies: Mutex<HashMap<CallKey, Reply>>,
    /// The input of each call not started yet.
    inputs: Mutex<HashMap<CallKey, Input>>,
    /// The text so far of results `host.js` writes over several turns.
    partials: Mutex<HashMap<CallKey, Partial>>,
    /// The text so far of namespace calls' mapped inputs `host.js` writes
    /// over several turns (`appendInput`).
    mapped: Mutex<HashMap<CallKey, Partial>>,
    /// The executor of each namespace call whose mapped input is not
    /// checked yet.
    namespaced: Mutex<HashMap<CallKey, Arc<Executor>>>,
    /// Where mapped inputs too long or costly for this thread are checked.
    checker: Arc<Checker>,
}

/// The host channel of one `CodeMode`.
pub type HostChannel = Channel<Message>;

/// Compiles `host.js` and opens the channel to it; the results half turns
/// exec and wait results into values through it. Mapped inputs are checked
/// on `checker`'s thread when they cannot be here.
pub fn open(env: &Env, checker: Arc<Checker>) -> Result<(HostChannel, Results)> {
    let bridge = Arc::new(Bridge {
        functions: OnceLock::new(),
        replies: Mutex::new(HashMap::new()),
        inputs: Mutex::new(HashMap::new()),
        partials: Mutex::new(HashMap::new()),
        mapped: Mutex::new(HashMap::new()),
        namespaced: Mutex::new(HashMap::new()),
        checker,
    });
    let handler = bridge.clone();
    let channel = Channel::new(env, "code-mode-host", move |env, message| {
        handler.handle(env, message)
    })
    .map_err(|_| napi::Error::from_reason(messages::HOST_CHANNEL_FAILED))?;
    let (functions, deliver) = compile(env, Arc::downgrade(&bridge), channel.poller())?;
    let _ = bridge.functions.set(functions);
    Ok((channel, Results { deliver }))
}

/// Compiles `host.js` and binds it to this bridge's `settle`; its functions,
/// and `deliver` apart.
fn compile(
    env: &Env,
    bridge: Weak<Bridge>,
    poller: Poller<Message>,
) -> Result<(Functions, FunctionRef<(), ()>)> {
    let factory: Unknown = js::load(env, "host.js")?;
    let inputs = bridge.clone();
    let parts = bridge.clone();
    let inputs_of_mapped = bridge.clone();
    let settle = env.create_function_from_closure::<(), (), _>("codeModeSettle", move |ctx| {
        let batch: Object = ctx.get(0)?;
        let keys: Vec<f64> = batch.get_named_property(Settled::keys)?;
        let oks: Vec<bool> = batch.get_named_property(Settled::oks)?;
        let payloads: Vec<Unknown> = batch.get_named_property(Settled::payloads)?;
        let Some(bridge) = bridge.upgrade() else {
            return Ok(());
        };
        let mut settled = Vec::with_capacity(keys.len());
        for ((key, ok), payload) in keys.into_iter().zip(oks).zip(payloads) {
            // A payload that cannot be read fails its call; it never stops
            // the others of the batch from being delivered.
            let payload = js::string(&payload)
                .ok()
                .flatten()
                .unwrap_or_else(|| messages::TOOL_CALL_FAILED.to_owned());
            let key = CallKey(key as u64);
            let partial = bridge.partials.lock().remove(&key);
            let reply = bridge.replies.lock().remove(&key);
            // A namespace call that ended before its input was checked
            // (its mapper threw, it was aborted).
            bridge.mapped.lock().remove(&key);
            bridge.namespaced.lock().remove(&key);
            if let Some(reply) = reply {
                let settlement = match (ok, partial) {
                    (false, _) => Err(payload),
                    (true, None) => Ok(payload),
                    (true, Some(partial)) => partial.end(&payload, reply.max_bytes()),
                };
                settled.push((reply, settlement));
            }
        }
        Reply::settle_all(settled);
        Ok(())
    })?;
    let take_input = env
        .create_function_from_closure::<(), Option<Either<String, Vec<String>>>, _>(
            "codeModeTakeInput",
            move |ctx| {
                let key: f64 = ctx.get(0)?;
                let input = inputs
                    .upgrade()
                    .and_then(|bridge| bridge.inputs.lock().remove(&CallKey(key as u64)));
                Ok(input.map(|input| match input {
                    Input::Whole(text) => Either::A(text),
                    Input::Pieces(pieces) => Either::B(pieces),
                }))
            },
        )?;
    // A result written over several turns: its text so far, kept up to the
    // run's bridge budget (a result longer than that fails; only its
    // length is counted then).
    let append =
        env.create_function_from_closure::<(), (), _>("codeModeAppendResult", move |ctx| {
            let key: f64 = ctx.get(0)?;
            let text: String = ctx.get(1)?;
            let Some(bridge) = parts.upgrade() else {
                return Ok(());
            };
            let key = CallKey(key as u64);
            let Some(max) = bridge.replies.lock().get(&key).map(Reply::max_bytes) else {
                return Ok(());
            };
            let mut partials = bridge.partials.lock();
            let partial = partials.entry(key).or_default();
            partial.append(&text, max);
            Ok(())
        })?;
    // host.js's keep-hot turns: carries out the hand-off policy's decision
    // for this thread (`runs::hand_off::host_poll`, which holds the why):
    // yield first if told, handle what the workers sent, and tell the
    // channel and host.js whether this thread keeps polling.
    let poll = env.create_function_from_closure::<(), bool, _>("codeModePoll", move |ctx| {
        let wants_polling: bool = ctx.get(0)?;
        let turn = code_mode_core::runs::hand_off::host_poll(wants_polling);
        if turn.yield_first {
            std::thread::yield_now();
        }
        // Nested calls from sandbox processes, read here rather than woken
        // for (process isolation).
        #[cfg(target_os = "linux")]
        code_mode_sandbox::client::pump_light();
        poller.poll(ctx.env, turn.keep_polling);
        Ok(turn.keep_polling)
    })?;
    let check_input = mapped::input_checker(env, inputs_of_mapped.clone())?;
    let append_input = mapped::input_appender(env, inputs_of_mapped)?;
    let host = js::make(
        env,
        &factory,
        &[
            settle.raw(),
            take_input.raw(),
            poll.raw(),
            append.raw(),
            append_input.raw(),
            check_input.raw(),
        ],
        messages::HOST_BRIDGE_FAILED,
    )?;
    let functions = Functions {
        start: host.function(HostFunctions::start)?,
        abort: host.function(HostFunctions::abort)?,
        warn: host.function(HostFunctions::warn)?,
        checked: host.function(HostFunctions::checked)?,
    };
    Ok((functions, host.function(HostFunctions::deliver)?))
}

/// One agent run's executor and event sink.
pub struct Executor {
    pub execute: FunctionRef<(), ()>,
    pub on_event: Option<FunctionRef<(), ()>>,
    /// The run's plugin namespaces' `input(id, path, argsText)`, when it has
    /// any: checks a namespace call and maps its arguments.
    pub namespace_input: Option<FunctionRef<(), ()>>,
    /// The run's schema check of its namespace calls' mapped inputs; set
    /// once the agent run exists.
    pub check: OnceLock<Arc<dyn InputCheck>>,
    pub channel: Arc<HostChannel>,
}

/// The core's host for one agent run.
pub struct NodeHost {
    pub executor: Arc<Executor>,
}

impl Host for NodeHost {
    /// On the worker thread: cuts large inputs into pieces, then hands the
    /// batch to the JavaScript thread.
    fn dispatch(&self, calls: Vec<Dispatch>) {
        let batch = Batch::new(calls);
        self.executor
            .channel
            .send(Message::Dispatch(self.executor.clone(), batch));
    }

    fn abort(&self, keys: Vec<CallKey>) {
        self.executor.channel.send(Message::Abort(keys));
    }
}

impl Bridge {
    /// Runs on the JavaScript thread for each message.
    fn handle(&self, env: &Env, message: Message) {
        match message {
            Message::Dispatch(executor, batch) => self.dispatch(env, &executor, batch),
            Message::Abort(keys) => {
                if let Err(error) = self.abort(env, &keys) {
                    self.warn(env, &messages::abort_failed(&error.to_string()));
                }
            }
            Message::Run(work) => work(env),
            Message::Checked(key, rejection) => {
                if let Err(error) = self.checked(env, key, rejection) {
                    self.warn(env, &messages::checked_undelivered(&error.to_string()));
                    // The call will not start: its run is not left waiting.
                    self.inputs.lock().remove(&key);
                    if let Some(reply) = self.replies.lock().remove(&key) {
                        reply.settle(Err(error.reason.clone()));
                    }
                }
            }
        }
    }

    /// Starts a batch through `host.js`. When the bridge itself fails (not the
    /// gateway: `host.js` catches what it throws), every call of the batch
    /// fails with that message, so no run waits for a call that never started.
    fn dispatch(&self, env: &Env, executor: &Arc<Executor>, batch: Batch) {
        let Batch { json, calls } = batch;
        let keys: Vec<CallKey> = calls.iter().map(|kept| kept.key).collect();
        {
            // Inputs not inline wait here until host.js takes each as its
            // call starts.
            let mut replies = self.replies.lock();
            let mut inputs = self.inputs.lock();
            let mut namespaced = self.namespaced.lock();
            for Kept {
                key,
                reply,
                input,
                namespace,
            } in calls
            {
                replies.insert(key, reply);
                if let Some(input) = input {
                    inputs.insert(key, input);
                }
                if namespace {
                    namespaced.insert(key, executor.clone());
                }
            }
        }
        if let Err(message) = self.start(env, executor, &json) {
            let mut replies = self.replies.lock();
            let mut inputs = self.inputs.lock();
            for key in keys {
                inputs.remove(&key);
                self.namespaced.lock().remove(&key);
                if let Some(reply) = replies.remove(&key) {
                    reply.settle(Err(message.clone()));
                }
            }
        }
    }

    fn start(
        &self,
        env: &Env,
        executor: &Executor,
        batch: &str,
    ) -> std::result::Result<(), String> {
        let reason = |error: napi::Error| error.reason.clone();
        let start = self.function(env, |f| &f.start).map_err(reason)?;
        let execute = executor.execute.borrow_back(env).map_err(reason)?.raw();
        let on_event = match &executor.on_event {
            Some(on_event) => on_event.borrow_back(env).map_err(reason)?.raw(),
            None => undefined(env),
        };
        let namespace_input = match &executor.namespace_input {
            Some(input) => input.borrow_back(env).map_err(reason)?.raw(),
            None => undefined(env),
        };
        let batch = env.create_string(batch).map_err(reason)?;
        call_function(
            env,
            start,
            &[execute, on_event, batch.raw(), namespace_input],
        )
        .map(|_| ())
        .map_err(|thrown| js::error_message(env, thrown))
    }

    /// Hands `host.js` the answer of a check made on the checker thread.
    fn checked(&self, env: &Env, key: CallKey, rejection: Option<String>) -> Result<()> {
        let checked = self.function(env, |f| &f.checked)?;
        let key = env.create_double(key.0 as f64)?;
        let rejection = match rejection {
            Some(text) => env.create_string(&text)?.raw(),
            None => js::null(env),
        };
        call_function(env, checked, &[key.raw(), rejection])
            .map(|_| ())
            .map_err(|thrown| napi::Error::from_reason(js::error_message(env, thrown)))
    }

    fn abort(&self, env: &Env, keys: &[CallKey]) -> Result<()> {
        let abort = self.function(env, |f| &f.abort)?;
        let keys: Vec<u64> = keys.iter().map(|key| key.0).collect();
        let keys = env.create_string(&js::json_text(&keys)?)?;
        call_function(env, abort, &[keys.raw()])
            .map(|_| ())
            .map_err(|thrown| napi::Error::from_reason(js::error_message(env, thrown)))
    }

    /// A process warning, through the same path as `host.js`'s own.
    fn warn(&self, env: &Env, text: &str) {
        let warned = (|| -> Result<()> {
            let warn = self.function(env, |f| &f.warn)?;
            let text = env.create_string(text)?;
            let _ = call_function(env, warn, &[text.raw()]);
            Ok(())
        })();
        if warned.is_err() {
            js::take_exception(env);
        }
    }

    fn function(
        &self,
        env: &Env,
        pick: impl Fn(&Functions) -> &FunctionRef<(), ()>,
    ) -> Result<sys::napi_value> {
        let functions = self
            .functions
            .get()
            .ok_or_else(|| napi::Error::from_reason(messages::CLOSED))?;
        Ok(pick(functions).borrow_back(env)?.raw())
    }
}
