//! Dedicated worker threads for guest code: never the Node thread, never a tokio
//! worker. Each has a stack far larger than the JS stack limit, so QuickJS's own
//! stack check always fires first.
//!
//! A worker holds any number of runs: while one awaits nested calls, the worker
//! computes others. New runs go to an idle worker (one not computing), or wait
//! in a queue per session that busy workers take from between steps, by the
//! fairness rule of [`fair`]: sessions take turns, and a session that
//! computes nothing while the pool is busy gets a thread added for it. The
//! runs a worker holds live in its [`Slot`], where others can reach them; the
//! worker takes one out only while it drives it.
//!
//! A few QuickJS builtins run long loops that never poll the interrupt handler
//! (a quadratic `indexOf` over megabytes, a sort of millions of elements). A
//! watchdog ends such a leg from outside once it overstays its deadline (or a
//! stop) by [`WATCHDOG_GRACE`](crate::limits::WATCHDOG_GRACE): the call gets its `timeout` (or abort/close)
//! result, the worker is abandoned to finish on its own and exit, and a fresh
//! worker takes its place. Nothing waits on an abandoned thread, `close()`
//! included.

mod contention;
mod cpus;
mod fair;
mod thread;
mod watchdog;

pub use contention::hand_offs_block;
pub use cpus::host_turn;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex, RwLock};

use super::leg::Leg;
use super::run::{refill_spare, stopped_result, Job, Run};
use super::store::Store;
use crate::limits::{MAX_ABANDONED_WORKERS, WORKER_STACK_BYTES};
use crate::sandbox::Stop;
use fair::{Admission, Fair, Session};
use thread::Worker;
use watchdog::watch;

struct Queue {
    /// Jobs no worker was handed yet, and who computes for which session.
    fair: Fair<Job>,
    /// Workers waiting with nothing to compute, most recent last, and whether
    /// they hold runs that await nested calls.
    idle: Vec<(usize, bool)>,
    closed: bool,
}

impl Queue {
    /// Workers computing (or about to): those running and not idle.
    fn busy(&self, live: usize) -> usize {
        live.saturating_sub(self.idle.len())
    }

    /// Takes an idle worker off the list: one holding no runs first, so that
    /// a new run that computes for long does not sit next to runs whose
    /// results are arriving.
    fn take_idle(&mut self) -> Option<usize> {
        let position = self
            .idle
            .iter()
            .rposition(|&(_, holding)| !holding)
            .or_else(|| self.idle.len().checked_sub(1))?;
        Some(self.idle.remove(position).0)
    }
}

/// What a worker is handed: jobs for it alone, and news about its runs.
#[derive(Default)]
struct Intake {
    jobs: Vec<Job>,
    /// Something happened to one of the worker's runs (a settlement, a stop).
    woken: bool,
}

struct Slot {
    intake: Mutex<Intake>,
    ready: Condvar,
    /// The leg the worker is computing now, if any.
    current: Mutex<Option<Arc<Leg>>>,
    /// When the worker began the step it is computing now (a job's start,
    /// or one held run's step); none between steps.
    step_began: Mutex<Option<Instant>>,
    /// The runs that await nested calls on this worker, except the one it is
    /// driving at this moment.
    held: Mutex<VecDeque<Run>>,
    /// The stopped leg the watchdog saw, and when it first saw it stopped.
    stopped_since: Mutex<Option<(Arc<Leg>, Instant)>>,
    /// Set by the watchdog: the thread exits when it gets back.
    abandoned: AtomicBool,
}

impl Slot {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            intake: Mutex::new(Intake::default()),
            ready: Condvar::new(),
            current: Mutex::new(None),
            step_began: Mutex::new(None),
            held: Mutex::new(VecDeque::new()),
            stopped_since: Mutex::new(None),
            abandoned: AtomicBool::new(false),
        })
    }

    fn wake(&self) {
        self.intake.lock().woken = true;
        self.ready.notify_one();
    }
}

#[derive(Default)]
struct Abandoned {
    running: usize,
    owed: usize,
}

impl Abandoned {
    /// Counts a worker just abandoned; true when a replacement may start now.
    fn abandon(&mut self) -> bool {
        ABANDONED_TOTAL.fetch_add(1, Ordering::Relaxed);
        ABANDONED_RUNNING.fetch_add(1, Ordering::Relaxed);
        self.running += 1;
        if self.running > MAX_ABANDONED_WORKERS {
            self.owed += 1;
            return false;
        }
        true
    }

