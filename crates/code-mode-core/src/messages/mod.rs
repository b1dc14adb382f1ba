//! Every guest- and model-visible message, in one place, with what the
//! binding throws to the gateway (`binding.rs`) and what its JavaScript
//! throws (`js.rs`); the MCP namespace's (`mcp.rs`) and input validation's
//! (`validation.rs`) have files of their own. All are re-exported here:
//! callers write `messages::name`. `docs/errors.md` lists them; they are
//! part of the contract, byte for byte. `scripts/check-messages.mjs` (`npm
//! run lint`) fails on a sentence written anywhere else.

mod binding;
#[cfg(test)]
mod js;
mod mcp;
mod validation;

use std::ffi::CStr;
use std::fmt::Display;

use crate::limits::{
    MAX_ABANDONED_PER_SESSION, MAX_DEPTH, MAX_OBJECT_MEMBERS, MAX_OPENING_UNITS,
    MAX_REPLACED_ABANDONED, MAX_REWRITTEN_CONSTRUCTS, MAX_SAME_NAME_PAIRS, MAX_SOURCE_BYTES,
    MAX_TIMERS, NAMESPACE_CALLABLES, NAMESPACE_SCOPE_BYTES, NAMESPACE_SCOPE_DEPTH,
    NAMESPACE_SCOPE_NODES,
};
use crate::records::ScopeProblemKind;

pub const MODULE_ACCESS_DISABLED: &str = "code mode module access is disabled.";
pub const TYPESCRIPT_FAILED_PREFIX: &str = "typescript transform failed: ";
pub const CODE_AND_COMMAND_MISMATCH: &str = "code and command must match when both are provided.";
pub const CODE_REQUIRED: &str = "code or command must be a non-empty string.";
pub const BAD_LANGUAGE: &str = "language must be javascript or typescript.";
pub const BAD_RESTART_SAFE: &str = "restartSafe must be a boolean.";
pub const TIMEOUT: &str = "code mode timeout exceeded.";
pub const MEMORY_LIMIT: &str = "code mode memory limit exceeded.";
pub const OUTPUT_LIMIT: &str = "code mode output limit exceeded.";
pub const CLOSED: &str = "code mode is closed.";
pub const ABORTED: &str = "code mode run was aborted.";
/// `runtime_unavailable` of the legs a sandbox process held when it
/// stopped (`isolation: 'process'`).
pub const SANDBOX_STOPPED: &str = "code mode sandbox process stopped (it crashed, was killed or stopped answering); the runs it held are lost. Run the cell again.";
/// `runtime_unavailable` while a session's sandbox processes stop faster
/// than they may be started again.
pub const SANDBOX_RESTARTS_EXHAUSTED: &str = "code mode sandbox process of this session stopped too often; new runs are refused for up to a minute.";

/// Why a sandbox process could not start, when it wrote no start line.
pub const SANDBOX_NOT_READY: &str = "it did not report ready";

/// `runtime_unavailable` when a sandbox process cannot be started.
pub fn sandbox_unavailable(reason: &str) -> String {
    format!("code mode sandbox process could not start: {reason}")
}
pub const PENDING_WITHOUT_HOST_WORK: &str = "code mode promise is pending without host work.";
/// The `Error` of a timer armed past [`MAX_TIMERS`].
pub fn too_many_timers() -> String {
    format!("too many live timers: a code mode run holds at most {MAX_TIMERS} at once; clear one with clearTimeout or clearInterval first.")
}

/// The `TypeError` of `setTimeout`/`setInterval` called without a function.
pub fn timer_callback(name: &str) -> String {
    format!("{name} expects a function as its first argument; strings of code are not run.")
}

