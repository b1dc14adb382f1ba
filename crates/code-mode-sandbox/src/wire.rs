//! The frames the addon and a sandbox process exchange on their socket.
//!
//! A frame is its length (`u32`, little-endian, what follows it), a tag
//! byte and its fields: integers as `u64` little-endian, texts as a `u32`
//! length and UTF-8 bytes, lists as a `u32` count and their items. The
//! texts that are JSON elsewhere (a nested call, a configuration, the
//! tools' columns) travel as the same JSON text.
//!
//! Either side may be lied to: the addon reads what a sandbox taken over by
//! a cell writes. So decoding checks every length against what is left of
//! the frame, every tag and code against its list, and never panics; a
//! frame longer than [`MAX_FRAME_BYTES`] is refused before it is read.

use std::sync::Arc;

use code_mode_core::config::{CodeModeConfig, Language};
pub use code_mode_core::limits::MAX_FRAME_BYTES;
use code_mode_core::records::CallKind;
use code_mode_core::result::{
    ErrorCode, Output, PendingCall, RunResult, SourceCounts, Status, Telemetry, WaitReason,
};
use code_mode_core::runs::host::Settlement;
use code_mode_core::runs::{RunOwner, Stop};
use serde_json::value::RawValue;

/// Everything an agent run's copy in a sandbox is made of: what the
/// binding's builder thread made its own from.
#[derive(Clone, Debug)]
pub struct Define {
    /// The addon's number for this agent run, unique in the addon process.
    pub twin: u64,
    pub config: CodeModeConfig,
    pub owner: RunOwner,
    pub visible_tools: Vec<String>,
    /// Whether the run has a catalog (an inactive run's is empty).
    pub active: bool,
    /// The visible plugin namespaces with their places, as JSON
    /// (`Vec<(usize, Registration)>`).
    pub namespaces: String,
    /// The tools' columns, as `prepare.js` wrote them.
    pub tools: Arc<Vec<String>>,
    /// The namespace scopes, once the first exec has built them (JSON).
    pub scopes: Option<String>,
    /// The agent run's counters so far, so that a copy made again after a
    /// restart goes on from them.
    pub counters: Counters,
}

/// An agent run's counters: search, describe, call, invalid input, and
/// the last nested call's number (of its tool call ids).
pub type Counters = [u64; 5];

/// From the addon to a sandbox.
#[derive(Debug)]
pub enum ToSandbox {
    Define(Box<Define>),
    /// The addon will send nothing more for this agent run; runs that use
    /// it keep it until they end.
    Forget {
        twin: u64,
    },
    /// The run's namespace scopes, built (JSON, as `namespaces.js` wrote).
    Scopes {
        twin: u64,
        json: String,
    },
    Exec(Exec),
    Wait(Wait),
    /// Stop a leg (abort, close).
    Stop {
        leg: u64,
        reason: Stop,
    },
    /// Nested calls settled, by key.
    Settle(Vec<(u64, Settlement)>),
}

/// An exec call.
#[derive(Debug)]
pub struct Exec {
    /// The addon's number for this call, unique in the addon process.
    pub leg: u64,
    pub twin: u64,
    /// How long ago the call was made, when the frame was written: the
    /// budget runs from then.
    pub age_micros: u64,
    pub code: String,
    pub language: Language,
    pub restart_safe: bool,
    pub parent: Option<String>,
}

/// A wait call.
#[derive(Debug)]
pub struct Wait {
    pub leg: u64,
    pub twin: u64,
    pub age_micros: u64,
    pub run_id: String,
    pub parent: Option<String>,
}

/// From a sandbox to the addon.
#[derive(Debug)]
pub enum FromSandbox {
    /// A leg's result, and how many runs the sandbox holds parked now.
    Result {
        leg: u64,
        parked: u64,
        result: RunResult,
    },
    /// Nested calls to start, of one run of the agent run `twin`.
    Dispatch {
        twin: u64,
        /// The run's bridge budget ([`Reply::max_bytes`]).
        ///
        /// [`Reply::max_bytes`]: code_mode_core::runs::host::Reply::max_bytes
        max_bytes: u64,
        /// Each call's `NestedCall` as JSON, and its input.
        calls: Vec<(String, String)>,
    },
    /// Fire these in-flight calls' abort signals.
    Abort(Vec<u64>),
    /// The sandbox's copy of this agent run is gone.
    Released { twin: u64 },
    /// How many runs the sandbox holds parked, after one expired.
    Parked { count: u64 },
    /// The sandbox's own diagnostics, when they changed (sent before the
    /// result that changed them).
    Stats(Stats),
}

