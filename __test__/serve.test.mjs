// `code-mode serve` (docs/cli.md): an MCP SDK client talks to the runner as
// an MCP server, which talks to server-everything (and to its demo server):
// exec and wait are its tools, a cell calls two downstream tools, a slow
// call parks and wait resumes it, and the trace arrives as logging
// notifications.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'

const require = createRequire(import.meta.url)
const runner = fileURLToPath(new URL('../cli/main.mjs', import.meta.url))
const work = mkdtempSync(path.join(tmpdir(), 'code-mode-serve-'))
after(() => rmSync(work, { recursive: true, force: true }))

const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json')
const everything = path.join(path.dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin['mcp-server-everything'])

async function connect(args) {
  const client = new Client({ name: 'serve-test', version: '1.0.0' })
  const logs = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => logs.push(notification.params))
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [runner, 'serve', '--quiet', ...args], stderr: 'pipe' }))
  return { client, logs }
}

const resultOf = (answer) => JSON.parse(answer.content[0].text)

describe('code-mode serve', () => {
  test('an MCP client gets exec and wait, and a cell calls two tools of the downstream server', async () => {
    const config = path.join(work, 'servers.json')
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }))
    const { client, logs } = await connect(['--mcp-config', config])
    try {
      const { tools } = await client.listTools()
      assert.deepEqual(tools.map((t) => t.name), ['exec', 'wait'])
      assert.equal(tools[0].inputSchema.type, 'object')
      assert.ok(tools[0].inputSchema.properties.code, 'exec takes code')
      assert.match(tools[0].description, /MCP/, 'the exec description tells the model about the MCP namespace')
      const answer = await client.callTool({
        name: 'exec',
        arguments: {
          code: `const e = await MCP.everything.echo({ message: 'through serve' })
                 const s = await MCP.everything.getSum({ a: 2, b: 3 })
                 return [e.content[0].text, s.content[0].text]`,
        },
      })
      assert.equal(answer.isError, false)
      const result = resultOf(answer)
      assert.equal(result.status, 'completed')
      assert.deepEqual(result.value, ['Echo: through serve', 'The sum of 2 and 3 is 5.'])
      const seen = logs.filter((l) => l.logger === 'code-mode').map((l) => `${l.data.type} ${l.data.toolId}`)
      assert.deepEqual(seen, [
        'nested_call_started mcp:everything:echo',
        'nested_call_finished mcp:everything:echo',
        'nested_call_started mcp:everything:get-sum',
        'nested_call_finished mcp:everything:get-sum',
      ])
      const failed = await client.callTool({ name: 'exec', arguments: { code: 'throw new Error("no")' } })
      assert.equal(failed.isError, true)
      assert.equal(resultOf(failed).error, 'Error: no at line 1:11')
      const unknown = await client.callTool({ name: 'search', arguments: {} })
      assert.equal(unknown.isError, true)
      assert.match(unknown.content[0].text, /Unknown tool search: this server has exec and wait\./)
    } finally {
      await client.close()
    }
  })

  test('a slow call parks the run; wait resumes it (demo server, 100 ms budget)', async () => {
    const { client } = await connect(['--timeout-ms', '100'])
    try {
      const first = resultOf(await client.callTool({ name: 'exec', arguments: { code: 'return (await MCP.demo.sleep({ ms: 300 })).content[0].text' } }))
      assert.equal(first.status, 'waiting')
      assert.deepEqual(first.pendingToolCalls.map((p) => p.toolId), ['mcp:demo:sleep'])
      let result = first
      for (let i = 0; i < 50 && result.status === 'waiting'; i++) {
        result = resultOf(await client.callTool({ name: 'wait', arguments: { runId: first.runId } }))
      }
      assert.equal(result.status, 'completed')
      assert.equal(result.value, 'slept 300 ms')
    } finally {
      await client.close()
    }
  })
})
