//! Dedicated worker threads for guest code: never the Node thread, never a tokio
//! worker. Each has a stack far larger than the JS stack limit, so QuickJS's own
//! stack check always fires first.
//!
//! A worker holds any number of runs: while one awaits nested calls, the worker
//! computes others. New runs go to an idle worker (one not computing), or wait
//! in a shared queue that busy workers take from between steps.
//!
//! A few QuickJS builtins run long loops that never poll the interrupt handler
//! (a quadratic `indexOf` over megabytes, a sort of millions of elements). A
//! watchdog ends such a leg from outside once it overstays its deadline (or a
//! stop) by [`GRACE`]: the call gets its `timeout` (or abort/close) result, the
//! worker is abandoned to finish on its own and exit, and a fresh worker takes
//! its place. Nothing waits on an abandoned thread, `close()` included.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, RwLock};

use super::run::{refill_spare, ActiveRun, Job};
use super::Leg;

/// Virtual size of a worker's stack. Only the touched pages cost memory.
pub const WORKER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// How long a worker whose runs await nested calls polls before it sleeps: a
/// settlement usually arrives within microseconds, and waking a sleeping
/// thread costs tens of them on small virtual machines.
const SPIN: Duration = Duration::from_micros(150);

/// How long a leg may overstay its deadline (or a stop) inside one step before
/// the watchdog ends it from outside.
const GRACE: Duration = Duration::from_millis(500);

/// How often the watchdog looks.
const WATCH_EVERY: Duration = Duration::from_millis(100);

struct Queue {
    jobs: VecDeque<Job>,
    /// Workers waiting with nothing to compute, most recent last, and whether
    /// they hold runs that await nested calls.
    idle: Vec<(usize, bool)>,
    closed: bool,
}

#[derive(Default)]
struct Mailbox {
    jobs: Vec<Job>,
    /// Something happened to one of the worker's runs (a settlement, a stop).
    woken: bool,
}

struct Slot {
    mailbox: Mutex<Mailbox>,
    ready: Condvar,
    /// The leg the worker is computing now, if any.
    current: Mutex<Option<Arc<Leg>>>,
    /// The legs of every run the worker holds.
    legs: Mutex<Vec<Arc<Leg>>>,
    /// The stopped leg the watchdog saw, and when it first saw it stopped.
    stopped_since: Mutex<Option<(Arc<Leg>, Instant)>>,
    /// Set by the watchdog: the thread exits when it gets back.
    abandoned: AtomicBool,
}

impl Slot {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            mailbox: Mutex::new(Mailbox::default()),
            ready: Condvar::new(),
            current: Mutex::new(None),
            legs: Mutex::new(Vec::new()),
            stopped_since: Mutex::new(None),
            abandoned: AtomicBool::new(false),
        })
    }
}

impl Slot {
    fn wake(&self) {
        self.mailbox.lock().woken = true;
        self.ready.notify_one();
    }
}

struct Shared {
    queue: Mutex<Queue>,
    /// One slot per worker ever started; abandoned ones stay, unused.
    slots: RwLock<Vec<Arc<Slot>>>,
    /// Workers running and not abandoned.
    live: Mutex<usize>,
    exited: Condvar,
    warm: fn(),
}

impl Shared {
    fn submit(&self, job: Job) {
        let mut queue = self.queue.lock();
        if queue.closed {
            drop(queue);
            return job.refuse();
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
                slot.mailbox.lock().jobs.push(job);
                slot.ready.notify_one();
            }
            None => queue.jobs.push_back(job),
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
        let shared = self.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("code-mode-worker-{index}"))
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || {
                (shared.warm)();
                let worker = Worker {
                    index,
                    shared: shared.clone(),
                    runs: Vec::new(),
                };
                if worker.work() {
                    *shared.live.lock() -= 1;
                    shared.exited.notify_all();
                }
            });
        if let Err(error) = spawned {
            *self.live.lock() -= 1;
            return Err(error);
        }
        Ok(())
    }
}

pub struct Workers {
    shared: Arc<Shared>,
    watchdog: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Workers {
    /// Starts `count` threads; each calls `warm` once before its first job.
    pub fn new(count: usize, warm: fn()) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                idle: Vec::new(),
                closed: false,
            }),
            slots: RwLock::new(Vec::new()),
            live: Mutex::new(0),
            exited: Condvar::new(),
            warm,
        });
        for _ in 0..count.max(1) {
            shared.spawn()?;
        }
        let watchdog = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("code-mode-watchdog".into())
                .spawn(move || watch(&shared))?
        };
        Ok(Self {
            shared,
            watchdog: Mutex::new(Some(watchdog)),
        })
    }

    /// Hands a job to an idle worker, or queues it for the first one free.
    /// After shutdown the job is refused at once.
    pub fn submit(&self, job: Job) {
        self.shared.submit(job);
    }

    /// Refuses new jobs and waits until every worker has ended the runs it
    /// holds and exited (the caller stops the runs first). A worker stuck in
    /// native code is abandoned by the watchdog, not waited for.
    pub fn shutdown(&self) {
        let refused: Vec<Job> = {
            let mut queue = self.shared.queue.lock();
            queue.closed = true;
            queue.jobs.drain(..).collect()
        };
        for job in refused {
            job.refuse();
        }
        let slots: Vec<Arc<Slot>> = self.shared.slots.read().clone();
        for slot in slots {
            slot.wake();
        }
        let mut live = self.shared.live.lock();
        while *live > 0 {
            self.shared.exited.wait(&mut live);
        }
        drop(live);
        if let Some(watchdog) = self.watchdog.lock().take() {
            let _ = watchdog.join();
        }
    }
}

