// End to end with server-everything (mcp-e2e-fixtures.mjs): the declarations
// (API.list/API.read, checked by tsc) and $api, answered without a tool call.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { camel, DENIED_MCP_TOOL, OPERATIONS, prepare, SERVER, serverTools, startServer, stopServer, value } from './mcp-e2e-fixtures.mjs'
import { ATTEMPT } from './helpers.mjs'

const require = createRequire(import.meta.url)

before(startServer)
after(stopServer)

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