/// At most `max` bytes of `text` (cut on a character boundary), with `…`
/// appended when cut: error texts are not an output channel.
pub(crate) fn cut(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// `code mode <language> input is disabled.`
pub fn language_disabled(language: &str) -> String {
    format!("code mode {language} input is disabled.")
}

/// A cell with too many opening units to parse safely.
pub fn source_too_deep(location: &str) -> String {
    format!("code nests too deeply to parse safely: it has more than {MAX_OPENING_UNITS} brackets, operators and keywords (the limit is passed at {location}). Split the work into smaller statements, functions or cells.")
}

/// A cell whose parse needs more work than its budget.
pub fn source_too_costly(location: &str) -> String {
    format!("code is too costly to parse: the parser would backtrack too often (the limit is passed at {location}). Chains or nests of `<T>` casts, generic calls or comparisons, arrow functions inside `? :`, or labels inside labels cost the most; write them more simply or split the cell.")
}

/// A TypeScript cell with too many constructs to rewrite.
pub fn too_many_rewrites(location: &str) -> String {
    format!("code has more than {MAX_REWRITTEN_CONSTRUCTS} enums, namespaces, parameter properties, decorators and accessors (the limit is passed at {location}). Split the cell or use plain objects and classes.")
}

/// A TypeScript cell that declares the same names too often.
pub fn too_many_same_names(location: &str) -> String {
    format!("code declares the same names too often: more than {MAX_SAME_NAME_PAIRS} pairs of declarations share a name, about 1400 of one name (the limit is passed at {location}). Reuse variables, use arrays, or split the cell.")
}

/// A decorator on a parameter in a TypeScript cell.
pub const MISPLACED_DECORATOR: &str =
    "decorators are not valid here (TypeScript 5 decorators apply to classes and their members)";

/// A decorator in a JavaScript cell (the message of its `SyntaxError`).
pub const JAVASCRIPT_DECORATOR: &str =
    "decorators are not supported in JavaScript cells; use language \"typescript\"";

pub fn source_too_large() -> String {
    format!("code must be at most {MAX_SOURCE_BYTES} bytes.")
}
pub const INTERNAL: &str = "code mode internal error.";

/// A VM that could not be made, and why.
pub fn runtime_could_not_start(reason: impl Display) -> String {
    format!("code mode runtime could not start: {reason}")
}

/// An exec whose budget ended while it waited for a worker, its session
/// having [`MAX_ABANDONED_PER_SESSION`] abandoned threads still running.
pub fn session_threads_stuck() -> String {
    format!("code mode runtime could not start: this session's earlier cells hold {MAX_ABANDONED_PER_SESSION} worker threads stuck in calls that cannot be interrupted, the most one session may hold; its new cells wait until one of them ends, and this cell's budget ran out first. The cell did not run.")
}

/// An exec whose budget ended while it waited for a worker, its pool short
/// of workers because [`MAX_REPLACED_ABANDONED`] abandoned threads of the
/// process already have a replacement.
pub fn process_threads_stuck() -> String {
    format!("code mode runtime could not start: {MAX_REPLACED_ABANDONED} worker threads of this process are stuck in calls that cannot be interrupted, the most it replaces; no worker came free before this cell's budget ran out. The cell did not run.")
}

// --- Errors of a cell, and where they happened ---

/// An uncaught value that is not an object, as `String(value)` shows it.
pub fn uncaught(value: &str) -> String {
    format!("Uncaught: {value}")
}

/// An error and where in the user's source it happened: `<error> at line 3:7`.
pub fn at_location(error: &str, location: impl Display) -> String {
    format!("{error} at {location}")
}

/// A place in the user's source: `line 3:7`.
pub fn location(line: u32, column: u32) -> String {
    format!("line {line}:{column}")
}

/// A JavaScript cell that does not parse; `hint`, for a cell that reads
/// like a shell command, on a line of its own.
pub fn syntax_error(message: &str, location: impl Display, hint: Option<&str>) -> String {
    match hint {
        Some(hint) => format!("SyntaxError: {message} at {location}\n{hint}"),
        None => format!("SyntaxError: {message} at {location}"),
    }
}

/// The parse error of a cell that closes its wrapper's function (as the
/// parser would word it).
pub const UNEXPECTED_CLOSING_BRACE: &str = "Unexpected token `}`";

/// A call of `tools.<tool>` that is not a function: `why` says what the
/// catalog has under that name.
pub fn tool_not_a_function(tool: &str, why: &str) -> String {
    format!("TypeError: tools.{tool} is not a function. {why}")
}

/// The `why` of a tool whose name has no shortcut: its `id` as a
/// JavaScript string in single quotes.
pub fn call_it_with(id: &str) -> String {
    format!(
        "Call it with tools.call('{}', input).",
        id.replace('\\', "\\\\").replace('\'', "\\'")
    )
}

/// The result of a cell's script that is not its promise (defensive; not
/// expected).
pub const CELL_NOT_A_PROMISE: &str = "cell did not produce a promise";
/// A cell polled before it was started (defensive; not expected).
pub const CELL_NOT_STARTED: &str = "cell was not started";

// --- Inside the VM ---

/// The `InternalError` a host function or an exotic method of ours throws
/// when Rust failed (panicked) inside it. A guest can catch it. (C strings
/// below: QuickJS takes them as they are, with no format directives.)
pub const VM_INTERNAL_ERROR: &CStr = c"code mode internal error";
/// The `TypeError` of defining a property a lazy object does not have:
/// lazy objects behave as frozen ones, and say what QuickJS says of those.
pub const NOT_EXTENSIBLE: &CStr = c"object is not extensible";
/// The `TypeError` of redefining a member of a lazy object.
pub const NOT_CONFIGURABLE: &CStr = c"property is not configurable";
/// The uncatchable error that ends a run from inside a host function. No
/// guest catches it and no result shows it: the run ends with the reason
/// recorded beside it.
pub const RUN_STOPPED: &str = "code mode run stopped";

/// What `console.warn` and `console.error` write before their line.
pub const CONSOLE_WARN: &str = "warn: ";
pub const CONSOLE_ERROR: &str = "error: ";

/// What stands in a converted value for an object already on the path from
/// the root (a cycle); the host's results too (`js.rs`).
pub const CIRCULAR: &str = "[Circular]";
/// ... for a container nested deeper than `MAX_DEPTH`, in final values,
/// `json()` items and `text()` arguments.
pub const TOO_DEEP: &str = "[Too deep]";
/// ... for an object with more than `MAX_OBJECT_MEMBERS` members.
pub const TOO_MANY_MEMBERS: &str = "[Too many members]";

// --- Counting ---

/// After the first items of a list cut short: `and 3 more`.
pub fn and_more(count: usize) -> String {
    format!("and {count} more")
}

// --- The catalog ---

pub const SEARCH_LIMIT_INVALID: &str = "limit must be a positive integer.";

/// `Ambiguous tool name: <name>; use an exact tool id.`
pub fn ambiguous_tool_name(name: &str) -> String {
    format!("Ambiguous tool name: {name}; use an exact tool id.")
}

/// `Unknown tool id: <id>. Did you mean: a, b, c? Use tools.search ...`; the
/// "Did you mean" part only when there are suggestions.
pub fn unknown_tool_id(id: &str, suggestions: &[&str]) -> String {
    let hint = did_you_mean(suggestions);
    format!(
        "Unknown tool id: {id}.{hint} Use tools.search to find a tool, tools.describe to inspect it, then tools.call with the exact id or name."
    )
}

/// A call of `MCP.<server>.<tool>` whose server has no such tool (the run's
/// error, `sandbox/callees/`).
pub fn unknown_mcp_tool(server: &str, tool: &str, suggestions: &[&str]) -> String {
    format!(
        "TypeError: MCP.{server}.{tool} is not a function. The MCP server {server} has no tool {tool}.{} Use MCP.{server}.$api() to list its tools.",
        did_you_mean(suggestions)
    )
}

/// A call through `MCP.<server>` for a server the run does not have.
pub fn unknown_mcp_server(server: &str, suggestions: &[&str]) -> String {
    format!(
        "TypeError: MCP.{server} is undefined. There is no MCP server {server}.{} Use MCP.$api() to list the servers.",
        did_you_mean(suggestions)
    )
}

/// ` Did you mean: a, b, c?`, or nothing without suggestions.
fn did_you_mean(suggestions: &[&str]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!(" Did you mean: {}?", suggestions.join(", "))
    }
}

