//! The run's timers as data: the table of live timers and when each falls
//! due. The timer globals (`timers.rs`) fill it; the VM fires what is due.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{Array, Function, Persistent};

use crate::limits::TIMER_HOST_BYTES;
use crate::records::CallKind;
use crate::result::PendingCall;

/// `setTimeout` or `setInterval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Timeout,
    Interval,
}

impl Kind {
    pub(super) fn name(self) -> &'static str {
        self.call_kind().as_str()
    }

    /// The kind of call a `waiting` result lists it as.
    pub(super) fn call_kind(self) -> CallKind {
        match self {
            Kind::Timeout => CallKind::SetTimeout,
            Kind::Interval => CallKind::SetInterval,
        }
    }
}

/// One live timer.
pub(super) struct Timer {
    pub(super) kind: Kind,
    pub(super) callback: Persistent<Function<'static>>,
    /// The arguments after the delay, in an array of the VM's heap, and how
    /// many there are.
    pub(super) args: Option<(Persistent<Array<'static>>, u32)>,
    /// `setInterval`'s period.
    pub(super) period: Duration,
    pub(super) due: Instant,
    /// The exec or wait call that set it (shared with the other timers it
    /// set) and its number in the run's sequence of nested calls: its id in
    /// a `waiting` result's `pendingToolCalls` is made of them.
    pub(super) parent: Option<Rc<str>>,
    pub(super) n: u64,
    /// Its place in the queue (`due`, then the order timers were armed);
    /// set when it is armed.
    pub(super) seq: u64,
}

/// A due timer taken out of the table to be called.
pub(super) struct Firing {
    pub(super) callback: Persistent<Function<'static>>,
    pub(super) args: Option<(Persistent<Array<'static>>, u32)>,
}

/// The run's live timers and when each falls due.
#[derive(Default)]
pub struct TimerTable {
    timers: BTreeMap<u64, Timer>,
    /// `(due, seq, id)` of every live timer: the earliest first.
    queue: BTreeSet<(Instant, u64, u64)>,
    /// The last id handed out (ids start at 1 and are never reused).
    last_id: u64,
    next_seq: u64,
}

impl TimerTable {
    pub fn is_empty(&self) -> bool {
        self.timers.is_empty()
    }

    /// When the earliest live timer falls due.
    pub fn next_due(&self) -> Option<Instant> {
        self.queue.first().map(|&(due, _, _)| due)
    }

    /// The sequence number the next armed timer gets: timers armed from now
    /// on come after every timer armed before.
    pub(super) fn mark(&self) -> u64 {
        self.next_seq
    }

    /// How many timers are live.
    pub(super) fn len(&self) -> usize {
        self.timers.len()
    }

    /// Arms a timer; returns its id.
    pub(super) fn arm(&mut self, timer: Timer) -> u64 {
        self.last_id += 1;
        let id = self.last_id;
        self.insert(id, timer);
        id
    }

    fn insert(&mut self, id: u64, mut timer: Timer) {
        timer.seq = self.next_seq;
        self.next_seq += 1;
        self.queue.insert((timer.due, timer.seq, id));
        self.timers.insert(id, timer);
    }

    /// Clears a timer; ids that name no live timer are ignored.
    pub(super) fn clear(&mut self, id: u64) {
        if let Some(timer) = self.timers.remove(&id) {
            self.queue.remove(&(timer.due, timer.seq, id));
        }
    }

    /// Whether a timer armed before `mark` is due by `by`.
    pub(super) fn due_by(&self, by: Instant, mark: u64) -> bool {
        self.queue
            .iter()
            .take_while(|&&(due, _, _)| due <= by)
            .any(|&(_, seq, _)| seq < mark)
    }

    /// Takes the earliest timer due by `now` and armed before `mark`, if any.
    /// A timeout leaves the table; an interval is armed again one period
    /// from now, after every timer already due.
    pub(super) fn take_due(&mut self, now: Instant, mark: u64) -> Option<Firing> {
        let &(due, seq, id) = self
            .queue
            .iter()
            .take_while(|&&(due, _, _)| due <= now)
            .find(|&&(_, seq, _)| seq < mark)?;
        self.queue.remove(&(due, seq, id));
        let mut timer = self.timers.remove(&id)?;
        let firing = Firing {
            callback: timer.callback.clone(),
            args: timer.args.clone(),
        };
        if timer.kind == Kind::Interval {
            timer.due = Instant::now() + timer.period;
            self.insert(id, timer);
        }
        Some(firing)
    }

    /// The live timers as a `waiting` result lists them, earliest first.
    pub fn pending(&self) -> impl Iterator<Item = PendingCall> + '_ {
        self.queue.iter().filter_map(|(_, _, id)| {
            let timer = self.timers.get(id)?;
            Some(PendingCall {
                id: format!(
                    "code_mode:{}:{}:{}",
                    timer.parent.as_deref().unwrap_or("exec"),
                    timer.kind.name(),
                    timer.n
                ),
                method: timer.kind.call_kind(),
                tool_id: None,
            })
        })
    }

    /// Host bytes the table holds (part of a parked run's size): each
    /// timer, and each distinct parent call id once.
    pub fn held_bytes(&self) -> usize {
        let mut parents: Vec<&Rc<str>> = self
            .timers
            .values()
            .filter_map(|t| t.parent.as_ref())
            .collect();
        parents.sort_unstable_by_key(|parent| Rc::as_ptr(parent).cast::<u8>());
        parents.dedup_by(|a, b| Rc::ptr_eq(a, b));
        let parent_bytes: usize = parents.iter().map(|parent| parent.len()).sum();
        self.timers.len() * TIMER_HOST_BYTES + parent_bytes
    }

    /// Drops every handle into the VM (before the runtime is freed).
    pub(super) fn clear_all(&mut self) {
        self.timers.clear();
        self.queue.clear();
    }
}
