//! How a worker polls its intake before it sleeps, and for how long.
//!
//! For a settlement it polls for up to [`WORKER_SPIN`] while answers come
//! within it, [`WORKER_SPIN_AFTER_SLOW`] after one that did not ([`Pace`]),
//! counted as waiting for the host and kept off its core (`cpus.rs`). For a
//! next job it polls for [`WORKER_NEXT_JOB_SPIN`](crate::tuning::WORKER_NEXT_JOB_SPIN),
//! yielding its core on every poll. When hand-offs block (`contention.rs`)
//! it polls for neither and sleeps at once.

use std::cell::Cell;
use std::time::{Duration, Instant};

use super::contention::{hand_offs_block, observe};
use super::cpus::Presence;
use crate::tuning::{WORKER_SPIN, WORKER_SPIN_AFTER_SLOW};

/// What a worker polling for a settlement calls on each poll, when the
/// host's settlements arrive on a channel someone must read: a sandbox
/// process sets it to read its channel without waiting.
static INBOUND: std::sync::OnceLock<Box<dyn Fn() + Send + Sync>> = std::sync::OnceLock::new();

/// Sets [`INBOUND`] (once per process).
pub fn read_inbound_while_polling(read: Box<dyn Fn() + Send + Sync>) {
    let _ = INBOUND.set(read);
}

/// How long this worker polls before it sleeps: [`WORKER_SPIN`] while answers come
/// within it, [`WORKER_SPIN_AFTER_SLOW`] after one that did not.
#[derive(Default)]
pub(super) struct Pace {
    slow: Cell<bool>,
}

impl Pace {
    pub(super) fn window(&self) -> Duration {
        if self.slow.get() {
            WORKER_SPIN_AFTER_SLOW
        } else {
            WORKER_SPIN
        }
    }

    /// Records how long the worker waited for news since it began polling.
    pub(super) fn waited(&self, wait: Duration) {
        self.slow.set(wait > WORKER_SPIN);
    }
}

/// How a worker polls its intake.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Polling {
    /// For a settlement: counted as waiting for the host, off its core.
    Settlement,
    /// For a next job, with nothing else to do: it yields the core on every
    /// poll, so that a thread that shares it (the Node thread about to send
    /// that job) is never held up by it.
    NextJob,
}

/// Polls `news` (the worker was woken or handed a job) for up to `window`,
/// unless the machine is busy ([`hand_offs_block`]: the worker then sleeps
/// at once, and the thread it waits for gets the core).
pub(super) fn poll_briefly(
    news: impl Fn() -> bool,
    presence: &Presence,
    window: Duration,
    polling: Polling,
) {
    if polling == Polling::Settlement {
        observe();
    }
    if hand_offs_block() {
        return;
    }
    let inbound = INBOUND.get();
    if polling == Polling::NextJob {
        let until = Instant::now() + window;
        while Instant::now() < until && !news() {
            // A next job that comes from another process is read here too.
            if let Some(read) = inbound {
                read();
            }
            std::thread::yield_now();
        }
        return;
    }
    presence.wait_begin();
    let until = Instant::now() + window;
    while Instant::now() < until {
        if news() {
            break;
        }
        // Where settlements arrive from another process (a sandbox's
        // channel), the polling worker reads them itself: no thread has to
        // be woken to hand them over.
        if let Some(read) = inbound {
            read();
            continue;
        }
        // Never on the host's core: the thread that will answer would wait
        // for this spin to end. No yield either: a thread that yields to
        // one computing on its core (a collector's helper, another process)
        // gets the core back only when that one's time slice ends.
        presence.step_aside();
        for _ in 0..32 {
            std::hint::spin_loop();
        }
    }
    presence.wait_end();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_polls_briefly_after_a_slow_answer_and_long_again_after_a_quick_one() {
        let pace = Pace::default();
        assert_eq!(pace.window(), WORKER_SPIN);
        pace.waited(WORKER_SPIN + Duration::from_micros(1));
        assert_eq!(pace.window(), WORKER_SPIN_AFTER_SLOW);
        pace.waited(WORKER_SPIN);
        assert_eq!(pace.window(), WORKER_SPIN, "an answer within the window");
    }
}
