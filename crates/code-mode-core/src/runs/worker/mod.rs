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
//! included. The abandoned thread is charged to the session of the call it
//! got stuck in: a session with
//! [`MAX_ABANDONED_PER_SESSION`](crate::limits::MAX_ABANDONED_PER_SESSION)
//! of them starts nothing until one gets back, and past
//! [`MAX_REPLACED_ABANDONED`] in the process an abandoned worker is replaced
//! only when there is room again ([`Abandoned`]).
//!
//! A job no worker has started when its budget ends (or when it is stopped)
//! is answered by the watchdog, not by a worker: so every exec and wait gets
//! its answer even when every worker of the pool is stuck ([`lapse`]).

mod fair;
mod thread;
mod watchdog;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex, RwLock};

use std::collections::HashMap;

use super::leg::Leg;
use super::run::{refill_spare, stopped_result, Job, Run};
use super::store::Store;
use crate::limits::{MAX_REPLACED_ABANDONED, WORKER_STACK_BYTES};
use crate::messages;
use crate::result::{ErrorCode, RunResult};
use crate::sandbox::Stop;
use fair::{Admission, Fair, Session};
use thread::Worker;
use watchdog::watch;

/// A job, and whether it holds a run (a parked run a wait resumes, or a run
/// moved off an abandoned worker): what the pool must know of it to answer
/// it without starting it ([`lapse`]).
struct Queued {
    job: Job,
    holds_run: bool,
}

impl Queued {
    /// Whether the job is not worth starting any more: its budget is over,
    /// or its call was stopped (aborted, closed).
    fn lapsed(&self, now: Instant) -> bool {
        let leg = self.job.leg();
        leg.stopped() || now >= leg.deadline()
    }

    fn deadline(&self) -> Instant {
        self.job.leg().deadline()
    }
}

struct Queue {
    /// Jobs no worker was handed yet, who computes for which session, and
    /// which sessions abandoned threads are charged to.
    fair: Fair<Queued>,
    /// Workers waiting with nothing to compute, most recent last, and whether
    /// they hold runs that await nested calls.
    idle: Vec<(usize, bool)>,
    /// This engine's abandoned threads still running.
    abandoned: Abandoned,
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
    jobs: Vec<Queued>,
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

/// This engine's abandoned threads still running, by worker index, and
/// whether each has a replacement already. The process-wide count of those
/// that do is kept at most [`MAX_REPLACED_ABANDONED`]; the others owe their
/// replacement, which starts when they get back or when the process has room
/// again, whichever comes first.
#[derive(Default)]
struct Abandoned {
    threads: HashMap<usize, bool>,
}

impl Abandoned {
    /// Counts the thread of `worker`, just abandoned; true when a replacement
    /// may start now. `replaced` counts the process's abandoned threads that
    /// have one.
    fn abandon(&mut self, worker: usize, replaced: &AtomicUsize) -> bool {
        let now = reserve(replaced);
        self.threads.insert(worker, now);
        now
    }

    /// Gives one thread that owes its replacement a place under the cap, if
    /// the process has room: true when its replacement may start now.
    fn promote(&mut self, replaced: &AtomicUsize) -> bool {
        let Some(owed) = self.threads.values_mut().find(|replaced| !**replaced) else {
            return false;
        };
        *owed = reserve(replaced);
        *owed
    }

    /// The thread of `worker` got back; true when it still owed its
    /// replacement (which starts now).
    fn returned(&mut self, worker: usize, replaced: &AtomicUsize) -> bool {
        match self.threads.remove(&worker) {
            Some(true) => {
                replaced.fetch_sub(1, Ordering::AcqRel);
                false
            }
            Some(false) => true,
            None => false,
        }
    }

    /// Abandoned threads whose place in the pool is still empty.
    fn owed(&self) -> usize {
        self.threads.values().filter(|replaced| !**replaced).count()
    }
}

/// Takes one place under [`MAX_REPLACED_ABANDONED`] in `replaced`, if any is
/// left.
fn reserve(replaced: &AtomicUsize) -> bool {
    replaced
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < MAX_REPLACED_ABANDONED).then_some(n + 1)
        })
        .is_ok()
}

