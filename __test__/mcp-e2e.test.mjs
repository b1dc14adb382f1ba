// End to end with a real MCP server over stdio (docs/mcp.md): the
// reference server `@modelcontextprotocol/server-everything` runs as a child
// process, the SDK's Client talks to it, and the run's `executeTool` routes
// `mcp:` catalog ids to that client, like a gateway does. Everything else in
// the run (core, plugin, client and direct-only tools) is in-process.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { abortReport, ATTEMPT, binding, watchSignal } from './helpers.mjs'

const require = createRequire(import.meta.url)

/** The server name the gateway gives server-everything (`mcp.server`). */
const SERVER = 'everything'
/** A tool the gateway's policy denies: it is left out of the run's tools. */
const DENIED_MCP_TOOL = 'get-env'
/** The long-running tool and the seconds it runs when the run must park. */
const LONG_TOOL = 'trigger-long-running-operation'
const LONG_SECONDS = 3
/** The exec budget of the parking runs: a few times shorter than LONG_SECONDS. */
const PARK_TIMEOUT_MS = 1000

/** Small object schemas of the resource and prompt operations. */
const OPERATIONS = [
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
const CATALOG_IDS = ['openclaw:core:read', 'openclaw:issues-plugin:issues_list', 'client:app:select_file']

/** `get-sum` -> `getSum` (docs/mcp.md, Identifiers). */
const camel = (name) => name.split(/[^A-Za-z0-9]+/).filter(Boolean).map((part, i) => (i === 0 ? part : part[0].toUpperCase() + part.slice(1))).join('')
const runToolName = (tool) => `${SERVER}__${tool}`

let client
let transport
let serverTools // the server's tools/list, minus the denied tool
let serverResources
let serverPrompts
let TOOLS // the run's tools: MCP tools first here; the catalog sorts by source
let MCP_META // catalog id -> { tool, operation }
let codeMode

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

before(async () => {
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
})

after(async () => {
  await codeMode?.close()
  // Ends the child's stdin, then SIGTERM, then SIGKILL (the SDK's close).
  await client?.close()
})

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
function prepare({ agentConfig, onMcpCall } = {}) {
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
async function value(run, code, call = {}) {
  const result = await run.exec({ code }, call)
  assert.equal(result.status, 'completed', JSON.stringify(result))
  return result.value
}

const textOf = (result) => result.content.map((c) => c.text).join('\n')

describe('the model-visible surface', () => {
  test('a disabled config leaves the tool list unchanged', async () => {
    for (const config of [{ enabled: false }, { timeoutMs: 500 }, false]) {
      const disabled = binding.createCodeMode({ config })
      try {
        const run = disabled.prepareRun({ runId: 'r', tools: TOOLS, executeTool: () => null })
        assert.equal(run.active, false)
        assert.deepEqual(run.modelTools.map((t) => t.name), TOOLS.map((t) => t.name))
        assert.deepEqual(run.catalog, [])
        run.assertProviderPayload(TOOLS.map((t) => t.name))
        assert.throws(() => run.assertProviderPayload(['exec', 'wait']))
      } finally {
        await disabled.close()
      }
    }
  })

  test('enabled: exec, wait and the direct-only tool; the catalog has no MCP tool', () => {
    const { run } = prepare()
    assert.equal(run.active, true)
    assert.deepEqual(run.modelTools.map((t) => t.name), ['exec', 'wait', 'computer'])
    assert.deepEqual(run.catalog.map((t) => t.id), CATALOG_IDS)
    assert.deepEqual(run.diagnostics, [])
    run.assertProviderPayload(['wait', 'exec', 'computer'])
    assert.throws(() => run.assertProviderPayload(['exec', 'wait', runToolName('echo')]), /everything__echo/)
    assert.throws(() => run.assertProviderPayload(['exec', 'wait', 'tool_search']), /tool_search/)
    const exec = run.modelTools[0].description
    assert.match(exec, /API\.list\(prefix\?\)/)
    assert.match(exec, /MCP\.<server>\.<tool>/)
    assert.match(exec, /MCP servers: everything/)
  })
})

describe('the catalog hides MCP tools', () => {
  test('ALL_TOOLS holds every non-MCP catalog tool and tools.* never find MCP tools', async () => {
    const { run, calls, events } = prepare()
    const probes = serverTools.map((t) => t.name)
    const result = await value(
      run,
      `${ATTEMPT}
const probes = ${JSON.stringify(probes)}
const found = []
for (const query of ['everything', 'mcp', 'echo', 'sum', 'resources', 'prompts', ...probes]) {
  for (const entry of await tools.search(query, { limit: 50 })) found.push(entry.id)
}
const everything = (await tools.search('', { limit: 50 })).map((e) => e.id)
return {
  all: ALL_TOOLS.map((t) => t.id),
  frozen: Object.isFrozen(ALL_TOOLS),
  everything,
  mcpFound: found.filter((id) => !id.startsWith('openclaw:') && !id.startsWith('client:')),
  describeById: await attempt(() => tools.describe('mcp:everything:echo')),
  describeByName: await attempt(() => tools.describe('everything__echo')),
  callById: await attempt(() => tools.call('mcp:everything:get-sum', { a: 1, b: 2 })),
  callByName: await attempt(() => tools.call('everything__get-sum', { a: 1, b: 2 })),
  convenience: typeof tools.everything__echo,
}`,
    )
    assert.deepEqual(result.all, CATALOG_IDS)
    assert.equal(result.frozen, true)
    assert.deepEqual([...result.everything].sort(), [...CATALOG_IDS].sort())
    assert.deepEqual(result.mcpFound, [])
    assert.match(result.describeById.error, /^Unknown tool id: mcp:everything:echo\./)
    assert.match(result.describeByName.error, /^Unknown tool id: everything__echo\./)
    assert.match(result.callById.error, /^Unknown tool id: mcp:everything:get-sum\./)
    assert.match(result.callByName.error, /^Unknown tool id: everything__get-sum\./)
    assert.equal(result.convenience, 'undefined')
    assert.deepEqual(calls, [])
    assert.deepEqual(events, [])
  })

  test('search, describe and call reach the core, plugin and client tools; denied tools stay uncallable', async () => {
    const { run, calls } = prepare()
    const result = await value(
      run,
      `${ATTEMPT}
const [reader] = await tools.search('read file')
const described = await tools.describe('openclaw:issues-plugin:issues_list')
return {
  reader: reader.id,
  required: (await tools.describe(reader.id)).parameters.required,
  described: { id: described.id, label: described.label, sourceName: described.sourceName, parameters: described.parameters },
  read: await tools.read({ path: 'README.md' }),
  issues: await tools.call('openclaw:issues-plugin:issues_list', { repo: 'openclaw/code-mode' }),
  selected: await tools.call('select_file', {}),
  directOnly: await attempt(() => tools.call('computer', {})),
  legacy: await attempt(() => tools.call('tool_search', {})),
  deniedCore: await attempt(() => tools.call('openclaw:core:delete_file', {})),
  deniedMcp: await attempt(() => tools.call('mcp:everything:${DENIED_MCP_TOOL}', {})),
  deniedMcpFunction: typeof MCP.everything.${camel(DENIED_MCP_TOOL)},
}`,
    )
    assert.equal(result.reader, 'openclaw:core:read')
    assert.deepEqual(result.required, ['path'])
    assert.deepEqual(result.described, { id: 'openclaw:issues-plugin:issues_list', label: 'List issues', sourceName: 'issues-plugin', parameters: {} })
    assert.deepEqual(result.read, { path: 'README.md', text: 'contents of README.md' })
    assert.deepEqual(result.issues, { repo: 'openclaw/code-mode', issues: [{ number: 7, title: 'MCP e2e' }] })
    assert.deepEqual(result.selected, { selected: 'notes.txt' })
    for (const [key, id] of [['directOnly', 'computer'], ['legacy', 'tool_search'], ['deniedCore', 'openclaw:core:delete_file'], ['deniedMcp', `mcp:everything:${DENIED_MCP_TOOL}`]]) {
      assert.equal(result[key].plainError, true, key)
      assert.ok(result[key].error.startsWith(`Unknown tool id: ${id}.`), `${key}: ${result[key].error}`)
    }
    assert.equal(result.deniedMcpFunction, 'undefined')
    assert.deepEqual(calls.map((c) => c.id), ['openclaw:core:read', 'openclaw:issues-plugin:issues_list', 'client:app:select_file'])
    assert.deepEqual(calls.map((c) => [c.source, c.sourceName]), [['openclaw', undefined], ['openclaw', 'issues-plugin'], ['client', 'app']])
  })
})

/**
 * The server file as a model reads it is also valid TypeScript: it compiles
 * under --strict with a program that calls the real tools the way the
 * declarations say, and a call that leaves out a required key does not.
 */
function typeCheck(declarations) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'code-mode-dts-'))
  try {
    writeFileSync(path.join(dir, `${SERVER}.d.ts`), declarations)
    writeFileSync(
      path.join(dir, 'use.ts'),
      `export async function use(): Promise<unknown[]> {
  const sum: McpToolResult = await MCP.${SERVER}.getSum({ a: 1, b: 2 })
  // @ts-expect-error b is required
  await MCP.${SERVER}.getSum({ a: 1 })
  // @ts-expect-error messageType is one of three literals
  await MCP.${SERVER}.getAnnotatedMessage({ messageType: 'loud' })
  const read = await MCP.${SERVER}.resources.read({ uri: 'demo://resource/static/document/architecture.md' })
  const prompt = await MCP.${SERVER}.prompts.get({ name: 'args-prompt', arguments: { city: 'Lisbon' } })
  const header: McpApiHeader = await MCP.${SERVER}.$api('getSum', { schema: true })
  return [sum.content, read.contents, prompt.messages, header.schemas]
}
`,
    )
    const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc')
    const args = ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022', '--types', '', '--module', 'esnext', path.join(dir, `${SERVER}.d.ts`), path.join(dir, 'use.ts')]
    try {
      execFileSync(process.execPath, [tsc, ...args], { encoding: 'utf8', stdio: 'pipe' })
    } catch (error) {
      assert.fail(`tsc rejected the declarations:\n${error.stdout}${error.stderr}\n${declarations}`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('declarations and $api, answered without a tool call', () => {
  test('API.list and API.read serve mcp/index.d.ts and the server file', async () => {
    const { run, calls, events } = prepare()
    const result = await value(
      run,
      `${ATTEMPT}
const listed = API.list('mcp')
return {
  sync: !(listed instanceof Promise),
  mcp: listed,
  slash: API.list('mcp/'),
  all: API.list(),
  partial: API.list('mc'),
  awaited: await API.list('mcp/'),
  files: listed.files.map((f) => API.read(f.path)),
  unknown: await attempt(() => API.read('mcp/nope.d.ts')),
  dotdot: await attempt(() => API.read('mcp/../mcp/index.d.ts')),
}`,
    )
    assert.equal(result.sync, true)
    const paths = ['mcp/index.d.ts', `mcp/${SERVER}.d.ts`]
    assert.deepEqual(result.mcp.files.map((f) => f.path), paths)
    assert.deepEqual(result.slash, result.mcp)
    assert.deepEqual(result.all, result.mcp)
    assert.deepEqual(result.partial, { files: [] })
    assert.deepEqual(result.awaited, result.mcp)
    for (const [i, file] of result.files.entries()) {
      const listed = result.mcp.files[i]
      assert.equal(file.path, listed.path)
      assert.equal(file.description, listed.description)
      assert.equal(typeof file.content, 'string')
      assert.equal(file.bytes, Buffer.byteLength(file.content, 'utf8'))
      assert.equal(listed.bytes, file.bytes)
    }
    const [index, server] = result.files
    assert.match(index.content, /\bMCP\b/)
    assert.match(index.content, new RegExp(`\\b${SERVER}\\b`))
    assert.match(server.content, new RegExp(`declare namespace MCP\\.${SERVER}\\b`))
    for (const tool of serverTools) assert.match(server.content, new RegExp(`\\b${camel(tool.name)}\\b`), tool.name)
    assert.match(server.content, /\bresources\b/)
    assert.match(server.content, /\bprompts\b/)
    assert.doesNotMatch(server.content, new RegExp(`\\b${camel(DENIED_MCP_TOOL)}\\b`))
    typeCheck(server.content)
    assert.equal(result.unknown.plainError, true)
    assert.equal(result.unknown.error, 'Unknown API file: mcp/nope.d.ts. API.list() lists the files.')
    assert.match(result.dotdot.error, /^API path mcp\/\.\.\/mcp\/index\.d\.ts is not allowed/)
    assert.deepEqual(calls, [])
    assert.deepEqual(events, [])
  })

  test('MCP.$api() lists the server; MCP.everything.$api(tool, {schema}) returns its schema', async () => {
    const { run, calls } = prepare()
    const result = await value(
      run,
      `return {
  root: await MCP.$api(),
  byName: await MCP.everything.$api('get-sum', { schema: true }),
  byMethod: await MCP.everything.$api('getSum', { schema: true }),
  noSchema: await MCP.everything.$api('getSum'),
  read: await MCP.everything.$api('resources.read', { schema: true }),
  server: await MCP.everything.$api(),
}`,
    )
    const toolCount = serverTools.length + OPERATIONS.length
    assert.equal(result.root.kind, 'mcp_api')
    assert.equal(result.root.scope, 'root')
    assert.equal(typeof result.root.header, 'string')
    assert.deepEqual(result.root.servers, [{ identifier: SERVER, serverName: SERVER, toolCount }])

    const sum = serverTools.find((t) => t.name === 'get-sum')
    assert.deepEqual(result.byMethod, result.byName)
    assert.equal(result.byName.kind, 'mcp_api')
    assert.equal(result.byName.scope, 'tool')
    assert.deepEqual(
      result.byName.tools.map(({ method, path: p, mcpTool, description }) => ({ method, path: p, mcpTool, description })),
      [{ method: 'getSum', path: ['getSum'], mcpTool: 'get-sum', description: sum.description }],
    )
    assert.deepEqual(result.byName.schemas, { getSum: sum.inputSchema })
    assert.equal(result.noSchema.schemas, undefined)
    assert.deepEqual(result.read.tools.map((t) => t.path), [['resources', 'read']])
    assert.deepEqual(result.read.schemas, { 'resources.read': OPERATIONS[1].parameters })

    assert.equal(result.server.scope, 'server')
    assert.deepEqual(
      result.server.tools.map((t) => t.method).sort(),
      [...serverTools.map((t) => camel(t.name)), 'prompts.get', 'prompts.list', 'resources.list', 'resources.read'].sort(),
    )
    assert.deepEqual(calls, [])
  })
})

describe('MCP calls reach the real server', () => {
  test('echo and get-sum answer through MCP.everything.<tool>; events name the parent exec', async () => {
    const { run, calls, events } = prepare()
    const result = await run.exec(
      {
        language: 'typescript',
        code: `
const echoed = await MCP.everything.echo({ message: 'hello from a cell' })
const sum = await MCP.everything.getSum({ a: 19, b: 23 })
const links = await MCP.everything.getResourceLinks({})
text((sum.content[0] as { text: string }).text)
return { echoed, sum, links: links.content.length }`,
      },
      { toolCallId: 'call_mcp' },
    )
    assert.equal(result.status, 'completed', JSON.stringify(result))
    // The server's real answers, as its own client gets them.
    const direct = {
      echoed: await client.callTool({ name: 'echo', arguments: { message: 'hello from a cell' } }),
      sum: await client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } }),
    }
    assert.deepEqual(result.value.echoed, direct.echoed)
    assert.deepEqual(result.value.sum, direct.sum)
    assert.equal(textOf(result.value.echoed), 'Echo: hello from a cell')
    assert.equal(textOf(result.value.sum), 'The sum of 19 and 23 is 42.')
    assert.deepEqual(result.output, [{ type: 'text', text: 'The sum of 19 and 23 is 42.' }])
    // get-resource-links: its schema's default (count 3) was filled in.
    assert.deepEqual(calls[2].input, { count: 3 })
    assert.ok(result.value.links >= 3)

    assert.deepEqual(
      calls.map((c) => ({ id: c.id, name: c.name, source: c.source, sourceName: c.sourceName, input: c.input, parent: c.parentToolCallId, signal: c.signal instanceof AbortSignal })),
      [
        { id: 'mcp:everything:echo', name: 'everything__echo', source: 'mcp', sourceName: SERVER, input: { message: 'hello from a cell' }, parent: 'call_mcp', signal: true },
        { id: 'mcp:everything:get-sum', name: 'everything__get-sum', source: 'mcp', sourceName: SERVER, input: { a: 19, b: 23 }, parent: 'call_mcp', signal: true },
        { id: 'mcp:everything:get-resource-links', name: 'everything__get-resource-links', source: 'mcp', sourceName: SERVER, input: { count: 3 }, parent: 'call_mcp', signal: true },
      ],
    )
    const ids = ['code_mode:call_mcp:everything__echo:1', 'code_mode:call_mcp:everything__get-sum:2', 'code_mode:call_mcp:everything__get-resource-links:3']
    assert.deepEqual(calls.map((c) => c.toolCallId), ids)
    assert.deepEqual(
      events.map((e) => [e.type, e.toolCallId, e.parentToolCallId, e.toolId, e.name, e.ok]),
      [
        ['nested_call_started', ids[0], 'call_mcp', 'mcp:everything:echo', 'everything__echo', undefined],
        ['nested_call_finished', ids[0], 'call_mcp', 'mcp:everything:echo', 'everything__echo', true],
        ['nested_call_started', ids[1], 'call_mcp', 'mcp:everything:get-sum', 'everything__get-sum', undefined],
        ['nested_call_finished', ids[1], 'call_mcp', 'mcp:everything:get-sum', 'everything__get-sum', true],
        ['nested_call_started', ids[2], 'call_mcp', 'mcp:everything:get-resource-links', 'everything__get-resource-links', undefined],
        ['nested_call_finished', ids[2], 'call_mcp', 'mcp:everything:get-resource-links', 'everything__get-resource-links', true],
      ],
    )
    const finished = events.filter((e) => e.type === 'nested_call_finished')
    assert.deepEqual(finished[0].result, direct.echoed)
    assert.ok(finished.every((e) => typeof e.durationMs === 'number' && e.durationMs >= 0))
    // The transcript projection puts them under the exec.
    const transcript = binding.nestedCallTranscript(events, 'call_mcp')
    assert.deepEqual(
      transcript.map((m) => (m.role === 'assistant' ? ['call', m.content[0].id, m.content[0].name, m.toolId] : ['result', m.toolCallId, m.isError])),
      [
        ['call', ids[0], 'everything__echo', 'mcp:everything:echo'],
        ['result', ids[0], false],
        ['call', ids[1], 'everything__get-sum', 'mcp:everything:get-sum'],
        ['result', ids[1], false],
        ['call', ids[2], 'everything__get-resource-links', 'mcp:everything:get-resource-links'],
        ['result', ids[2], false],
      ],
    )
    assert.ok(transcript.every((m) => m.parentToolCallId === 'call_mcp' && m.codeModeNested === true))
  })

  test('resources.list/read and prompts.list/get', async () => {
    const { run, calls } = prepare()
    const uri = serverResources[0].uri
    const result = await value(
      run,
      `const resources = await MCP.everything.resources.list({})
const read = await MCP.everything.resources.read({ uri: resources.resources[0].uri })
const prompts = await MCP.everything.prompts.list()
const prompt = await MCP.everything.prompts.get({ name: 'args-prompt', arguments: { city: 'Lisbon', state: 'Estremadura' } })
return { uris: resources.resources.map((r) => r.uri), read, prompts: prompts.prompts.map((p) => p.name), prompt }`,
    )
    assert.deepEqual(result.uris, serverResources.map((r) => r.uri))
    assert.deepEqual(result.prompts, serverPrompts.map((p) => p.name))
    assert.deepEqual(result.read, await client.readResource({ uri }))
    assert.equal(result.read.contents[0].uri, uri)
    assert.ok(result.read.contents[0].text.length > 0)
    assert.deepEqual(result.prompt, await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon', state: 'Estremadura' } }))
    assert.match(result.prompt.messages[0].content.text, /Lisbon/)
    assert.deepEqual(
      calls.map((c) => [c.id, c.input]),
      [
        ['mcp:everything:resources_list', {}],
        ['mcp:everything:resources_read', { uri }],
        ['mcp:everything:prompts_list', {}],
        ['mcp:everything:prompts_get', { name: 'args-prompt', arguments: { city: 'Lisbon', state: 'Estremadura' } }],
      ],
    )
  })

  test('an input the schema refuses never reaches the server; with validation off, its isError result resolves as sent', async () => {
    const checked = prepare()
    const refused = await value(checked.run, `${ATTEMPT}\nreturn await attempt(() => MCP.everything.getSum({ a: 'one', b: 1 }))`)
    assert.equal(
      refused.error,
      'Invalid input for MCP.everything.getSum: input.a: expected number, got "one". MCP.everything.$api("getSum", { schema: true }) shows its input schema.',
    )
    assert.equal(checked.calls.length, 0)
    const { run, calls } = prepare({ agentConfig: { validateToolInputs: false } })
    const result = await value(run, "return await MCP.everything.getSum({ a: 'one', b: 1 })")
    assert.deepEqual(result, await client.callTool({ name: 'get-sum', arguments: { a: 'one', b: 1 } }))
    assert.equal(result.isError, true)
    assert.match(textOf(result), /expected number/)
    assert.deepEqual(calls.map((c) => c.input), [{ a: 'one', b: 1 }])
  })

  test('an MCP error reaches the guest as a plain Error and the event says ok: false', async () => {
    const { run, events } = prepare()
    const result = await value(run, `${ATTEMPT}\nreturn await attempt(() => MCP.everything.resources.read({ uri: 'demo://no/such/resource' }))`, { toolCallId: 'call_err' })
    assert.equal(result.plainError, true)
    assert.equal(typeof result.error, 'string')
    assert.match(result.error, /no\/such\/resource|not found/i)
    const finished = events.find((e) => e.type === 'nested_call_finished')
    assert.equal(finished.ok, false)
    assert.equal(finished.error, result.error)
    assert.equal(finished.parentToolCallId, 'call_err')
  })
})

describe('the one-object rule and required keys', () => {
  test('bad arguments are refused inside the cell, before any tool call', async () => {
    const { run, calls, events } = prepare()
    const result = await value(
      run,
      `${ATTEMPT}
return {
  string: await attempt(() => MCP.everything.echo('hello')),
  two: await attempt(() => MCP.everything.echo({ message: 'a' }, { message: 'b' })),
  nullArg: await attempt(() => MCP.everything.echo(null)),
  array: await attempt(() => MCP.everything.getSum([1, 2])),
  none: await attempt(() => MCP.everything.echo()),
  oneMissing: await attempt(() => MCP.everything.getSum({ a: 1 })),
  twoMissing: await attempt(() => MCP.everything.getSum({})),
  uri: await attempt(() => MCP.everything.resources.read({})),
}`,
    )
    const one = 'MCP namespace tools accept one object argument.'
    for (const key of ['string', 'two', 'nullArg', 'array']) {
      assert.equal(result[key].error, one, key)
      assert.equal(result[key].plainError, true, key)
    }
    assert.equal(result.none.error, 'Missing required MCP namespace argument: message')
    assert.equal(result.oneMissing.error, 'Missing required MCP namespace argument: b')
    assert.equal(result.twoMissing.error, 'Missing required MCP namespace arguments: a, b')
    assert.equal(result.uri.error, 'Missing required MCP namespace argument: uri')
    assert.equal(result.uri.plainError, true)
    assert.deepEqual(calls, [])
    assert.deepEqual(events, [])
  })

  test('a restart-safe exec that calls an MCP tool fails invalid_input before the call', async () => {
    const { run, calls } = prepare()
    const result = await run.exec({ code: "return await MCP.everything.echo({ message: 'replayed?' })", restartSafe: true })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'invalid_input')
    assert.equal(result.error, 'restart-safe code mode cannot call side-effecting tools.')
    assert.equal(result.replaySafe, true)
    assert.deepEqual(calls, [])
  })
})

