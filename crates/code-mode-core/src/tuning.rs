//! Timings that decide how work is handed between the Node thread and the
//! workers, in one place. Unlike the bounds of [`crate::limits`], none of
//! them protects the host: they trade a little CPU for latency, and any
//! positive value gives the same results at another cost.
//! The hand-off policy that applies them is [`crate::runs::hand_off`] (the
//! Node thread's windows are carried out by `src-js/hot.js`);
//! `docs/scheduling.md` ("Hand-offs") says which decision uses which;
//! `docs/limits.md` lists them (a test keeps that list in step with this
//! file).

use std::time::Duration;

// --- The Node thread (src-js/hot.js's keep-hot turns, src-js/prepare.js) ---

/// How long the Node thread stays awake after nested-call activity, in
/// milliseconds: waking an idle thread costs tens of microseconds on small
/// virtual machines, paid twice per call by a cell that awaits calls one
/// after another.
pub const HOST_HOT_MS: f64 = 0.15;

/// After the workers said polling does not pay (other work wants the
/// cores), how long no turn of the Node thread is kept awake, in
/// milliseconds: a busy machine then pays no extra event-loop turn per call.
pub const HOST_COLD_MS: f64 = 20.0;

/// Tools written as JSON by the first `JSON.stringify` call while a run's
/// catalog is streamed to its builder; later slices double while they take
/// under a quarter of the turn's budget (up to [`TOOLS_MAX_SLICE`]) and
/// halve while they take more.
pub const TOOLS_FIRST_SLICE: u32 = 64;

/// The most tools one slice of the streamed catalog writes.
pub const TOOLS_MAX_SLICE: u32 = 1024;

// --- The workers and the host's core (runs/hand_off/, carried out by runs/worker/thread.rs) ---

/// How long a worker waiting for the host polls before it sleeps, while
/// answers come quickly: a settlement usually arrives within microseconds,
/// and waking a thread that slept costs tens of them on small virtual
/// machines, hundreds when its core had gone idle. The window rides out the
/// Node thread's usual pauses (a young-generation collection, other work of
/// the gateway). While it polls, the worker stays off the Node thread's core
/// (`Presence::step_aside`, `runs/hand_off/cpus.rs`): a worker and the
/// JavaScript thread on one core each waited out the other's polling, about
/// 300 µs per nested call, for stretches of hundreds of execs.
pub const WORKER_SPIN: Duration = Duration::from_micros(1000);

/// How long a worker that just ran a job polls for the next before it
/// sleeps: a caller that runs cells back to back sends the next within
/// tens of microseconds, and a sleeping worker costs as much to wake.
pub const WORKER_NEXT_JOB_SPIN: Duration = Duration::from_micros(100);

/// The window after an answer that took longer than [`WORKER_SPIN`] (a slow
/// tool): the next one probably will too, and polling for it would only
/// burn a core.
pub const WORKER_SPIN_AFTER_SLOW: Duration = Duration::from_micros(50);

/// How long the host's core counts after its last polling turn: nested
/// calls of one cell, and the next cells of a busy caller, come within it;
/// a worker that wakes later (cells without nested calls, a `wait` after a
/// pause) does not move for a host that is not polling any more.
pub const HOST_CORE_FRESH: Duration = Duration::from_millis(10);

/// How often a worker may step aside from the host's core at most: moving
/// costs a few microseconds, and a host that moves around as well must not
/// make a worker chase it.
pub const STEP_ASIDE_EVERY: Duration = Duration::from_millis(1);

/// How often the machine is looked at while nested calls flow, to decide
/// whether hand-offs poll or block: long enough for `/proc/stat`'s idle
/// time, counted in 10 ms ticks per core, to be read within a fifth of a
/// core.
pub const CONTENTION_WINDOW: Duration = Duration::from_millis(100);

/// A window longer than this (no nested calls for a while) is started
/// again rather than judged: it says little about the machine now.
pub const CONTENTION_WINDOW_STALE: Duration = Duration::from_secs(1);

/// Hand-offs block when fewer cores than this were free for the process:
/// polling on an idle machine reads 1.9-2.0; beside one busy process the
/// process's threads get 1.3-1.5 of the two cores.
pub const BLOCK_BELOW_CORES: f64 = 1.75;

/// They poll again from this many.
pub const POLL_FROM_CORES: f64 = 1.85;