/// What `codeModeDiagnostics()` counts inside one sandbox process.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub abandoned_workers: u64,
    pub abandoned_workers_running: u64,
    pub retired_vms: u64,
    pub answered_in_queue: u64,
    pub typescript_initialized: bool,
    /// Schema problems recorded so far (a count), and the newest of them.
    pub problems_recorded: u64,
    pub problems: Vec<String>,
}

/// A frame that could not be read.
#[derive(Debug, PartialEq, Eq)]
pub struct WireError(pub String);

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn bad(what: &str) -> WireError {
    WireError(format!("unreadable frame: {what}"))
}

type Read<T> = Result<T, WireError>;

/// A frame being written: its length is filled in by [`Writer::finish`].
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn new(tag: u8) -> Self {
        let mut bytes = Vec::with_capacity(64);
        bytes.extend_from_slice(&[0; 4]);
        bytes.push(tag);
        Self { bytes }
    }

    fn u8(&mut self, value: u8) {
        self.bytes.push(value);
    }

    fn u64(&mut self, value: u64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    fn len(&mut self, len: usize) {
        // Every length fits: frames are shorter than MAX_FRAME_BYTES.
        self.bytes
            .extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes());
    }

    fn str(&mut self, text: &str) {
        self.len(text.len());
        self.bytes.extend_from_slice(text.as_bytes());
    }

    fn opt(&mut self, text: Option<&str>) {
        match text {
            None => self.u8(0),
            Some(text) => {
                self.u8(1);
                self.str(text);
            }
        }
    }

    fn strs<S: AsRef<str>>(&mut self, texts: &[S]) {
        self.len(texts.len());
        for text in texts {
            self.str(text.as_ref());
        }
    }

    /// The frame's bytes, its length in front.
    fn finish(mut self) -> Vec<u8> {
        let len = u32::try_from(self.bytes.len() - 4).unwrap_or(u32::MAX);
        self.bytes[..4].copy_from_slice(&len.to_le_bytes());
        self.bytes
    }
}

/// Reads the fields of one frame (without its length).
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize, what: &str) -> Read<&'a [u8]> {
        if count > self.bytes.len() {
            return Err(bad(what));
        }
        let (taken, rest) = self.bytes.split_at(count);
        self.bytes = rest;
        Ok(taken)
    }

    fn u8(&mut self, what: &str) -> Read<u8> {
        Ok(self.take(1, what)?[0])
    }

    fn bool(&mut self, what: &str) -> Read<bool> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bad(what)),
        }
    }

    fn u64(&mut self, what: &str) -> Read<u64> {
        let bytes = self.take(8, what)?;
        let mut word = [0; 8];
        word.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(word))
    }

    fn len(&mut self, what: &str) -> Read<usize> {
        let bytes = self.take(4, what)?;
        let mut word = [0; 4];
        word.copy_from_slice(bytes);
        Ok(u32::from_le_bytes(word) as usize)
    }

    fn str(&mut self, what: &str) -> Read<String> {
        let len = self.len(what)?;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| bad(what))
    }

    fn opt(&mut self, what: &str) -> Read<Option<String>> {
        match self.bool(what)? {
            false => Ok(None),
            true => self.str(what).map(Some),
        }
    }

    /// A list's count, checked against the bytes left (each item takes at
    /// least `min_item` bytes), so that a lying count allocates nothing.
    fn count(&mut self, min_item: usize, what: &str) -> Read<usize> {
        let count = self.len(what)?;
        if count.saturating_mul(min_item) > self.bytes.len() {
            return Err(bad(what));
        }
        Ok(count)
    }

    fn strs(&mut self, what: &str) -> Read<Vec<String>> {
        let count = self.count(4, what)?;
        (0..count).map(|_| self.str(what)).collect()
    }

    fn end(&self) -> Read<()> {
        match self.bytes.is_empty() {
            true => Ok(()),
            false => Err(bad("bytes after the last field")),
        }
    }
}

/// The body length a frame header announces, checked against
/// [`MAX_FRAME_BYTES`].
pub fn frame_len(header: [u8; 4]) -> Read<usize> {
    let len = u32::from_le_bytes(header) as usize;
    match len {
        0 => Err(bad("an empty frame")),
        len if len > MAX_FRAME_BYTES => Err(bad("a frame longer than the longest allowed")),
        len => Ok(len),
    }
}

