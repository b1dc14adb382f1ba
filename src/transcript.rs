//! `nestedCallTranscript`: nested-call events as transcript messages.

use code_mode_core::messages;
use napi::bindgen_prelude::Unknown;
use napi::{Env, Error, Result};
use napi_derive::napi;

use crate::js::{parse_json, to_json_value};

/// Turns `onEvent` events into transcript messages: for each finished nested
/// call (in start order), an assistant message with the tool call and a
/// tool-result message, to be placed after the parent exec's result. With
/// `parentToolCallId`, only that exec/wait call's nested calls are kept.
#[napi(
    catch_unwind,
    ts_args_type = "events: CodeModeEvent[], parentToolCallId?: string",
    ts_return_type = "NestedCallTranscriptMessage[]"
)]
pub fn nested_call_transcript<'env>(
    env: &'env Env,
    events: Unknown,
    parent_tool_call_id: Option<String>,
) -> Result<Unknown<'env>> {
    let events = to_json_value(env, Some(events))?;
    let Some(events) = events.as_array() else {
        return Err(Error::from_reason(messages::EVENTS_NOT_ARRAY));
    };
    let messages = code_mode_core::transcript::project(events, parent_tool_call_id.as_deref());
    let json = serde_json::to_string(&messages).map_err(|e| Error::from_reason(e.to_string()))?;
    parse_json(env, &json)
}
