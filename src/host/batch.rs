//! The texts that cross between the workers and the JavaScript thread: a
//! batch of nested calls with their inputs (inline, whole, or cut into
//! pieces on the worker), exec and wait results (cut the same way), and
//! the texts `host.js` writes over several turns (results, and namespace
//! calls' mapped inputs), kept up to the run's bridge budget.

use code_mode_core::limits::{
    INLINE_BATCH_BYTES, INLINE_INPUT_BYTES, INPUT_PIECE_BYTES, INPUT_PIECE_MEMBERS,
};
use code_mode_core::messages;
use code_mode_core::records::CallKind;
use code_mode_core::runs::host::{CallKey, Dispatch, Reply};
use code_mode_core::runs::pieces;
use napi::bindgen_prelude::FunctionRef;
use napi::{sys, Env, JsValue, Result};

use crate::js::{self, call_function};

/// Nested calls on their way to the JavaScript thread: the JSON text
/// `host.js` reads (metadata and inline inputs), and for each call where it
/// settles and the input `host.js` takes later, if it is not inline.
pub struct Batch {
    pub(super) json: String,
    pub(super) calls: Vec<Kept>,
}

/// A call of a batch, as the bridge keeps it until it settles.
pub(super) struct Kept {
    pub(super) key: CallKey,
    pub(super) reply: Reply,
    pub(super) input: Option<Input>,
    /// A plugin namespace call: its input is mapped on the JavaScript thread
    /// and checked then (`checkInput`).
    pub(super) namespace: bool,
}

/// A call's input waiting for `host.js`: JSON text, or the pieces of a large
/// one.
pub(super) enum Input {
    Whole(String),
    Pieces(Vec<String>),
}

impl Batch {
    /// Writes the batch on the worker thread: the metadata of each call as
    /// `host.js` reads it, a short input inline as its `input` member (while
    /// the batch's inline bytes last), the others kept apart, a large one cut
    /// into pieces.
    pub(super) fn new(calls: Vec<Dispatch>) -> Self {
        let mut json = String::from("[");
        let mut kept = Vec::with_capacity(calls.len());
        let mut inline_bytes = 0;
        for (i, mut call) in calls.into_iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            // The call as the sandbox made it (`NestedCall`, which host.js
            // reads as records.d.ts declares it). Plain strings, options and
            // a number: writing them cannot fail.
            let meta = serde_json::to_string(&call.call).unwrap_or_else(|_| "{}".to_owned());
            let input = std::mem::take(&mut call.input);
            let inline = input.len() <= INLINE_INPUT_BYTES
                && inline_bytes + input.len() <= INLINE_BATCH_BYTES;
            let input = if inline {
                // The input is the sandbox's own JSON text (always valid), so
                // it is spliced in as the object's last member.
                inline_bytes += input.len();
                json.push_str(&meta[..meta.len() - 1]);
                json.push_str(",\"input\":");
                json.push_str(&input);
                json.push('}');
                None
            } else {
                json.push_str(&meta);
                Some(match pieces::split(&input, PIECE_SIZE) {
                    Some(pieces) => Input::Pieces(pieces),
                    None => Input::Whole(input),
                })
            };
            kept.push(Kept {
                key: call.key(),
                namespace: call.call.kind == CallKind::Namespace,
                reply: call.reply,
                input,
            });
        }
        json.push(']');
        Self { json, calls: kept }
    }
}

/// The JSON text of an exec or wait result, cut into pieces on the thread
/// that finished it when it is longer than [`INPUT_PIECE_BYTES`] (a final
/// value or output of up to `maxOutputBytes`, 10 MiB at most): `host.js`
/// turns the pieces into the result object over as many event-loop turns as
/// it needs, as it does a large tool input, instead of one `JSON.parse`
/// that held the event loop for hundreds of milliseconds.
pub enum ResultText {
    Whole(String),
    Pieces(Vec<String>),
}

impl ResultText {
    /// Cuts `json` when it is long; on the thread that calls it (a worker's,
    /// for the results that can be long).
    pub fn new(json: String) -> Self {
        match pieces::split(&json, PIECE_SIZE) {
            Some(pieces) => Self::Pieces(pieces),
            None => Self::Whole(json),
        }
    }
}

/// How inputs and results are cut.
pub(super) const PIECE_SIZE: pieces::PieceSize = pieces::PieceSize {
    bytes: INPUT_PIECE_BYTES,
    members: INPUT_PIECE_MEMBERS,
};

/// Turns results into JavaScript values through `host.js`'s `deliver`,
/// which lives as long as the runtime (an exec in progress holds it), the
/// channel closed or not.
pub struct Results {
    pub(super) deliver: FunctionRef<(), ()>,
}

impl Results {
    /// The result as a value: parsed at once when whole, else a promise of
    /// it that `host.js` resolves once its pieces are assembled.
    pub fn value(&self, env: &Env, text: ResultText) -> Result<sys::napi_value> {
        match text {
            ResultText::Whole(json) => Ok(js::parse_json(env, &json)?.raw()),
            ResultText::Pieces(pieces) => {
                let deliver = self.deliver.borrow_back(env)?.raw();
                let mut array = env.create_array(pieces.len() as u32)?;
                for (i, piece) in pieces.iter().enumerate() {
                    array.set(i as u32, env.create_string(piece)?)?;
                }
                call_function(env, deliver, &[array.raw()])
                    .map_err(|thrown| napi::Error::from_reason(js::error_message(env, thrown)))
            }
        }
    }
}

/// The first part of a result's JSON text, kept while the rest is written:
/// at most the run's bridge budget of it; past that the result fails, and
/// only its length is counted, for the message.
#[derive(Default)]
pub(super) struct Partial {
    pub(super) text: String,
    pub(super) len: usize,
}

impl Partial {
    pub(super) fn append(&mut self, text: &str, max: usize) {
        self.len += text.len();
        if self.len <= max {
            self.text.push_str(text);
        } else {
            // The result fails whatever follows: its text is not kept.
            self.text = String::new();
        }
    }

    /// The whole text, with `rest`; past `max` bytes, the failure the run
    /// gives a result that does not fit its bridge budget.
    pub(super) fn end(mut self, rest: &str, max: usize) -> std::result::Result<String, String> {
        self.append(rest, max);
        if self.len > max {
            return Err(messages::tool_result_too_large(self.len, max));
        }
        Ok(self.text)
    }
}
