//! `codeModeHookMetadata`: what gateway hooks learn about an exec call.

use napi::bindgen_prelude::Unknown;
use napi::{Env, Error, Result};
use napi_derive::napi;

use crate::js::{parse_json, to_json_value};

/// Hook metadata of an exec input: `{toolKind: "code_mode_exec",
/// toolInputKind?}`; `javascript` when no language is given, omitted for an
/// unknown one.
#[napi(
    catch_unwind,
    ts_args_type = "input: unknown",
    ts_return_type = "{ toolKind: 'code_mode_exec'; toolInputKind?: 'javascript' | 'typescript' }"
)]
pub fn code_mode_hook_metadata<'env>(env: &'env Env, input: Unknown) -> Result<Unknown<'env>> {
    let input = to_json_value(env, Some(input))?;
    let metadata = code_mode_core::model::hook_metadata(&input);
    let json = serde_json::to_string(&metadata).map_err(|e| Error::from_reason(e.to_string()))?;
    parse_json(env, &json)
}
