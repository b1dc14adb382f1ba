//! The addon's half of the protocol: an engine whose runs live in sandbox
//! processes (`isolation: 'process'`).
//!
//! [`Sandboxes`] offers what the binding asks of the in-process engine
//! (exec, wait, held execs, refusals, the parked count, close), and keeps
//! each agent run the binding built (its catalog, its host) here, with a
//! copy in each sandbox that runs its cells ([`Define`]). A sandbox's nested
//! calls come back as `Dispatch` frames and go to the agent run's own host,
//! exactly as a worker thread's would; their settlements go back as
//! `Settle` frames through a [`RemoteInbox`].
//!
//! Nothing a sandbox writes is trusted: a frame that cannot be read, a call
//! to a tool the run's catalog does not have, or a key never handed out
//! ends that sandbox. A sandbox that ends, for whatever reason, fails the
//! legs it held with `runtime_unavailable`, and the next exec of its slot
//! starts a new one, within [`MAX_SANDBOX_STARTS_PER_MINUTE`].
//!
//! The Node thread never waits on a sandbox: the process starts on its
//! reading thread, and a frame the socket cannot take at once is queued
//! for a writing thread.

mod conn;
mod stats;

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use code_mode_core::limits::{
    MAX_OWN_SANDBOXES, MAX_SANDBOX_STARTS_PER_MINUTE, OWN_SANDBOX_FOR, SANDBOX_ANSWER_GRACE,
};
use code_mode_core::messages;
use code_mode_core::result::{ErrorCode, RunResult, Status, Telemetry};
use code_mode_core::runs::{AgentRun, Control, Done, ExecRequest, Stop, WaitRequest};
use parking_lot::Mutex;

use self::conn::Conn;
use crate::launch::Options;
use crate::wire::{Counters, Define, Exec, ToSandbox, Wait};

pub use self::conn::RemoteInbox;
pub use self::stats::{pump_light, sandbox_stats};

/// `RLIMIT_AS` of a sandbox whose engine has `workers` worker threads: the
/// operating system's backstop under the counting allocator. It leaves
/// room for everything the configuration's ranges allow at once: every
/// thread the engine may run (its workers, as many again for idle
/// sessions, the abandoned ones it replaces, its own few) with its stack
/// and its C library arena, a heap at the largest `memoryLimitBytes` for
/// each computing run, the most parked runs at the largest
/// `maxSnapshotBytes`, and 2 GiB for the executable and the rest. With two
/// workers that is about 30 GiB of address space: it bounds what a bug
/// past the allocator could take, not what runs may use; past it, the
/// sandbox's allocations fail, it aborts, and only its runs fail.
pub fn address_space_for(workers: usize) -> u64 {
    use code_mode_core::limits::{MAX_PARKED_RUNS, MAX_REPLACED_ABANDONED, WORKER_STACK_BYTES};
    const MIB: u64 = 1024 * 1024;
    let workers = workers as u64;
    let threads = 2 * workers + MAX_REPLACED_ABANDONED as u64 + 8;
    let stacks = threads * (WORKER_STACK_BYTES as u64 + 8 * MIB + 128 * MIB);
    let heaps = 2 * workers * 1024 * MIB;
    let parked = MAX_PARKED_RUNS as u64 * 256 * MIB;
    stacks + heaps + parked + 2048 * MIB
}

/// How sandboxes are started.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The `code-mode-sandbox` executable.
    pub binary: PathBuf,
    /// Sandbox processes sessions are spread over.
    pub processes: usize,
    pub options: Options,
}

/// What an agent run's copies are made from, and what is known of it.
struct Twin {
    /// The binding's agent run, held while a sandbox holds a copy (the
    /// copy's calls go to its host), else only weakly.
    strong: Option<Arc<AgentRun>>,
    weak: Weak<AgentRun>,
    define: Define,
    /// Sandboxes (by connection id) holding a copy.
    copies: HashSet<u64>,
    /// The binding dropped its surface: no more copies are made.
    forgotten: bool,
}

/// A parked run: the sandbox holding it, the agent run it belongs to, and
/// when it expires at the latest.
struct Parked {
    conn: u64,
    twin: u64,
    expires: Instant,
    /// The run's cell was `restartSafe`.
    restart_safe: bool,
}