// --- What the model sees ---

pub const EXEC_COMMAND_PARAM: &str =
    "Alias of code for callers that name the program command; when both are given they must match.";
pub const EXEC_RESTART_SAFE_PARAM: &str =
    "Set true when the program must be safe to rerun: it may only search, describe, yield and call replay-safe tools.";
pub const WAIT_RUN_ID_PARAM: &str = "The runId of a waiting exec or wait result.";

pub const EXEC_INTRO: &str = "Run a JavaScript or TypeScript program in an isolated sandbox to use this run's tools. The code is the body of an async function: top-level await works; use `return` for the final value (with no return the run completes with `null`).";
pub const EXEC_NO_MODULES: &str = "Node modules, `require` and `import` are not available; there is no file system, network or environment access except through tools.";
pub const EXEC_CATALOG: &str = "Tools live in a catalog: `tools.search(query)` finds tools, `tools.describe(id)` returns one with its input schema, `tools.call(id, input)` calls it (an exact id or a unique name); `ALL_TOOLS` lists the catalog. Produce output with `text(value)`, `json(value)` or `console.log(...)`.";
pub const EXEC_MCP: &str = "MCP tools are not in the catalog: read their TypeScript declarations with `API.list(prefix?)` and `API.read(path)` (one file per server: `mcp/<server>.d.ts`), and call them only through `MCP.<server>.<tool>({...})`.";
pub const EXEC_NAMESPACES: &str =
    "The plugin namespaces listed below are globals, also reachable as `namespaces.<globalName>`.";
