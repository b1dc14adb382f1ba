//! The watchdog: answers legs stuck in a builtin that never polls the
//! interrupt handler, abandons their worker and starts a replacement; and
//! answers jobs no worker started by the end of their budget.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use super::{
    lapse, no_worker_because, Pool, Queued, Slot, ABANDONED_REPLACED, ABANDONED_RUNNING,
    ABANDONED_TOTAL,
};
use crate::limits::{STRANDED_GRACE, WATCHDOG_GRACE, WATCHDOG_INTERVAL};
use crate::runs::leg::Leg;
use crate::runs::run::{Job, Run};

/// The watchdog: ends legs stuck in native code past their deadline (or a
/// stop) and replaces their worker; answers the jobs that waited for a
/// worker past their deadline (or were stopped meanwhile). Exits once the
/// workers are shut down and gone.
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
        if let Some(next) = answer_lapsed(pool, &slots, now) {
            sleep = sleep.min(next.saturating_duration_since(now));
        }
        for (index, slot) in slots.iter().enumerate() {
            if slot.abandoned.load(Ordering::Acquire) {
                continue;
            }
            // Runs held by a worker that computes another one for long (or
            // tears its VM down) get what they wait for elsewhere; until
            // then, wake when the first of them will need it.
            if let Some(began) = *slot.step_began.lock() {
                if let Some(next) = rescue_stranded(pool, slot, began, now) {
                    sleep = sleep.min(next.saturating_duration_since(now));
                }
            }
            let current = slot.current.lock().clone();
            // A leg that already reported is only tearing its VM down.
            let Some(current) = current.filter(|leg| !leg.reported()) else {
                *slot.stopped_since.lock() = None;
                continue;
            };
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

/// Answers the jobs no worker has started whose budget is over or whose
/// call was stopped: those in the queue, and those handed to a worker that
/// has not begun them (it is computing something else). Starts the
/// replacements the engine owes when the process has room again. Returns the
/// earliest deadline among the jobs left, when the watchdog should look again.
fn answer_lapsed(pool: &Arc<Pool>, slots: &[Arc<Slot>], now: Instant) -> Option<Instant> {
    let (lapsed, next) = {
        let mut queue = pool.queue.lock();
        pool.replace_owed(&mut queue);
        let mut lapsed: Vec<Queued> = queue.fair.take_lapsed(|job| job.lapsed(now));
        for slot in slots {
            let mut intake = slot.intake.lock();
            if intake.jobs.iter().any(|job| job.lapsed(now)) {
                let (gone, kept) = std::mem::take(&mut intake.jobs)
                    .into_iter()
                    .partition(|job| job.lapsed(now));
                intake.jobs = kept;
                lapsed.extend::<Vec<Queued>>(gone);
            }
        }
        let lapsed: Vec<(Queued, Option<String>)> = lapsed
            .into_iter()
            .map(|job| {
                let why = no_worker_because(&queue, job.job.leg().session());
                (job, why)
            })
            .collect();
        let next = queue.fair.earliest(Queued::deadline);
        (lapsed, next)
    };
    for (job, why) in lapsed {
        lapse(pool, job, why);
    }
    let handed = slots
        .iter()
        .filter_map(|slot| slot.intake.lock().jobs.iter().map(Queued::deadline).min())
        .min();
    next.into_iter().chain(handed).min()
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
        adopt(pool, run);
    }
    let held = slot.held.lock();
    held.iter()
        .filter_map(Run::wake_at)
        .min()
        .map(|at| at.max(now))
}

/// Hands a run that awaits calls to another worker; one with no call
/// waiting on it is dropped.
fn adopt(pool: &Arc<Pool>, run: Run) {
    match Job::adopt(run) {
        Ok(job) => pool.submit(Queued {
            job,
            holds_run: true,
        }),
        Err(run) => pool.store.drop_taken(*run),
    }
}

/// Answers the stuck leg, charges its thread to the leg's session, hands
/// every other run the worker holds and every job it has not started to the
/// other workers, and starts a replacement (unless the process is at its
/// cap: then it is owed). The stuck thread frees its one run when it gets
/// back.
fn abandon(pool: &Arc<Pool>, index: usize, slot: &Slot, stuck: &Arc<Leg>) {
    let held = {
        // The queue first, then the slot: the charge, the count and the flag
        // change together, before the thread can see the flag and report
        // back (`Pool::abandoned_returned`).
        let mut queue = pool.queue.lock();
        let held = {
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
            // Counted before the flag is set (only the watchdog sets it):
            // whoever gets the answer below already sees it in the
            // diagnostics.
            ABANDONED_TOTAL.fetch_add(1, Ordering::Relaxed);
            ABANDONED_RUNNING.fetch_add(1, Ordering::Relaxed);
            queue.fair.charge(index, stuck.session().into());
            slot.abandoned.store(true, Ordering::Release);
            std::mem::take(&mut *held)
        };
        let replace = queue.abandoned.abandon(index, &ABANDONED_REPLACED);
        queue.idle.retain(|&(i, _)| i != index);
        queue.fair.back(index);
        *pool.live.lock() -= 1;
        pool.exited.notify_all();
        if replace && !queue.closed {
            let _ = pool.spawn_locked(&mut queue, None);
        }
        // A worker fewer computes: queued jobs may start now.
        pool.dispatch(&mut queue);
        held
    };
    stuck.report_stuck();
    let jobs = std::mem::take(&mut slot.intake.lock().jobs);
    for job in jobs {
        pool.submit(job);
    }
    // Runs that await calls were not what got stuck: they carry on elsewhere.
    for run in held {
        adopt(pool, run);
    }
}