/// A held exec (its namespace scopes are being built).
struct Held {
    request: ExecRequest,
    control: Arc<Control>,
    done: Done,
}

/// An exec held back until its run's namespace scopes are built; let
/// through ([`Sandboxes::open`]) or refused once.
#[derive(Clone)]
pub struct Gate {
    held: Arc<Mutex<Option<Held>>>,
}

/// One slot: the sandbox serving it now, and when sandboxes were started
/// for it lately.
#[derive(Default)]
struct Slot {
    conn: Option<Arc<Conn>>,
    starts: VecDeque<Instant>,
    /// A sandbox was started for it before.
    used: bool,
}

/// A session's own sandbox, since a sandbox stopped while one of its cells
/// was running there.
struct Own {
    slot: Slot,
    until: Instant,
}

#[derive(Default)]
struct State {
    slots: Vec<Slot>,
    own: HashMap<String, Own>,
    twins: HashMap<u64, Twin>,
    parked: HashMap<String, Parked>,
    live: Vec<Weak<Control>>,
    gates: Vec<Weak<Mutex<Option<Held>>>>,
}

/// Process-wide counts of sandboxes, for `codeModeDiagnostics()`.
#[derive(Debug, Default)]
pub struct Counts {
    /// Sandbox processes started.
    pub started: AtomicU64,
    /// Started to replace one that stopped.
    pub restarts: AtomicU64,
    /// Sandboxes that stopped while in use (crashed, killed, broke the
    /// protocol), not counting those closed.
    pub stopped: AtomicU64,
    /// Sandbox processes running now.
    pub running: AtomicU64,
}

/// Process-wide sandbox counts.
pub fn counts() -> &'static Counts {
    static COUNTS: Counts = Counts {
        started: AtomicU64::new(0),
        restarts: AtomicU64::new(0),
        stopped: AtomicU64::new(0),
        running: AtomicU64::new(0),
    };
    &COUNTS
}

/// What the connections share with the engine that made them.
pub(crate) struct Shared {
    settings: Settings,
    state: Mutex<State>,
    closed: AtomicBool,
    next_leg: AtomicU64,
    next_conn: AtomicU64,
    /// Rung when a leg starts or the engine closes: the monitor looks
    /// again.
    monitor: parking_lot::Condvar,
    monitoring: Mutex<Monitoring>,
}

/// The engine of `isolation: 'process'`.
pub struct Sandboxes {
    shared: Arc<Shared>,
}

/// The result of a leg stopped before it started.
fn stopped_result(stop: Stop) -> RunResult {
    let (code, message) = stop.error();
    RunResult::failed(code, message)
}

impl Sandboxes {
    /// Nothing starts until the first exec.
    pub fn new(settings: Settings) -> Self {
        let slots = (0..settings.processes.max(1))
            .map(|_| Slot::default())
            .collect();
        Self {
            shared: Arc::new(Shared {
                settings,
                state: Mutex::new(State {
                    slots,
                    ..State::default()
                }),
                closed: AtomicBool::new(false),
                next_leg: AtomicU64::new(1),
                next_conn: AtomicU64::new(1),
                monitor: parking_lot::Condvar::new(),
                monitoring: Mutex::new(Monitoring::default()),
            }),
        }
    }

    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// Makes `agent_run` known, with what its copies are made from: the
    /// tools' columns and the visible namespaces (JSON) its catalog was
    /// built from.
    pub fn register(
        &self,
        agent_run: &Arc<AgentRun>,
        active: bool,
        namespaces: String,
        tools: Arc<Vec<String>>,
    ) {
        let define = Define {
            twin: agent_run.id,
            config: (*agent_run.config).clone(),
            owner: agent_run.owner.clone(),
            visible_tools: agent_run.visible_tools.clone(),
            active,
            namespaces,
            tools,
            scopes: None,
            counters: Counters::default(),
        };
        // The sandbox of its session starts now, if it has none, so that
        // the first exec does not wait for it (its copy is defined then).
        let _ = self.shared.slot_conn(agent_run.owner.session());
        self.shared.state.lock().twins.insert(
            agent_run.id,
            Twin {
                strong: None,
                weak: Arc::downgrade(agent_run),
                define,
                copies: HashSet::new(),
                forgotten: false,
            },
        );
    }