/// Workers abandoned in this process, and those still finishing their call.
static ABANDONED_TOTAL: AtomicUsize = AtomicUsize::new(0);
static ABANDONED_RUNNING: AtomicUsize = AtomicUsize::new(0);
/// Abandoned threads of this process still running that have a replacement:
/// at most [`MAX_REPLACED_ABANDONED`].
static ABANDONED_REPLACED: AtomicUsize = AtomicUsize::new(0);
/// Execs and waits the watchdog answered before any worker started them.
static ANSWERED_IN_QUEUE: AtomicUsize = AtomicUsize::new(0);

/// How many execs and waits of this process the watchdog answered while they
/// waited for a worker (their budget ended there, or they were stopped).
pub fn answered_in_queue() -> usize {
    ANSWERED_IN_QUEUE.load(Ordering::Relaxed)
}

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
    exited: Condvar,
    /// Wakes the watchdog early (at shutdown).
    watchdog_bell: Condvar,
    store: Arc<Store>,
}

impl Pool {
    fn submit(self: &Arc<Self>, job: Queued) {
        let mut queue = self.queue.lock();
        if queue.closed {
            drop(queue);
            return self.refuse(job.job);
        }
        let session: Session = job.job.leg().session().into();
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
                            queue.fair.push_front(job.job.leg().session().into(), job);
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

    /// The abandoned thread of worker `index` is back and exiting: it no
    /// longer counts against its session (whose jobs may start again), and
    /// a replacement it still owed starts now.
    fn abandoned_returned(self: &Arc<Self>, index: usize) {
        ABANDONED_RUNNING.fetch_sub(1, Ordering::Relaxed);
        let mut queue = self.queue.lock();
        queue.fair.discharge(index);
        let owed = queue.abandoned.returned(index, &ABANDONED_REPLACED);
        if queue.closed {
            return;
        }
        if owed {
            let _ = self.spawn_locked(&mut queue, None);
        }
        self.dispatch(&mut queue);
    }

    /// Starts the replacements this engine owes while the process has room
    /// under [`MAX_REPLACED_ABANDONED`] (room another engine's thread made
    /// by getting back).
    fn replace_owed(self: &Arc<Self>, queue: &mut Queue) {
        if queue.closed || queue.abandoned.owed() == 0 {
            return;
        }
        let mut started = false;
        while queue.abandoned.promote(&ABANDONED_REPLACED) {
            started |= self.spawn_locked(queue, None).is_ok();
        }
        if started {
            self.dispatch(queue);
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
        job: Option<(Session, Queued)>,
    ) -> Result<(), (std::io::Error, Option<Queued>)> {
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
                    pool.abandoned_returned(index);
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

/// Answers a job no worker started, from the watchdog's thread: its budget
/// ended while it waited (or it was stopped meanwhile), and maybe no worker
/// will be free for long (every one stuck, or its session at its limit). An
/// exec is answered here and now: `aborted` or `runtime_unavailable` after a
/// stop, else `runtime_unavailable` naming why no worker could take it
/// (`why`), else `timeout`, the answer of an exec a worker takes too late. A
/// job that holds a run goes to the store, which does on its own thread what
/// a worker would have done ([`Store::lapse`]): a wait parks its run again
/// under the same id and answers `waiting`; a run moved off an abandoned
/// worker parks as at any deadline; a stopped one is dropped.
fn lapse(pool: &Pool, job: Queued, why: Option<String>) {
    ANSWERED_IN_QUEUE.fetch_add(1, Ordering::Relaxed);
    if job.holds_run {
        return pool.store.lapse(job.job);
    }
    let (leg, _) = job.job.into_refused();
    let result = match why.filter(|_| !leg.stopped()) {
        Some(message) => RunResult::failed(ErrorCode::RuntimeUnavailable, message),
        None => leg.stuck_result(),
    };
    leg.report(result);
}

/// Why a job of `session` found no worker: its session is at its limit of
/// abandoned threads, or the pool is short of workers because the process
/// is at its cap. None when the pool was only busy.
fn no_worker_because(queue: &Queue, session: &str) -> Option<String> {
    if queue.fair.at_limit(session) {
        Some(messages::session_threads_stuck())
    } else if queue.abandoned.owed() > 0 {
        Some(messages::process_threads_stuck())
    } else {
        None
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
                abandoned: Abandoned::default(),
                closed: false,
            }),
            slots: RwLock::new(Vec::new()),
            live: Mutex::new(0),
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

    /// Hands a new run (an exec) to an idle worker, or queues it by the
    /// fairness rule. After shutdown the job is refused at once.
    pub(super) fn submit(&self, job: Job) {
        self.pool.submit(Queued {
            job,
            holds_run: false,
        });
    }

    /// [`Workers::submit`] for a job that holds a run: a wait's.
    pub(super) fn submit_resume(&self, job: Job) {
        self.pool.submit(Queued {
            job,
            holds_run: true,
        });
    }

    /// Refuses new jobs and waits until every worker has ended the runs it
    /// holds and exited (the caller stops the runs first). A worker stuck in
    /// native code is abandoned by the watchdog, not waited for.
    pub(super) fn shutdown(&self) {
        let refused: Vec<Queued> = {
            let mut queue = self.pool.queue.lock();
            queue.closed = true;
            queue.fair.drain()
        };
        for job in refused {
            self.pool.refuse(job.job);
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
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::Abandoned;
    use crate::limits::MAX_REPLACED_ABANDONED;

    #[test]
    fn abandoned_threads_are_replaced_up_to_the_process_cap_and_owed_past_it() {
        // Other engines of the process hold every place but one.
        let replaced = AtomicUsize::new(MAX_REPLACED_ABANDONED - 1);
        let mut abandoned = Abandoned::default();
        assert!(abandoned.abandon(0, &replaced), "the cap's last place");
        assert_eq!(replaced.load(Ordering::Acquire), MAX_REPLACED_ABANDONED);
        assert!(
            !abandoned.abandon(1, &replaced),
            "past the cap the replacement is owed"
        );
        assert_eq!(replaced.load(Ordering::Acquire), MAX_REPLACED_ABANDONED);
        assert_eq!(abandoned.owed(), 1);
        assert!(!abandoned.promote(&replaced), "no room yet");
        assert_eq!(abandoned.owed(), 1);
        // A thread of another engine got back: room for the owed one.
        replaced.fetch_sub(1, Ordering::AcqRel);
        assert!(abandoned.promote(&replaced));
        assert_eq!(abandoned.owed(), 0);
        assert!(!abandoned.promote(&replaced), "nothing owed any more");
        assert_eq!(replaced.load(Ordering::Acquire), MAX_REPLACED_ABANDONED);
        // A replaced thread that gets back gives its place back, and owes
        // nothing.
        assert!(!abandoned.returned(1, &replaced));
        assert_eq!(replaced.load(Ordering::Acquire), MAX_REPLACED_ABANDONED - 1);
        assert!(!abandoned.returned(1, &replaced), "counted once");
        assert_eq!(replaced.load(Ordering::Acquire), MAX_REPLACED_ABANDONED - 1);
    }

    #[test]
    fn an_owed_thread_that_gets_back_starts_its_replacement_and_frees_no_place() {
        let replaced = AtomicUsize::new(MAX_REPLACED_ABANDONED);
        let mut abandoned = Abandoned::default();
        assert!(!abandoned.abandon(4, &replaced));
        assert!(!abandoned.abandon(5, &replaced));
        assert_eq!(abandoned.owed(), 2);
        assert!(
            abandoned.returned(5, &replaced),
            "its replacement starts now"
        );
        assert_eq!(abandoned.owed(), 1);
        assert_eq!(replaced.load(Ordering::Acquire), MAX_REPLACED_ABANDONED);
        assert!(abandoned.returned(4, &replaced));
        assert_eq!(abandoned.owed(), 0);
    }
}