/// Reads the next frame's body from `from`: `None` when the stream ended
/// between frames. A length past [`MAX_FRAME_BYTES`], or a stream that ends
/// inside a frame, is an error; the body grows as its bytes come, so a
/// length that lies costs nothing until bytes back it.
pub fn read_frame(from: &mut impl std::io::Read) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::{Error, ErrorKind, Read as _};
    let mut header = [0; 4];
    let mut got = 0;
    while got < 4 {
        match from.read(&mut header[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    let len = frame_len(header).map_err(|error| Error::new(ErrorKind::InvalidData, error.0))?;
    let mut body = Vec::with_capacity(len.min(64 * 1024));
    from.take(len as u64).read_to_end(&mut body)?;
    if body.len() != len {
        return Err(ErrorKind::UnexpectedEof.into());
    }
    Ok(Some(body))
}

const DEFINE: u8 = 1;
const FORGET: u8 = 2;
const SCOPES: u8 = 3;
const EXEC: u8 = 4;
const WAIT: u8 = 5;
const STOP: u8 = 6;
const SETTLE: u8 = 7;

const RESULT: u8 = 101;
const DISPATCH: u8 = 102;
const ABORT: u8 = 103;
const RELEASED: u8 = 104;
const PARKED: u8 = 105;
const STATS: u8 = 106;

impl ToSandbox {
    /// The frame, its length in front.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Self::Define(define) => {
                let mut w = Writer::new(DEFINE);
                w.u64(define.twin);
                let config = serde_json::to_string(&define.config).unwrap_or_default();
                w.str(&config);
                let owner = &define.owner;
                w.str(&owner.agent_run_id);
                w.opt(owner.session_id.as_deref());
                w.opt(owner.session_key.as_deref());
                w.opt(owner.agent_id.as_deref());
                w.strs(&define.visible_tools);
                w.u8(u8::from(define.active));
                w.str(&define.namespaces);
                w.strs(&define.tools);
                w.opt(define.scopes.as_deref());
                for counter in define.counters {
                    w.u64(counter);
                }
                w.finish()
            }
            Self::Forget { twin } => {
                let mut w = Writer::new(FORGET);
                w.u64(*twin);
                w.finish()
            }
            Self::Scopes { twin, json } => {
                let mut w = Writer::new(SCOPES);
                w.u64(*twin);
                w.str(json);
                w.finish()
            }
            Self::Exec(exec) => {
                let mut w = Writer::new(EXEC);
                w.u64(exec.leg);
                w.u64(exec.twin);
                w.u64(exec.age_micros);
                w.str(&exec.code);
                w.u8(match exec.language {
                    Language::Javascript => 0,
                    Language::Typescript => 1,
                });
                w.u8(u8::from(exec.restart_safe));
                w.opt(exec.parent.as_deref());
                w.finish()
            }
            Self::Wait(wait) => {
                let mut w = Writer::new(WAIT);
                w.u64(wait.leg);
                w.u64(wait.twin);
                w.u64(wait.age_micros);
                w.str(&wait.run_id);
                w.opt(wait.parent.as_deref());
                w.finish()
            }
            Self::Stop { leg, reason } => {
                let mut w = Writer::new(STOP);
                w.u64(*leg);
                w.u8(*reason as u8);
                w.finish()
            }
            Self::Settle(settled) => settle_frame(settled.iter().map(|(k, s)| (*k, s))),
        }
    }

    /// Reads a frame body (what follows its length).
    pub fn decode(body: &[u8]) -> Read<Self> {
        let mut r = Reader { bytes: body };
        let frame = match r.u8("tag")? {
            DEFINE => {
                let twin = r.u64("twin")?;
                let config: serde_json::Value =
                    serde_json::from_str(&r.str("config")?).map_err(|_| bad("config"))?;
                let config = CodeModeConfig::resolve(&config, &serde_json::Value::Null);
                let owner = RunOwner {
                    agent_run_id: r.str("owner")?,
                    session_id: r.opt("owner")?,
                    session_key: r.opt("owner")?,
                    agent_id: r.opt("owner")?,
                };
                let visible_tools = r.strs("visible tools")?;
                let active = r.bool("active")?;
                let namespaces = r.str("namespaces")?;
                let tools = Arc::new(r.strs("tools")?);
                let scopes = r.opt("scopes")?;
                let counters = read_counters(&mut r)?;
                Self::Define(Box::new(Define {
                    twin,
                    config,
                    owner,
                    visible_tools,
                    active,
                    namespaces,
                    tools,
                    scopes,
                    counters,
                }))
            }
            FORGET => Self::Forget {
                twin: r.u64("twin")?,
            },
            SCOPES => Self::Scopes {
                twin: r.u64("twin")?,
                json: r.str("scopes")?,
            },
            EXEC => Self::Exec(Exec {
                leg: r.u64("leg")?,
                twin: r.u64("twin")?,
                age_micros: r.u64("age")?,
                code: r.str("code")?,
                language: match r.u8("language")? {
                    0 => Language::Javascript,
                    1 => Language::Typescript,
                    _ => return Err(bad("language")),
                },
                restart_safe: r.bool("restartSafe")?,
                parent: r.opt("parent")?,
            }),
            WAIT => Self::Wait(Wait {
                leg: r.u64("leg")?,
                twin: r.u64("twin")?,
                age_micros: r.u64("age")?,
                run_id: r.str("run id")?,
                parent: r.opt("parent")?,
            }),
            STOP => Self::Stop {
                leg: r.u64("leg")?,
                reason: Stop::from_u8(r.u8("reason")?).ok_or_else(|| bad("stop reason"))?,
            },
            SETTLE => Self::Settle(settlements(&mut r)?),
            _ => return Err(bad("tag")),
        };
        r.end()?;
        Ok(frame)
    }
}

