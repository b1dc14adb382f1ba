// Written from the core's records (crates/code-mode-core/src/records.rs): do not edit.
// `cargo test -p code-mode-core boundary` checks it; run it with
// UPDATE_BOUNDARY=1 to write it again.

export type ToolColumns = { names: Array<string>, labels: Array<string | null>, descriptions: Array<string | null>, 
/**
 * 0 openclaw, 1 mcp, 2 client.
 */
sources: Array<number>, sourceNames: Array<string | null>, 
/**
 * 1 directOnly, 2 replaySafe.
 */
flags: Array<number>, 
/**
 * `mcp.server` of each MCP tool.
 */
servers: Array<string | null>, 
/**
 * `mcp.tool` of each MCP tool.
 */
mcpTools: Array<string | null>, 
/**
 * `mcp.operation`, when given.
 */
operations: Array<string | null>, 
/**
 * Each tool's input schema, as the JSON it is (null when absent or left
 * out).
 */
parameters: unknown[], 
/**
 * Why each schema left out was left out; null when none was.
 */
problems: Array<string | null> | null, };

export type ScopeProblemKind = "create_failed" | "not_object" | "function" | "then" | "cycle" | "unsafe_key" | "duplicate_key" | "too_deep" | "too_large" | "too_many_functions" | "foreign_tool" | "unsupported" | "threw";

export type ScopeProblem = { index: number, kind: ScopeProblemKind, path: Array<string>, detail: string, };

export type ScopesDone = "ready" | "problem" | "stopped";

export type ToolSource = "openclaw" | "mcp" | "client";

export type CallKind = "call" | "mcp" | "namespace" | "yield" | "setTimeout" | "setInterval";

export type NamespaceTarget = { id: string, path: string, 
/**
 * The function as the cell names it (`Issues.update`), for messages.
 */
callee: string, };

export type NestedCall = { 
/**
 * The run's key of the call (`CallKey`).
 */
key: number, kind: CallKind, 
/**
 * Catalog id, e.g. `openclaw:core:read`.
 */
toolId: string, name: string, source: ToolSource, sourceName: string | null, toolCallId: string, parentToolCallId: string | null, 
/**
 * The parked run's id, once the run has parked (set when the call is
 * handed to the host).
 */
codeModeRunId: string | null, 
/**
 * A plugin namespace call: the guest's arguments are its input (a JSON
 * array), which the host checks and maps, and the call resolves to the
 * result's `details` when it has them.
 */
namespace: NamespaceTarget | null, 
/**
 * Why its input was refused (its schema): the host shows the call as a
 * failed nested call with this message and never starts the tool.
 */
rejection: string | null, };

export type SourceCounts = { openclaw: number, mcp: number, client: number, };

export type PluginTool = { pluginId: string, name: string, };

export type ToolsOutline = { 
/**
 * Tools in all.
 */
count: number, 
/**
 * Distinct `mcp.server` names of the catalog's MCP tools.
 */
mcpServers: Array<string>, 
/**
 * The tools plugin namespaces require that the catalog holds.
 */
pluginTools: Array<PluginTool>, 
/**
 * The catalog's tools per source.
 */
sources: SourceCounts, };

export type Registration = { id: string, pluginId: string, globalName: string, description: string | null, prompt: string | null, requiredToolNames: Array<string>, };

export type Scanned = { table: unknown, direct: number[], outline: string, };

export type HostFunctions = { start: Function, abort: Function, warn: Function, deliver: Function, checked: Function, };

export type PrepareFunctions = { scan: Function, serialize: Function, stream: Function, later: Function, };

export type NamespaceFunctions = { register: Function, tool: Function, clearPlugin: Function, clearAll: Function, list: Function, snapshot: Function, bind: Function, };

export type Settled = { keys: number[], oks: boolean[], payloads: string[], };
