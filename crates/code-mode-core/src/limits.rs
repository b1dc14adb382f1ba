//! The fixed bounds that protect the host, in one place. Configurable limits
//! (`timeoutMs`, `memoryLimitBytes`, ...) live in [`crate::config`]; these are
//! not configurable. `docs/limits.md` lists every bound and what happens when
//! a cell reaches it.

use std::time::Duration;

/// The largest cell source, in bytes of UTF-8.
pub const MAX_SOURCE_BYTES: usize = 1024 * 1024;

/// Opening units (brackets, operators, keywords) a cell may contain: a bound
/// on how deep the parsers recurse, checked before they run. At about 3.3 KiB
/// of stack per unit at worst, the deepest accepted cell needs at most about
/// 80 MiB of a worker's [`WORKER_STACK_BYTES`]. See `source/guard.rs`.
pub const MAX_OPENING_UNITS: usize = 25_000;

/// JS stack a cell may use before an ordinary `RangeError`.
pub const JS_STACK_BYTES: usize = 4 * 1024 * 1024;

/// Virtual size of a worker thread's stack: far larger than
/// [`JS_STACK_BYTES`], so QuickJS's own stack check always fires first. Only
/// the touched pages cost memory.
pub const WORKER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// The most bytes of tool input (all pending calls of a run together) or of
/// one tool result that cross the bridge. The effective budget is half the
/// run's memory limit, at most this: the host parses these bytes on the Node
/// thread, so they stay small enough not to stall it for long.
pub const MAX_BRIDGE_BYTES: u64 = 16 * 1024 * 1024;

/// Bytes of tool input one exec or wait call may send in all: a cell that
/// loops over large inputs is stopped before it floods the host; the next
/// `wait` starts a fresh budget.
pub const MAX_LEG_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// Microseconds of work of each kind the Node thread does for code mode per
/// event-loop turn: starting nested calls (parsing inputs, assembling their
/// pieces, calling the gateway's `executeTool`), writing tool results as
/// JSON, and assembling long exec and wait results from their pieces. The
/// rest waits for the next turns, so a flood of calls or a large result
/// never holds the event loop for long. One call, one piece or one step of
/// a result always goes ahead per turn, so a turn ends at most one unit
/// past this, per kind.
pub const TURN_WORK_MICROS: u32 = 500;

/// A tool input longer than this reaches the Node thread cut into pieces of
/// about this size ([`crate::runs::pieces`]), turned into a value one piece
/// at a time over as many turns as [`TURN_WORK_MICROS`] requires: one large
/// input never holds a turn for long either.
pub const INPUT_PIECE_BYTES: usize = 16 * 1024;

/// A tool input this short travels inline with its call's metadata to the
/// Node thread (one parse for both, no separate hand-over), as long as the
/// inline inputs of its batch stay within [`INLINE_BATCH_BYTES`]: short
/// enough that no inline input is a wide object, small enough in all that a
/// batch's one parse stays far below [`TURN_WORK_MICROS`].
pub const INLINE_INPUT_BYTES: usize = 256;

/// Bytes of inline inputs one batch of nested calls carries at most; the
/// inputs past it are handed over one by one within the turn budget.
pub const INLINE_BATCH_BYTES: usize = 16 * 1024;

/// The most members or elements one piece of a cut input carries: adding a
/// member to a wide object costs the Node thread about a microsecond and a
/// half (V8's dictionary objects), so a piece stays well under a millisecond
/// whatever the shape of its bytes (garbage collection aside).
pub const INPUT_PIECE_MEMBERS: usize = 256;

/// Queued (not yet dispatched) nested calls a run may hold; in-flight calls
/// are bounded by `maxPendingToolCalls`.
pub const MAX_QUEUED_CALLS: usize = 1024;

/// The longest search query, tool id or tool name the guest's `tools`
/// functions read; a longer one is cut (nothing in a catalog is that long).
pub const MAX_QUERY_BYTES: usize = 4096;