/// A `Settle` frame from borrowed settlements (the addon writes them as
/// `host.js` hands them over, without copying them first).
pub fn settle_frame<'a>(settled: impl ExactSizeIterator<Item = (u64, &'a Settlement)>) -> Vec<u8> {
    let mut w = Writer::new(SETTLE);
    w.len(settled.len());
    for (key, settlement) in settled {
        w.u64(key);
        match settlement {
            Ok(json) => {
                w.u8(1);
                w.str(json);
            }
            Err(message) => {
                w.u8(0);
                w.str(message);
            }
        }
    }
    w.finish()
}

fn settlements(r: &mut Reader) -> Read<Vec<(u64, Settlement)>> {
    let count = r.count(13, "settlements")?;
    (0..count)
        .map(|_| {
            let key = r.u64("key")?;
            let ok = r.bool("settlement")?;
            let text = r.str("settlement")?;
            Ok((key, if ok { Ok(text) } else { Err(text) }))
        })
        .collect()
}

fn read_counters(r: &mut Reader) -> Read<Counters> {
    let mut counters = Counters::default();
    for counter in &mut counters {
        *counter = r.u64("counters")?;
    }
    Ok(counters)
}

const ERROR_CODES: [ErrorCode; 7] = [
    ErrorCode::InvalidInput,
    ErrorCode::RuntimeUnavailable,
    ErrorCode::Timeout,
    ErrorCode::OutputLimitExceeded,
    ErrorCode::SnapshotLimitExceeded,
    ErrorCode::InternalError,
    ErrorCode::Aborted,
];

const CALL_KINDS: [CallKind; 6] = [
    CallKind::Call,
    CallKind::Mcp,
    CallKind::Namespace,
    CallKind::Yield,
    CallKind::SetTimeout,
    CallKind::SetInterval,
];

fn code_of<T: PartialEq + Copy>(list: &[T], value: T) -> u8 {
    list.iter().position(|&item| item == value).unwrap_or(0) as u8
}

fn of_code<T: Copy>(list: &[T], code: u8, what: &str) -> Read<T> {
    list.get(usize::from(code))
        .copied()
        .ok_or_else(|| bad(what))
}

