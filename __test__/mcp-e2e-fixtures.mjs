// End to end with a real MCP server over stdio (docs/mcp.md), the setup shared
// by __test__/mcp-e2e-*.test.mjs (catalog, api, calls, parking): the
// reference server `@modelcontextprotocol/server-everything` runs as a child
// process of each test file, the SDK's Client talks to it, and the run's
// `executeTool` routes `mcp:` catalog ids to that client, like a gateway does.
// Everything else in the run (core, plugin, client and direct-only tools) is
// in-process.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { binding } from './helpers.mjs'

const require = createRequire(import.meta.url)

/** The server name the gateway gives server-everything (`mcp.server`). */
export const SERVER = 'everything'
/** A tool the gateway's policy denies: it is left out of the run's tools. */
export const DENIED_MCP_TOOL = 'get-env'
/** The long-running tool and the seconds it runs when the run must park. */
export const LONG_TOOL = 'trigger-long-running-operation'
export const LONG_SECONDS = 3
/** The exec budget of the parking runs: a few times shorter than LONG_SECONDS. */
export const PARK_TIMEOUT_MS = 1000

/** Small object schemas of the resource and prompt operations. */
export const OPERATIONS = [
  { operation: 'resources_list', description: 'List the resources of the server', parameters: { type: 'object', properties: { cursor: { type: 'string' } } } },
  { operation: 'resources_read', description: 'Read a resource by URI', parameters: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] } },
  { operation: 'prompts_list', description: 'List the prompts of the server', parameters: { type: 'object', properties: { cursor: { type: 'string' } } } },
  {
    operation: 'prompts_get',
    description: 'Get a prompt with its arguments',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string' }, arguments: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['name'],
    },
  },
]

/** The run's non-MCP tools, with what the gateway runs for each (by catalog id). */
const LOCAL_TOOLS = [
  { name: 'read', description: 'Read a file of the workspace', source: 'openclaw', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'issues_list', label: 'List issues', description: 'List the open issues of a repository', source: 'openclaw', sourceName: 'issues-plugin' },
  { name: 'select_file', description: 'Ask the user to pick a file in the client app', source: 'client', sourceName: 'app' },
  { name: 'computer', description: 'Screen, mouse and keyboard (results are images)', source: 'openclaw', directOnly: true },
  { name: 'tool_search', description: 'Legacy tool search control', source: 'openclaw' },
]
const LOCAL_IMPLEMENTATIONS = {
  'openclaw:core:read': (input) => ({ path: input.path, text: `contents of ${input.path}` }),
  'openclaw:issues-plugin:issues_list': (input) => ({ repo: input.repo, issues: [{ number: 7, title: 'MCP e2e' }] }),
  'client:app:select_file': () => ({ selected: 'notes.txt' }),
}
export const CATALOG_IDS = ['openclaw:core:read', 'openclaw:issues-plugin:issues_list', 'client:app:select_file']

/** `get-sum` -> `getSum` (docs/mcp.md, Identifiers). */
export const camel = (name) => name.split(/[^A-Za-z0-9]+/).filter(Boolean).map((part, i) => (i === 0 ? part : part[0].toUpperCase() + part.slice(1))).join('')
export const runToolName = (tool) => `${SERVER}__${tool}`

export let client
let transport
export let serverTools // the server's tools/list, minus the denied tool
export let serverResources
export let serverPrompts
export let TOOLS // the run's tools: MCP tools first here; the catalog sorts by source
let MCP_META // catalog id -> { tool, operation }
export let codeMode

async function listAll(method, key) {
  const items = []
  let cursor
  do {
    const page = await client[method](cursor ? { cursor } : undefined)
    items.push(...page[key])
    cursor = page.nextCursor
  } while (cursor)
  return items
}

