//! The hand-off policy: when the Node thread and the workers poll, spin,
//! sleep, yield or step aside while nested calls pass between them. Every
//! such decision is taken here; the threads only carry them out.
//! `docs/scheduling.md` ("Hand-offs") lists the inputs and the decisions,
//! each with its timing (all in [`crate::tuning`]) and who carries it out.
//!
//! A nested call is handed over twice: its batch from a worker to the Node
//! thread, its settlement back. A hand-off costs a fraction of a
//! microsecond when the receiving thread polls on a core of its own, tens
//! of microseconds when it must be woken, and far more when the two threads
//! share a core and each polls out the other's time. So:
//!
//! - **The Node thread**, at each keep-hot turn of `src-js/hot.js` (which
//!   wants to poll within `HOST_HOT_MS` of activity, and turns no more for
//!   `HOST_COLD_MS` after a refusal), asks [`host_poll`]: keep polling the
//!   host channel or stop, and whether to yield the turn first.
//!   `src/host/mod.rs`'s `codeModePoll` carries the answer out.
//! - **A worker** holds a [`WorkerSide`] and asks it between steps
//!   ([`WorkerSide::keep_off_host`]: leave the Node thread's core) and
//!   around each sleep ([`WorkerSide::before_sleep`]: poll for how long, and
//!   how; [`WorkerSide::after_sleep`]). `runs/worker/thread.rs` carries it
//!   out.
//!
//! The inputs, in the submodules:
//!
//! - `cpus.rs`: the core the Node thread polled from and when, and the
//!   workers waiting for it per core (process-wide); moving a worker off a
//!   core.
//! - `contention.rs`: whether polling pays (hand-offs poll or block),
//!   measured from the machine's idle time (`/proc/stat`) and the process's
//!   CPU time while nested calls flow, or fixed by `CODE_MODE_HAND_OFFS`.
//! - `spin.rs`: how long a worker's last wait for an answer took, which sets
//!   its next polling window; the polling loops themselves.

mod contention;
mod cpus;
mod spin;

use std::time::Duration;

use self::contention::hand_offs_block;
pub use self::contention::read_stat_from;
use self::cpus::{host_turn, Presence};
pub use self::spin::read_inbound_while_polling;
use self::spin::{poll_briefly, Pace, Polling};
use crate::tuning::WORKER_NEXT_JOB_SPIN;

/// What the Node thread does at one turn of `src-js/hot.js`'s keep-hot
/// loop ([`host_poll`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostPoll {
    /// Whether the thread keeps polling the host channel: workers then push
    /// their batches without waking it, and `host.js` keeps turning while
    /// its hot window lasts. False ends the polling (a send wakes the thread
    /// through the threadsafe function again); after a refusal of a wanted
    /// turn (hand-offs block), `host.js` keeps no turn hot for
    /// [`HOST_COLD_MS`](crate::tuning::HOST_COLD_MS).
    pub keep_polling: bool,
    /// Whether it yields its core before it takes what the workers sent: a
    /// worker waiting for it shares that core, and must run to step aside.
    /// Never otherwise: a thread that yields to one computing on its core
    /// (a worker, a garbage collector's helper) gets the core back only when
    /// that one's time slice ends.
    pub yield_first: bool,
}

/// The Node thread's decision at a keep-hot turn: `wants_polling` is true
/// while `host.js` keeps the thread hot, false at the turn that ends it.
/// Polling continues only while it pays (hand-offs do not block); a
/// polling turn records the thread's core and when it polled (for the
/// workers' step aside), and yields when a worker waiting for it runs on
/// that core.
pub fn host_poll(wants_polling: bool) -> HostPoll {
    let keep_polling = wants_polling && !hand_offs_block();
    let yield_first = keep_polling && host_turn();
    HostPoll {
        keep_polling,
        yield_first,
    }
}

/// One worker's part in the hand-offs: where it runs (counted while it
/// waits for the Node thread, which yields to it on a shared core) and how
/// quickly its answers came. One per worker thread.
#[derive(Default)]
pub(in crate::runs) struct WorkerSide {
    presence: Presence,
    pace: Pace,
}

/// What a worker with nothing to compute knows as it goes to sleep.
pub(in crate::runs) struct Idle {
    /// Runs it holds await nested calls (or a yield), not only timers.
    pub(in crate::runs) calls: bool,
    /// A held run's timer or deadline is due already: its sleep returns at
    /// once.
    pub(in crate::runs) due: bool,
    /// It ran a job handed to it since the top of its loop.
    pub(in crate::runs) worked: bool,
}

impl WorkerSide {
    /// Between steps: while the worker's runs await nested calls
    /// (`awaits_calls`, asked only when hand-offs poll), it leaves the core
    /// the Node thread polled from in the last
    /// [`HOST_CORE_FRESH`](crate::tuning::HOST_CORE_FRESH), at most once per
    /// [`STEP_ASIDE_EVERY`](crate::tuning::STEP_ASIDE_EVERY). A worker that
    /// starts a job (an exec, a wait) does not move: the host waits for its
    /// answer and has no use for the core. When hand-offs block it stays
    /// beside the host, taking turns.
    pub(in crate::runs) fn keep_off_host(&self, awaits_calls: impl FnOnce() -> bool) {
        if !hand_offs_block() && awaits_calls() {
            self.presence.step_aside();
        }
    }

    /// Before the worker sleeps: polls `news` (it was woken or handed a
    /// job) for a settlement when its runs await calls, for the pace's
    /// window; else for a next job when it just ran one, for
    /// [`WORKER_NEXT_JOB_SPIN`]; not at all when a timer or deadline is due
    /// (its sleep returns at once) or when nothing is expected soon (runs
    /// that await only timers sleep until the first is due). When hand-offs
    /// block it polls for neither.
    pub(in crate::runs) fn before_sleep(&self, idle: &Idle, news: impl Fn() -> bool) {
        if idle.due {
            // No polling: the sleep returns at once.
        } else if idle.calls {
            poll_briefly(
                news,
                &self.presence,
                self.pace.window(),
                Polling::Settlement,
            );
        } else if idle.worked {
            poll_briefly(news, &self.presence, WORKER_NEXT_JOB_SPIN, Polling::NextJob);
        }
    }

    /// After the sleep: `waited` is the time since the worker began polling.
    /// While its runs await calls, that sets its next polling window.
    pub(in crate::runs) fn after_sleep(&self, idle: &Idle, waited: Duration) {
        if idle.calls {
            self.pace.waited(waited);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turn_that_ends_polling_neither_polls_nor_yields() {
        let ending = HostPoll {
            keep_polling: false,
            yield_first: false,
        };
        assert_eq!(host_poll(false), ending);
    }
}