/// The longest `yield_control(reason)` reason kept, in bytes of UTF-8; a
/// longer one is cut (on a character boundary) and ends with `…`.
pub const MAX_YIELD_REASON_BYTES: usize = 1024;

/// Live timers (`setTimeout`s not yet fired or cleared, `setInterval`s not
/// cleared) one run may hold; one more throws an `Error` in the guest.
pub const MAX_TIMERS: usize = 128;

/// The longest timer delay or interval, in milliseconds (2^31 - 1, about 24.8
/// days, the web's and Node's largest); a longer one is this (Node would
/// fire it after 1 ms, a browser at once). A negative or non-numeric delay
/// is 0.
pub const MAX_TIMER_DELAY_MS: f64 = 2_147_483_647.0;

/// The shortest `setInterval` period, in milliseconds; a shorter one is this.
/// `setTimeout` has no minimum: a delay of 0 fires after the cell's current
/// microtasks.
pub const MIN_INTERVAL_MS: f64 = 10.0;

/// Host bytes one live timer counts for in a parked run's size: its entry in
/// the run's timer table and due-time queue (its callback and arguments live
/// in the VM's heap, which is measured), plus its id in `pendingToolCalls`.
pub const TIMER_HOST_BYTES: usize = 160;

/// Parked runs one engine holds at once.
pub const MAX_PARKED_RUNS: usize = 64;

/// How deep a value may nest when it crosses the bridge. Deeper parts of a
/// final value or `json()` item become `"[Too deep]"`; a deeper tool input is
/// refused; a deeper tool result fails its call.
pub const MAX_DEPTH: usize = 1000;

/// The most members one object may have when it crosses the bridge to the
/// Node thread (a tool, MCP or namespace input, a final value, a `json()`
/// item): V8 keeps a wider object as a hash table, and adding its members,
/// listing its keys or writing it out then holds the event loop for tens of
/// milliseconds per 65,536 members and superlinearly past that (1.5 million
/// took seconds). A wider object in a final value or `json()` item becomes
/// `"[Too many members]"`; a tool input that has one is refused. Arrays are
/// not bounded by it (only by bytes).
pub const MAX_OBJECT_MEMBERS: usize = 65_536;

/// The name and the message of an uncaught guest error are each cut to this
/// many bytes: the error text of a result is not an output channel.
pub const MAX_ERROR_PART_BYTES: usize = 4096;

/// How long a leg may overstay its deadline (or a stop) inside one step, stuck
/// in a builtin that never polls the interrupt handler, before the watchdog
/// answers its call and abandons its worker thread.
pub const WATCHDOG_GRACE: Duration = Duration::from_millis(500);

/// How often the watchdog looks at the workers when no deadline is nearer. At
/// a computing leg's deadline it raises the leg's interrupt flag, which QuickJS
/// reads at every poll: a loop of long builtin calls stops after the call it
/// is in.
pub const WATCHDOG_INTERVAL: Duration = Duration::from_millis(100);

/// How long a run with something to do (a settlement, a due timer, its
/// deadline) waits on a worker that is computing another run before the
/// watchdog hands it to another worker ([scheduling](docs/scheduling.md)).
pub const STRANDED_GRACE: Duration = Duration::from_millis(10);

/// The most abandoned threads one session may have still running (a thread
/// is charged to the session of the call it got stuck in: its `sessionKey`,
/// else its `sessionId`, else its agent run). A session that has this many
/// starts no new cell, nor any other job, until one of them gets back: its
/// jobs wait in its own queue, and one whose budget ends there is answered
/// `runtime_unavailable` ([`session_threads_stuck`]). Two, because one honest
/// cell that hit a slow builtin once should not keep its session from the
/// pool, while a session that keeps getting workers stuck stops at two
/// threads (and their VMs) instead of taking one more per cell.
///
/// [`session_threads_stuck`]: crate::messages::session_threads_stuck
pub const MAX_ABANDONED_PER_SESSION: usize = 2;