describe('a long MCP call parks the run', () => {
  test('exec returns waiting on the MCP call; wait delivers its result and the output after resuming', async () => {
    const { run, calls, events } = prepare({ agentConfig: { timeoutMs: PARK_TIMEOUT_MS } })
    const code = `
text('starting')
const op = await MCP.everything.triggerLongRunningOperation({ duration: ${LONG_SECONDS}, steps: ${LONG_SECONDS} })
const done = op.content[0].text
text('resumed: ' + done)
const sum = await MCP.everything.getSum({ a: 2, b: 3 })
return { done, sum: sum.content[0].text }`
    const first = await run.exec({ code }, { toolCallId: 'call_park' })
    const longId = `code_mode:call_park:${runToolName(LONG_TOOL)}:1`
    assert.equal(first.status, 'waiting', JSON.stringify(first))
    assert.equal(first.reason, 'pending_tools')
    assert.match(first.runId, /^cm_/)
    assert.deepEqual(first.pendingToolCalls, [{ id: longId, method: 'mcp', toolId: `mcp:everything:${LONG_TOOL}` }])
    assert.deepEqual(first.output, [{ type: 'text', text: 'starting' }])
    assert.equal(codeMode.suspendedRunCount(), 1)
    assert.deepEqual(calls.map((c) => [c.id, c.input]), [[`mcp:everything:${LONG_TOOL}`, { duration: LONG_SECONDS, steps: LONG_SECONDS }]])

    // Each wait has a fresh budget of PARK_TIMEOUT_MS; the operation takes
    // LONG_SECONDS, so a few waits come back waiting first. Bounded.
    let result = first
    let waits = 0
    while (result.status === 'waiting') {
      assert.ok(++waits <= 60, 'the run never completed')
      assert.deepEqual(result.pendingToolCalls.map((p) => p.id), [longId])
      if (waits > 1) assert.deepEqual(result.output, [])
      result = await run.wait({ runId: result.runId }, { toolCallId: `call_wait_${waits}` })
    }
    assert.equal(result.status, 'completed', JSON.stringify(result))
    const done = `Long running operation completed. Duration: ${LONG_SECONDS} seconds, Steps: ${LONG_SECONDS}.`
    assert.deepEqual(result.value, { done, sum: 'The sum of 2 and 3 is 5.' })
    assert.deepEqual(result.output, [{ type: 'text', text: `resumed: ${done}` }])
    assert.equal(codeMode.suspendedRunCount(), 0)

    // The call made after resuming names the wait that resumed the run; the
    // long call keeps its exec as parent.
    const finishes = events.filter((e) => e.type === 'nested_call_finished')
    assert.deepEqual(finishes.map((e) => [e.toolId, e.ok]), [[`mcp:everything:${LONG_TOOL}`, true], ['mcp:everything:get-sum', true]])
    assert.equal(finishes[0].toolCallId, longId)
    assert.equal(finishes[0].parentToolCallId, 'call_park')
    assert.deepEqual(finishes[0].result, { content: [{ type: 'text', text: done }] })
    assert.equal(finishes[1].parentToolCallId, `call_wait_${waits}`)
    assert.equal(calls[1].toolCallId, `code_mode:call_wait_${waits}:${runToolName('get-sum')}:2`)
  })
})

