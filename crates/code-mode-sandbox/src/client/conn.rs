//! One sandbox process and its socket, seen from the addon: the frames
//! going out (written at once when the socket takes them, else queued for
//! a writing thread, so the Node thread never waits), and a reading
//! thread that starts the process, reads its frames and acts on them, and
//! answers everything the sandbox held when it ends.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use code_mode_core::limits::{LIGHT_FRAME_BYTES, MAX_BRIDGE_BYTES, MAX_SANDBOX_CALLS_IN_FLIGHT};
use code_mode_core::messages;
use code_mode_core::records::{CallKind, NestedCall};
use code_mode_core::result::{ErrorCode, RunResult, Status};
use code_mode_core::runs::host::{CallKey, Dispatch, Inbox, Reply, Settlement};
use code_mode_core::runs::{AgentRun, Control, Done};
use parking_lot::{Condvar, Mutex};

use super::{counts, merge, report, Settings, Shared};
use crate::inbound::{wait_readable, Ended, Inbound, Pumped};
use crate::launch;
use crate::wire::{self, FromSandbox, Stats, ToSandbox};

/// What a leg in a sandbox waits with.
pub(crate) struct Leg {
    done: Done,
    /// Whose telemetry its result carries (a resumed run's own agent run).
    owner: Arc<AgentRun>,
    /// `owner`'s number.
    origin: u64,
    restart_safe: bool,
    /// The parked run a wait resumes.
    resumes: Option<String>,
    /// Held while the leg is in the sandbox: an abort listener reaches the
    /// leg through it.
    _control: Arc<Control>,
    /// When its budget ends: a healthy sandbox answers soon after.
    deadline: Instant,
}

/// Frames waiting for the socket.
#[derive(Default)]
struct Out {
    queue: VecDeque<Vec<u8>>,
    /// The writing thread holds a frame it took from the queue.
    busy: bool,
    /// Shut the socket's writing half once the queue is empty.
    shut: bool,
    writer: bool,
}

/// The nested calls of this sandbox in flight: the binding's key of each,
/// the sandbox's, and the agent run it belongs to.
#[derive(Default)]
struct Calls {
    by_local: HashMap<u64, (u64, u64)>,
    by_remote: HashMap<u64, u64>,
}

pub(crate) struct Conn {
    pub(crate) id: u64,
    shared: Weak<Shared>,
    stream: UnixStream,
    out: Mutex<Out>,
    queued: Condvar,
    legs: Mutex<HashMap<u64, Leg>>,
    calls: Mutex<Calls>,
    parked: AtomicU64,
    dead: AtomicBool,
    child: Mutex<Option<Child>>,
    reader: Mutex<Option<JoinHandle<()>>>,
    ended: Mutex<bool>,
    ended_signal: Condvar,
    /// The sandbox's diagnostics, as it last told them.
    pub(crate) stats: Mutex<Stats>,
    /// What was read from the socket and not handled yet.
    inbound: Inbound,
    /// Wakes the reading thread for frames another thread left.
    wake: Bell,
}

/// Where the settlements of one batch of a sandbox's calls go: back to
/// the sandbox, under its own keys.
pub struct RemoteInbox {
    conn: Weak<Conn>,
    max_bytes: usize,
}

impl Inbox for RemoteInbox {
    fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    fn push(&self, settled: Vec<(CallKey, Settlement)>) {
        let Some(conn) = self.conn.upgrade() else {
            return;
        };
        let remote: Vec<(u64, &Settlement)> = {
            let mut calls = conn.calls.lock();
            settled
                .iter()
                .filter_map(|(key, settlement)| {
                    let (remote, _) = calls.by_local.remove(&key.0)?;
                    calls.by_remote.remove(&remote);
                    Some((remote, settlement))
                })
                .collect()
        };
        if !remote.is_empty() {
            conn.send_bytes(wire::settle_frame(remote.into_iter()));
        }
    }
}

/// Why a sandbox is treated as broken.
type Broken = String;