impl FromSandbox {
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Self::Result {
                leg,
                parked,
                result,
            } => {
                let mut w = Writer::new(RESULT);
                w.u64(*leg);
                w.u64(*parked);
                write_result(&mut w, result);
                w.finish()
            }
            Self::Dispatch {
                twin,
                max_bytes,
                calls,
            } => {
                let mut w = Writer::new(DISPATCH);
                w.u64(*twin);
                w.u64(*max_bytes);
                w.len(calls.len());
                for (call, input) in calls {
                    w.str(call);
                    w.str(input);
                }
                w.finish()
            }
            Self::Abort(keys) => {
                let mut w = Writer::new(ABORT);
                w.len(keys.len());
                for key in keys {
                    w.u64(*key);
                }
                w.finish()
            }
            Self::Released { twin } => {
                let mut w = Writer::new(RELEASED);
                w.u64(*twin);
                w.finish()
            }
            Self::Parked { count } => {
                let mut w = Writer::new(PARKED);
                w.u64(*count);
                w.finish()
            }
            Self::Stats(stats) => {
                let mut w = Writer::new(STATS);
                w.u64(stats.abandoned_workers);
                w.u64(stats.abandoned_workers_running);
                w.u64(stats.retired_vms);
                w.u64(stats.answered_in_queue);
                w.u8(u8::from(stats.typescript_initialized));
                w.u64(stats.problems_recorded);
                w.strs(&stats.problems);
                w.finish()
            }
        }
    }

    pub fn decode(body: &[u8]) -> Read<Self> {
        let mut r = Reader { bytes: body };
        let frame = match r.u8("tag")? {
            RESULT => Self::Result {
                leg: r.u64("leg")?,
                parked: r.u64("parked")?,
                result: read_result(&mut r)?,
            },
            DISPATCH => {
                let twin = r.u64("twin")?;
                let max_bytes = r.u64("max bytes")?;
                let count = r.count(8, "calls")?;
                let calls = (0..count)
                    .map(|_| Ok((r.str("call")?, r.str("input")?)))
                    .collect::<Read<_>>()?;
                Self::Dispatch {
                    twin,
                    max_bytes,
                    calls,
                }
            }
            ABORT => {
                let count = r.count(8, "keys")?;
                Self::Abort((0..count).map(|_| r.u64("key")).collect::<Read<_>>()?)
            }
            RELEASED => Self::Released {
                twin: r.u64("twin")?,
            },
            PARKED => Self::Parked {
                count: r.u64("parked")?,
            },
            STATS => Self::Stats(Stats {
                abandoned_workers: r.u64("stats")?,
                abandoned_workers_running: r.u64("stats")?,
                retired_vms: r.u64("stats")?,
                answered_in_queue: r.u64("stats")?,
                typescript_initialized: r.bool("stats")?,
                problems_recorded: r.u64("stats")?,
                problems: r.strs("stats")?,
            }),
            _ => return Err(bad("tag")),
        };
        r.end()?;
        Ok(frame)
    }
}

fn write_result(w: &mut Writer, result: &RunResult) {
    match &result.status {
        Status::Completed { value } => {
            w.u8(0);
            w.str(value.get());
        }
        Status::Waiting {
            run_id,
            reason,
            pending_tool_calls,
            snapshot_bytes,
        } => {
            w.u8(1);
            w.str(run_id);
            w.u8(match reason {
                WaitReason::PendingTools => 0,
                WaitReason::Yield => 1,
            });
            w.len(pending_tool_calls.len());
            for call in pending_tool_calls {
                w.str(&call.id);
                w.u8(code_of(&CALL_KINDS, call.method));
                w.opt(call.tool_id.as_deref());
            }
            w.u64(*snapshot_bytes);
        }
        Status::Failed { error, code } => {
            w.u8(2);
            w.str(error);
            w.u8(code_of(&ERROR_CODES, *code));
        }
    }
    w.len(result.output.len());
    for item in &result.output {
        match item {
            Output::Text { text } => {
                w.u8(0);
                w.str(text);
            }
            Output::Json { value } => {
                w.u8(1);
                w.str(value.get());
            }
        }
    }
    w.u8(u8::from(result.replay_safe));
    let t = &result.telemetry;
    for count in [
        t.catalog_size,
        t.sources.openclaw,
        t.sources.mcp,
        t.sources.client,
        t.search_count,
        t.describe_count,
        t.call_count,
        t.invalid_input_count,
        t.nested_seq,
    ] {
        w.u64(count);
    }
    w.strs(&t.visible_tools);
}

/// JSON text that must be one JSON value (a sandbox could write any text).
fn raw(text: String, what: &str) -> Read<Box<RawValue>> {
    RawValue::from_string(text).map_err(|_| bad(what))
}

