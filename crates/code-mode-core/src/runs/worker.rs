//! Dedicated worker threads for guest code: never the Node thread, never a tokio
//! worker. Each has a stack far larger than the JS stack limit, so QuickJS's own
//! stack check always fires first.
//!
//! A worker holds any number of runs: while one awaits nested calls, the worker
//! computes others. New runs go to an idle worker (one not computing), or wait
//! in a shared queue that busy workers take from between steps.

use std::collections::VecDeque;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::run::{refill_spare, ActiveRun, Job};

/// Virtual size of a worker's stack. Only the touched pages cost memory.
/// How long a worker whose runs await nested calls polls before it sleeps: a
/// settlement usually arrives within microseconds, and waking a sleeping
/// thread costs tens of them on small virtual machines.
const SPIN: Duration = Duration::from_micros(150);
pub const WORKER_STACK_BYTES: usize = 256 * 1024 * 1024;

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
}

impl Slot {
    fn wake(&self) {
        self.mailbox.lock().woken = true;
        self.ready.notify_one();
    }
}

struct Shared {
    queue: Mutex<Queue>,
    slots: Vec<Arc<Slot>>,
}

pub struct Workers {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Workers {
    /// Starts `count` threads; each calls `warm` once before its first job.
    pub fn new(count: usize, warm: fn()) -> std::io::Result<Self> {
        let count = count.max(1);
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                idle: Vec::new(),
                closed: false,
            }),
            slots: (0..count)
                .map(|_| {
                    Arc::new(Slot {
                        mailbox: Mutex::new(Mailbox::default()),
                        ready: Condvar::new(),
                    })
                })
                .collect(),
        });
        let mut threads = Vec::with_capacity(count);
        for index in 0..count {
            let shared = shared.clone();
            let handle = std::thread::Builder::new()
                .name(format!("code-mode-worker-{index}"))
                .stack_size(WORKER_STACK_BYTES)
                .spawn(move || {
                    warm();
                    Worker {
                        index,
                        shared,
                        runs: Vec::new(),
                    }
                    .work()
                })?;
            threads.push(handle);
        }
        Ok(Self {
            shared,
            threads: Mutex::new(threads),
        })
    }

    /// Hands a job to an idle worker, or queues it for the first one free.
    /// After shutdown the job is refused at once.
    pub fn submit(&self, job: Job) {
        let mut queue = self.shared.queue.lock();
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
                let slot = &self.shared.slots[index];
                slot.mailbox.lock().jobs.push(job);
                slot.ready.notify_one();
            }
            None => queue.jobs.push_back(job),
        }
    }

    /// Refuses new jobs and joins the threads once every run they hold has
    /// ended (the caller stops the runs first).
    pub fn shutdown(&self) {
        let refused: Vec<Job> = {
            let mut queue = self.shared.queue.lock();
            queue.closed = true;
            queue.jobs.drain(..).collect()
        };
        for job in refused {
            job.refuse();
        }
        for slot in &self.shared.slots {
            slot.wake();
        }
        for handle in std::mem::take(&mut *self.threads.lock()) {
            let _ = handle.join();
        }
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
    fn work(mut self) {
        let slot = self.shared.slots[self.index].clone();
        let waker: super::host::Waker = {
            let slot = Arc::downgrade(&slot);
            Arc::new(move || {
                if let Some(slot) = slot.upgrade() {
                    slot.wake();
                }
            })
        };
        loop {
            let jobs = std::mem::take(&mut slot.mailbox.lock().jobs);
            for job in jobs {
                self.start(job, &waker);
            }
            self.poll_runs();
            // A busy worker takes queued jobs between steps.
            let next = {
                let mut queue = self.shared.queue.lock();
                match queue.jobs.pop_front() {
                    Some(job) => Some(job),
                    None if queue.closed && self.runs.is_empty() => return,
                    None => {
                        let holding = !self.runs.is_empty();
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
            if self.runs.is_empty() {
                refill_spare();
            } else {
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

    fn start(&mut self, job: Job, waker: &super::host::Waker) {
        if let Some(run) = job.start(waker.clone()) {
            self.runs.push(run);
        }
    }

    /// Advances every run that has news or whose deadline passed; finished runs
    /// report and leave.
    fn poll_runs(&mut self) {
        let mut index = 0;
        while index < self.runs.len() {
            if self.runs[index].poll() {
                let run = self.runs.swap_remove(index);
                run.finish();
            } else {
                index += 1;
            }
        }
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.runs.iter().filter_map(ActiveRun::deadline).min()
    }
}
