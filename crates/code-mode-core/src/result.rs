//! Result shapes of exec and wait and their JSON rendering (`docs/errors.md`).

use crate::records::CallKind;
use serde::Serialize;
use serde_json::value::RawValue;

/// Stable error codes, printed as the contract's snake_case strings.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidInput,
    RuntimeUnavailable,
    Timeout,
    OutputLimitExceeded,
    SnapshotLimitExceeded,
    InternalError,
    Aborted,
}

/// One output item. JSON values are kept as the JSON text they were converted to.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Output {
    Text { text: String },
    Json { value: Box<RawValue> },
}

impl Output {
    /// Bytes this item adds to the run's output array as UTF-8 JSON (the comma included).
    pub fn json_len(&self) -> usize {
        let body = match self {
            Output::Text { text } => r#"{"type":"text","text":}"#.len() + json_string_len(text),
            Output::Json { value } => r#"{"type":"json","value":}"#.len() + value.get().len(),
        };
        body + 1
    }
}

/// Length of `s` as a JSON string literal, quotes included.
pub fn json_string_len(s: &str) -> usize {
    let mut len = 2;
    for b in s.bytes() {
        len += match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        };
    }
    len
}

/// Counters of one agent run, cumulative over its cells.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Telemetry {
    pub catalog_size: u64,
    pub sources: SourceCounts,
    pub search_count: u64,
    pub describe_count: u64,
    pub call_count: u64,
    /// Nested calls whose input their tool's schema refused.
    pub invalid_input_count: u64,
    /// Model-visible tool names: exec, wait and the direct-only tools.
    pub visible_tools: Vec<String>,
    /// The number of the agent run's last nested call or timer (not shown:
    /// a sandbox's client keeps it, so that the agent run's copy made again
    /// in a new sandbox numbers on from it).
    #[serde(skip)]
    pub nested_seq: u64,
}

pub use crate::records::SourceCounts;

/// A pending nested call listed in a `waiting` result.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingCall {
    pub id: String,
    pub method: CallKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_id: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WaitReason {
    #[serde(rename = "pending_tools")]
    PendingTools,
    Yield,
}

/// What one exec or wait call returns: how it ended, plus what every result
/// carries. Only a [`Leg`](crate::runs) fills in `replay_safe` and `telemetry`;
/// code that builds a result leaves them at their defaults.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    #[serde(flatten)]
    pub status: Status,
    /// Items produced since the previous result of the same run.
    pub output: Vec<Output>,
    pub replay_safe: bool,
    pub telemetry: Telemetry,
}

/// How an exec or wait call ended (`status` and its own fields).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Status {
    Completed {
        value: Box<RawValue>,
    },
    #[serde(rename_all = "camelCase")]
    Waiting {
        run_id: String,
        reason: WaitReason,
        pending_tool_calls: Vec<PendingCall>,
        snapshot_bytes: u64,
    },
    Failed {
        error: String,
        code: ErrorCode,
    },
}

impl RunResult {
    /// A result with no output yet.
    pub fn new(status: Status) -> Self {
        Self {
            status,
            output: Vec::new(),
            replay_safe: false,
            telemetry: Telemetry::default(),
        }
    }

    /// A failure with no output (input errors, closed engine, ...).
    pub fn failed(code: ErrorCode, error: impl Into<String>) -> Self {
        Self::new(Status::Failed {
            error: error.into(),
            code,
        })
    }

    /// The same result carrying `output` as its output items.
    pub fn with_output(mut self, output: Vec<Output>) -> Self {
        self.output = output;
        self
    }

    /// A failure that keeps this result's output (a `waiting` result whose run
    /// could not be parked).
    pub fn into_failure(self, code: ErrorCode, error: impl Into<String>) -> Self {
        RunResult::failed(code, error).with_output(self.output)
    }

    /// The JSON text handed to JavaScript.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a result always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_len_matches_serialization() {
        let items = [
            Output::Text {
                text: "héllo \"x\"\n\u{1}".into(),
            },
            Output::Json {
                value: RawValue::from_string("{\"a\":[1,2]}".into()).unwrap(),
            },
        ];
        for item in items {
            assert_eq!(
                serde_json::to_string(&item).unwrap().len() + 1,
                item.json_len()
            );
        }
    }

    #[test]
    fn every_status_renders_its_fields_first_then_the_common_ones() {
        let completed = RunResult::new(Status::Completed {
            value: RawValue::from_string("[1]".into()).unwrap(),
        });
        assert_eq!(
            completed.to_json(),
            r#"{"status":"completed","value":[1],"output":[],"replaySafe":false,"telemetry":{"catalogSize":0,"sources":{"openclaw":0,"mcp":0,"client":0},"searchCount":0,"describeCount":0,"callCount":0,"invalidInputCount":0,"visibleTools":[]}}"#
        );
        let waiting = RunResult::new(Status::Waiting {
            run_id: "cm_1".into(),
            reason: WaitReason::PendingTools,
            pending_tool_calls: vec![],
            snapshot_bytes: 7,
        });
        assert!(waiting.to_json().starts_with(
            r#"{"status":"waiting","runId":"cm_1","reason":"pending_tools","pendingToolCalls":[],"snapshotBytes":7,"output":[]"#
        ));
    }

    #[test]
    fn failed_renders_contract_shape() {
        let json = RunResult::failed(ErrorCode::InvalidInput, "x").to_json();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["status"], "failed");
        assert_eq!(value["code"], "invalid_input");
        assert_eq!(value["replaySafe"], false);
        assert_eq!(value["telemetry"]["sources"]["openclaw"], 0);
    }
}