    /// The binding's surface of this agent run is gone: sandboxes forget
    /// their copies once no run of theirs uses them.
    pub fn forget(&self, agent_run: u64) {
        let mut state = self.shared.state.lock();
        let Some(twin) = state.twins.get_mut(&agent_run) else {
            return;
        };
        twin.forgotten = true;
        let copies: Vec<u64> = twin.copies.iter().copied().collect();
        if copies.is_empty() {
            state.twins.remove(&agent_run);
            return;
        }
        for conn in state.conns() {
            if copies.contains(&conn.id) {
                conn.send(&ToSandbox::Forget { twin: agent_run });
            }
        }
    }

    /// The namespace scopes of `agent_run`, built and accepted by the
    /// binding (JSON): every copy gets them.
    pub fn scopes(&self, agent_run: u64, json: &str) {
        let mut state = self.shared.state.lock();
        // Every sandbox, its session's own ones included.
        let conns: Vec<Arc<Conn>> = state.conns().cloned().collect();
        let Some(twin) = state.twins.get_mut(&agent_run) else {
            return;
        };
        if twin.define.scopes.is_some() {
            return;
        }
        twin.define.scopes = Some(json.to_owned());
        for conn in &conns {
            if twin.copies.contains(&conn.id) {
                conn.send(&ToSandbox::Scopes {
                    twin: agent_run,
                    json: json.to_owned(),
                });
            }
        }
    }

    /// Runs one cell in the sandbox of its session.
    pub fn exec(&self, request: ExecRequest, control: Arc<Control>, done: Done) {
        let timeout = Duration::from_millis(request.agent_run.config.timeout_ms);
        control.arm(request.started + timeout);
        let agent_run = request.agent_run.clone();
        if let Some(result) = self.refusal(&control) {
            return report(Some(&self.shared), &agent_run, None, done, result);
        }
        let conn = match self.shared.conn_for(&agent_run) {
            Ok(conn) => conn,
            Err(message) => {
                let result = RunResult::failed(ErrorCode::RuntimeUnavailable, &message);
                return report(Some(&self.shared), &agent_run, None, done, result);
            }
        };
        let leg = self.shared.next_leg.fetch_add(1, Ordering::Relaxed);
        let frame = ToSandbox::Exec(Exec {
            leg,
            twin: agent_run.id,
            age_micros: micros(request.started.elapsed()),
            code: request.input.code,
            language: request.input.language,
            restart_safe: request.input.restart_safe,
            parent: request.parent_tool_call_id,
        });
        self.shared.track(&control);
        let restart_safe = request.input.restart_safe;
        conn.begin(
            leg,
            &frame,
            agent_run.clone(),
            agent_run.id,
            control,
            done,
            restart_safe,
            None,
        );
        // The monitor looks again, now that the leg is there to see.
        self.shared.watch();
    }

    /// Resumes a parked run, in the sandbox that holds it.
    pub fn wait(&self, request: WaitRequest, control: Arc<Control>, done: Done) {
        let timeout = Duration::from_millis(request.agent_run.config.timeout_ms);
        control.arm(request.started + timeout);
        let agent_run = request.agent_run.clone();
        if self.is_closed() {
            let result = RunResult::failed(ErrorCode::RuntimeUnavailable, messages::CLOSED);
            return report(Some(&self.shared), &agent_run, None, done, result);
        }
        // A wait stopped already still goes to the run's sandbox, which
        // drops the run and answers the stop. The run's own sandbox; a run not known here goes to the asking
        // session's, which answers that it is not there.
        let parked = {
            let state = self.shared.state.lock();
            state
                .parked
                .get(&request.run_id)
                .map(|parked| (parked.conn, parked.twin, parked.restart_safe))
        };
        let found = parked.and_then(|(conn, twin, restart_safe)| {
            Some((self.shared.conn_by_id(conn)?, twin, restart_safe))
        });
        let (conn, origin, restart_safe) = match found {
            Some(found) => found,
            None => match self.shared.conn_for(&agent_run) {
                Ok(conn) => (conn, agent_run.id, false),
                Err(message) => {
                    let result = RunResult::failed(ErrorCode::RuntimeUnavailable, &message);
                    return report(Some(&self.shared), &agent_run, None, done, result);
                }
            },
        };
        // The telemetry of a resumed run is its own agent run's.
        let owner = self
            .shared
            .state
            .lock()
            .twins
            .get(&origin)
            .and_then(|twin| twin.weak.upgrade())
            .unwrap_or_else(|| agent_run.clone());
        if origin != agent_run.id {
            // The asking agent run's copy must exist there too: the
            // sandbox checks the waiter against it.
            self.shared.ensure_copy(&conn, &agent_run);
        }
        let leg = self.shared.next_leg.fetch_add(1, Ordering::Relaxed);
        let resumes = Some(request.run_id.clone());
        let frame = ToSandbox::Wait(Wait {
            leg,
            twin: agent_run.id,
            age_micros: micros(request.started.elapsed()),
            run_id: request.run_id,
            parent: request.parent_tool_call_id,
        });
        self.shared.track(&control);
        conn.begin(
            leg,
            &frame,
            owner,
            origin,
            control,
            done,
            restart_safe,
            resumes,
        );
        self.shared.watch();
    }

