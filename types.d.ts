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

export interface NestedToolCall {
  /** Catalog id, e.g. "openclaw:core:read". */
  id: string
  name: string
  source: string
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
  /** The gateway's normal tool path. */
  executeTool(call: NestedToolCall): Promise<unknown>
  /** Trajectory + diagnostics. */
  onEvent?(event: CodeModeEvent): void
  /** Passed to namespace createScope(ctx) as ctx.config. */
  scopeContext?: Record<string, unknown>
}

export type Output = { type: 'text'; text: string } | { type: 'json'; value: unknown }

export interface Telemetry {
  catalogSize: number
  sources: { openclaw: number; mcp: number; client: number }
  searchCount: number
  describeCount: number
  callCount: number
  visibleTools: number
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
