//! The sandbox's half of the protocol: the engine, and a copy of each agent
//! run the addon defined (its catalog, `MCP` namespace and plugin
//! namespaces, built here from the same text the addon built its own from).
//!
//! Execs and waits run on the engine as they would in the addon; a leg's
//! result goes back as a `Result` frame. A nested call leaves through the
//! copy's host ([`RemoteHost`]) as a `Dispatch` frame, and its settlement
//! comes back as a `Settle` frame, into the run's arrivals through the
//! [`Reply`] kept for its key. Nothing here trusts the addon less than the
//! engine trusts its host; the addon trusts nothing this process writes.

use std::collections::HashMap;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use code_mode_core::catalog::{read_tools, Keep};
use code_mode_core::input::ExecInput;
use code_mode_core::limits::INLINE_BUILD_BYTES;
use code_mode_core::messages;
use code_mode_core::model::{build_catalog, CatalogParts};
use code_mode_core::namespaces::Registration;
use code_mode_core::result::{ErrorCode, RunResult};
use code_mode_core::runs::hand_off;
use code_mode_core::runs::host::{CallKey, Dispatch, Host, Reply};
use code_mode_core::runs::{AgentRun, Control, Done, Engine, ExecRequest, WaitRequest};
use parking_lot::Mutex;

use crate::inbound::{wait_readable, Ended, Inbound, Pumped};
use crate::wire::{Define, Exec, FromSandbox, Stats, ToSandbox, Wait};

/// The writing end of the channel: whole frames, one at a time.
pub struct Outbox {
    stream: Mutex<Arc<UnixStream>>,
}

impl Outbox {
    fn send(&self, frame: &FromSandbox) {
        let bytes = frame.encode();
        let stream = self.stream.lock();
        let _ = (&**stream).write_all(&bytes);
    }

    /// Sends the frame `make` writes, made under the lock, so that counts
    /// in it (parked runs) never arrive older than one sent before.
    fn send_made(&self, make: impl FnOnce() -> FromSandbox) {
        let stream = self.stream.lock();
        let _ = (&**stream).write_all(&make().encode());
    }

    /// Sends a leg's result, after the process's diagnostics when they
    /// changed (both made under the lock, in the order they changed).
    fn send_result(&self, last: &Mutex<Stats>, make: impl FnOnce() -> FromSandbox) {
        let stream = self.stream.lock();
        let (total, running) = code_mode_core::runs::abandoned_workers();
        let mut now = Stats {
            abandoned_workers: total as u64,
            abandoned_workers_running: running as u64,
            retired_vms: code_mode_core::runs::retired_vms(),
            answered_in_queue: code_mode_core::runs::answered_in_queue() as u64,
            typescript_initialized: code_mode_core::source::typescript_initialized(),
            problems_recorded: code_mode_core::validation::schema_problems_recorded(),
            problems: Vec::new(),
        };
        let mut last = last.lock();
        if now != *last {
            let told = now.clone();
            if now.problems_recorded != last.problems_recorded {
                now.problems = code_mode_core::validation::schema_problems();
            }
            let _ = (&**stream).write_all(&FromSandbox::Stats(now).encode());
            *last = told;
        }
        let _ = (&**stream).write_all(&make().encode());
    }
}

/// Calls sent to the addon, until they settle or are aborted.
type Calls = Arc<Mutex<HashMap<u64, Reply>>>;

/// The host of an agent run's copy: its nested calls go to the addon.
struct RemoteHost {
    twin: u64,
    out: Arc<Outbox>,
    calls: Calls,
}

impl Host for RemoteHost {
    fn dispatch(&self, batch: Vec<Dispatch>) {
        let Some(first) = batch.first() else {
            return;
        };
        let max_bytes = first.reply.max_bytes() as u64;
        let mut calls = Vec::with_capacity(batch.len());
        {
            let mut kept = self.calls.lock();
            for dispatch in batch {
                let Ok(call) = serde_json::to_string(&dispatch.call) else {
                    dispatch.reply.settle(Err(messages::INTERNAL.to_owned()));
                    continue;
                };
                kept.insert(dispatch.key().0, dispatch.reply);
                calls.push((call, dispatch.input));
            }
        }
        self.out.send(&FromSandbox::Dispatch {
            twin: self.twin,
            max_bytes,
            calls,
        });
    }

    fn abort(&self, keys: Vec<CallKey>) {
        {
            let mut kept = self.calls.lock();
            for key in &keys {
                kept.remove(&key.0);
            }
        }
        self.out.send(&FromSandbox::Abort(
            keys.into_iter().map(|key| key.0).collect(),
        ));
    }
}

/// The copy is gone once no run uses it: the addon may let its own go.
impl Drop for RemoteHost {
    fn drop(&mut self) {
        self.out.send(&FromSandbox::Released { twin: self.twin });
    }
}

/// What waits for a copy being built.
type Waiting = Box<dyn FnOnce(&Result<Arc<AgentRun>, String>) + Send>;

/// One agent run's copy: built, or being built with calls waiting for it.
enum Twin {
    Building(Vec<Waiting>),
    Built(Result<Arc<AgentRun>, String>),
}