    /// Holds an exec back until [`Sandboxes::open`] or
    /// [`Sandboxes::refuse_held`]; `close` answers it as closed.
    pub fn hold(&self, request: ExecRequest, control: Arc<Control>, done: Done) -> Gate {
        let gate = Gate {
            held: Arc::new(Mutex::new(Some(Held {
                request,
                control,
                done,
            }))),
        };
        {
            let mut state = self.shared.state.lock();
            state.gates.retain(|weak| weak.strong_count() > 0);
            state.gates.push(Arc::downgrade(&gate.held));
        }
        if self.is_closed() {
            if let Some(held) = gate.held.lock().take() {
                close_held(&self.shared, held);
            }
        }
        gate
    }

    pub fn open(&self, gate: &Gate) {
        let held = gate.held.lock().take();
        if let Some(held) = held {
            let scopes = held.request.agent_run.toolbox.namespaces.accepted();
            if let Some(json) = scopes {
                self.scopes(held.request.agent_run.id, &json);
            }
            self.exec(held.request, held.control, held.done);
        }
    }

    pub fn refuse_held(&self, gate: &Gate, code: ErrorCode, message: &str) {
        let held = gate.held.lock().take();
        if let Some(held) = held {
            let restart_safe = held.request.input.restart_safe;
            let mut result = RunResult::failed(code, message);
            result.replay_safe = restart_safe;
            report(
                Some(&self.shared),
                &held.request.agent_run,
                Some(restart_safe),
                held.done,
                result,
            );
        }
    }

    /// Answers a call refused before it reached the engine.
    pub fn refuse(&self, agent_run: Arc<AgentRun>, code: ErrorCode, message: &str, done: Done) {
        report(
            Some(&self.shared),
            &agent_run,
            None,
            done,
            RunResult::failed(code, message),
        );
    }

    /// Parked runs held by the sandboxes, as they last said.
    pub fn suspended_runs(&self) -> usize {
        let state = self.shared.state.lock();
        state.conns().map(|conn| conn.parked()).sum()
    }

    /// Refuses new work and stops every leg in progress.
    pub fn begin_close(&self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.monitor.notify_all();
        let (live, gates) = {
            let mut state = self.shared.state.lock();
            (
                std::mem::take(&mut state.live),
                std::mem::take(&mut state.gates),
            )
        };
        for control in live.iter().filter_map(Weak::upgrade) {
            control.stop(Stop::Closed);
        }
        for held in gates.iter().filter_map(Weak::upgrade) {
            let taken = held.lock().take();
            if let Some(held) = taken {
                close_held(&self.shared, held);
            }
        }
    }

    /// Ends every sandbox: each drops its parked runs (their calls'
    /// signals fire) and answers its legs, then exits. Blocks for at most
    /// a few seconds: call it off the JavaScript thread.
    pub fn close(&self) {
        for conn in self.shut_all() {
            conn.join(Duration::from_secs(5));
        }
    }

    /// Closes, takes every sandbox out of its slot and shuts its channel
    /// (each then ends its runs and exits); the sandboxes, to wait for.
    fn shut_all(&self) -> Vec<Arc<Conn>> {
        self.begin_close();
        let conns: Vec<Arc<Conn>> = {
            let mut state = self.shared.state.lock();
            state
                .all_mut()
                .filter_map(|slot| slot.conn.take())
                .collect()
        };
        for conn in &conns {
            conn.shut();
        }
        conns
    }

