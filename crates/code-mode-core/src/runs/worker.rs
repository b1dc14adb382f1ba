//! Dedicated worker threads for guest code: never the Node thread, never a tokio
//! worker. Each has a stack far larger than the JS stack limit, so QuickJS's own
//! stack check always fires first.
//!
//! A worker holds any number of runs: while one awaits nested calls, the worker
//! computes others. New runs go to an idle worker (one not computing), or wait
//! in a shared queue that busy workers take from between steps. The runs a
//! worker holds live in its [`Slot`], where others can reach them; the worker
//! takes one out only while it drives it.
//!
//! A few QuickJS builtins run long loops that never poll the interrupt handler
//! (a quadratic `indexOf` over megabytes, a sort of millions of elements). A
//! watchdog ends such a leg from outside once it overstays its deadline (or a
//! stop) by [`WATCHDOG_GRACE`]: the call gets its `timeout` (or abort/close)
//! result, the worker is abandoned to finish on its own and exit, and a fresh
//! worker takes its place. Nothing waits on an abandoned thread, `close()`
//! included.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, RwLock};

use super::host::Waker;
use super::leg::Leg;
use super::run::{refill_spare, Ending, Job, Run, Step};
use super::store::Store;
use crate::limits::{WATCHDOG_GRACE, WORKER_STACK_BYTES};

/// How long a worker whose runs await nested calls polls before it sleeps: a
/// settlement usually arrives within microseconds, and waking a sleeping
/// thread costs tens of them on small virtual machines.
const SPIN: Duration = Duration::from_micros(150);

/// How often the watchdog looks.
const WATCH_EVERY: Duration = Duration::from_millis(100);

struct Queue {
    jobs: VecDeque<Job>,
    /// Workers waiting with nothing to compute, most recent last, and whether
    /// they hold runs that await nested calls.
    idle: Vec<(usize, bool)>,
    closed: bool,
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
    fn submit(&self, job: Job) {
        let mut queue = self.queue.lock();
        if queue.closed {
            drop(queue);
            return self.refuse(job);
        }
        // A worker holding no runs first: a new run that computes for long must
        // not sit next to runs whose results are arriving.
        let pick = queue
            .idle
            .iter()
            .rposition(|&(_, holding)| !holding)
            .or_else(|| queue.idle.len().checked_sub(1));
        match pick.map(|position| queue.idle.remove(position).0) {
            Some(index) => {
                let slot = self.slot(index);
                slot.intake.lock().jobs.push(job);
                slot.ready.notify_one();
            }
            None => queue.jobs.push_back(job),
        }
    }

    /// Answers a job that will never run; a run a wait had taken is dropped.
    fn refuse(&self, job: Job) {
        if let Some(run) = job.refuse() {
            self.store.bury(run);
        }
    }

    fn slot(&self, index: usize) -> Arc<Slot> {
        self.slots.read()[index].clone()
    }

    /// Starts a worker in a new slot.
    fn spawn(self: &Arc<Self>) -> std::io::Result<()> {
        let index = {
            let mut slots = self.slots.write();
            slots.push(Slot::new());
            slots.len() - 1
        };
        *self.live.lock() += 1;
        let pool = self.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("code-mode-worker-{index}"))
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || {
                refill_spare();
                let slot = pool.slot(index);
                let worker = Worker {
                    index,
                    pool: pool.clone(),
                    slot,
                };
                if worker.work() {
                    *pool.live.lock() -= 1;
                    pool.exited.notify_all();
                }
            });
        if let Err(error) = spawned {
            *self.live.lock() -= 1;
            return Err(error);
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
        let pool = Arc::new(Pool {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                idle: Vec::new(),
                closed: false,
            }),
            slots: RwLock::new(Vec::new()),
            live: Mutex::new(0),
            exited: Condvar::new(),
            watchdog_bell: Condvar::new(),
            store,
        });
        for _ in 0..count.max(1) {
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

    /// Hands a job to an idle worker, or queues it for the first one free.
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
            queue.jobs.drain(..).collect()
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
        self.pool.watchdog_bell.notify_all();
        if let Some(watchdog) = self.watchdog.lock().take() {
            let _ = watchdog.join();
        }
    }
}