type Twins = Arc<Mutex<HashMap<u64, Arc<Mutex<Twin>>>>>;

/// The sandbox's state: the engine, the copies, the legs in progress and
/// the calls out.
pub struct Server {
    engine: Arc<Engine>,
    out: Arc<Outbox>,
    twins: Twins,
    legs: Arc<Mutex<HashMap<u64, Arc<Control>>>>,
    calls: Calls,
    /// The diagnostics last sent.
    told: Arc<Mutex<Stats>>,
    stream: Arc<UnixStream>,
    inbound: Inbound,
}

impl Server {
    /// A server writing to `stream` (the channel it also reads: the
    /// lockdown allows no second descriptor of it), with an engine of
    /// `workers` threads (made here: after the lockdown, so that they run
    /// under it).
    pub fn new(stream: Arc<UnixStream>, workers: usize) -> std::io::Result<Self> {
        let engine = Arc::new(Engine::new(workers)?);
        let out = Arc::new(Outbox {
            stream: Mutex::new(stream.clone()),
        });
        let told = out.clone();
        let counted = Arc::downgrade(&engine);
        engine.on_expired(move |_| {
            if let Some(engine) = counted.upgrade() {
                told.send_made(|| FromSandbox::Parked {
                    count: engine.suspended_runs() as u64,
                });
            }
        });
        Ok(Self {
            engine,
            out,
            twins: Default::default(),
            legs: Default::default(),
            calls: Default::default(),
            told: Default::default(),
            stream,
            inbound: Default::default(),
        })
    }

    /// Reads and handles frames until the channel closes (`Ok`) or a frame
    /// cannot be read (`Err`). This thread waits for the channel to be
    /// readable; a worker polling for a settlement reads it too
    /// (`inbound.rs`), so a settlement seldom needs this thread woken.
    pub fn serve(self: &Arc<Self>) -> Result<(), String> {
        let weak = Arc::downgrade(self);
        hand_off::read_inbound_while_polling(Box::new(move || {
            if let Some(server) = weak.upgrade() {
                server.pump(false);
            }
        }));
        loop {
            match self.pump(true) {
                Pumped::Ended(Ended::Closed) => return Ok(()),
                Pumped::Ended(Ended::Broken(reason)) => return Err(reason),
                Pumped::Busy | Pumped::Read { .. } => {}
            }
            wait_readable(&[self.stream.as_raw_fd()]);
        }
    }

    /// Handles what the channel holds now (`wait`: even when another
    /// thread is reading it, after that thread).
    fn pump(&self, wait: bool) -> Pumped {
        self.inbound
            .pump(self.stream.as_raw_fd(), wait, None, |body| {
                let frame = ToSandbox::decode(body).map_err(|error| error.0)?;
                self.handle(frame);
                Ok(())
            })
    }

    /// Stops every leg and frees every run (the channel closed).
    pub fn close(&self) {
        self.engine.close();
    }

    fn handle(&self, frame: ToSandbox) {
        match frame {
            ToSandbox::Define(define) => self.define(*define),
            ToSandbox::Forget { twin } => {
                self.twins.lock().remove(&twin);
            }
            ToSandbox::Scopes { twin, json } => self.with_twin(
                twin,
                Box::new(move |built| {
                    if let Ok(agent_run) = built {
                        // The addon checked them already; they are the same.
                        let _ = agent_run.toolbox.namespaces.accept(&json);
                    }
                }),
            ),
            ToSandbox::Exec(exec) => self.exec(exec),
            ToSandbox::Wait(wait) => self.wait(wait),
            ToSandbox::Stop { leg, reason } => {
                let control = self.legs.lock().get(&leg).cloned();
                if let Some(control) = control {
                    control.stop(reason);
                }
            }
            ToSandbox::Settle(settled) => {
                let replies = {
                    let mut kept = self.calls.lock();
                    settled
                        .into_iter()
                        .filter_map(|(key, settlement)| Some((kept.remove(&key)?, settlement)))
                        .collect()
                };
                Reply::settle_all(replies);
            }
        }
    }

    fn define(&self, define: Define) {
        let twin = Arc::new(Mutex::new(Twin::Building(Vec::new())));
        self.twins.lock().insert(define.twin, twin.clone());
        let host = Arc::new(RemoteHost {
            twin: define.twin,
            out: self.out.clone(),
            calls: self.calls.clone(),
        });
        let large = define.tools.iter().map(String::len).sum::<usize>() > INLINE_BUILD_BYTES;
        let build = move || {
            let built = build(define, host);
            let waiting = match std::mem::replace(&mut *twin.lock(), Twin::Built(built.clone())) {
                Twin::Building(waiting) => waiting,
                Twin::Built(_) => Vec::new(),
            };
            for waiter in waiting {
                waiter(&built);
            }
        };
        if !large {
            return build();
        }
        let build = Arc::new(Mutex::new(Some(build)));
        let spawned = std::thread::Builder::new()
            .name("sandbox-build".into())
            .spawn({
                let build = build.clone();
                move || {
                    if let Some(build) = build.lock().take() {
                        build();
                    }
                }
            });
        if spawned.is_err() {
            // No thread: build here rather than never.
            if let Some(build) = build.lock().take() {
                build();
            }
        }
    }