    fn refusal(&self, control: &Control) -> Option<RunResult> {
        match (self.is_closed(), control.stopped()) {
            (true, _) => Some(RunResult::failed(
                ErrorCode::RuntimeUnavailable,
                messages::CLOSED,
            )),
            (false, Some(stop)) => Some(stopped_result(stop)),
            (false, None) => None,
        }
    }
}

impl Drop for Sandboxes {
    fn drop(&mut self) {
        self.shut_all();
    }
}

fn close_held(shared: &Shared, held: Held) {
    let restart_safe = held.request.input.restart_safe;
    let mut result = RunResult::failed(ErrorCode::RuntimeUnavailable, messages::CLOSED);
    result.replay_safe = restart_safe;
    report(
        Some(shared),
        &held.request.agent_run,
        Some(restart_safe),
        held.done,
        result,
    );
}

/// Answers a leg here, with the agent run's telemetry as the sandboxes
/// last told it (`shared`'s note of its counters), as a leg answered in the
/// sandbox would have it.
fn report(
    shared: Option<&Shared>,
    agent_run: &Arc<AgentRun>,
    replay_safe: Option<bool>,
    done: Done,
    mut result: RunResult,
) {
    result.replay_safe = replay_safe.unwrap_or(false);
    let mut telemetry = agent_run.telemetry();
    let counters = shared.and_then(|shared| {
        let state = shared.state.lock();
        state
            .twins
            .get(&agent_run.id)
            .map(|twin| twin.define.counters)
    });
    if let Some([search, describe, call, invalid, nested]) = counters {
        telemetry.search_count = search;
        telemetry.describe_count = describe;
        telemetry.call_count = call;
        // The copy's refusals, then the binding's own.
        telemetry.invalid_input_count = invalid.saturating_add(telemetry.invalid_input_count);
        telemetry.nested_seq = nested;
    }
    result.telemetry = telemetry;
    done(result);
}

fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

/// The binding's telemetry for a result a sandbox stamped: the counters
/// are the copy's, plus the inputs the binding's own checks refused (the
/// namespace calls' mapped inputs, checked on this side).
fn merge(local: &AgentRun, remote: &Telemetry) -> Telemetry {
    let mut telemetry = remote.clone();
    let own = local.toolbox.counters.invalid_input.load(Ordering::Relaxed);
    telemetry.invalid_input_count = telemetry.invalid_input_count.saturating_add(own);
    telemetry
}

impl State {
    fn all(&self) -> impl Iterator<Item = &Slot> + '_ {
        self.slots
            .iter()
            .chain(self.own.values().map(|own| &own.slot))
    }

    fn all_mut(&mut self) -> impl Iterator<Item = &mut Slot> + '_ {
        self.slots
            .iter_mut()
            .chain(self.own.values_mut().map(|own| &mut own.slot))
    }

    fn conns(&self) -> impl Iterator<Item = &Arc<Conn>> + '_ {
        self.all().filter_map(|slot| slot.conn.as_ref())
    }

    /// Gives back the own sandboxes whose time is over and which hold
    /// nothing (no leg, no parked run).
    /// `session` had a cell running in a sandbox that stopped: it gets a
    /// sandbox of its own for [`OWN_SANDBOX_FOR`], room permitting.
    fn suspect(&mut self, session: String, now: Instant) {
        let until = now + OWN_SANDBOX_FOR;
        if let Some(own) = self.own.get_mut(&session) {
            own.until = until;
            return;
        }
        if self.own.len() >= MAX_OWN_SANDBOXES {
            let idle = self
                .own
                .iter()
                .filter(|(_, own)| own.slot.conn.as_ref().is_none_or(|conn| conn.idle()))
                .min_by_key(|(_, own)| own.until)
                .map(|(session, _)| session.clone());
            let Some(idle) = idle else {
                return;
            };
            if let Some(own) = self.own.remove(&idle) {
                if let Some(conn) = own.slot.conn {
                    conn.shut();
                }
            }
        }
        self.own.insert(
            session,
            Own {
                // Its first sandbox replaces the one that stopped.
                slot: Slot {
                    used: true,
                    ..Slot::default()
                },
                until,
            },
        );
    }

    fn sweep_own(&mut self, now: Instant) {
        self.own.retain(|_, own| {
            let idle = own.slot.conn.as_ref().is_none_or(|conn| conn.idle());
            if own.until > now || !idle {
                return true;
            }
            if let Some(conn) = &own.slot.conn {
                conn.shut();
            }
            false
        });
    }
}

