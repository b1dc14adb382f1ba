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