impl Conn {
    /// A connection whose process starts on its reading thread; frames
    /// sent meanwhile wait in the socket.
    pub(crate) fn start(
        id: u64,
        shared: Weak<Shared>,
        settings: &Settings,
    ) -> std::io::Result<Arc<Self>> {
        let (ours, theirs) = UnixStream::pair()?;
        let reading = ours.try_clone()?;
        let conn = Arc::new(Self {
            id,
            shared,
            stream: ours,
            out: Mutex::new(Out::default()),
            queued: Condvar::new(),
            legs: Mutex::new(HashMap::new()),
            calls: Mutex::new(Calls::default()),
            parked: AtomicU64::new(0),
            dead: AtomicBool::new(false),
            child: Mutex::new(None),
            reader: Mutex::new(None),
            ended: Mutex::new(false),
            ended_signal: Condvar::new(),
            stats: Mutex::new(Stats::default()),
            inbound: Inbound::default(),
            wake: Bell::new()?,
        });
        super::stats::live(&conn);
        let (binary, options) = (settings.binary.clone(), settings.options.clone());
        let weak = Arc::downgrade(&conn);
        let handle = std::thread::Builder::new()
            .name("code-mode-sandbox-read".into())
            .spawn(move || {
                // Spawned from this thread, which lives until the process is
                // reaped: Linux sends the parent-death signal when the
                // spawning thread ends, not the process.
                let why = match launch::spawn(&binary, &options, theirs) {
                    Ok(child) => {
                        counts().running.fetch_add(1, Ordering::Relaxed);
                        match weak.upgrade() {
                            Some(conn) => {
                                *conn.child.lock() = Some(child);
                                conn.read(reading)
                            }
                            None => {
                                let mut child = child;
                                let _ = child.kill();
                                let _ = child.wait();
                                counts().running.fetch_sub(1, Ordering::Relaxed);
                                return;
                            }
                        }
                    }
                    Err(error) => Some(messages::sandbox_unavailable(&error.to_string())),
                };
                if let Some(conn) = weak.upgrade() {
                    conn.die(why);
                }
            })?;
        *conn.reader.lock() = Some(handle);
        Ok(conn)
    }

    pub(crate) fn is_dead(&self) -> bool {
        self.dead.load(Ordering::Acquire)
    }

    pub(crate) fn parked(&self) -> usize {
        self.parked.load(Ordering::Relaxed) as usize
    }

