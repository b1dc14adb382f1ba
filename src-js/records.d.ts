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