describe('abort cancels the MCP request', () => {
  test('aborting the exec while the MCP call is in flight ends aborted and cancels the request', async () => {
    const controller = new AbortController()
    let watch
    const { run, calls, mcpSettled, events } = prepare({
      onMcpCall: (call) => {
        watch = watchSignal(call.signal)
        // The request is on the wire: now the user presses stop.
        controller.abort()
      },
    })
    const result = await run.exec(
      { code: `await MCP.everything.triggerLongRunningOperation({ duration: ${LONG_SECONDS}, steps: 1 }); return 'not reached'` },
      { toolCallId: 'call_abort', signal: controller.signal },
    )
    assert.equal(result.status, 'failed', JSON.stringify(result))
    assert.equal(result.code, 'aborted')
    assert.equal(result.error, 'code mode run was aborted.')
    assert.equal(codeMode.suspendedRunCount(), 0)
    assert.equal(calls.length, 1)
    assert.equal(watch.isAbortSignal, true)
    assert.equal(watch.abortedAtStart, false)
    assert.deepEqual(await abortReport(watch), { fired: true, aborted: true })
    // The SDK rejected the request (it also tells the server with notifications/cancelled).
    const [settled] = await Promise.all(mcpSettled)
    assert.equal(settled.ok, false)
    assert.match(String(settled.error?.message), /AbortError|aborted|cancel/i)
    // The transcript still gets a finish for the call, under the exec.
    assert.deepEqual(
      events.map((e) => [e.type, e.toolCallId, e.parentToolCallId, e.ok, e.error]),
      [
        ['nested_call_started', `code_mode:call_abort:${runToolName(LONG_TOOL)}:1`, 'call_abort', undefined, undefined],
        ['nested_call_finished', `code_mode:call_abort:${runToolName(LONG_TOOL)}:1`, 'call_abort', false, 'code mode run was aborted.'],
      ],
    )
  })

  test('aborting the wait of a parked run cancels the MCP call the exec started', async () => {
    const { run, calls, mcpSettled } = prepare({ agentConfig: { timeoutMs: PARK_TIMEOUT_MS } })
    const first = await run.exec(
      { code: `return await MCP.everything.triggerLongRunningOperation({ duration: ${LONG_SECONDS}, steps: 1 })` },
      { toolCallId: 'call_park_abort' },
    )
    assert.equal(first.status, 'waiting', JSON.stringify(first))
    assert.equal(codeMode.suspendedRunCount(), 1)
    const watch = watchSignal(calls[0].signal)
    const controller = new AbortController()
    const waiting = run.wait({ runId: first.runId }, { toolCallId: 'call_wait_abort', signal: controller.signal })
    controller.abort()
    const result = await waiting
    assert.equal(result.status, 'failed', JSON.stringify(result))
    assert.equal(result.code, 'aborted')
    assert.equal(result.error, 'code mode run was aborted.')
    assert.deepEqual(await abortReport(watch), { fired: true, aborted: true })
    const [settled] = await Promise.all(mcpSettled)
    assert.equal(settled.ok, false)
    assert.match(String(settled.error?.message), /AbortError|aborted|cancel/i)
    assert.equal(codeMode.suspendedRunCount(), 0)
    // The run is gone.
    const again = await run.wait({ runId: first.runId })
    assert.equal(again.status, 'failed')
    assert.equal(again.error, 'code mode run is unavailable or expired.')
  })
})