    /// Counts an abandoned worker that got back; true when it owes a
    /// replacement.
    fn returned(&mut self) -> bool {
        ABANDONED_RUNNING.fetch_sub(1, Ordering::Relaxed);
        self.running = self.running.saturating_sub(1);
        let owed = self.owed > 0;
        self.owed -= usize::from(owed);
        owed
    }
}

/// Workers abandoned in this process, and those still finishing their call.
static ABANDONED_TOTAL: AtomicUsize = AtomicUsize::new(0);
static ABANDONED_RUNNING: AtomicUsize = AtomicUsize::new(0);

/// How many workers the watchdog has abandoned in this process, and how many
/// of them are still finishing the builtin call they were stuck in.
pub fn abandoned_workers() -> (usize, usize) {
    (
        ABANDONED_TOTAL.load(Ordering::Relaxed),
        ABANDONED_RUNNING.load(Ordering::Relaxed),
    )
}

/// Everything the workers and the watchdog share.
struct Pool {
    queue: Mutex<Queue>,
    /// One slot per worker ever started; abandoned ones stay, unused.
    slots: RwLock<Vec<Arc<Slot>>>,
    /// Workers running and not abandoned.
    live: Mutex<usize>,
    /// Abandoned workers still finishing a builtin call, and the replacements
    /// owed because that count reached [`MAX_ABANDONED_WORKERS`].
    abandoned: Mutex<Abandoned>,
    exited: Condvar,
    /// Wakes the watchdog early (at shutdown).
    watchdog_bell: Condvar,
    store: Arc<Store>,
}

impl Pool {
    fn submit(self: &Arc<Self>, job: Job) {
        let mut queue = self.queue.lock();
        if queue.closed {
            drop(queue);
            return self.refuse(job);
        }
        let session: Session = job.leg().session().into();
        queue.fair.push(session, job);
        self.dispatch(&mut queue);
    }

    /// Hands the jobs that may start now to idle workers, or to threads added
    /// for sessions that compute nothing while the pool is busy.
    fn dispatch(self: &Arc<Self>, queue: &mut Queue) {
        loop {
            let live = *self.live.lock();
            let busy = queue.busy(live);
            let Some(admission) = queue.fair.peek(busy) else {
                return;
            };
            let worker = queue.take_idle();
            let relief = worker.is_none()
                && admission == Admission::Relief
                && live < queue.fair.max_threads();
            if worker.is_none() && !relief {
                // Workers driving runs take it when they are back.
                return;
            }
            let Some((session, job)) = queue.fair.next(busy) else {
                return;
            };
            match worker {
                Some(index) => {
                    queue.fair.hand(index, session);
                    let slot = self.slot(index);
                    slot.intake.lock().jobs.push(job);
                    slot.ready.notify_one();
                }
                None => {
                    if let Err((_, job)) = self.spawn_locked(queue, Some((session, job))) {
                        // No thread to be had: it waits for a worker.
                        if let Some(job) = job {
                            queue.fair.push_front(job.leg().session().into(), job);
                        }
                        return;
                    }
                }
            }
        }
    }

    /// Answers a job that will never run (the workers are shut down). A run
    /// a wait had taken is dropped by the store first: its calls are aborted
    /// before the answer goes out, as on every other way a run ends.
    fn refuse(&self, job: Job) {
        let (leg, taken) = job.into_refused();
        if let Some(run) = taken {
            self.store.drop_taken(run);
        }
        leg.report(stopped_result(Stop::Closed));
    }

    fn slot(&self, index: usize) -> Arc<Slot> {
        self.slots.read()[index].clone()
    }

    /// Counts a worker just abandoned; true when a replacement may start now.
    /// Past [`MAX_ABANDONED_WORKERS`] the replacement is owed instead, and
    /// starts when an abandoned worker gets back: a cell that keeps workers
    /// busy in builtins never holds more than that many threads beyond the
    /// pool's size.
    fn abandon_one(&self) -> bool {
        self.abandoned.lock().abandon()
    }

    /// An abandoned worker is back and exiting: start a replacement it owed.
    fn abandoned_returned(self: &Arc<Self>) {
        let owed = self.abandoned.lock().returned();
        if owed {
            let mut queue = self.queue.lock();
            if !queue.closed {
                let _ = self.spawn_locked(&mut queue, None);
                self.dispatch(&mut queue);
            }
        }
    }

    /// Starts a worker in a new slot, idle or with a job handed to it.
    fn spawn(self: &Arc<Self>) -> std::io::Result<()> {
        let mut queue = self.queue.lock();
        self.spawn_locked(&mut queue, None)
            .map_err(|(error, _)| error)
    }

