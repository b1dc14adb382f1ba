/* Hand-written shapes of the public API that cross as plain JavaScript objects.
 * The classes and functions below them are generated from the Rust `///` docs. */

export interface EffectiveTool {
  name: string
  label?: string
  description: string
  /** JSON Schema of the input. */
  parameters?: unknown
  source: 'openclaw' | 'mcp' | 'client'
  /** Plugin id, MCP server name or client app; omitted for core tools. */
  sourceName?: string
  /** Stays model-visible, never in the catalog. */
  directOnly?: boolean
  /** May run in restartSafe cells. */
  replaySafe?: boolean
  mcp?: {
    server: string
    tool: string
    operation?: 'tool' | 'resources_list' | 'resources_read' | 'prompts_list' | 'prompts_get'
  }
}

/** A guest-facing catalog entry (what `ALL_TOOLS` and `tools.search` return). */
export interface ToolCatalogEntry {
  /** `<source>:<owner>:<name>`, e.g. "openclaw:core:read". */
  id: string
  name: string
  label?: string
  description: string
  source: 'openclaw' | 'mcp' | 'client'
  sourceName?: string
}

/** A tool definition for the provider payload. */
export interface ModelToolDefinition {
  name: string
  description: string
  /** JSON Schema of the input. */
  parameters: object
  toolKind?: 'code_mode_exec' | 'code_mode_wait'
}

export interface NestedToolCall {
  /** Catalog id, e.g. "openclaw:core:read". */
  id: string
  name: string
  source: 'openclaw' | 'mcp' | 'client'
  sourceName?: string
  /** JSON-safe input. */
  input: unknown
  /** Unique nested call id. */
  toolCallId: string
  /** The exec/wait call that made it. */
  parentToolCallId?: string
  codeModeRunId?: string
  /** Aborted when the exec/wait is aborted or the run is dropped. */
  signal: AbortSignal
}

export interface CodeModeEvent {
  type: string
  [key: string]: unknown
}

/** A transcript message projected from a finished nested call. */
export type NestedCallTranscriptMessage =
  | {
      role: 'assistant'
      content: { type: 'toolCall'; id: string; name: string; arguments: unknown }[]
      toolId: string
      parentToolCallId?: string
      codeModeNested: true
    }
  | {
      role: 'toolResult'
      toolCallId: string
      toolName: string
      content: { type: 'text'; text: string }[]
      isError: boolean
      parentToolCallId?: string
      durationMs?: number
      codeModeNested: true
    }

export interface RunContext {
  /** Agent run id (scope of parked runs). */
  runId: string
  sessionId?: string
  sessionKey?: string
  agentId?: string
  /** Effective tools after policy, in gateway order. */
  tools: EffectiveTool[]
  /** A run that intentionally has no tools. */
  disableTools?: boolean
  /** Per-agent tools.codeMode, shallow-merged over the global one. */
  agentConfig?: unknown
  /**
   * The gateway's normal tool path. May return the result or a Promise of it;
   * a throw or a rejection fails the call.
   */
  executeTool(call: NestedToolCall): unknown
  /** Trajectory + diagnostics. */
  onEvent?(event: CodeModeEvent): void
  /** Passed to namespace createScope(ctx) as ctx.config. */
  scopeContext?: Record<string, unknown>
}

/** What a plugin namespace's `createScope(ctx)` gets. */
export interface NamespaceScopeContext {
  agentId?: string
  sessionKey?: string
  sessionId?: string
  runId: string
  /** The run context's `scopeContext`, as the gateway passed it. */
  config?: Record<string, unknown>
  /** Fires when every exec waiting for this call has been aborted. */
  signal: AbortSignal
}

/**
 * A plugin namespace: a global `globalName` in the cells of every run whose
 * catalog holds each of `requiredToolNames` as a tool of the registering
 * plugin (`sourceName === pluginId`).
 */
export interface NamespaceRegistration {
  /** Unique in the process. */
  id: string
  /** A JavaScript identifier that no guest or Node global has. */
  globalName: string
  /** Shown to the model as `- <globalName>: <description>` while visible. */
  description?: string
  /** Shown to the model on the line after the description while visible. */
  prompt?: string
  /** Tools of this plugin the namespace calls; each must be in the run. */
  requiredToolNames: string[]
  /**
   * Called once per run surface (at its first exec): returns, or resolves
   * to, a plain object of JSON values, arrays, nested objects and
   * `createCodeModeNamespaceTool(...)` markers. Raw functions, cycles,
   * class instances and the keys `__proto__`, `constructor`, `prototype`,
   * `""` or any key with a `.` are refused, failing the exec with
   * `invalid_input`.
   */
  createScope(ctx: NamespaceScopeContext): unknown
}

/** A callable member of a namespace scope (from `createCodeModeNamespaceTool`). */
export interface NamespaceToolMarker {
  readonly kind: 'code_mode_namespace_tool'
  readonly toolName: string
}