pub const EXEC_WAITING: &str =
    "A result with status `waiting` is not finished: call `wait` with its `runId` to resume it.";
pub const WAIT_DESCRIPTION: &str = "Resume a suspended code mode run returned by exec: pass the `runId` of a `waiting` result. Returns the same result shape as exec: completed, failed, or waiting again.";

/// The exec description's `language` sentence; `enabled` in the order to list them.
pub fn exec_language(enabled: &[&str]) -> String {
    let quoted: Vec<String> = enabled.iter().map(|name| format!("\"{name}\"")).collect();
    let default = if enabled.contains(&"javascript") {
        " (default \"javascript\")"
    } else {
        "; pass it on every call"
    };
    format!("`language` accepts only {}{default}.", quoted.join(" or "))
}

/// The exec schema's `code` description for this run: the languages it
/// accepts, how a cell ends, the catalog and `ALL_TOOLS`, no modules; the MCP
/// namespace only when the run has MCP tools, plugin namespaces only when
/// visible (by global name).
pub fn exec_code_param(languages: &[&str], has_mcp: bool, namespaces: &[&str]) -> String {
    let program = match (
        languages.contains(&"javascript"),
        languages.contains(&"typescript"),
    ) {
        (true, true) => "JavaScript or TypeScript program",
        (false, true) => "TypeScript program",
        _ => "JavaScript program",
    };
    let mut text = format!(
        "{program}: the body of an async function (top-level await; `return` the result). \
         Call tools via `tools.search`, `tools.describe`, `tools.call` or `tools.<name>(input)`; `ALL_TOOLS` lists them. \
         Modules are unavailable (no `require`/`import`); `setTimeout`/`setInterval` work."
    );
    if has_mcp {
        text.push_str(" MCP tools: `MCP.<server>.<tool>(input)`; declarations via `API.read`.");
    }
    if !namespaces.is_empty() {
        let names: Vec<String> = namespaces.iter().map(|name| format!("`{name}`")).collect();
        text.push_str(&format!(
            " Plugin namespaces (globals): {}.",
            names.join(", ")
        ));
    }
    text
}