impl Shared {
    /// The connection of the slot `agent_run`'s session maps to, started
    /// if it has none, with the agent run's copy defined there.
    fn conn_for(self: &Arc<Self>, agent_run: &Arc<AgentRun>) -> Result<Arc<Conn>, String> {
        let conn = self.slot_conn(agent_run.owner.session())?;
        self.ensure_copy(&conn, agent_run);
        Ok(conn)
    }

    /// The connection of `session`'s slot, started if it has none.
    fn slot_conn(self: &Arc<Self>, session: &str) -> Result<Arc<Conn>, String> {
        if self.closed.load(Ordering::Acquire) {
            return Err(messages::CLOSED.to_owned());
        }
        let conn =
            {
                let mut state = self.state.lock();
                let now = Instant::now();
                state.sweep_own(now);
                let index = slot_of(session, state.slots.len());
                let State { slots, own, .. } = &mut *state;
                let slot = match own.get_mut(session) {
                    Some(own) => &mut own.slot,
                    None => &mut slots[index],
                };
                match &slot.conn {
                    Some(conn) if !conn.is_dead() => conn.clone(),
                    _ => {
                        while slot.starts.front().is_some_and(|start| {
                            now.duration_since(*start) >= Duration::from_secs(60)
                        }) {
                            slot.starts.pop_front();
                        }
                        if slot.starts.len() >= MAX_SANDBOX_STARTS_PER_MINUTE {
                            return Err(messages::SANDBOX_RESTARTS_EXHAUSTED.to_owned());
                        }
                        let replaced = slot.used;
                        slot.used = true;
                        slot.starts.push_back(now);
                        let id = self.next_conn.fetch_add(1, Ordering::Relaxed);
                        let conn = Conn::start(id, Arc::downgrade(self), &self.settings)
                            .map_err(|error| messages::sandbox_unavailable(&error.to_string()))?;
                        counts().started.fetch_add(1, Ordering::Relaxed);
                        if replaced {
                            counts().restarts.fetch_add(1, Ordering::Relaxed);
                        }
                        slot.conn = Some(conn.clone());
                        conn
                    }
                }
            };
        Ok(conn)
    }

    /// Every live connection.
    fn conns(&self) -> Vec<Arc<Conn>> {
        let state = self.state.lock();
        state.conns().cloned().collect()
    }

    fn conn_by_id(&self, id: u64) -> Option<Arc<Conn>> {
        let state = self.state.lock();
        let found = state
            .conns()
            .find(|conn| conn.id == id && !conn.is_dead())
            .cloned();
        found
    }

    /// Defines `agent_run`'s copy in `conn`'s sandbox unless it is there.
    fn ensure_copy(&self, conn: &Arc<Conn>, agent_run: &Arc<AgentRun>) {
        let mut state = self.state.lock();
        let Some(twin) = state.twins.get_mut(&agent_run.id) else {
            return;
        };
        if twin.copies.insert(conn.id) {
            twin.strong = Some(agent_run.clone());
            conn.send(&ToSandbox::Define(Box::new(twin.define.clone())));
        }
    }

    fn track(&self, control: &Arc<Control>) {
        {
            let mut state = self.state.lock();
            state.live.retain(|weak| weak.strong_count() > 0);
            state.live.push(Arc::downgrade(control));
        }
        if self.closed.load(Ordering::Acquire) {
            control.stop(Stop::Closed);
        }
    }

    /// Starts the monitor on the first leg, and wakes it on every other.
    fn watch(self: &Arc<Self>) {
        let mut monitoring = self.monitoring.lock();
        monitoring.news = true;
        if !monitoring.started {
            let shared = Arc::downgrade(self);
            monitoring.started = std::thread::Builder::new()
                .name("code-mode-sandbox-watch".into())
                .spawn(move || monitor(shared))
                .is_ok();
        }
        self.monitor.notify_one();
    }