    /// Calls `then` with the copy `twin` once it is built (at once when it
    /// is), or with an error when the addon never defined it.
    fn with_twin(&self, twin: u64, then: Waiting) {
        let found = self.twins.lock().get(&twin).cloned();
        let Some(found) = found else {
            return then(&Err(format!("agent run {twin} is not defined here")));
        };
        let mut state = found.lock();
        match &mut *state {
            Twin::Building(waiting) => waiting.push(then),
            Twin::Built(built) => {
                let built = built.clone();
                drop(state);
                then(&built);
            }
        }
    }

    /// What answers leg `leg`: a `Result` frame, with the parked count.
    fn done(&self, leg: u64) -> Done {
        let (out, legs, engine) = (self.out.clone(), self.legs.clone(), self.engine.clone());
        let told = self.told.clone();
        Box::new(move |result| {
            legs.lock().remove(&leg);
            out.send_result(&told, || FromSandbox::Result {
                leg,
                parked: engine.suspended_runs() as u64,
                result,
            });
        })
    }

    fn control(&self, leg: u64) -> Arc<Control> {
        let control = Arc::new(Control::default());
        self.legs.lock().insert(leg, control.clone());
        control
    }

    fn exec(&self, exec: Exec) {
        #[cfg(feature = "test-hooks")]
        if let Some(probe) = exec.code.strip_prefix("//probe:") {
            let answer = crate::probe::run(probe.trim());
            let value = serde_json::value::to_raw_value(&answer).unwrap_or_default();
            let done = self.done(exec.leg);
            self.legs.lock().remove(&exec.leg);
            return done(RunResult::new(code_mode_core::result::Status::Completed {
                value,
            }));
        }
        let started = started(exec.age_micros);
        let (control, done, engine) = (
            self.control(exec.leg),
            self.done(exec.leg),
            self.engine.clone(),
        );
        self.with_twin(
            exec.twin,
            Box::new(move |built| match built {
                Ok(agent_run) => engine.exec(
                    ExecRequest {
                        input: ExecInput {
                            code: exec.code,
                            language: exec.language,
                            restart_safe: exec.restart_safe,
                        },
                        started,
                        agent_run: agent_run.clone(),
                        parent_tool_call_id: exec.parent,
                    },
                    control,
                    done,
                ),
                Err(_) => done(RunResult::failed(
                    ErrorCode::InternalError,
                    messages::INTERNAL,
                )),
            }),
        );
    }

    fn wait(&self, wait: Wait) {
        let started = started(wait.age_micros);
        let (control, done, engine) = (
            self.control(wait.leg),
            self.done(wait.leg),
            self.engine.clone(),
        );
        self.with_twin(
            wait.twin,
            Box::new(move |built| match built {
                Ok(agent_run) => engine.wait(
                    WaitRequest {
                        run_id: wait.run_id,
                        started,
                        agent_run: agent_run.clone(),
                        parent_tool_call_id: wait.parent,
                    },
                    control,
                    done,
                ),
                Err(_) => done(RunResult::failed(
                    ErrorCode::InternalError,
                    messages::INTERNAL,
                )),
            }),
        );
    }
}

/// When a call made `age_micros` ago was made, by this process's clock.
fn started(age_micros: u64) -> Instant {
    let now = Instant::now();
    now.checked_sub(Duration::from_micros(age_micros))
        .unwrap_or(now)
}

/// Builds an agent run's copy from its definition (what the addon's
/// builder thread does with the same text). A panic is caught.
fn build(define: Define, host: Arc<RemoteHost>) -> Result<Arc<AgentRun>, String> {
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let (mut tools, mut problems) = (Vec::new(), Vec::new());
        for text in define.tools.iter() {
            read_tools(text, Keep::Catalog, &mut tools, &mut problems)?;
        }
        let namespaces: Vec<(usize, Registration)> = serde_json::from_str(&define.namespaces)
            .map_err(|error| format!("namespaces: {error}"))?;
        let CatalogParts {
            catalog,
            mcp,
            namespaces,
        } = build_catalog(&tools, define.active, namespaces);
        let agent_run = AgentRun::new(
            Arc::new(define.config),
            catalog,
            mcp,
            namespaces,
            host,
            define.visible_tools,
            define.owner,
        );
        let counters = &agent_run.toolbox.counters;
        let [search, describe, call, invalid, nested] = define.counters;
        let set = |counter: &std::sync::atomic::AtomicU64, value| {
            counter.store(value, std::sync::atomic::Ordering::Relaxed)
        };
        set(&counters.search, search);
        set(&counters.describe, describe);
        set(&counters.call, call);
        set(&counters.invalid_input, invalid);
        set(&counters.nested_seq, nested);
        if let Some(scopes) = &define.scopes {
            agent_run.toolbox.namespaces.accept(scopes)?;
        }
        Ok(agent_run)
    }));
    built.unwrap_or_else(|_| Err("building the agent run panicked".to_owned()))
}
