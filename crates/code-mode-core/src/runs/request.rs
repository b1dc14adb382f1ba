//! exec and wait calls as the engine receives them, validated by the binding.

use std::sync::Arc;
use std::time::Instant;

use super::agent_run::AgentRun;
use crate::input::ExecInput;

/// One exec call.
pub struct ExecRequest {
    pub input: ExecInput,
    /// When the host call was made: the budget starts here.
    pub started: Instant,
    pub agent_run: Arc<AgentRun>,
    /// The exec call's own tool call id, the parent of its nested calls.
    pub parent_tool_call_id: Option<String>,
}

/// One wait call.
pub struct WaitRequest {
    pub run_id: String,
    /// When the host call was made: the fresh budget starts here.
    pub started: Instant,
    /// The agent run the wait came through: who is asking, its configuration
    /// for this leg, and its telemetry when the run is gone.
    pub agent_run: Arc<AgentRun>,
    /// The wait call's own tool call id, the parent of new nested calls.
    pub parent_tool_call_id: Option<String>,
}