    /// A leg's result arrived: the counters of its agent run are noted (a
    /// copy made again starts from them), a parked run's place too.
    fn landed(&self, conn: u64, origin: u64, result: &RunResult) {
        let mut state = self.state.lock();
        if let Some(twin) = state.twins.get_mut(&origin) {
            let t = &result.telemetry;
            twin.define.counters = [
                t.search_count,
                t.describe_count,
                t.call_count,
                t.invalid_input_count,
                t.nested_seq,
            ];
        }
        if let Status::Waiting { run_id, .. } = &result.status {
            let ttl = state
                .twins
                .get(&origin)
                .map_or(0, |twin| twin.define.config.snapshot_ttl_seconds);
            let now = Instant::now();
            state.parked.retain(|_, parked| parked.expires > now);
            state.parked.insert(
                run_id.clone(),
                Parked {
                    conn,
                    twin: origin,
                    expires: now + Duration::from_secs(ttl),
                    restart_safe: result.replay_safe,
                },
            );
        }
    }

    /// A wait took this run (whatever its result): it is no longer parked
    /// under this id.
    fn taken(&self, run_id: &str) {
        self.state.lock().parked.remove(run_id);
    }

    /// The sandbox let its copy of `twin` go.
    fn released(&self, conn: u64, twin: u64) {
        let mut state = self.state.lock();
        let Some(entry) = state.twins.get_mut(&twin) else {
            return;
        };
        entry.copies.remove(&conn);
        if entry.copies.is_empty() {
            entry.strong = None;
            if entry.forgotten {
                state.twins.remove(&twin);
            }
        }
    }

    /// The binding's agent run of a copy, while a copy lives.
    fn agent_run(&self, twin: u64) -> Option<Arc<AgentRun>> {
        let state = self.state.lock();
        state.twins.get(&twin).and_then(|twin| twin.strong.clone())
    }

    /// A sandbox ended: its copies and parked runs go with it.
    fn ended(&self, conn: u64, suspects: Vec<String>) {
        let mut state = self.state.lock();
        for slot in state.all_mut() {
            if slot.conn.as_ref().is_some_and(|c| c.id == conn) {
                slot.conn = None;
            }
        }
        if !self.closed.load(Ordering::Acquire) {
            let now = Instant::now();
            for session in suspects {
                state.suspect(session, now);
            }
        }
        state.parked.retain(|_, parked| parked.conn != conn);
        let mut gone = Vec::new();
        for (id, twin) in &mut state.twins {
            if twin.copies.remove(&conn) && twin.copies.is_empty() {
                twin.strong = None;
                if twin.forgotten {
                    gone.push(*id);
                }
            }
        }
        for id in gone {
            state.twins.remove(&id);
        }
    }
}

/// Kills a sandbox that holds a leg past its budget by
/// [`SANDBOX_ANSWER_GRACE`]: it stopped answering (its reading thread then
/// answers its legs). Sleeps until the next such moment; ends with the
/// engine.
fn monitor(shared: Weak<Shared>) {
    loop {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        if shared.closed.load(Ordering::Acquire) {
            return;
        }
        let conns: Vec<Arc<Conn>> = shared.conns();
        let now = Instant::now();
        let mut next = now + Duration::from_secs(60);
        for conn in conns {
            if let Some(deadline) = conn.next_deadline() {
                let limit = deadline + SANDBOX_ANSWER_GRACE;
                if limit <= now {
                    conn.kill();
                } else {
                    next = next.min(limit);
                }
            }
        }
        let mut monitoring = shared.monitoring.lock();
        // A leg that began while this look was made is looked at first.
        if !std::mem::take(&mut monitoring.news) {
            shared.monitor.wait_until(&mut monitoring, next);
            monitoring.news = false;
        }
    }
}

/// Whether the monitor runs, and whether a leg began since it last looked.
#[derive(Default)]
struct Monitoring {
    started: bool,
    news: bool,
}

/// The slot of a session: its hash, spread over the slots.
fn slot_of(session: &str, slots: usize) -> usize {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    session.hash(&mut hasher);
    (hasher.finish() % slots.max(1) as u64) as usize
}
