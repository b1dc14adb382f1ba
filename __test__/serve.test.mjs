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
  const transport = new StdioClientTransport({ command: process.execPath, args: [runner, 'serve', '--quiet', ...args], stderr: 'pipe' })
  let stderr = ''
  transport.stderr.on('data', (chunk) => (stderr += chunk))
  let closed = false
  transport.onclose = () => (closed = true)
  await client.connect(transport)
  return { client, logs, transport, stderr: () => stderr, closed: () => closed }
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

  test('a message over the 10 MiB limit is refused on stderr and answered with an error; serving goes on', async () => {
    const { client, transport, stderr, closed } = await connect([])
    try {
      const { MAX_MESSAGE_BYTES } = await import('../cli/serve.mjs')
      assert.equal(MAX_MESSAGE_BYTES, 10 * 1024 * 1024)
      // The line a request is sent as, newline included, is the message.
      const sent = []
      const send = transport.send.bind(transport)
      transport.send = (message, options) => {
        sent.push(JSON.stringify(message).length + 1)
        return send(message, options)
      }
      const call = (padding) => client.callTool({ name: 'nope', arguments: { padding } })
      assert.equal((await call('x')).isError, true)
      const overhead = sent.at(-1) - 1
      // One byte over: refused, and the request answered with an error.
      await assert.rejects(call('x'.repeat(MAX_MESSAGE_BYTES - overhead + 1)), (error) => {
        assert.equal(error.code, -32600)
        assert.equal(error.message, `MCP error -32600: Message of ${MAX_MESSAGE_BYTES + 1} bytes is larger than code-mode serve's limit of ${MAX_MESSAGE_BYTES} bytes; it was not read.`)
        return true
      })
      // Exactly at the limit: read (this tool does not exist, and says so).
      const at = await call('x'.repeat(MAX_MESSAGE_BYTES - overhead))
      assert.equal(at.isError, true)
      assert.match(at.content[0].text, /^Unknown tool nope/)
      // And the same server goes on running cells.
      const next = resultOf(await client.callTool({ name: 'exec', arguments: { code: 'return 1 + 1' } }))
      assert.equal(next.value, 2)
      assert.equal(closed(), false)
      assert.match(stderr(), new RegExp(`code-mode: refused a message from the client: Message of ${MAX_MESSAGE_BYTES + 1} bytes is larger than code-mode serve's limit of ${MAX_MESSAGE_BYTES} bytes; it was not read\\. \\(request \\d+ was answered with an error; still serving\\)`))
    } finally {
      await client.close()
    }
  })

  test('a message the SDK cannot read is refused on stderr; serving goes on', async () => {
    const { client, transport, stderr } = await connect([])
    try {
      // JSON, but no JSON-RPC message.
      await transport.send({ jsonrpc: '2.0', neither: 'request nor notification' })
      const next = resultOf(await client.callTool({ name: 'exec', arguments: { code: 'return 3' } }))
      assert.equal(next.value, 3)
      assert.match(stderr(), /code-mode: refused a message from the client: /)
    } finally {
      await client.close()
    }
  })

  test('the request id of an oversized message is read a piece at a time, wherever it is', async () => {
    const { IdScanner } = await import('../cli/serve.mjs')
    const messages = [
      { jsonrpc: '2.0', id: 5, method: 'tools/call' },
      { method: 'tools/call', params: { a: [1, { id: 3 }], s: '}\\"{,', id: 9 }, jsonrpc: '2.0', id: 'abc' },
      { id: -1.5e3, params: {} },
      { params: { id: 1 } },
      { id: null, method: 'x' },
      { id: { nested: 1 } },
      { id: 'x'.repeat(2000) },
    ]
    for (const message of messages) {
      const id = typeof message.id === 'string' && message.id.length < 1000 ? message.id : typeof message.id === 'number' ? message.id : undefined
      const text = Buffer.from(JSON.stringify(message, null, 1))
      for (const size of [1, 3, text.length]) {
        const scanner = new IdScanner()
        for (let at = 0; at < text.length; at += size) scanner.feed(text.subarray(at, at + size))
        assert.equal(scanner.id(), id, `${text} in pieces of ${size}`)
      }
    }
    // An escaped key is still "id"; what is not an object names none.
    const escaped = new IdScanner()
    escaped.feed(Buffer.from('{"\\u0069d":7}'))
    assert.equal(escaped.id(), 7)
    for (const text of ['[1]', '"id"', '{"id":5', '']) {
      const scanner = new IdScanner()
      scanner.feed(Buffer.from(text))
      assert.equal(scanner.id(), undefined, text)
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
