//! TypeScript-style declarations of the `MCP` namespace: `mcp/index.d.ts`,
//! one `mcp/<server>.d.ts` per server, and the headers `$api` returns.
