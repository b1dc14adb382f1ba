//! What the engine asks of its host (the gateway, through the binding): start
//! nested calls, abort them. Settled results come back through a [`Reply`]
//! into the run's [`Arrivals`], from any thread.

use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;

use crate::limits::MAX_ERROR_PART_BYTES;
use crate::messages;
pub use crate::records::{CallKind, NestedCall, ToolSource};
use crate::sandbox::Arrived;
pub use crate::sandbox::{CallKey, NamespaceTarget, Settlement};

/// A nested call the host must start: the gateway's `executeTool(call)`.
/// The call is the guest's [`NestedCall`] as the sandbox made it (a copy:
/// the run's table keeps its own for `pendingToolCalls` and messages); the
/// input travels beside it, moved, because hosts handle it apart (the
/// binding cuts a large one into pieces).
#[derive(Debug)]
pub struct Dispatch {
    pub call: NestedCall,
    /// The guest's input as JSON-safe JSON text (for a namespace call, the
    /// JSON array of its arguments).
    pub input: String,
    /// Where the settled result goes.
    pub reply: Reply,
}

impl Dispatch {
    /// The call's key in its run.
    pub fn key(&self) -> CallKey {
        self.reply.key
    }
}

/// The host side of the bridge. Called from worker threads; implementations
/// hand the work to the JavaScript thread and return at once.
pub trait Host: Send + Sync {
    /// Starts these calls, in order. Each must eventually settle through its
    /// `reply` (or be aborted).
    fn dispatch(&self, calls: Vec<Dispatch>);
    /// Fires the abort signals of these in-flight calls.
    fn abort(&self, keys: Vec<CallKey>);
}

/// Where settlements go: a run's [`Arrivals`] in this process, or a
/// forwarder to a run in another process (a sandbox's, whose own
/// `Arrivals` applies the bounds when they arrive there).
pub trait Inbox: Send + Sync {
    /// The most bytes of results the run holds.
    fn max_bytes(&self) -> usize;
    /// Adds settlements of this inbox's calls, in order.
    fn push(&self, settled: Vec<(CallKey, Settlement)>);
}

/// Delivers one call's settlement to its run, wherever the run is.
#[derive(Clone)]
pub struct Reply {
    pub(super) inbox: Arc<dyn Inbox>,
    pub(super) key: CallKey,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl Reply {
    /// A reply for the call `key` of a run whose settlements go to `inbox`.
    pub fn to(inbox: Arc<dyn Inbox>, key: CallKey) -> Self {
        Self { inbox, key }
    }

    /// The most bytes of results the run holds: a longer result fails with
    /// `tool_result_too_large` when it arrives.
    pub fn max_bytes(&self) -> usize {
        self.inbox.max_bytes()
    }

    pub fn settle(&self, settlement: Settlement) {
        self.inbox.push(vec![(self.key, settlement)]);
    }

    /// Delivers many settlements, waking each run's worker once: those of
    /// one run in a row go in together.
    pub fn settle_all(settled: Vec<(Reply, Settlement)>) {
        let mut settled = settled.into_iter().peekable();
        while let Some((reply, settlement)) = settled.next() {
            let mut group = vec![(reply.key, settlement)];
            while let Some((next, _)) = settled.peek() {
                if !same(&next.inbox, &reply.inbox) {
                    break;
                }
                if let Some((next, settlement)) = settled.next() {
                    group.push((next.key, settlement));
                }
            }
            reply.inbox.push(group);
        }
    }
}

/// Whether two inboxes are one (by address: their vtables may differ
/// between codegen units).
fn same(a: &Arc<dyn Inbox>, b: &Arc<dyn Inbox>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
}

impl Inbox for Arrivals {
    fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    fn push(&self, settled: Vec<(CallKey, Settlement)>) {
        self.add(settled);
    }
}

/// Wakes whoever drives a run now (a worker), if anyone does.
pub(super) type Waker = Arc<dyn Fn() + Send + Sync>;

/// Settlements that arrived for one run, plus a waker for the worker that
/// drives the run now. A parked run has no waker; its settlements wait here.
///
/// Results waiting here are host memory the guest's meter cannot see, so
/// together they stay within the run's bridge budget: a result that does not
/// fit is replaced, as it arrives, by the error the guest gets for it.
pub(super) struct Arrivals {
    state: Mutex<ArrivalsState>,
    max_bytes: usize,
}

#[derive(Default)]
struct ArrivalsState {
    /// In the order they arrived, each with when it did.
    settled: Vec<Arrived>,
    /// Bytes of the results in `settled`.
    bytes: usize,
    waker: Option<Waker>,
}

impl std::fmt::Debug for Arrivals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arrivals").finish_non_exhaustive()
    }
}

impl Arrivals {
    /// Arrivals whose waiting results share `max_bytes`.
    pub(super) fn new(max_bytes: usize) -> Self {
        Self {
            state: Mutex::new(ArrivalsState::default()),
            max_bytes,
        }
    }

    /// Adds settlements and wakes the run's driver once.
    fn add(&self, settled: impl IntoIterator<Item = (CallKey, Settlement)>) {
        let arrived = Instant::now();
        let waker = {
            let mut state = self.state.lock();
            for (key, settlement) in settled {
                let settlement = match settlement {
                    Ok(json) if state.bytes + json.len() > self.max_bytes => {
                        Err(messages::tool_result_too_large(json.len(), self.max_bytes))
                    }
                    Err(message) => Err(messages::cut(message, MAX_ERROR_PART_BYTES)),
                    ok => ok,
                };
                state.bytes += settlement.as_ref().map_or(0, String::len);
                state.settled.push((key, settlement, arrived));
            }
            state.waker.clone()
        };
        if let Some(wake) = waker {
            wake();
        }
    }

    /// Wakes the driver without news (an abort or a stop).
    pub(super) fn poke(&self) {
        let waker = self.state.lock().waker.clone();
        if let Some(wake) = waker {
            wake();
        }
    }

    pub(super) fn take(&self) -> Vec<Arrived> {
        let mut state = self.state.lock();
        state.bytes = 0;
        std::mem::take(&mut state.settled)
    }

    /// Whether a settlement is waiting here.
    pub(super) fn has_news(&self) -> bool {
        !self.state.lock().settled.is_empty()
    }

    /// Bytes of the results waiting here (part of a parked run's size).
    pub(super) fn held_bytes(&self) -> usize {
        self.state.lock().bytes
    }

    pub(super) fn set_waker(&self, waker: Option<Waker>) {
        self.state.lock().waker = waker;
    }
}