/// The most abandoned threads in the whole process (all engines) that have a
/// replacement worker while they are still running. Past it an abandoned
/// worker's place stays empty until it gets back (or until the process has
/// room again), so the process never runs more threads than its pools' own
/// plus this many. Each abandoned thread holds its VM (up to
/// `memoryLimitBytes`, 64 MiB by default) and a core until its call ends:
/// eight is 512 MiB at the default, and four sessions at their limit of
/// [`MAX_ABANDONED_PER_SESSION`].
pub const MAX_REPLACED_ABANDONED: usize = 8;

/// The most worker threads one engine runs (`workerThreads` is clamped to it).
pub const MAX_WORKER_THREADS: usize = 16;

/// The most suggestions an unknown tool id gets.
pub const MAX_SUGGESTIONS: usize = 3;

/// Parse work (tokens read, rewinds included) one parse of a cell may cost
/// per byte of its source, on top of [`PARSE_UNITS_BASE`].
pub const PARSE_UNITS_PER_BYTE: u64 = 2;
/// Parse work any cell may cost, whatever its size.
pub const PARSE_UNITS_BASE: u64 = 16 * 1024;
/// The most parse work one parse of any cell may cost.
pub const PARSE_UNITS_MAX: u64 = 1024 * 1024;
/// Constructs a TypeScript cell may have that swc rewrites rather than
/// erases: `enum`s, namespaces, parameter properties, decorators and
/// auto-accessors. Rewriting them is quadratic in their number (renaming the
/// helpers each one brings, nested namespaces); at this count the slowest
/// shape (namespaces nested 500 deep) still prepares in a few tens of ms.
pub const MAX_REWRITTEN_CONSTRUCTS: usize = 500;
/// Pairs of declarations that share a name a TypeScript cell swc rewrites
/// (`enum`, namespace, `<T>x`, decorators...) may have: its renaming pass
/// compares every declaration with the earlier ones of the same name (8000
/// blocks with a `let E` took 0.3 s). This allows about 1400 declarations of
/// one name. Cells that are only stripped are not bounded by it.
pub const MAX_SAME_NAME_PAIRS: u64 = 1_000_000;

/// MCP declarations, per tool: schema nodes the renderer visits. Past it (a
/// `$ref` graph that multiplies, say) the rest of the type is `unknown` and
/// the tool's comment says the schema is larger than shown.
pub const DECLARATION_NODES: usize = 4096;
/// MCP declarations, per tool: schemas nested inside one another (a `$ref`
/// counts as a level); deeper ones are `unknown` with a note.
pub const DECLARATION_DEPTH: usize = 16;
/// MCP declarations, per tool: bytes of type text and `@param` text.
pub const DECLARATION_TYPE_BYTES: usize = 16 * 1024;
/// MCP declarations, per tool: paths whose lost schema features its comment
/// lists; the rest are counted (`- and N more`).
pub const DECLARATION_LOST_PATHS: usize = 24;

/// Plugin namespaces, per namespace and run: values in the serialised scope
/// (a shared reference counts once per place it appears, as it is copied).
pub const NAMESPACE_SCOPE_NODES: usize = 10_000;
/// Plugin namespaces: bytes of the scope tree's JSON. Each exec parses it
/// into its fresh VM, so it stays small.
pub const NAMESPACE_SCOPE_BYTES: usize = 256 * 1024;
/// Plugin namespaces: how deep a scope tree nests.
pub const NAMESPACE_SCOPE_DEPTH: usize = 32;
/// Plugin namespaces: functions (tool markers, counted per place) in one scope.
pub const NAMESPACE_CALLABLES: usize = 256;

/// The longest `description` or `prompt` a namespace registration may have,
/// in UTF-16 units: both go into the exec description the model reads every
/// turn.
pub const NAMESPACE_TEXT_CHARS: usize = 4096;

/// The most tools one namespace registration may require.
pub const NAMESPACE_REQUIRED_TOOLS: usize = 256;

