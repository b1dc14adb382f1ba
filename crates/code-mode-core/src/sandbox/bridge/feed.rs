//! Answers reaching the guest: settled nested calls, yield answers, and the
//! promises of calls answered at once.

use rquickjs::{Ctx, Object, Promise, Value};

use crate::messages;
use crate::sandbox::calls::{CallKey, Settlement};
use crate::sandbox::js::plain_error;
use crate::sandbox::state::VmState;

/// Feeds one settlement into the guest: resolves the call's promise with the
/// parsed value, or rejects it with a plain `Error`. Unknown keys (a call that
/// was already settled) are ignored. Returns whether the key was known.
pub(in crate::sandbox) fn settle(
    ctx: &Ctx<'_>,
    state: &VmState,
    key: CallKey,
    settlement: Settlement,
) -> bool {
    let Some(call) = state.calls.borrow_mut().remove(key) else {
        return false;
    };
    let max = state.calls.borrow().max_bridge_bytes;
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
        Err(message) => (call.reject.restore(ctx), plain_error(ctx, &message)),
    };
    if let (Ok(function), Ok(argument)) = (function, argument) {
        let _ = function.call::<_, ()>((argument,));
    }
    true
}

/// Resolves every pending `yield_control` with `{status: "yielded", reason}`.
pub(in crate::sandbox) fn resume_yields(ctx: &Ctx<'_>, state: &VmState) {
    let yields = std::mem::take(&mut state.calls.borrow_mut().yields);
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
}

/// A promise already resolved with parsed JSON or rejected with a plain Error.
pub(super) fn settled_promise<'js>(
    ctx: &Ctx<'js>,
    answer: Result<String, String>,
) -> rquickjs::Result<Promise<'js>> {
    let (promise, resolve, reject) = ctx.promise()?;
    match answer {
        Ok(json) => {
            let value: Value = ctx.json_parse(json)?;
            resolve.call::<_, ()>((value,))?;
        }
        Err(message) => reject.call::<_, ()>((plain_error(ctx, &message)?,))?,
    }
    Ok(promise)
}
