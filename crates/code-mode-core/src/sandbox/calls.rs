//! The run's nested calls as data: the table of queued, in-flight and yielded
//! calls, and the value types that name a call and say how it ended. The
//! engine (`runs`) reads these; the bridge fills the table and feeds
//! settlements back into the guest.

use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rquickjs::{Function, Persistent};

pub use crate::records::NamespaceTarget;
use crate::records::{CallKind, NestedCall};
use crate::result::PendingCall;

/// Identifies one nested call within the process (unique for its lifetime).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallKey(pub u64);

impl CallKey {
    /// A key never handed out before in this process.
    pub fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// How a nested call ended: JSON text of the value, or an error message.
pub type Settlement = Result<String, String>;

/// A settlement and when it reached the run: the guest gets settlements and
/// due timers in that order.
pub type Arrived = (CallKey, Settlement, Instant);

/// One nested call made by the guest: the call as it travels to the host,
/// its input (taken when the call is dispatched), and the guest's promise.
pub struct GuestCall {
    pub call: NestedCall,
    pub input: String,
    pub(super) input_len: usize,
    pub(super) in_flight: bool,
    pub(super) resolve: Persistent<Function<'static>>,
    pub(super) reject: Persistent<Function<'static>>,
}

/// A `yield_control(reason)` waiting for the next `wait`.
pub(super) struct Yield {
    pub(super) id: String,
    pub(super) reason: Option<String>,
    pub(super) resolve: Persistent<Function<'static>>,
}

/// The run's nested calls: queued ones (FIFO) and in-flight ones, and yields.
#[derive(Default)]
pub struct CallTable {
    /// Only search, describe, yield and replay-safe OpenClaw tools.
    pub(super) restart_safe: bool,
    pub(super) yields: Vec<Yield>,
    /// The exec/wait call that new nested calls (and timers) belong to,
    /// shared by the timers set during it.
    pub(super) parent: Option<Rc<str>>,
    pub(super) calls: BTreeMap<CallKey, GuestCall>,
    pub(super) queued: VecDeque<CallKey>,
    pub(super) in_flight: usize,
    /// Bytes of tool input held for queued and in-flight calls.
    pub(super) input_bytes: usize,
    /// Bytes of tool input queued during the current exec or wait call.
    pub(super) leg_input_bytes: usize,
    /// Byte cap of one tool result crossing the bridge, and of the inputs of
    /// all pending calls together (host memory the guest's meter cannot see).
    pub(super) max_bridge_bytes: usize,
}

impl CallTable {
    /// A new exec or wait call drives the run: new nested calls belong to
    /// `parent`, and the per-call input budget starts afresh.
    pub fn start_leg(&mut self, parent: Option<String>) {
        self.parent = parent.map(Rc::from);
        self.leg_input_bytes = 0;
    }

    /// Whether anything is queued, in flight or yielded.
    pub fn has_host_work(&self) -> bool {
        !self.calls.is_empty() || !self.yields.is_empty()
    }

    /// Whether the guest asked to yield.
    pub fn yielded(&self) -> bool {
        !self.yields.is_empty()
    }

    /// What a `waiting` result lists: calls in the order they were made, then
    /// yields.
    pub fn pending_calls(&self) -> Vec<PendingCall> {
        let calls = self.calls.values().map(|call| PendingCall {
            id: call.call.tool_call_id.clone(),
            method: call.call.kind,
            tool_id: Some(call.call.tool_id.clone()),
        });
        let yields = self.yields.iter().map(|entry| PendingCall {
            id: entry.id.clone(),
            method: CallKind::Yield,
            tool_id: None,
        });
        calls.chain(yields).collect()
    }

    /// Bytes the host holds for this table: inputs of pending calls, and the
    /// ids and reasons of pending yields (part of a parked run's size).
    pub fn held_bytes(&self) -> usize {
        let yields: usize = self
            .yields
            .iter()
            .map(|entry| entry.id.len() + entry.reason.as_ref().map_or(0, String::len))
            .sum();
        self.input_bytes + yields
    }

    /// Calls queued and yields waiting: what [`MAX_QUEUED_CALLS`] bounds.
    ///
    /// [`MAX_QUEUED_CALLS`]: crate::limits::MAX_QUEUED_CALLS
    pub(super) fn waiting(&self) -> usize {
        self.queued.len() + self.yields.len()
    }

    /// Takes queued calls, oldest first, while fewer than `max_in_flight` are in
    /// flight, and marks them in flight.
    pub fn start_queued(&mut self, max_in_flight: usize) -> Vec<(CallKey, &mut GuestCall)> {
        let mut started = Vec::new();
        while self.in_flight < max_in_flight {
            let Some(key) = self.queued.pop_front() else {
                break;
            };
            if let Some(call) = self.calls.get_mut(&key) {
                call.in_flight = true;
                self.in_flight += 1;
                started.push(key);
            }
        }
        // Keys grow as calls are made, so this is already sorted; the
        // lookup below stays O(log n) per call for a batch of any size.
        started.sort_unstable();
        let (Some(&first), Some(&last)) = (started.first(), started.last()) else {
            return Vec::new();
        };
        self.calls
            .range_mut(first..=last)
            .filter(|(key, _)| started.binary_search(key).is_ok())
            .map(|(key, call)| (*key, call))
            .collect()
    }

    /// Drops every in-flight call (the run is ending) and returns their keys.
    pub fn forget_in_flight(&mut self) -> Vec<CallKey> {
        let keys: Vec<CallKey> = self
            .calls
            .iter()
            .filter(|(_, call)| call.in_flight)
            .map(|(key, _)| *key)
            .collect();
        for key in &keys {
            self.remove(*key);
        }
        keys
    }

    pub(super) fn remove(&mut self, key: CallKey) -> Option<GuestCall> {
        let call = self.calls.remove(&key)?;
        self.input_bytes -= call.input_len;
        if call.in_flight {
            self.in_flight -= 1;
        } else {
            self.queued.retain(|queued| *queued != key);
        }
        Some(call)
    }

    /// Drops every handle into the VM (before the runtime is freed).
    pub(super) fn clear(&mut self) {
        self.yields.clear();
        self.input_bytes = 0;
        self.calls.clear();
        self.queued.clear();
        self.in_flight = 0;
    }
}