/// The exec schema's `language` description: the enabled languages, the
/// default, and that TypeScript's types are stripped, not checked.
pub fn exec_language_param(languages: &[&str]) -> String {
    const TYPESCRIPT: &str = "`typescript` (types stripped, not checked)";
    match (
        languages.contains(&"javascript"),
        languages.contains(&"typescript"),
    ) {
        (true, true) => format!("`javascript` (default) or {TYPESCRIPT}."),
        (false, true) => format!("Only {TYPESCRIPT}; pass it on every call."),
        _ => "Only `javascript`.".to_owned(),
    }
}

/// `- <globalName>: <description>`, or `- <globalName>` without a description.
pub fn namespace_prompt_line(global_name: &str, description: Option<&str>) -> String {
    match description {
        Some(description) => format!("- {global_name}: {description}"),
        None => format!("- {global_name}"),
    }
}

/// `MCP servers: a, b` (server identifiers as the `MCP` namespace names them).
pub fn mcp_servers_prompt(servers: &[String]) -> String {
    format!("MCP servers: {}", servers.join(", "))
}

/// Why a provider payload fails `assertProviderPayload`; every offending name appears.
pub fn provider_payload_not_allowed(
    unexpected: &[&str],
    missing: &[&str],
    duplicate: &[&str],
) -> String {
    let parts: Vec<String> = [
        ("unexpected tool(s)", unexpected),
        ("missing", missing),
        ("duplicate", duplicate),
    ]
    .iter()
    .filter(|(_, names)| !names.is_empty())
    .map(|(label, names)| format!("{label} {}", names.join(", ")))
    .collect();
    format!(
        "code mode provider payload is not allowed: {}.",
        parts.join("; ")
    )
}

// --- The bridge (nested calls) ---

pub const TOO_MANY_QUEUED_CALLS: &str = "too many queued code mode tool calls.";
pub const TOOL_RESULT_UNREADABLE: &str = "code mode could not read the tool result.";
/// A rejection or throw of the executor that has no readable message.
pub const TOOL_CALL_FAILED: &str = "tool call failed";

pub fn tool_input_too_large(max: usize) -> String {
    format!("tool input is larger than the code mode bridge limit of {max} bytes (inputs of pending calls included).")
}

/// The inputs of one exec or wait call passed their budget.
pub fn leg_input_budget(max: usize) -> String {
    format!("tool inputs of this exec or wait call passed the code mode budget of {max} bytes; return, or await yield_control() and continue after the next wait.")
}

/// `tool input nests deeper than 1000 levels.`
pub fn tool_input_too_deep() -> String {
    format!("tool input nests deeper than {MAX_DEPTH} levels.")
}

/// `tool input has an object with more than 65536 members.`
pub fn tool_input_too_wide() -> String {
    format!("tool input has an object with more than {MAX_OBJECT_MEMBERS} members.")
}

pub fn tool_result_too_large(len: usize, max: usize) -> String {
    format!("tool result of {len} bytes is larger than the code mode bridge limit of {max} bytes.")
}

// --- Shell-shaped cells ---

/// How the hint for a shell command sent as a cell begins.
pub const SHELL_HINT_START: &str = "exec runs JavaScript or TypeScript, not shell commands.";

/// The line added to the parse error of a cell that reads like `command`.
pub fn shell_hint(command: &str) -> String {
    let command = serde_json::Value::String(command.to_owned());
    format!(
        "{SHELL_HINT_START} To run {command}, find a shell tool and call it: const [shell] = await tools.search(\"shell command\"); return await tools.call(shell.id, {{ command: {command} }})"
    )
}

// --- Plugin namespaces ---

/// The scopes `namespaces.js` wrote could not be read as JSON.
pub fn scope_malformed(error: impl Display) -> String {
    format!("its scope is malformed ({error}).")
}

/// `namespaces.js` wrote more or fewer scopes than there are namespaces.
pub const SCOPES_MISCOUNTED: &str = "one scope per namespace was expected.";