/// Input validation: problems a rejected input's message lists (the rest
/// are counted, `and N more`).
pub const MAX_LISTED_PROBLEMS: usize = 3;
/// Input validation: bytes of one listed problem.
pub const MAX_PROBLEM_BYTES: usize = 300;
/// Input validation: inputs up to this many bytes of JSON have every
/// problem counted; a larger one only its first (the validator builds one
/// error per bad element, outside any meter: 21000 empty objects in 63 KB
/// made 420,000 errors and took a second).
pub const MAX_LISTED_INPUT_BYTES: usize = 8 * 1024;
/// Input validation: schemas that did not compile that
/// `codeModeDiagnostics()` keeps (the newest).
pub const MAX_SCHEMA_PROBLEMS: usize = 64;
/// Input validation: a plugin namespace call's mapped input (made on the
/// Node thread by the plugin's inputMapper) is checked there, at once, only
/// when it has at most this many bytes of JSON and [`HOST_CHECK_WORK`]
/// bounds its check; every other one is checked by the runtime's checker
/// thread. Either way the check is the same, under the bounds of every
/// call's: this only bounds what the Node thread spends on one.
pub const HOST_CHECK_BYTES: usize = 4 * 1024;
/// Plugin namespaces: bytes of JSON the arguments of one namespace call may
/// take. The host hands them to the plugin's inputMapper in one piece (the
/// mapper is the plugin's own code, and its cost follows the arguments), so
/// this bounds that step; the mapped input is then written, checked and made
/// into the tool's input in slices of [`TURN_WORK_MICROS`].
pub const NAMESPACE_ARGS_BYTES: usize = 1024 * 1024;

// --- Input validation: what checking one input may cost (`validation/`) ---

/// The most units ([`crate::validation`]'s analysis) telling whether one
/// input is valid may cost: about 35 ms at the slowest unit measured
/// (`bench/validation.mjs`). An input whose bound is over it goes out
/// unchecked.
pub const MAX_CHECK_WORK: u64 = 1 << 24;

/// The most units finding the problems of one invalid input may cost: about
/// 30 ms. Past it, the input is refused without saying where.
pub const MAX_ERROR_WORK: u64 = 1 << 22;

/// The most units a check made on the Node thread may cost, finding the
/// problems included (see [`HOST_CHECK_BYTES`]): about half a millisecond.
pub const HOST_CHECK_WORK: u64 = 1 << 18;

// --- Input validation: what a schema may be before it is compiled (`validation/screen.rs`) ---

/// The most JSON values and keys a checked schema may have: compiling it
/// costs about 2 µs each (`bench/validation.mjs`).
pub const MAX_SCHEMA_VALUES: usize = 16_384;

/// The deepest a checked schema's JSON may nest.
pub const MAX_SCHEMA_DEPTH: usize = 128;

/// The longest pattern text a checked schema may have.
pub const MAX_PATTERN_BYTES: usize = 4096;

/// What compiling all the patterns of a checked schema may cost together,
/// in units of about a microsecond (`screen::patterns`).
pub const MAX_PATTERN_COST: u64 = 8192;

/// The largest automaton one pattern may compile to (the engine's
/// `size_limit`).
pub const MAX_PATTERN_NFA_BYTES: usize = 256 << 10;

// --- Input validation: what a schema may cost per input value (`validation/analysis.rs`) ---

/// The most a checked schema may cost per input value: a schema over it is
/// not checked at all.
pub const MAX_SCHEMA_WORK: u64 = 10_000;

/// Subschemas nested (through `$ref`s too) deeper than this are not walked:
/// the schema is not checked.
pub const MAX_SCHEMA_WALK_DEPTH: usize = 256;

// --- Input validation: near misses in a rejection message (`validation/message.rs`) ---

/// Candidates a near miss is looked for among.
pub const MAX_NEAR_MISS_CANDIDATES: usize = 4096;

/// Edit distances one near miss may compute (64 by 67 characters at most).
pub const MAX_NEAR_MISS_COMPARED: usize = 256;

// --- Calls of tools that are not there (`sandbox/callees/`) ---

