//! The run's control block: its deadline and why it must stop, read by the
//! QuickJS interrupt handler and written by the host (timer, abort, close).

use std::sync::atomic::{AtomicI32, AtomicU64, AtomicU8, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::messages;
use crate::result::ErrorCode;

/// Why a VM must stop. The first reason set wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Stop {
    Timeout = 1,
    Memory = 2,
    Output = 3,
    Aborted = 4,
    Closed = 5,
    /// A restart-safe cell tried a side-effecting tool.
    RestartSafeTool = 6,
    /// A restart-safe cell tried a plugin namespace.
    RestartSafeNamespace = 7,
}

impl Stop {
    /// The result code and message of a run ended for this reason.
    pub fn error(self) -> (ErrorCode, &'static str) {
        match self {
            Stop::Timeout => (ErrorCode::Timeout, messages::TIMEOUT),
            Stop::Memory => (ErrorCode::InternalError, messages::MEMORY_LIMIT),
            Stop::Output => (ErrorCode::OutputLimitExceeded, messages::OUTPUT_LIMIT),
            Stop::Aborted => (ErrorCode::Aborted, messages::ABORTED),
            Stop::Closed => (ErrorCode::RuntimeUnavailable, messages::CLOSED),
            Stop::RestartSafeTool => (ErrorCode::InvalidInput, messages::RESTART_SAFE_TOOL),
            Stop::RestartSafeNamespace => {
                (ErrorCode::InvalidInput, messages::RESTART_SAFE_NAMESPACE)
            }
        }
    }

    /// The reason whose code (`reason as u8`) is `value`.
    pub fn from_u8(value: u8) -> Option<Self> {
        Some(match value {
            1 => Stop::Timeout,
            2 => Stop::Memory,
            3 => Stop::Output,
            4 => Stop::Aborted,
            5 => Stop::Closed,
            6 => Stop::RestartSafeTool,
            7 => Stop::RestartSafeNamespace,
            _ => return None,
        })
    }
}

#[derive(Default)]
pub struct Control {
    /// Nanoseconds since [`epoch`]; 0 means no deadline armed.
    deadline: AtomicU64,
    stop: AtomicU8,
    /// Nonzero once a stop is requested. QuickJS reads it at every interrupt
    /// poll (the vendored `JS_SetInterruptFlag`), so a stop reaches the
    /// handler at the next poll, not one poll in 10,000: a loop whose every
    /// step is a long builtin call stops after one step.
    interrupt: AtomicI32,
    /// Called after a stop is requested, so a worker waiting on the run wakes.
    notify: OnceLock<Notify>,
}

type Notify = Box<dyn Fn() + Send + Sync>;

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("deadline", &self.deadline)
            .field("stop", &self.stop)
            .finish_non_exhaustive()
    }
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn nanos(at: Instant) -> u64 {
    at.saturating_duration_since(epoch()).as_nanos().max(1) as u64
}

impl Control {
    pub const fn new() -> Self {
        Self {
            deadline: AtomicU64::new(0),
            stop: AtomicU8::new(0),
            interrupt: AtomicI32::new(0),
            notify: OnceLock::new(),
        }
    }

    pub fn arm(&self, deadline: Instant) {
        self.deadline.store(nanos(deadline), Ordering::Relaxed);
    }

    pub fn deadline(&self) -> Option<Instant> {
        match self.deadline.load(Ordering::Relaxed) {
            0 => None,
            n => Some(epoch() + Duration::from_nanos(n)),
        }
    }

    /// Requests a stop; returns false when another reason was already set.
    pub fn stop(&self, reason: Stop) -> bool {
        let first = self
            .stop
            .compare_exchange(0, reason as u8, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if first {
            self.interrupt.store(1, Ordering::Release);
            if let Some(notify) = self.notify.get() {
                notify();
            }
        }
        first
    }

    /// Sets what a stop wakes (once per control block).
    pub fn on_stop(&self, notify: impl Fn() + Send + Sync + 'static) {
        let _ = self.notify.set(Box::new(notify));
    }

    /// The word QuickJS polls; valid while this control block lives.
    pub fn interrupt_flag(&self) -> *const i32 {
        self.interrupt.as_ptr()
    }

    pub fn stopped(&self) -> Option<Stop> {
        Stop::from_u8(self.stop.load(Ordering::Acquire))
    }

    /// Records a timeout once the deadline has passed; true when the VM must
    /// stop now, for that or any other reason. The interrupt handler and the
    /// worker call it.
    pub fn enforce_deadline(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) != 0 {
            return true;
        }
        let deadline = self.deadline.load(Ordering::Relaxed);
        if deadline != 0 && nanos(Instant::now()) >= deadline {
            self.stop(Stop::Timeout);
            return true;
        }
        false
    }
}
