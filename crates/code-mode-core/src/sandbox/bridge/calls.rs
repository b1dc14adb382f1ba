//! The run's nested calls: the table of queued, in-flight and yielded calls,
//! and how a settlement or a yield answer reaches the guest.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use rquickjs::{Ctx, Exception, Function, Object, Persistent};

use super::BridgeScope;
use crate::catalog::ToolSource;
use crate::messages;
use crate::result::PendingCall;
use crate::runs::host::CallKey;
use crate::sandbox::prelude::Shared;

/// One nested call made by the guest.
pub struct GuestCall {
    pub tool_id: String,
    pub name: String,
    pub source: ToolSource,
    pub source_name: Option<String>,
    /// Taken when the call is dispatched.
    pub input: String,
    pub(in crate::sandbox) input_len: usize,
    pub tool_call_id: String,
    pub parent_tool_call_id: Option<String>,
    pub method: &'static str,
    pub in_flight: bool,
    pub(in crate::sandbox) resolve: Persistent<Function<'static>>,
    pub(in crate::sandbox) reject: Persistent<Function<'static>>,
}

/// A `yield_control(reason)` waiting for the next `wait`.
pub(in crate::sandbox) struct Yield {
    pub(in crate::sandbox) id: String,
    pub(in crate::sandbox) reason: Option<String>,
    pub(in crate::sandbox) resolve: Persistent<Function<'static>>,
}

/// The run's nested calls: queued ones (FIFO) and in-flight ones, and yields.
#[derive(Default)]
pub struct CallTable {
    /// Only search, describe, yield and replay-safe OpenClaw tools (SPEC 8).
    pub(in crate::sandbox) restart_safe: bool,
    pub(in crate::sandbox) yields: Vec<Yield>,
    pub(in crate::sandbox) scope: Option<Arc<BridgeScope>>,
    /// The exec/wait call that new nested calls belong to.
    pub(in crate::sandbox) parent: Option<String>,
    pub(in crate::sandbox) calls: BTreeMap<CallKey, GuestCall>,
    pub(in crate::sandbox) queued: VecDeque<CallKey>,
    pub(in crate::sandbox) in_flight: usize,
    /// Bytes of tool input held for queued and in-flight calls.
    pub(in crate::sandbox) input_bytes: usize,
    /// Byte cap of one tool result crossing the bridge, and of the inputs of
    /// all pending calls together (host memory the guest's meter cannot see).
    pub(in crate::sandbox) max_bridge_bytes: usize,
}

impl CallTable {
    pub fn set_parent(&mut self, parent: Option<String>) {
        self.parent = parent;
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
            id: call.tool_call_id.clone(),
            method: call.method,
            tool_id: Some(call.tool_id.clone()),
        });
        let yields = self.yields.iter().map(|entry| PendingCall {
            id: entry.id.clone(),
            method: "yield",
            tool_id: None,
        });
        calls.chain(yields).collect()
    }

    /// Bytes of tool input held for pending calls (part of a parked run's size).
    pub fn input_bytes(&self) -> usize {
        self.input_bytes
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
        self.calls
            .iter_mut()
            .filter(|(key, _)| started.contains(key))
            .map(|(key, call)| (*key, call))
            .collect()
    }

    /// Keys of in-flight calls.
    pub fn in_flight_keys(&self) -> Vec<CallKey> {
        self.calls
            .iter()
            .filter(|(_, call)| call.in_flight)
            .map(|(key, _)| *key)
            .collect()
    }

    /// Drops every in-flight call (the run is ending) and returns their keys.
    pub fn forget_in_flight(&mut self) -> Vec<CallKey> {
        let keys = self.in_flight_keys();
        for key in &keys {
            self.remove(*key);
        }
        keys
    }

    pub(in crate::sandbox) fn remove(&mut self, key: CallKey) -> Option<GuestCall> {
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
    pub(in crate::sandbox) fn clear(&mut self) {
        self.yields.clear();
        self.input_bytes = 0;
        self.calls.clear();
        self.queued.clear();
        self.in_flight = 0;
    }
}

/// Feeds one settlement into the guest: resolves the call's promise with the
/// parsed value, or rejects it with a plain `Error`. Unknown keys (a call that
/// was already settled) are ignored. Returns whether the key was known.
pub fn settle(
    ctx: &Ctx<'_>,
    shared: &Shared,
    key: CallKey,
    settlement: Result<String, String>,
) -> bool {
    let Some(call) = shared.calls.borrow_mut().remove(key) else {
        return false;
    };
    let max = shared.calls.borrow().max_bridge_bytes;
    let outcome = match settlement {
        Ok(json) if json.len() > max => Err(messages::tool_result_too_large(json.len(), max)),
        Ok(json) => match ctx.json_parse(json) {
            Ok(value) => Ok(value),
            Err(_) => {
                // An out-of-memory here ends the VM (the interrupt handler sees
                // the meter); anything else is a result the guest cannot read.
                let _ = ctx.catch();
                Err(messages::TOOL_RESULT_UNREADABLE.to_owned())
            }
        },
        Err(message) => Err(message),
    };
    let (function, argument) = match outcome {
        Ok(value) => (call.resolve.restore(ctx), Ok(value)),
        Err(message) => (call.reject.restore(ctx), Err(message)),
    };
    let argument = match argument {
        Ok(value) => Ok(value),
        Err(message) => Exception::from_message(ctx.clone(), &message).map(|e| e.into_value()),
    };
    if let (Ok(function), Ok(argument)) = (function, argument) {
        let _ = function.call::<_, ()>((argument,));
    }
    true
}

/// Resolves every pending `yield_control` with `{status: "yielded", reason}`.
/// Returns whether there was any.
pub fn resume_yields(ctx: &Ctx<'_>, shared: &Shared) -> bool {
    let yields = std::mem::take(&mut shared.calls.borrow_mut().yields);
    let resumed = !yields.is_empty();
    for entry in yields {
        let answer = (|| -> rquickjs::Result<()> {
            let value = Object::new(ctx.clone())?;
            value.set("status", "yielded")?;
            if let Some(reason) = entry.reason {
                value.set("reason", reason)?;
            }
            let resolve = entry.resolve.restore(ctx)?;
            resolve.call::<_, ()>((value,))
        })();
        if answer.is_err() {
            let _ = ctx.catch();
        }
    }
    resumed
}
