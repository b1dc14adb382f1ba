//! Dedicated worker threads for guest code: never the Node thread, never a tokio
//! worker. Each has a stack far larger than the JS stack limit, so QuickJS's own
//! stack check always fires first.

use std::collections::VecDeque;
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

/// Virtual size of a worker's stack. Only the touched pages cost memory.
pub const WORKER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// A job receives `true` on a worker, or `false` at once when the pool is
/// closed (so it can still report).
pub type Job = Box<dyn FnOnce(bool) + Send + 'static>;

struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

pub struct Pool {
    queue: Arc<(Mutex<Queue>, Condvar)>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Pool {
    /// Starts `workers` threads; each calls `warm` once before its first job.
    pub fn new(workers: usize, warm: fn()) -> std::io::Result<Self> {
        let queue = Arc::new((
            Mutex::new(Queue {
                jobs: VecDeque::new(),
                closed: false,
            }),
            Condvar::new(),
        ));
        let mut threads = Vec::with_capacity(workers);
        for index in 0..workers.max(1) {
            let queue = queue.clone();
            let handle = std::thread::Builder::new()
                .name(format!("code-mode-worker-{index}"))
                .stack_size(WORKER_STACK_BYTES)
                .spawn(move || {
                    warm();
                    work(&queue)
                })?;
            threads.push(handle);
        }
        Ok(Self {
            queue,
            threads: Mutex::new(threads),
        })
    }

    /// Queues a job, or calls it with `false` when the pool is closed.
    pub fn submit(&self, job: Job) {
        let (lock, ready) = &*self.queue;
        let mut queue = lock.lock();
        if queue.closed {
            drop(queue);
            return job(false);
        }
        queue.jobs.push_back(job);
        ready.notify_one();
    }

    /// Refuses new jobs, lets queued ones finish, and joins the threads.
    pub fn shutdown(&self) {
        {
            let (lock, ready) = &*self.queue;
            lock.lock().closed = true;
            ready.notify_all();
        }
        for handle in std::mem::take(&mut *self.threads.lock()) {
            let _ = handle.join();
        }
    }
}

fn work(queue: &(Mutex<Queue>, Condvar)) {
    let (lock, ready) = queue;
    loop {
        let job = {
            let mut queue = lock.lock();
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    break job;
                }
                if queue.closed {
                    return;
                }
                ready.wait(&mut queue);
            }
        };
        job(true);
    }
}
