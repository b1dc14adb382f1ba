//! A plugin namespace call's mapped input, made by the plugin's mapper on
//! the JavaScript thread: `host.js` hands it over as it writes it
//! (`appendInput`, then `checkInput` with the last part), and it is checked
//! against the tool's schema by the run's check: here when it is short and
//! its check cheap, else on the runtime's checker thread (`checks.rs`),
//! whose answer `host.js` gets through `checked`.

use std::sync::{Arc, Weak};

use code_mode_core::limits::INPUT_PIECE_BYTES;
use code_mode_core::messages;
use code_mode_core::runs::host::{CallKey, Reply};
use code_mode_core::runs::pieces;
use napi::bindgen_prelude::{Either, Function};
use napi::Env;
use napi::Result;

use super::batch::{Input, PIECE_SIZE};
use super::{Bridge, Message};

/// The schema check of one agent run's namespace calls' mapped inputs, on
/// the run's toolbox.
pub trait InputCheck: Send + Sync {
    /// Whether checking `bytes` bytes of input for `tool_id` costs little
    /// enough to do on the JavaScript thread (`HOST_CHECK_BYTES`,
    /// `HOST_CHECK_WORK`).
    fn cheap(&self, tool_id: &str, bytes: usize) -> bool;
    /// The message of a refusal, or `None`; `callee` is how the cell named
    /// the function.
    fn check(&self, tool_id: &str, callee: String, input: &str) -> Option<String>;
}

/// `checkInput(key, toolId, callee, text)` for `host.js`, once a namespace
/// call's mapped input is written (`text` is its last part): `false` when
/// it was checked here and passed, the message when it was refused here
/// (only ever for an input `host.js` wrote whole in one turn, which it
/// then parses), `true` when the answer comes later through `checked`
/// (the input then waits for `takeInput`, cut into pieces when long). Only
/// a short input whose check is known to be cheap is checked on this
/// thread; the others go to the checker thread, with the same check.
pub(super) fn input_checker(
    env: &Env,
    bridge: Weak<Bridge>,
) -> Result<Function<'_, (), Either<String, bool>>> {
    env.create_function_from_closure::<(), Either<String, bool>, _>(
        "codeModeCheckInput",
        move |ctx| {
            let key = CallKey(ctx.get::<f64>(0)? as u64);
            let tool_id: String = ctx.get(1)?;
            let callee: String = ctx.get(2)?;
            let last: String = ctx.get(3)?;
            let Some(bridge) = bridge.upgrade() else {
                return Ok(Either::B(false));
            };
            let executor = bridge.namespaced.lock().remove(&key);
            let written = bridge.mapped.lock().remove(&key);
            let max = bridge.replies.lock().get(&key).map(Reply::max_bytes);
            // A call that already ended (aborted, closed) has nothing to check.
            let (Some(executor), Some(max)) = (executor, max) else {
                return Ok(Either::B(false));
            };
            let whole = written.is_none();
            // Written whole in one turn: `last` is the text, not copied.
            let (text, len) = match written {
                None => {
                    let len = last.len();
                    (last, len)
                }
                Some(mut text) => {
                    text.append(&last, max);
                    (text.text, text.len)
                }
            };
            if len > max {
                let refusal = messages::tool_input_too_large(max);
                executor.channel.send(Message::Checked(key, Some(refusal)));
                return Ok(Either::B(true));
            }
            let check = executor.check.get().cloned();
            let here = whole
                && text.len() <= INPUT_PIECE_BYTES
                && check
                    .as_ref()
                    .is_none_or(|check| check.cheap(&tool_id, text.len()));
            if here {
                return Ok(
                    match check.and_then(|check| check.check(&tool_id, callee, &text)) {
                        Some(refusal) => Either::A(refusal),
                        None => Either::B(false),
                    },
                );
            }
            let channel = executor.channel.clone();
            let inputs = Arc::downgrade(&bridge);
            let job = Box::new(move || {
                let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let rejection = check.and_then(|check| check.check(&tool_id, callee, &text));
                    let input = match pieces::split(&text, PIECE_SIZE) {
                        Some(pieces) => Input::Pieces(pieces),
                        None => Input::Whole(text),
                    };
                    (rejection, input)
                }));
                let rejection = match checked {
                    Ok((rejection, input)) => {
                        if let Some(bridge) = inputs.upgrade() {
                            bridge.inputs.lock().insert(key, input);
                        }
                        rejection
                    }
                    Err(_) => Some(messages::INTERNAL.to_owned()),
                };
                channel.send(Message::Checked(key, rejection));
            });
            if bridge.checker.submit(job).is_err() {
                executor
                    .channel
                    .send(Message::Checked(key, Some(messages::CLOSED.to_owned())));
            }
            Ok(Either::B(true))
        },
    )
}

/// `appendInput(key, text)` for `host.js`: a namespace call's mapped input,
/// written over several turns: its text so far, kept up to the run's
/// bridge budget (past it, only its length is counted, and `checkInput`
/// refuses it).
pub(super) fn input_appender(env: &Env, bridge: Weak<Bridge>) -> Result<Function<'_, (), ()>> {
    env.create_function_from_closure::<(), (), _>("codeModeAppendInput", move |ctx| {
        let key: f64 = ctx.get(0)?;
        let text: String = ctx.get(1)?;
        let Some(bridge) = bridge.upgrade() else {
            return Ok(());
        };
        let key = CallKey(key as u64);
        let Some(max) = bridge.replies.lock().get(&key).map(Reply::max_bytes) else {
            return Ok(());
        };
        bridge
            .mapped
            .lock()
            .entry(key)
            .or_default()
            .append(&text, max);
        Ok(())
    })
}