/// The watchdog: ends legs stuck in native code past their deadline (or a
/// stop) and replaces their worker. Exits once the workers are shut down and
/// gone.
fn watch(shared: &Arc<Shared>) {
    loop {
        std::thread::sleep(WATCH_EVERY);
        if shared.queue.lock().closed && *shared.live.lock() == 0 {
            return;
        }
        let slots: Vec<Arc<Slot>> = shared.slots.read().clone();
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
            let overdue = now > current.deadline() + GRACE;
            let stopped = current.stopped() && {
                let mut since = slot.stopped_since.lock();
                match since.as_ref() {
                    Some((leg, at)) if Arc::ptr_eq(leg, &current) => now > *at + GRACE,
                    _ => {
                        *since = Some((current.clone(), now));
                        false
                    }
                }
            };
            if overdue || stopped {
                abandon(shared, index, slot, &current);
            }
        }
    }
}

/// Ends every leg of a stuck worker and starts a replacement.
fn abandon(shared: &Arc<Shared>, index: usize, slot: &Slot, current: &Arc<Leg>) {
    if slot.abandoned.swap(true, Ordering::AcqRel) {
        return;
    }
    shared.queue.lock().idle.retain(|&(i, _)| i != index);
    current.time_out();
    for leg in slot.legs.lock().iter() {
        leg.time_out();
    }
    *shared.live.lock() -= 1;
    shared.exited.notify_all();
    if !shared.queue.lock().closed {
        let _ = shared.spawn();
    }
}

/// Polls the mailbox for up to [`SPIN`].
fn poll_briefly(slot: &Slot) {
    let until = Instant::now() + SPIN;
    while Instant::now() < until {
        {
            let mailbox = slot.mailbox.lock();
            if mailbox.woken || !mailbox.jobs.is_empty() {
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
    shared: Arc<Shared>,
    runs: Vec<ActiveRun>,
}

impl Worker {
    /// Runs jobs until shutdown (true) or until the watchdog abandoned this
    /// worker (false: someone else took its place).
    fn work(mut self) -> bool {
        let slot = self.shared.slot(self.index);
        let waker: super::host::Waker = {
            let slot = Arc::downgrade(&slot);
            Arc::new(move || {
                if let Some(slot) = slot.upgrade() {
                    slot.wake();
                }
            })
        };
        loop {
            if slot.abandoned.load(Ordering::Acquire) {
                // Every leg here is answered; jobs handed over meanwhile go to
                // the other workers.
                for job in std::mem::take(&mut slot.mailbox.lock().jobs) {
                    self.shared.submit(job);
                }
                for run in std::mem::take(&mut self.runs) {
                    run.abandon();
                }
                return false;
            }
            let jobs = std::mem::take(&mut slot.mailbox.lock().jobs);
            for job in jobs {
                self.start(&slot, job, &waker);
            }
            self.poll_runs(&slot);
            if slot.abandoned.load(Ordering::Acquire) {
                continue;
            }
            *slot.legs.lock() = self.runs.iter().filter_map(ActiveRun::leg).collect();
            // Build the next VM before offering to take work, so the next job
            // given to this worker does not wait for it.
            if self.runs.is_empty() {
                refill_spare();
            }
            // A busy worker takes queued jobs between steps.
            let next = {
                let mut queue = self.shared.queue.lock();
                match queue.jobs.pop_front() {
                    Some(job) => Some(job),
                    None if queue.closed && self.runs.is_empty() => return true,
                    None => {
                        let holding = !self.runs.is_empty();
                        queue.idle.retain(|&(i, _)| i != self.index);
                        queue.idle.push((self.index, holding));
                        None
                    }
                }
            };
            if let Some(job) = next {
                self.start(&slot, job, &waker);
                continue;
            }
            if !self.runs.is_empty() {
                poll_briefly(&slot);
            }
            {
                let mut mailbox = slot.mailbox.lock();
                if mailbox.jobs.is_empty() && !mailbox.woken {
                    match self.next_deadline() {
                        Some(deadline) => {
                            slot.ready.wait_until(&mut mailbox, deadline);
                        }
                        None => slot.ready.wait(&mut mailbox),
                    }
                }
                mailbox.woken = false;
            }
            self.shared
                .queue
                .lock()
                .idle
                .retain(|&(i, _)| i != self.index);
        }
    }

    fn start(&mut self, slot: &Slot, job: Job, waker: &super::host::Waker) {
        *slot.current.lock() = Some(job.leg());
        let started = job.start(waker.clone());
        *slot.current.lock() = None;
        if let Some(run) = started {
            self.runs.push(run);
        }
    }

    /// Advances every run that has news or whose deadline passed; finished runs
    /// report and leave.
    fn poll_runs(&mut self, slot: &Slot) {
        let mut index = 0;
        while index < self.runs.len() {
            *slot.current.lock() = self.runs[index].leg();
            let ended = self.runs[index].poll();
            if ended {
                let run = self.runs.swap_remove(index);
                run.finish();
            } else {
                index += 1;
            }
            *slot.current.lock() = None;
        }
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.runs.iter().filter_map(ActiveRun::deadline).min()
    }
}