    /// Starts a leg with `frame` (its exec or wait): it is answered by its
    /// `Result` frame, or when the sandbox ends. A stop of `control`, now
    /// or later, follows the frame.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn begin(
        self: &Arc<Self>,
        id: u64,
        frame: &ToSandbox,
        owner: Arc<AgentRun>,
        origin: u64,
        control: Arc<Control>,
        done: Done,
        restart_safe: bool,
        resumes: Option<String>,
    ) {
        {
            let mut legs = self.legs.lock();
            if self.is_dead() {
                drop(legs);
                let mut result =
                    RunResult::failed(ErrorCode::RuntimeUnavailable, messages::SANDBOX_STOPPED);
                result.replay_safe = restart_safe;
                return report(
                    self.shared.upgrade().as_deref(),
                    &owner,
                    Some(restart_safe),
                    done,
                    result,
                );
            }
            legs.insert(
                id,
                Leg {
                    done,
                    owner,
                    origin,
                    restart_safe,
                    resumes,
                    deadline: control.deadline().unwrap_or_else(Instant::now),
                    _control: control.clone(),
                },
            );
        }
        self.send(frame);
        let conn = Arc::downgrade(self);
        let notify = Arc::downgrade(&control);
        control.on_stop(move || {
            let reason = notify.upgrade().and_then(|control| control.stopped());
            if let (Some(conn), Some(reason)) = (conn.upgrade(), reason) {
                conn.send(&ToSandbox::Stop { leg: id, reason });
            }
        });
        if let Some(reason) = control.stopped() {
            self.send(&ToSandbox::Stop { leg: id, reason });
        }
    }

    /// Whether it holds no leg and no parked run.
    pub(crate) fn idle(&self) -> bool {
        self.parked() == 0 && self.legs.lock().is_empty()
    }

    /// The earliest budget end of the legs it holds.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.legs.lock().values().map(|leg| leg.deadline).min()
    }

    pub(crate) fn send(self: &Arc<Self>, frame: &ToSandbox) {
        self.send_bytes(frame.encode());
    }

    /// Writes a frame now if the socket takes it whole, else queues what
    /// is left for the writing thread. Never blocks on the sandbox.
    fn send_bytes(self: &Arc<Self>, bytes: Vec<u8>) {
        if self.is_dead() {
            return;
        }
        let mut out = self.out.lock();
        if out.shut {
            return;
        }
        if out.queue.is_empty() && !out.busy {
            let written = send_now(&self.stream, &bytes);
            if written == bytes.len() {
                return;
            }
            out.queue.push_back(bytes[written..].to_vec());
        } else {
            out.queue.push_back(bytes);
        }
        self.wake_writer(&mut out);
    }

    fn wake_writer(self: &Arc<Self>, out: &mut Out) {
        if !out.writer {
            out.writer = true;
            let stream = self.stream.try_clone();
            let conn = Arc::downgrade(self);
            let spawned = stream.ok().and_then(|stream| {
                std::thread::Builder::new()
                    .name("code-mode-sandbox-write".into())
                    .spawn(move || write_queued(conn, stream))
                    .ok()
            });
            if spawned.is_none() {
                // No writer: what is queued is lost, so this sandbox ends.
                self.kill();
            }
        }
        self.queued.notify_one();
    }

    /// No more frames go out: the sandbox ends its runs and exits once it
    /// has read what is queued.
    pub(crate) fn shut(&self) {
        let mut out = self.out.lock();
        out.shut = true;
        if out.queue.is_empty() && !out.busy {
            let _ = self.stream.shutdown(std::net::Shutdown::Write);
        } else {
            self.queued.notify_one();
        }
    }

    /// Waits up to `patience` for the sandbox to end, then kills it.
    pub(crate) fn join(&self, patience: Duration) {
        let deadline = Instant::now() + patience;
        let mut ended = self.ended.lock();
        while !*ended {
            if self
                .ended_signal
                .wait_until(&mut ended, deadline)
                .timed_out()
            {
                break;
            }
        }
        let ended_now = *ended;
        drop(ended);
        if !ended_now {
            self.kill();
        }
        let handle = self.reader.lock().take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }

    /// Kills the process (its reading thread then sees the end).
    pub(crate) fn kill(&self) {
        if let Some(child) = self.child.lock().as_mut() {
            let _ = child.kill();
        }
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }

    /// Reads the sandbox's frames until it ends; why it is broken, if it is.
    fn read(self: &Arc<Self>, stream: UnixStream) -> Option<Broken> {
        let mut reader = BufReader::with_capacity(64 * 1024, stream);
        let mut line = Vec::new();
        let read = (&mut reader).take(4096).read_until(b'\n', &mut line);
        match read {
            Ok(_) if line.starts_with(b"ready ") => {}
            Ok(_) if line.starts_with(b"lockdown-failed ") => {
                let reason = String::from_utf8_lossy(&line[16..]).trim().to_owned();
                return Some(messages::sandbox_unavailable(&reason));
            }
            _ => return Some(messages::sandbox_unavailable(messages::SANDBOX_NOT_READY)),
        }
        self.inbound.prepend(reader.buffer());
        loop {
            match self.pump(true, None) {
                Pumped::Ended(Ended::Closed) => return None,
                Pumped::Ended(Ended::Broken(reason)) => return Some(reason),
                Pumped::Busy | Pumped::Read { .. } => {}
            }
            wait_readable(&[self.stream.as_raw_fd(), self.wake.fd]);
            self.wake.take();
        }
    }

    /// Handles what the socket holds now: all of it on the reading thread
    /// (`wait`), frames up to `light` bytes on a thread that passes by
    /// (the Node thread), which leaves the rest to the reading thread and
    /// wakes it for them.
    fn pump(self: &Arc<Self>, wait: bool, light: Option<usize>) -> Pumped {
        // A panic here (a bug of ours) must reach neither Node nor leave
        // this sandbox's legs unanswered: it ends the sandbox.
        let pumped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.inbound
                .pump(self.stream.as_raw_fd(), wait, light, |body| {
                    let frame = FromSandbox::decode(body).map_err(|error| error.0)?;
                    self.handle(frame)
                })
        }))
        .unwrap_or_else(|_| {
            self.kill();
            Pumped::Ended(Ended::Broken("handling a frame panicked".into()))
        });
        if !wait && pumped != Pumped::Busy {
            // Whatever this thread could not take, or the end it saw, is
            // the reading thread's: it may be asleep with the socket empty.
            if matches!(pumped, Pumped::Read { left: true } | Pumped::Ended(_)) {
                self.wake.ring();
            }
        }
        pumped
    }

    /// On a thread passing by (the Node thread's keep-hot turn): handles
    /// the short frames waiting, if no other thread is reading them.
    pub(crate) fn pump_light(self: &Arc<Self>) {
        if !self.is_dead() {
            self.pump(false, Some(LIGHT_FRAME_BYTES));
        }
    }

    fn handle(self: &Arc<Self>, frame: FromSandbox) -> Result<(), Broken> {
        let shared = self.shared.upgrade().ok_or("the engine is gone")?;
        match frame {
            FromSandbox::Result {
                leg,
                parked,
                mut result,
            } => {
                self.parked.store(parked.min(MAX_PARKED), Ordering::Relaxed);
                let leg = self.legs.lock().remove(&leg).ok_or("a result for no leg")?;
                if let Some(run_id) = &leg.resumes {
                    // A wait refused (a foreign owner, a run being resumed)
                    // leaves the run where it is.
                    let refused = matches!(
                        result.status,
                        Status::Failed {
                            code: ErrorCode::InvalidInput,
                            ..
                        }
                    );
                    if !refused {
                        shared.taken(run_id);
                    }
                }
                shared.landed(self.id, leg.origin, &result);
                result.telemetry = merge(&leg.owner, &result.telemetry);
                (leg.done)(result);
            }
            FromSandbox::Dispatch {
                twin,
                max_bytes,
                calls,
            } => self.dispatch(&shared, twin, max_bytes, calls)?,
            FromSandbox::Abort(keys) => {
                let mut by_twin: HashMap<u64, Vec<CallKey>> = HashMap::new();
                {
                    let mut calls = self.calls.lock();
                    for remote in keys {
                        if let Some(local) = calls.by_remote.remove(&remote) {
                            if let Some((_, twin)) = calls.by_local.remove(&local) {
                                by_twin.entry(twin).or_default().push(CallKey(local));
                            }
                        }
                    }
                }
                for (twin, keys) in by_twin {
                    if let Some(agent_run) = shared.agent_run(twin) {
                        agent_run.host.abort(keys);
                    }
                }
            }
            FromSandbox::Released { twin } => shared.released(self.id, twin),
            FromSandbox::Parked { count } => {
                self.parked.store(count.min(MAX_PARKED), Ordering::Relaxed)
            }
            FromSandbox::Stats(mut stats) => {
                for problem in std::mem::take(&mut stats.problems).into_iter().take(64) {
                    code_mode_core::validation::record_schema_problem(problem);
                }
                *self.stats.lock() = stats;
            }
        }
        Ok(())
    }

    /// Hands a sandbox's nested calls to the agent run's own host, after
    /// checking each names a tool of the run's catalog.
    fn dispatch(
        self: &Arc<Self>,
        shared: &Shared,
        twin: u64,
        max_bytes: u64,
        calls: Vec<(String, String)>,
    ) -> Result<(), Broken> {
        let agent_run = shared
            .agent_run(twin)
            .ok_or("a call of an agent run it does not hold")?;
        let inbox: Arc<dyn Inbox> = Arc::new(RemoteInbox {
            conn: Arc::downgrade(self),
            max_bytes: usize::try_from(max_bytes.min(MAX_BRIDGE_BYTES)).unwrap_or(usize::MAX),
        });
        let mut batch = Vec::with_capacity(calls.len());
        for (call, input) in calls {
            let mut call: NestedCall =
                serde_json::from_str(&call).map_err(|_| "an unreadable nested call")?;
            if !matches!(
                call.kind,
                CallKind::Call | CallKind::Mcp | CallKind::Namespace
            ) {
                return Err("a nested call of a kind that never leaves the sandbox".into());
            }
            let entry = agent_run.toolbox.catalog.exact(&call.tool_id);
            if entry.is_none_or(|entry| entry.name != call.name) {
                return Err("a nested call of a tool the run's catalog does not have".into());
            }
            if input.len() as u64 > MAX_BRIDGE_BYTES {
                return Err("a nested call's input longer than any run may send".into());
            }
            let local = CallKey::next();
            {
                let mut calls = self.calls.lock();
                if calls.by_local.len() >= MAX_SANDBOX_CALLS_IN_FLIGHT {
                    return Err("more nested calls in flight than any sandbox may have".into());
                }
                if calls.by_remote.insert(call.key, local.0).is_some() {
                    return Err("a nested call's key used twice".into());
                }
                calls.by_local.insert(local.0, (call.key, twin));
            }
            call.key = local.0;
            batch.push(Dispatch {
                call,
                input,
                reply: Reply::to(inbox.clone(), local),
            });
        }
        if !batch.is_empty() {
            agent_run.host.dispatch(batch);
        }
        Ok(())
    }

    /// The sandbox ended (or is broken: it is killed): every leg it held
    /// is answered, its calls in flight aborted, its place given up.
    fn die(self: &Arc<Self>, broken: Option<Broken>) {
        self.dead.store(true, Ordering::Release);
        let child = self.child.lock().take();
        if let Some(mut child) = child {
            let _ = child.kill();
            let _ = child.wait();
            counts().running.fetch_sub(1, Ordering::Relaxed);
        }
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
        self.queued.notify_all();
        let shared = self.shared.upgrade();
        let closed = shared
            .as_ref()
            .is_none_or(|shared| shared.closed.load(Ordering::Acquire));
        if !closed {
            counts().stopped.fetch_add(1, Ordering::Relaxed);
        }
        super::stats::ended(self);
        let legs: Vec<Leg> = self.legs.lock().drain().map(|(_, leg)| leg).collect();
        // The sessions whose cells ran here: one of them may have stopped
        // it (crashed it, or took its engine over and wrote what it may
        // not). A sandbox that never started, or was closed, is nobody's.
        let unstarted = broken
            .as_deref()
            .is_some_and(|reason| reason.starts_with(messages::sandbox_unavailable("").as_str()));
        let suspects: Vec<String> = match unstarted || closed {
            true => Vec::new(),
            false => legs
                .iter()
                .map(|leg| leg.owner.owner.session().to_owned())
                .collect(),
        };
        let calls = std::mem::take(&mut *self.calls.lock());
        if let Some(shared) = &shared {
            let mut by_twin: HashMap<u64, Vec<CallKey>> = HashMap::new();
            for (local, (_, twin)) in calls.by_local {
                by_twin.entry(twin).or_default().push(CallKey(local));
            }
            for (twin, keys) in by_twin {
                if let Some(agent_run) = shared.agent_run(twin) {
                    agent_run.host.abort(keys);
                }
            }
            shared.ended(self.id, suspects);
        }
        let message = match (closed, &broken) {
            (true, _) => messages::CLOSED.to_owned(),
            (false, Some(reason))
                if reason.starts_with(messages::sandbox_unavailable("").as_str()) =>
            {
                reason.clone()
            }
            (false, _) => messages::SANDBOX_STOPPED.to_owned(),
        };
        for leg in legs {
            let result = RunResult::failed(ErrorCode::RuntimeUnavailable, &message);
            report(
                shared.as_deref(),
                &leg.owner,
                Some(leg.restart_safe),
                leg.done,
                result,
            );
        }
        *self.ended.lock() = true;
        self.ended_signal.notify_all();
    }
}