/// The watchdog: ends legs stuck in native code past their deadline (or a
/// stop) and replaces their worker. Exits once the workers are shut down and
/// gone.
fn watch(pool: &Arc<Pool>) {
    loop {
        {
            let mut queue = pool.queue.lock();
            if !queue.closed {
                pool.watchdog_bell.wait_for(&mut queue, WATCH_EVERY);
            }
            if queue.closed {
                drop(queue);
                if *pool.live.lock() == 0 {
                    return;
                }
            }
        }
        let slots: Vec<Arc<Slot>> = pool.slots.read().clone();
        let now = Instant::now();
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

/// Answers every leg of a stuck worker and starts a replacement. The stuck
/// thread frees its runs when it gets back.
fn abandon(pool: &Arc<Pool>, index: usize, slot: &Slot, current: &Arc<Leg>) {
    if slot.abandoned.swap(true, Ordering::AcqRel) {
        return;
    }
    pool.queue.lock().idle.retain(|&(i, _)| i != index);
    current.report_overdue();
    for leg in slot.held.lock().iter().filter_map(Run::leg) {
        leg.report_overdue();
    }
    *pool.live.lock() -= 1;
    pool.exited.notify_all();
    if !pool.queue.lock().closed {
        let _ = pool.spawn();
    }
}

/// Polls the intake for up to [`SPIN`].
fn poll_briefly(slot: &Slot) {
    let until = Instant::now() + SPIN;
    while Instant::now() < until {
        {
            let intake = slot.intake.lock();
            if intake.woken || !intake.jobs.is_empty() {
                return;
            }
        }
        for _ in 0..50 {
            std::hint::spin_loop();
        }
    }
}

struct Worker {
    index: usize,
    pool: Arc<Pool>,
    slot: Arc<Slot>,
}

impl Worker {
    /// Runs jobs until shutdown (true) or until the watchdog abandoned this
    /// worker (false: someone else took its place).
    fn work(self) -> bool {
        let waker: Waker = {
            let slot = Arc::downgrade(&self.slot);
            Arc::new(move || {
                if let Some(slot) = slot.upgrade() {
                    slot.wake();
                }
            })
        };
        loop {
            if self.slot.abandoned.load(Ordering::Acquire) {
                self.leave();
                return false;
            }
            let jobs = std::mem::take(&mut self.slot.intake.lock().jobs);
            for job in jobs {
                self.start(job, &waker);
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
            // A busy worker takes queued jobs between steps.
            let next = {
                let mut queue = self.pool.queue.lock();
                match queue.jobs.pop_front() {
                    Some(job) => Some(job),
                    None if queue.closed && !holding => return true,
                    None => {
                        queue.idle.retain(|&(i, _)| i != self.index);
                        queue.idle.push((self.index, holding));
                        None
                    }
                }
            };
            if let Some(job) = next {
                self.start(job, &waker);
                continue;
            }
            if holding {
                poll_briefly(&self.slot);
            }
            self.sleep();
            self.pool
                .queue
                .lock()
                .idle
                .retain(|&(i, _)| i != self.index);
        }
    }

    /// Sleeps until woken or until the earliest deadline of the runs held.
    fn sleep(&self) {
        let deadline = self.slot.held.lock().iter().filter_map(Run::deadline).min();
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
            let result = run.overdue_result();
            self.pool.store.land(Ending::Report(run, result));
        }
    }

    fn start(&self, job: Job, waker: &Waker) {
        *self.slot.current.lock() = Some(job.leg());
        let step = job.start(waker.clone());
        self.settle(step);
        *self.slot.current.lock() = None;
    }

    /// Drives each held run once (those without news return at once); ended
    /// legs land in the store.
    fn poll_runs(&self) {
        let count = self.slot.held.lock().len();
        for _ in 0..count {
            let Some(mut run) = self.slot.held.lock().pop_front() else {
                break;
            };
            *self.slot.current.lock() = run.leg();
            let step = match run.poll() {
                Some(end) => Step::Ended(run, end),
                None => Step::Awaiting(run),
            };
            self.settle(step);
            *self.slot.current.lock() = None;
        }
    }

    fn settle(&self, step: Step) {
        match step {
            Step::Awaiting(run) => self.slot.held.lock().push_back(run),
            Step::Ended(run, end) => self.pool.store.land(run.finish(end)),
        }
    }
}