/// What a scope that is not an object is, checked again in the core.
pub const ANOTHER_VALUE: &str = "another value";

/// A function `path` that names no `null` place in the scope's tree, or
/// that is listed twice.
pub fn not_a_function_place(path: &str) -> String {
    format!("{path} is not a function place in the scope, or appears twice.")
}

/// The `invalid_input` message of an exec whose namespace scope could not be
/// built: `code mode namespace Issues could not be prepared: <problem>`.
pub fn namespace_unprepared(global_name: &str, problem: &str) -> String {
    format!("code mode namespace {global_name} could not be prepared: {problem}")
}

/// What was wrong with a scope (`path` as [`crate::namespaces::display_path`]
/// writes it), by the kind `namespaces.js` reports.
pub fn namespace_problem(kind: ScopeProblemKind, path: &str, detail: &str) -> String {
    use ScopeProblemKind::*;
    match kind {
        CreateFailed => format!("createScope failed: {detail}"),
        NotObject => format!("createScope returned {detail}, not a plain object."),
        Function => format!("{path} is a function; a callable member must be a createCodeModeNamespaceTool(toolName) marker."),
        Then => format!("{path} is callable, which would make the object a thenable; use another name."),
        Cycle => format!("{path} is a circular reference."),
        UnsafeKey => format!("{path} has the unsafe key {detail}."),
        DuplicateKey => format!("{path} has two keys that both read {detail} once lone surrogates are replaced."),
        TooDeep => format!("{path} nests deeper than {NAMESPACE_SCOPE_DEPTH} levels."),
        TooLarge => namespace_scope_too_large(),
        TooManyFunctions => format!("the scope has more than {NAMESPACE_CALLABLES} functions."),
        ForeignTool => namespace_foreign_tool(path, detail),
        Unsupported => format!("{path} is {detail}; a scope holds only plain objects, arrays, JSON values and createCodeModeNamespaceTool markers."),
        Threw => format!("reading {path} threw: {detail}"),
    }
}

/// A namespace call whose arguments are larger than the host converts in
/// one go.
pub fn namespace_args_too_large() -> String {
    format!(
        "plugin namespace call arguments are larger than {} bytes of JSON.",
        crate::limits::NAMESPACE_ARGS_BYTES
    )
}

/// A namespace call reached a host that has no namespaces for its run.
pub const NAMESPACE_UNAVAILABLE: &str = "code mode namespace calls are not available in this run.";

pub fn namespace_scope_too_large() -> String {
    format!("the scope has more than {NAMESPACE_SCOPE_NODES} values or {NAMESPACE_SCOPE_BYTES} bytes of JSON.")
}

pub fn namespace_foreign_tool(path: &str, tool: &str) -> String {
    format!("{path} targets the tool {tool:?}, which is not in the namespace's requiredToolNames.")
}

// --- Parked runs ---

pub const RESTART_SAFE_TOOL: &str = "restart-safe code mode cannot call side-effecting tools.";
pub const RESTART_SAFE_NAMESPACE: &str = "restart-safe code mode cannot call plugin namespaces.";
pub const TOO_MANY_PARKED: &str = "too many suspended code mode runs.";
pub const RUN_UNAVAILABLE: &str = "code mode run is unavailable or expired.";
pub const RUN_OTHER_AGENT_RUN: &str = "code mode run belongs to a different agent run.";
pub const RUN_OTHER_SESSION: &str = "code mode run belongs to a different session.";
pub const RUN_BEING_RESUMED: &str = "code mode run is already being resumed.";
pub const RUN_ID_REQUIRED: &str = "runId must be a non-empty string.";

pub fn snapshot_limit(bytes: usize, max: usize) -> String {
    format!("code mode snapshot limit exceeded: the suspended run holds {bytes} bytes; the limit is {max}.")
}

pub use self::binding::*;
#[cfg(test)]
pub use self::js::{js_messages, JsMessage};
pub use self::mcp::*;
pub use self::validation::*;