export type Output = { type: 'text'; text: string } | { type: 'json'; value: unknown }

export interface Telemetry {
  catalogSize: number
  sources: { openclaw: number; mcp: number; client: number }
  searchCount: number
  describeCount: number
  callCount: number
  /** Nested calls whose input their tool's schema refused (never started). */
  invalidInputCount: number
  /** Model-visible tool names: exec, wait and the direct-only tools. */
  visibleTools: string[]
}

export type ErrorCode =
  | 'invalid_input'
  | 'runtime_unavailable'
  | 'timeout'
  | 'output_limit_exceeded'
  | 'snapshot_limit_exceeded'
  | 'internal_error'
  | 'aborted'

export type CodeModeResult =
  | { status: 'completed'; value: unknown; output: Output[]; replaySafe: boolean; telemetry: Telemetry }
  | {
      status: 'waiting'
      runId: string
      reason: 'pending_tools' | 'yield'
      pendingToolCalls: { id: string; method: string; toolId?: string }[]
      snapshotBytes: number
      output: Output[]
      replaySafe: boolean
      telemetry: Telemetry
    }
  | { status: 'failed'; error: string; code: ErrorCode; output: Output[]; replaySafe: boolean; telemetry: Telemetry }

/**
 * Which binding artifact the generated loader actually loaded: `'native'` for
 * a native addon, otherwise the `platformArchABI` of the WASI flavor. Every
 * flavor napi-rs can build is listed, because `NAPI_RS_NATIVE_LIBRARY_PATH`
 * can point the loader at a WASI artifact this package does not build itself.
 */
export declare const __napiBindingTarget: 'native' | 'wasm32-wasi' | 'wasm32-wasip1'

/** One code-mode runtime: its configuration, worker threads and parked runs. */
export declare class CodeMode {
  /** The resolved global configuration. */
  get config(): CodeModeConfig
  /**
   * Plans the model-facing surface of one agent run and binds its executor.
   *
   * Every tool is checked now, so a malformed list throws here. The
   * catalog is built in the background during the next turns of the
   * event loop, or at once by whatever needs it first (`exec`, `wait`,
   * `catalog`, `diagnostics`); tools' `parameters` are read then, so
   * change none of them after this call.
   */
  prepareRun(ctx: RunContext): CodeModeRunSurface
  /** Suspended runs held now (diagnostics). */
  suspendedRunCount(): number
  /**
   * Drops every parked run and stops the workers (gateway shutdown). Cells in
   * progress settle promptly with `runtime_unavailable`.
   */
  close(): Promise<void>
}

/** The model-facing surface of one agent run. */
export declare class CodeModeRunSurface {
  /** Whether code mode applies to this run. */
  get active(): boolean
  /**
   * What the provider payload may contain: `exec`, `wait`, then the
   * direct-only tools (or the unchanged tools when inactive).
   */
  get modelTools(): ModelToolDefinition[]
  /** The guest-facing catalog (no MCP, no direct-only); empty when inactive. */
  get catalog(): ToolCatalogEntry[]
  /**
   * What the gateway could fix about the tools it passed, one sentence each
   * naming the tool and what to do: MCP tools without `mcp` metadata, with
   * no or a non-object input schema, with an unknown `mcp.operation`, or
   * whose identifier collided after camel-casing. None of them stops the
   * run; the declarations tell the model the same. Empty when all is well.
   * Tools whose `parameters` `JSON.stringify` could not write are listed
   * too (they have no schema).
   */
  get diagnostics(): Array<string>
  /**
   * Throws unless `names` is exactly exec, wait and the run's direct-only
   * tools; when inactive, only the run's unchanged tool names.
   */
  assertProviderPayload(names: Array<string>): void
  /**
   * Runs one cell. Resolves to a `CodeModeResult`; never rejects for anything
   * the model caused.
   */
  exec(input: unknown, call?: { toolCallId?: string; signal?: AbortSignal }): Promise<CodeModeResult>
  /**
   * Resumes a suspended run: `input` is `{runId}` (or `{run_id}`). Resolves
   * to a `CodeModeResult`; never rejects for anything the model caused.
   */
  wait(input: unknown, call?: { toolCallId?: string; signal?: AbortSignal }): Promise<CodeModeResult>
}

/**
 * Removes every namespace `pluginId` registered (rollback or uninstall).
 * Runs prepared before keep the namespaces they saw.
 */
export declare function clearCodeModeNamespacesForPlugin(pluginId: string): void

/** Removes every registered namespace (between test cases). */
export declare function clearCodeModeNamespacesForTest(): void