    /// [`Pool::spawn`] with the queue at hand. On failure the job comes back.
    fn spawn_locked(
        self: &Arc<Self>,
        queue: &mut Queue,
        job: Option<(Session, Job)>,
    ) -> Result<(), (std::io::Error, Option<Job>)> {
        let slot = Slot::new();
        let index = {
            let mut slots = self.slots.write();
            slots.push(slot.clone());
            slots.len() - 1
        };
        let handed = job.is_some();
        match job {
            Some((session, job)) => {
                queue.fair.hand(index, session);
                slot.intake.lock().jobs.push(job);
            }
            None => queue.idle.push((index, false)),
        }
        *self.live.lock() += 1;
        let pool = self.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("code-mode-worker-{index}"))
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || {
                // A job handed at birth builds its own VM at once.
                if !handed {
                    refill_spare();
                }
                let slot = pool.slot(index);
                let worker = Worker {
                    index,
                    pool: pool.clone(),
                    slot,
                };
                if worker.work() {
                    *pool.live.lock() -= 1;
                    pool.exited.notify_all();
                } else {
                    pool.abandoned_returned();
                }
            });
        if let Err(error) = spawned {
            *self.live.lock() -= 1;
            queue.idle.retain(|&(i, _)| i != index);
            queue.fair.back(index);
            slot.abandoned.store(true, Ordering::Release);
            let job = slot.intake.lock().jobs.pop();
            return Err((error, job));
        }
        Ok(())
    }
}

pub(super) struct Workers {
    pool: Arc<Pool>,
    watchdog: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Workers {
    /// Starts `count` threads, each with a spare VM built before its first
    /// job. Legs that end are landed in `store`.
    pub(super) fn new(count: usize, store: Arc<Store>) -> std::io::Result<Self> {
        let size = count.max(1);
        let pool = Arc::new(Pool {
            queue: Mutex::new(Queue {
                fair: Fair::new(size),
                idle: Vec::new(),
                closed: false,
            }),
            slots: RwLock::new(Vec::new()),
            live: Mutex::new(0),
            abandoned: Mutex::new(Abandoned::default()),
            exited: Condvar::new(),
            watchdog_bell: Condvar::new(),
            store,
        });
        for _ in 0..size {
            pool.spawn()?;
        }
        let watchdog = {
            let pool = pool.clone();
            std::thread::Builder::new()
                .name("code-mode-watchdog".into())
                .spawn(move || watch(&pool))?
        };
        Ok(Self {
            pool,
            watchdog: Mutex::new(Some(watchdog)),
        })
    }

    /// Hands a job to an idle worker, or queues it by the fairness rule.
    /// After shutdown the job is refused at once.
    pub(super) fn submit(&self, job: Job) {
        self.pool.submit(job);
    }

    /// Refuses new jobs and waits until every worker has ended the runs it
    /// holds and exited (the caller stops the runs first). A worker stuck in
    /// native code is abandoned by the watchdog, not waited for.
    pub(super) fn shutdown(&self) {
        let refused: Vec<Job> = {
            let mut queue = self.pool.queue.lock();
            queue.closed = true;
            queue.fair.drain()
        };
        for job in refused {
            self.pool.refuse(job);
        }
        let slots: Vec<Arc<Slot>> = self.pool.slots.read().clone();
        for slot in slots {
            slot.wake();
        }
        let mut live = self.pool.live.lock();
        while *live > 0 {
            self.pool.exited.wait(&mut live);
        }
        drop(live);
        {
            let _queue = self.pool.queue.lock();
            self.pool.watchdog_bell.notify_all();
        }
        if let Some(watchdog) = self.watchdog.lock().take() {
            let _ = watchdog.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Abandoned;
    use crate::limits::MAX_ABANDONED_WORKERS;

    #[test]
    fn abandoned_workers_past_the_cap_owe_their_replacement() {
        let mut abandoned = Abandoned::default();
        for _ in 0..MAX_ABANDONED_WORKERS {
            assert!(abandoned.abandon(), "replaced at once up to the cap");
        }
        assert!(!abandoned.abandon(), "past the cap the replacement is owed");
        assert!(!abandoned.abandon());
        assert_eq!(abandoned.owed, 2);
        assert!(abandoned.returned(), "a worker back starts an owed one");
        assert!(abandoned.returned());
        assert!(!abandoned.returned(), "nothing owed any more");
        assert_eq!(abandoned.running, MAX_ABANDONED_WORKERS - 1);
    }
}
