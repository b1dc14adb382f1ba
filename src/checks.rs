//! The runtime's checker thread: checks the inputs plugin namespace calls'
//! mappers made on the JavaScript thread against their tools' schemas, and
//! cuts the large ones into pieces, so that the JavaScript thread spends
//! nothing on an input that grows with it (`host/mapped.rs`, `checkInput`).
//!
//! One thread per runtime, started on the first such input, takes the
//! checks in order. Each is bounded as every call's check is
//! (`MAX_CHECK_WORK`, `MAX_ERROR_WORK`: tens of milliseconds at most) and
//! its input by the run's bridge budget. The thread ends after `close()`,
//! or when the runtime is dropped, once the check in progress is done.

use std::sync::mpsc;

use parking_lot::Mutex;

/// A check, with what follows it (handing the result to the JavaScript
/// thread).
pub type Job = Box<dyn FnOnce() + Send>;

enum Queue {
    /// No check yet: no thread either.
    Idle,
    Running(mpsc::Sender<Job>),
    /// Closed: checks are refused.
    Stopped,
}

pub struct Checker {
    queue: Mutex<Queue>,
}

impl Checker {
    pub fn new() -> Self {
        Self {
            queue: Mutex::new(Queue::Idle),
        }
    }

    /// Queues `job` on the thread, starting it first if need be. Gives the
    /// job back when the runtime is closed or the thread cannot start.
    pub fn submit(&self, job: Job) -> Result<(), Job> {
        let mut queue = self.queue.lock();
        if matches!(*queue, Queue::Idle) {
            let (sender, jobs) = mpsc::channel::<Job>();
            let started = std::thread::Builder::new()
                .name("code-mode-check".into())
                .spawn(move || {
                    for job in jobs {
                        job();
                    }
                });
            if started.is_err() {
                return Err(job);
            }
            *queue = Queue::Running(sender);
        }
        match &*queue {
            Queue::Running(sender) => sender.send(job).map_err(|mpsc::SendError(job)| job),
            Queue::Idle | Queue::Stopped => Err(job),
        }
    }

    /// Lets the thread end: it takes no more checks.
    pub fn stop(&self) {
        *self.queue.lock() = Queue::Stopped;
    }
}
