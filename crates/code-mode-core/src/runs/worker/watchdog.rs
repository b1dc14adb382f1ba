//! The watchdog: answers legs stuck in a builtin that never polls the
//! interrupt handler, abandons their worker and starts a replacement.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use super::{Pool, Slot};
use crate::limits::{STRANDED_GRACE, WATCHDOG_GRACE, WATCHDOG_INTERVAL};
use crate::runs::leg::Leg;
use crate::runs::run::{Job, Run};

/// The watchdog: ends legs stuck in native code past their deadline (or a
/// stop) and replaces their worker. Exits once the workers are shut down and
/// gone.
pub(super) fn watch(pool: &Arc<Pool>) {
    let mut sleep = WATCHDOG_INTERVAL;
    loop {
        {
            // Checked under the queue lock, which `Workers::shutdown` takes to
            // ring the bell: the last ring cannot slip in before the wait.
            let mut queue = pool.queue.lock();
            if queue.closed && *pool.live.lock() == 0 {
                return;
            }
            pool.watchdog_bell.wait_for(&mut queue, sleep);
        }
        let slots: Vec<Arc<Slot>> = pool.slots.read().clone();
        let now = Instant::now();
        sleep = WATCHDOG_INTERVAL;
        for (index, slot) in slots.iter().enumerate() {
            if slot.abandoned.load(Ordering::Acquire) {
                continue;
            }
            let current = slot.current.lock().clone();
            // A leg that already reported is only tearing its VM down.
            let Some(current) = current.filter(|leg| !leg.reported()) else {
                *slot.stopped_since.lock() = None;
                continue;
            };
            // Runs held by a worker that computes another one for long get
            // what they wait for elsewhere; until then, wake when the first
            // of them will need it.
            if let Some(began) = *slot.step_began.lock() {
                if let Some(next) = rescue_stranded(pool, slot, began, now) {
                    sleep = sleep.min(next.saturating_duration_since(now));
                }
            }
            // At the deadline, raise the interrupt flag: a VM inside a loop of
            // long builtin calls stops after the call it is in. Until then,
            // wake at the deadline.
            match current.deadline().checked_duration_since(now) {
                Some(left) if !left.is_zero() => sleep = sleep.min(left),
                _ => current.enforce_deadline(),
            }
            let overdue = now > current.deadline() + WATCHDOG_GRACE;
            let stopped = current.stopped() && {
                let mut since = slot.stopped_since.lock();
                match since.as_ref() {
                    Some((leg, at)) if Arc::ptr_eq(leg, &current) => now > *at + WATCHDOG_GRACE,
                    _ => {
                        *since = Some((current.clone(), now));
                        false
                    }
                }
            };
            if overdue || stopped {
                abandon(pool, index, slot, &current);
            }
        }
    }
}

/// Once `slot`'s worker has spent [`STRANDED_GRACE`] in a step it began at
/// `began`, hands the runs it holds that have something to do (a due timer,
/// a settlement, a passed deadline, a stop) to other workers: an idle one,
/// or a thread added for their session when it computes nothing
/// (`fair.rs`). Returns when the watchdog should look again: the end of the
/// grace, or the first wake-up of the runs left.
fn rescue_stranded(pool: &Arc<Pool>, slot: &Slot, began: Instant, now: Instant) -> Option<Instant> {
    let stranded: Vec<Run> = {
        let mut held = slot.held.lock();
        if held.is_empty() {
            return None;
        }
        if now < began + STRANDED_GRACE {
            return Some(began + STRANDED_GRACE);
        }
        let (ready, waiting): (VecDeque<Run>, VecDeque<Run>) = std::mem::take(&mut *held)
            .into_iter()
            .partition(|run| run.ready(now));
        *held = waiting;
        ready.into()
    };
    for run in stranded {
        match Job::adopt(run) {
            Ok(job) => pool.submit(job),
            Err(run) => pool.store.drop_taken(*run),
        }
    }
    let held = slot.held.lock();
    held.iter()
        .filter_map(Run::wake_at)
        .min()
        .map(|at| at.max(now))
}

/// Answers the stuck leg, hands every other run the worker holds and every
/// job it has not started to the other workers, and starts a replacement.
/// The stuck thread frees its one run when it gets back.
fn abandon(pool: &Arc<Pool>, index: usize, slot: &Slot, stuck: &Arc<Leg>) {
    let (held, replace) = {
        // The worker moves a run between `held` and `current` under the
        // `held` lock: with it taken, the two show every run it holds.
        let mut held = slot.held.lock();
        let still_stuck = slot
            .current
            .lock()
            .as_ref()
            .is_some_and(|current| Arc::ptr_eq(current, stuck));
        if !still_stuck || slot.abandoned.load(Ordering::Acquire) {
            // It got out in the meantime: nothing to do.
            return;
        }
        // Counted before the flag is set (only the watchdog sets it): the
        // thread can report back only after, and whoever gets the answer
        // below already sees it in the diagnostics.
        let replace = pool.abandon_one();
        slot.abandoned.store(true, Ordering::Release);
        (std::mem::take(&mut *held), replace)
    };
    stuck.report_stuck();
    let jobs = std::mem::take(&mut slot.intake.lock().jobs);
    {
        let mut queue = pool.queue.lock();
        queue.idle.retain(|&(i, _)| i != index);
        queue.fair.back(index);
        *pool.live.lock() -= 1;
        pool.exited.notify_all();
        if replace && !queue.closed {
            let _ = pool.spawn_locked(&mut queue, None);
        }
        // A worker fewer computes: queued jobs may start now.
        pool.dispatch(&mut queue);
    }
    for job in jobs {
        pool.submit(job);
    }
    // Runs that await calls were not what got stuck: they carry on elsewhere.
    for run in held {
        match Job::adopt(run) {
            Ok(job) => pool.submit(job),
            Err(run) => pool.store.drop_taken(*run),
        }
    }
}