/** The resolved `tools.codeMode` configuration: every field present and in range. */
export interface CodeModeConfig {
  enabled: boolean
  timeoutMs: number
  memoryLimitBytes: number
  maxOutputBytes: number
  maxSnapshotBytes: number
  maxPendingToolCalls: number
  snapshotTtlSeconds: number
  searchDefaultLimit: number
  maxSearchLimit: number
  languages: Array<'javascript' | 'typescript'>
  /**
   * Nested-call inputs are checked against their tool's schema before the
   * executor sees them.
   */
  validateToolInputs: boolean
}

/** Process-wide diagnostics of the addon. */
export declare function codeModeDiagnostics(): CodeModeDiagnostics

/** What the addon has loaded or started in this process. */
export interface CodeModeDiagnostics {
  /**
   * Whether the TypeScript machinery (swc) has been initialised. A process
   * that only runs JavaScript cells never initialises it.
   */
  typescriptInitialized: boolean
  /**
   * Worker threads the watchdog has abandoned in this process: each was
   * stuck in one builtin call past its run's deadline (plus a grace
   * period), so its call was answered from outside and a fresh worker took
   * its place.
   */
  abandonedWorkers: number
  /**
   * Abandoned workers still finishing that call. While eight of them that
   * were replaced are running, the process stops replacing them.
   */
  abandonedWorkersRunning: number
  /**
   * QuickJS runtimes retired in this process instead of freed normally:
   * the engine's teardown found objects it had leaked (an engine bug a
   * cell reached, for example through running out of memory at an
   * unlucky allocation). The runtime's memory was released all the same,
   * and the cell, when it had not been answered yet, got `internal_error`.
   */
  retiredVms: number
  /**
   * Execs and waits the watchdog answered before any worker started them:
   * their budget ended (or they were aborted) while they waited for one.
   */
  answeredInQueue: number
  /**
   * Tools whose input schema did not compile, so their inputs are not
   * validated (the newest 64, one sentence each naming the tool).
   */
  schemaProblems: Array<string>
  /** Sandbox processes running now (`isolation: 'process'`). */
  sandboxProcesses: number
  /** Sandbox processes started in this process, replacements included. */
  sandboxStarts: number
  /** Sandbox processes started to replace one that stopped. */
  sandboxRestarts: number
  /**
   * Sandbox processes that stopped while in use: crashed, were killed,
   * stopped answering, or wrote what the addon could not accept. Each
   * failed only the runs it held (`runtime_unavailable`).
   */
  sandboxFailures: number
}

/**
 * Hook metadata of an exec input: `{toolKind: "code_mode_exec",
 * toolInputKind?}`; `javascript` when no language is given, omitted for an
 * unknown one.
 */
export declare function codeModeHookMetadata(input: unknown): { toolKind: 'code_mode_exec'; toolInputKind?: 'javascript' | 'typescript' }

/**
 * Creates a code-mode runtime. `config` is the raw global `tools.codeMode` value;
 * `workerThreads` defaults to the number of cores (1..16); `isolation`
 * says where cells run (`docs/isolation.md`).
 */
export declare function createCodeMode(options?: { config?: unknown; workerThreads?: number; isolation?: 'thread' | 'process'; sandboxProcesses?: number; sandboxBinary?: string }): CodeMode

/**
 * Marks a scope member as callable: the guest's call runs `toolName` (one of
 * the namespace's `requiredToolNames`) through the gateway's `executeTool`,
 * with the input `inputMapper(args)` returns (default: the first argument,
 * or `{}`).
 */
export declare function createCodeModeNamespaceTool(toolName: string, inputMapper?: (args: unknown[]) => unknown): NamespaceToolMarker

/** The registered namespaces, in registration order. */
export declare function listCodeModeNamespaces(): { id: string; pluginId: string; globalName: string }[]

/**
 * Turns `onEvent` events into transcript messages: for each finished nested
 * call (in start order), an assistant message with the tool call and a
 * tool-result message, to be placed after the parent exec's result. With
 * `parentToolCallId`, only that exec/wait call's nested calls are kept.
 */
export declare function nestedCallTranscript(events: CodeModeEvent[], parentToolCallId?: string): NestedCallTranscriptMessage[]

/**
 * Registers a plugin namespace: a frozen global `globalName` in every cell
 * of a run whose catalog holds each of `requiredToolNames` as a tool of
 * plugin `pluginId`. Throws an Error naming the field and the rule for an
 * empty id or pluginId, a `globalName` that is not an identifier, reserved,
 * or a global of the guest or of Node, a missing `createScope`, empty
 * `requiredToolNames`, and an id or globalName already registered.
 */
export declare function registerCodeModeNamespaceForPlugin(pluginId: string, registration: NamespaceRegistration): void

/**
 * Resolves raw `tools.codeMode` values (a boolean or an object each): the agent's
 * value is shallow-merged over the global one, then defaults and clamps apply.
 */
export declare function resolveCodeModeConfig(global?: unknown, agent?: unknown): CodeModeConfig