/// Call sites kept per cell: what a run holds for this stays small whatever
/// the script.
pub const MAX_CALL_SITES: usize = 64;

/// The longest tool name a kept call site holds, in bytes.
pub const MAX_CALL_NAME_BYTES: usize = 128;

/// Other calls kept inside the sites' arguments: a site with more is not
/// explained (its error may be one of theirs).
pub const MAX_CALL_HOLES: usize = 1024;

/// Parentheses followed inside each other; deeper ones are only counted.
pub const MAX_CALL_SCAN_DEPTH: usize = 1024;

// --- Values cut into pieces (`runs/pieces.rs`) ---

/// How deep containers are opened; deeper ones travel as one piece.
pub const PIECE_OPEN_DEPTH: usize = 8;

// --- MCP declarations: the text of comments (`mcp/declarations/`) ---

/// Lines of a tool description a declaration keeps.
pub const DECLARATION_DESCRIPTION_LINES: usize = 12;

/// Characters of `@param` text or a property comment, and of one word of a
/// description.
pub const DECLARATION_LINE_CHARS: usize = 300;

/// Where description lines are wrapped.
pub const DECLARATION_WRAP_CHARS: usize = 100;

/// Characters of a value quoted in a comment (a default, a pattern).
pub const DECLARATION_VALUE_CHARS: usize = 80;

// --- MCP declarations: what they could not express (`mcp/declarations/lost.rs`) ---

/// Characters of a property key shown in a lost path.
pub const DECLARATION_PATH_KEY_CHARS: usize = 40;

/// Lost features listed under one path; the rest are counted.
pub const DECLARATION_FEATURES_PER_PATH: usize = 8;

// --- The MCP `$api` answers (`mcp/api.rs`) ---

/// How many method names an unknown-method error lists.
pub const MAX_LISTED_METHODS: usize = 20;

// --- Sandbox processes, `isolation: 'process'` (`crates/code-mode-sandbox`) ---

/// Sandboxes one slot (a shared one, or a session's own) may start in any
/// minute, the first included; past it the slot's new runs are refused
/// until the oldest start is a minute old. A cell that kills its sandbox in
/// a loop costs at most this many process starts (a few ms of CPU each).
pub const MAX_SANDBOX_STARTS_PER_MINUTE: usize = 10;

/// How long a session keeps a sandbox of its own once a sandbox stopped
/// while one of its cells ran there: its crashes then fail no other session.
pub const OWN_SANDBOX_FOR: Duration = Duration::from_secs(600);

/// Sessions with a sandbox of their own at once.
pub const MAX_OWN_SANDBOXES: usize = 8;

/// How long past a leg's budget a sandbox may take to answer it before it
/// is taken for stuck and killed (a healthy one answers within the
/// watchdog's grace; this leaves room for a loaded machine).
pub const SANDBOX_ANSWER_GRACE: Duration = Duration::from_secs(5);

/// The longest frame either end of a sandbox's channel reads: a run's
/// definition (about 1 KiB a tool) or a result (bounded by the maxima of
/// the configuration); a sandbox that announces more is broken.
pub const MAX_FRAME_BYTES: usize = 512 * 1024 * 1024;

/// Frames the Node thread reads itself in its keep-hot turns; a longer one
/// (a large input or result) is left to the connection's own thread.
pub const LIGHT_FRAME_BYTES: usize = 16 * 1024;

/// Tools' text up to which a sandbox builds a run's copy on its reading
/// thread; a larger one is built on a thread of its own.
pub const INLINE_BUILD_BYTES: usize = 256 * 1024;

/// Nested calls one sandbox may have in flight: every run it can hold
/// (parked, and computing on its workers and added ones) with the most
/// pending calls a configuration allows (128). A sandbox that starts more
/// is not an engine at work: it is killed.
pub const MAX_SANDBOX_CALLS_IN_FLIGHT: usize = (MAX_PARKED_RUNS + 2 * MAX_WORKER_THREADS) * 128;
