//! One worker thread's loop: start jobs, drive held runs, sleep until news or
//! the earliest deadline.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use super::{Pool, Slot};
use crate::runs::hand_off::{Idle, WorkerSide};
use crate::runs::host::Waker;
use crate::runs::run::{refill_spare, Disposition, Job, Run, Step};

/// Whether the worker was woken or handed a job.
fn has_news(slot: &Slot) -> bool {
    let intake = slot.intake.lock();
    intake.woken || !intake.jobs.is_empty()
}

/// What a worker's held runs wait for.
struct Held {
    /// Some await nested calls (or a yield), not only timers.
    calls: bool,
    /// The earliest deadline or timer among them.
    wake_at: Option<Instant>,
}

pub(super) struct Worker {
    pub(super) index: usize,
    pub(super) pool: Arc<Pool>,
    pub(super) slot: Arc<Slot>,
}

impl Worker {
    /// Runs jobs until shutdown (true) or until the watchdog abandoned this
    /// worker (false: someone else took its place).
    pub(super) fn work(self) -> bool {
        let waker: Waker = {
            let slot = Arc::downgrade(&self.slot);
            Arc::new(move || {
                if let Some(slot) = slot.upgrade() {
                    slot.wake();
                }
            })
        };
        // Its part in the hand-offs (`runs/hand_off/`): where it runs, for
        // the host's polling, and how long it polls for settlements.
        let hand_off = WorkerSide::default();
        loop {
            // While its runs await nested calls, off the host's core.
            hand_off.keep_off_host(|| self.held().calls);
            if self.slot.abandoned.load(Ordering::Acquire) {
                self.leave();
                return false;
            }
            // One job at a time: jobs not started yet stay in the intake,
            // where the watchdog can hand them on if this worker gets stuck.
            let mut worked = false;
            while let Some(job) = self.next_job() {
                self.start(job, &waker);
                worked = true;
            }
            self.poll_runs();
            if self.slot.abandoned.load(Ordering::Acquire) {
                continue;
            }
            let holding = !self.slot.held.lock().is_empty();
            // Build the next VM before offering to take work, so the next job
            // given to this worker does not wait for it.
            if !holding {
                refill_spare();
            }
            // A busy worker takes queued jobs between steps, by the fairness
            // rule (`fair.rs`); this one no longer counts as busy.
            let next = {
                let mut queue = self.pool.queue.lock();
                if !self.slot.intake.lock().jobs.is_empty() {
                    // Handed a job since the loop's top (it was on the idle
                    // list, as a new worker is): it counts as busy with that.
                    continue;
                }
                queue.fair.back(self.index);
                queue.idle.retain(|&(i, _)| i != self.index);
                let busy = queue.busy(*self.pool.live.lock()).saturating_sub(1);
                match queue.fair.next(busy) {
                    Some((session, job)) => {
                        queue.fair.hand(self.index, session);
                        Some(job.job)
                    }
                    None if queue.closed && !holding => return true,
                    None => {
                        queue.idle.push((self.index, holding));
                        None
                    }
                }
            };
            if let Some(job) = next {
                self.start(job, &waker);
                continue;
            }
            // Polls for news as the hand-off policy says, then sleeps until
            // news or the earliest deadline or timer (at once when one is
            // due).
            let held = self.held();
            let polled_at = Instant::now();
            let idle = Idle {
                calls: held.calls,
                due: held.wake_at.is_some_and(|at| at <= polled_at),
                worked,
            };
            hand_off.before_sleep(&idle, || has_news(&self.slot));
            self.sleep();
            hand_off.after_sleep(&idle, polled_at.elapsed());
            self.pool
                .queue
                .lock()
                .idle
                .retain(|&(i, _)| i != self.index);
        }
    }

    /// What the runs this worker holds wait for.
    fn held(&self) -> Held {
        let held = self.slot.held.lock();
        Held {
            calls: held.iter().any(Run::awaits_calls),
            wake_at: held.iter().filter_map(Run::wake_at).min(),
        }
    }

    /// Sleeps until woken or until the earliest deadline or timer of the
    /// runs held.
    fn sleep(&self) {
        let deadline = self.held().wake_at;
        let mut intake = self.slot.intake.lock();
        if intake.jobs.is_empty() && !intake.woken {
            match deadline {
                Some(deadline) => {
                    self.slot.ready.wait_until(&mut intake, deadline);
                }
                None => self.slot.ready.wait(&mut intake),
            }
        }
        intake.woken = false;
    }

    /// An abandoned worker's exit: jobs handed over meanwhile go to the other
    /// workers; every run here is freed (its call was answered already).
    fn leave(&self) {
        for job in std::mem::take(&mut self.slot.intake.lock().jobs) {
            self.pool.submit(job);
        }
        let held = std::mem::take(&mut *self.slot.held.lock());
        for run in held {
            let result = run.stuck_result();
            self.pool.store.land(Disposition::Report(run, result));
        }
    }

    /// The oldest job handed to this worker, marked as the one it computes.
    fn next_job(&self) -> Option<Job> {
        let mut intake = self.slot.intake.lock();
        if intake.jobs.is_empty() {
            return None;
        }
        let job = intake.jobs.remove(0).job;
        *self.slot.current.lock() = Some(job.leg());
        Some(job)
    }

    fn start(&self, job: Job, waker: &Waker) {
        *self.slot.current.lock() = Some(job.leg());
        *self.slot.step_began.lock() = Some(Instant::now());
        let step = job.start(waker.clone());
        self.keep_or_land(step);
    }

    /// Drives each held run once (those without news return at once); ended
    /// legs land in the store.
    fn poll_runs(&self) {
        let count = self.slot.held.lock().len();
        for _ in 0..count {
            let run = {
                // Out of `held` and into `current` in one step, so the
                // watchdog always sees it in one of them.
                let mut held = self.slot.held.lock();
                let Some(run) = held.pop_front() else {
                    break;
                };
                *self.slot.current.lock() = run.leg();
                *self.slot.step_began.lock() = Some(Instant::now());
                run
            };
            let mut run = run;
            let end = run.poll();
            self.keep_or_land(Step::after(run, end));
        }
    }

    /// Keeps a run that awaits calls, or lands an ended leg in the store;
    /// either way the worker computes nothing after it.
    fn keep_or_land(&self, step: Step) {
        match step {
            Step::Awaiting(run) => {
                *self.slot.step_began.lock() = None;
                let mut held = self.slot.held.lock();
                held.push_back(run);
                *self.slot.current.lock() = None;
            }
            Step::Ended(run, end) => {
                // Landing is a step of its own (parking measures the heap,
                // ending tears the VM down): runs held here that have
                // something to do move on if it runs long.
                *self.slot.step_began.lock() = Some(Instant::now());
                self.pool.store.land(run.finish(end));
                *self.slot.step_began.lock() = None;
                *self.slot.current.lock() = None;
            }
        }
    }
}