/// A connection dropped with its process still running (its engine went
/// first): the process is killed and reaped here.
impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.get_mut().take() {
            let _ = child.kill();
            let _ = child.wait();
            counts().running.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// The most parked runs a sandbox can hold (what it says past it is not
/// believed).
const MAX_PARKED: u64 = code_mode_core::limits::MAX_PARKED_RUNS as u64;

/// An eventfd the reading thread waits on beside its socket.
struct Bell {
    fd: RawFd,
}

impl Bell {
    fn new() -> std::io::Result<Self> {
        // SAFETY: `eventfd` takes integers and returns a new descriptor.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Self { fd })
    }

    fn ring(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to the eventfd we own.
        let _ = unsafe { libc::write(self.fd, (&one as *const u64).cast(), 8) };
    }

    fn take(&self) {
        let mut count: u64 = 0;
        // SAFETY: reads 8 bytes into a live u64 from the eventfd we own
        // (non-blocking: nothing to read is fine).
        let _ = unsafe { libc::read(self.fd, (&mut count as *mut u64).cast(), 8) };
    }
}

impl Drop for Bell {
    fn drop(&mut self) {
        // SAFETY: the descriptor is ours and closed once.
        unsafe { libc::close(self.fd) };
    }
}

/// Writes as much of `bytes` as the socket takes now; how much it took.
fn send_now(stream: &UnixStream, bytes: &[u8]) -> usize {
    let mut written = 0;
    while written < bytes.len() {
        let rest = &bytes[written..];
        // SAFETY: `rest` is a live slice of `rest.len()` bytes; the
        // descriptor is the open socket `stream` holds.
        let sent = unsafe {
            libc::send(
                stream.as_raw_fd(),
                rest.as_ptr().cast(),
                rest.len(),
                libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
            )
        };
        if sent > 0 {
            written += sent as usize;
            continue;
        }
        let error = std::io::Error::last_os_error();
        if sent < 0 && error.kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        break;
    }
    written
}

/// The writing thread: writes queued frames in order, waiting as long as
/// the socket needs; ends with its sandbox.
fn write_queued(conn: Weak<Conn>, mut stream: UnixStream) {
    loop {
        let Some(conn) = conn.upgrade() else {
            return;
        };
        let bytes = {
            let mut out = conn.out.lock();
            loop {
                if conn.is_dead() {
                    return;
                }
                if let Some(bytes) = out.queue.pop_front() {
                    out.busy = true;
                    break bytes;
                }
                if out.shut {
                    let _ = conn.stream.shutdown(std::net::Shutdown::Write);
                    return;
                }
                conn.queued.wait_for(&mut out, Duration::from_secs(1));
            }
        };
        let written = stream.write_all(&bytes);
        conn.out.lock().busy = false;
        if written.is_err() {
            return;
        }
    }
}