/** Starts server-everything and the shared instance: each test file's `before` hook. */
export async function startServer() {
  const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json')
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'))
  const script = path.join(path.dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0])
  transport = new StdioClientTransport({ command: process.execPath, args: [script, 'stdio'], stderr: 'ignore' })
  client = new Client({ name: 'code-mode-e2e', version: '1.0.0' })
  await client.connect(transport)
  // If the process exits before `after` closed the client, the child goes
  // with it (transport.pid is null once the SDK has closed it).
  process.once('exit', () => {
    if (transport.pid != null) {
      try {
        process.kill(transport.pid)
      } catch {}
    }
  })

  serverTools = (await listAll('listTools', 'tools')).filter((tool) => tool.name !== DENIED_MCP_TOOL)
  serverResources = await listAll('listResources', 'resources')
  serverPrompts = await listAll('listPrompts', 'prompts')

  const mcpTools = [
    ...serverTools.map((tool) => ({
      name: runToolName(tool.name),
      description: tool.description ?? '',
      parameters: tool.inputSchema,
      source: 'mcp',
      sourceName: SERVER,
      mcp: { server: SERVER, tool: tool.name },
    })),
    ...OPERATIONS.map(({ operation, description, parameters }) => ({
      name: runToolName(operation),
      description,
      parameters,
      source: 'mcp',
      sourceName: SERVER,
      mcp: { server: SERVER, tool: operation, operation },
    })),
  ]
  TOOLS = [...mcpTools, ...LOCAL_TOOLS]
  MCP_META = new Map(mcpTools.map((t) => [`mcp:${t.mcp.server}:${t.mcp.tool}`, { tool: t.mcp.tool, operation: t.mcp.operation ?? 'tool' }]))
  codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 20000 }, workerThreads: 2 })
}

/** Closes the instance, then the client and its child: each test file's `after` hook. */
export async function stopServer() {
  await codeMode?.close()
  // Ends the child's stdin, then SIGTERM, then SIGKILL (the SDK's close).
  await client?.close()
}

/** The gateway's MCP path: one SDK request per operation, cancelled by `call.signal`. */
function callMcp(call) {
  const meta = MCP_META.get(call.id)
  if (!meta) throw new Error(`no MCP tool ${call.id}`)
  const input = call.input ?? {}
  const options = { signal: call.signal }
  const cursor = input.cursor ? { cursor: input.cursor } : undefined
  switch (meta.operation) {
    case 'tool':
      return client.callTool({ name: meta.tool, arguments: input }, undefined, options)
    case 'resources_list':
      return client.listResources(cursor, options)
    case 'resources_read':
      return client.readResource({ uri: input.uri }, options)
    case 'prompts_list':
      return client.listPrompts(cursor, options)
    case 'prompts_get':
      return client.getPrompt({ name: input.name, arguments: input.arguments }, options)
    default:
      throw new Error(`unknown operation ${meta.operation}`)
  }
}

/**
 * A run over the shared instance with a recording gateway: `calls` (every
 * NestedToolCall), `mcpSettled` (how each SDK request settled), `events`.
 * `onMcpCall(call)` runs after an MCP request went out.
 */
export function prepare({ agentConfig, onMcpCall } = {}) {
  const calls = []
  const mcpSettled = []
  const events = []
  const executeTool = async (call) => {
    calls.push(call)
    if (!call.id.startsWith('mcp:')) {
      const implementation = LOCAL_IMPLEMENTATIONS[call.id]
      if (!implementation) throw new Error(`no such tool: ${call.id}`)
      return implementation(call.input ?? {})
    }
    const request = callMcp(call)
    const settled = request.then(
      (value) => ({ call: call.toolCallId, ok: true, value }),
      (error) => ({ call: call.toolCallId, ok: false, error }),
    )
    mcpSettled.push(settled)
    onMcpCall?.(call)
    return request
  }
  const run = codeMode.prepareRun({
    runId: 'agent-run-1',
    sessionId: 'session-1',
    tools: TOOLS,
    agentConfig,
    executeTool,
    onEvent: (event) => events.push(event),
  })
  return { run, calls, mcpSettled, events }
}

/** The completed value of a cell, failing with the whole result otherwise. */
export async function value(run, code, call = {}) {
  const result = await run.exec({ code }, call)
  assert.equal(result.status, 'completed', JSON.stringify(result))
  return result.value
}

export const textOf = (result) => result.content.map((c) => c.text).join('\n')