fn read_result(r: &mut Reader) -> Read<RunResult> {
    let status = match r.u8("status")? {
        0 => Status::Completed {
            value: raw(r.str("value")?, "value")?,
        },
        1 => {
            let run_id = r.str("run id")?;
            let reason = match r.u8("reason")? {
                0 => WaitReason::PendingTools,
                1 => WaitReason::Yield,
                _ => return Err(bad("reason")),
            };
            let count = r.count(6, "pending calls")?;
            let pending_tool_calls = (0..count)
                .map(|_| {
                    Ok(PendingCall {
                        id: r.str("pending call")?,
                        method: of_code(&CALL_KINDS, r.u8("method")?, "method")?,
                        tool_id: r.opt("tool id")?,
                    })
                })
                .collect::<Read<_>>()?;
            Status::Waiting {
                run_id,
                reason,
                pending_tool_calls,
                snapshot_bytes: r.u64("snapshot bytes")?,
            }
        }
        2 => Status::Failed {
            error: r.str("error")?,
            code: of_code(&ERROR_CODES, r.u8("code")?, "code")?,
        },
        _ => return Err(bad("status")),
    };
    let count = r.count(5, "output")?;
    let output = (0..count)
        .map(|_| match r.u8("output")? {
            0 => Ok(Output::Text {
                text: r.str("output")?,
            }),
            1 => Ok(Output::Json {
                value: raw(r.str("output")?, "output")?,
            }),
            _ => Err(bad("output")),
        })
        .collect::<Read<_>>()?;
    let replay_safe = r.bool("replaySafe")?;
    let mut counts = [0; 9];
    for count in &mut counts {
        *count = r.u64("telemetry")?;
    }
    let [catalog_size, openclaw, mcp, client, search_count, describe_count, call_count, invalid_input_count, nested_seq] =
        counts;
    Ok(RunResult {
        status,
        output,
        replay_safe,
        telemetry: Telemetry {
            catalog_size,
            sources: SourceCounts {
                openclaw,
                mcp,
                client,
            },
            search_count,
            describe_count,
            call_count,
            invalid_input_count,
            nested_seq,
            visible_tools: r.strs("visible tools")?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(frame: &[u8]) -> &[u8] {
        let len = frame_len(frame[..4].try_into().unwrap()).unwrap();
        assert_eq!(len, frame.len() - 4);
        &frame[4..]
    }

    #[test]
    fn a_definition_goes_and_comes_back_whole() {
        let config = CodeModeConfig::resolve(
            &serde_json::json!({"enabled": true, "timeoutMs": 2500, "languages": ["typescript"],
                "validateToolInputs": false, "maxSearchLimit": 7}),
            &serde_json::Value::Null,
        );
        let define = Define {
            twin: 9,
            config: config.clone(),
            owner: RunOwner {
                agent_run_id: "run".into(),
                session_id: None,
                session_key: Some("key".into()),
                agent_id: Some("".into()),
            },
            visible_tools: vec!["exec".into(), "wait".into()],
            active: true,
            namespaces: "[]".into(),
            tools: Arc::new(vec!["[[]]".into(), "é".into()]),
            scopes: Some("{}".into()),
            counters: [1, 2, 3, 4, u64::MAX],
        };
        let frame = ToSandbox::Define(Box::new(define)).encode();
        let ToSandbox::Define(back) = ToSandbox::decode(body(&frame)).unwrap() else {
            panic!("not a definition");
        };
        assert_eq!(
            back.config, config,
            "a resolved configuration resolves to itself"
        );
        assert_eq!(back.owner.session_key.as_deref(), Some("key"));
        assert_eq!(back.owner.session_id, None);
        assert_eq!(*back.tools, ["[[]]", "é"]);
        assert_eq!(back.counters, [1, 2, 3, 4, u64::MAX]);
        let default = CodeModeConfig::default();
        let json = serde_json::to_value(&default).unwrap();
        assert_eq!(
            CodeModeConfig::resolve(&json, &serde_json::Value::Null),
            default
        );
    }

    #[test]
    fn a_result_goes_and_comes_back_whole() {
        let mut result = RunResult::new(Status::Waiting {
            run_id: "r1".into(),
            reason: WaitReason::Yield,
            pending_tool_calls: vec![PendingCall {
                id: "c".into(),
                method: CallKind::SetInterval,
                tool_id: None,
            }],
            snapshot_bytes: 77,
        });
        result.output.push(Output::Text { text: "hi".into() });
        result.output.push(Output::Json {
            value: RawValue::from_string("[1,{\"a\":2}]".into()).unwrap(),
        });
        result.replay_safe = true;
        result.telemetry.call_count = 5;
        result.telemetry.nested_seq = 6;
        result.telemetry.visible_tools = vec!["exec".into()];
        let frame = FromSandbox::Result {
            leg: 3,
            parked: 1,
            result: result.clone(),
        }
        .encode();
        let FromSandbox::Result {
            leg,
            parked,
            result: back,
        } = FromSandbox::decode(body(&frame)).unwrap()
        else {
            panic!("not a result");
        };
        assert_eq!((leg, parked), (3, 1));
        assert_eq!(back.telemetry.nested_seq, 6);
        assert_eq!(back.to_json(), result.to_json());
        let failed = RunResult::failed(ErrorCode::SnapshotLimitExceeded, "too big");
        let frame = FromSandbox::Result {
            leg: 0,
            parked: 0,
            result: failed.clone(),
        }
        .encode();
        let FromSandbox::Result { result: back, .. } = FromSandbox::decode(body(&frame)).unwrap()
        else {
            panic!("not a result");
        };
        assert_eq!(back.to_json(), failed.to_json());
    }

    #[test]
    fn every_small_frame_goes_and_comes_back() {
        let frames = [
            ToSandbox::Forget { twin: 1 },
            ToSandbox::Scopes {
                twin: 2,
                json: "[]".into(),
            },
            ToSandbox::Exec(Exec {
                leg: 1,
                twin: 2,
                age_micros: 3,
                code: "return 1".into(),
                language: Language::Typescript,
                restart_safe: true,
                parent: Some("p".into()),
            }),
            ToSandbox::Wait(Wait {
                leg: 1,
                twin: 2,
                age_micros: 3,
                run_id: "r".into(),
                parent: None,
            }),
            ToSandbox::Stop {
                leg: 4,
                reason: Stop::RestartSafeNamespace,
            },
            ToSandbox::Settle(vec![(1, Ok("1".into())), (2, Err("no".into()))]),
        ];
        for frame in frames {
            let encoded = frame.encode();
            let back = ToSandbox::decode(body(&encoded)).unwrap();
            assert_eq!(format!("{back:?}"), format!("{frame:?}"));
        }
        let frames = [
            FromSandbox::Dispatch {
                twin: 1,
                max_bytes: 2,
                calls: vec![("{}".into(), "[]".into())],
            },
            FromSandbox::Abort(vec![1, 2]),
            FromSandbox::Released { twin: 3 },
            FromSandbox::Parked { count: 4 },
            FromSandbox::Stats(Stats {
                abandoned_workers: 1,
                abandoned_workers_running: 2,
                retired_vms: 3,
                answered_in_queue: 4,
                typescript_initialized: true,
                problems_recorded: 5,
                problems: vec!["p".into()],
            }),
        ];
        for frame in frames {
            let encoded = frame.encode();
            let back = FromSandbox::decode(body(&encoded)).unwrap();
            assert_eq!(format!("{back:?}"), format!("{frame:?}"));
        }
    }

    #[test]
    fn lies_are_refused_without_panics_or_large_allocations() {
        assert!(frame_len(0u32.to_le_bytes()).is_err());
        assert!(frame_len(u32::MAX.to_le_bytes()).is_err());
        // A list that claims four billion items in a few bytes.
        let mut lie = vec![ABORT];
        lie.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(FromSandbox::decode(&lie).is_err());
        // Every prefix and every one-byte change of real frames.
        let mut result = RunResult::failed(ErrorCode::Timeout, "slow");
        result.output.push(Output::Text { text: "x".into() });
        let frames = [
            FromSandbox::Result {
                leg: 1,
                parked: 0,
                result,
            }
            .encode(),
            FromSandbox::Dispatch {
                twin: 1,
                max_bytes: 2,
                calls: vec![("{}".into(), "[]".into())],
            }
            .encode(),
        ];
        for frame in frames {
            let body = &frame[4..];
            for end in 0..body.len() {
                assert!(FromSandbox::decode(&body[..end]).is_err());
            }
            for at in 0..body.len() {
                for byte in [0u8, 1, 0x7f, 0xff] {
                    let mut changed = body.to_vec();
                    changed[at] = byte;
                    let _ = FromSandbox::decode(&changed);
                }
            }
        }
        // Text that is not JSON where JSON must be.
        let mut w = Writer::new(RESULT);
        w.u64(1);
        w.u64(0);
        w.u8(0);
        w.str("{not json");
        let frame = w.finish();
        assert!(FromSandbox::decode(&frame[4..]).is_err());
    }
}
