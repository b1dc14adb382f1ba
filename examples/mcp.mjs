// The MCP namespace with a real MCP server: starts the reference server
// `@modelcontextprotocol/server-everything` over stdio (a dev dependency), gives
// its tools, resources and prompts to a code-mode run the way a gateway does,
// and runs one TypeScript cell that reads the declarations and calls the
// server through `MCP`. Run it with `node examples/mcp.mjs` after
// `npm install` and `npm run build`.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const require = createRequire(import.meta.url)
const { createCodeMode } = require('../index.js')

// 1. Start the MCP server as a child process and connect to it.
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json')
const serverScript = path.join(path.dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin['mcp-server-everything'])
const client = new Client({ name: 'code-mode-example', version: '1.0.0' })
await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverScript, 'stdio'], stderr: 'ignore' }))

// 2. The run's tools: one per MCP tool (its inputSchema as parameters), plus
//    the resource and prompt operations. `mcp.server` names the server.
const server = 'everything'
const mcpTool = (tool, description, parameters, operation) => ({
  name: `${server}__${tool}`,
  description,
  parameters,
  source: 'mcp',
  sourceName: server,
  mcp: { server, tool, operation },
})
const uriSchema = { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] }
const promptSchema = { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'object' } }, required: ['name'] }
const { tools: serverTools } = await client.listTools()
const tools = [
  ...serverTools.map((t) => mcpTool(t.name, t.description ?? '', t.inputSchema)),
  mcpTool('resources_list', 'List the resources of the server', { type: 'object' }, 'resources_list'),
  mcpTool('resources_read', 'Read a resource by URI', uriSchema, 'resources_read'),
  mcpTool('prompts_list', 'List the prompts of the server', { type: 'object' }, 'prompts_list'),
  mcpTool('prompts_get', 'Get a prompt', promptSchema, 'prompts_get'),
  { name: 'read', description: 'Read a workspace file', source: 'openclaw' },
]
const byId = new Map(tools.filter((t) => t.mcp).map((t) => [`mcp:${server}:${t.mcp.tool}`, t.mcp]))

// 3. The gateway's executor: `mcp:` ids go to the MCP client, with the nested
//    call's signal so that aborting the exec cancels the MCP request.
async function executeTool(call) {
  const mcp = byId.get(call.id)
  if (!mcp) return { path: call.input?.path, text: '(the workspace is empty in this example)' }
  const input = call.input ?? {}
  const options = { signal: call.signal }
  switch (mcp.operation ?? 'tool') {
    case 'tool': return client.callTool({ name: mcp.tool, arguments: input }, undefined, options)
    case 'resources_list': return client.listResources(undefined, options)
    case 'resources_read': return client.readResource({ uri: input.uri }, options)
    case 'prompts_list': return client.listPrompts(undefined, options)
    case 'prompts_get': return client.getPrompt({ name: input.name, arguments: input.arguments }, options)
  }
}

const short = (value) => {
  const text = JSON.stringify(value)
  return text.length > 90 ? `${text.slice(0, 87)}...` : text
}

// 4. The run, with a trace of every nested call as it starts and finishes.
const codeMode = createCodeMode({ config: { enabled: true, timeoutMs: 5000 } })
const run = codeMode.prepareRun({
  runId: 'example-run',
  tools,
  executeTool,
  onEvent: (event) => {
    if (event.type === 'nested_call_started') console.log(`  -> ${event.toolCallId}  ${event.toolId} ${short(event.input)}`)
    if (event.type === 'nested_call_finished') {
      const outcome = event.ok ? short(event.result) : `error: ${event.error}`
      console.log(`  <- ${event.toolCallId}  ${event.durationMs.toFixed(1)} ms ${outcome}`)
    }
  },
})
console.log('model-visible tools:', run.modelTools.map((t) => t.name).join(', '))
console.log('catalog (tools.*):', run.catalog.map((t) => t.id).join(', '))

// 5. One TypeScript cell, as a model would write it.
const code = `
const files = API.list('mcp').files
console.log('declaration files:', files.map((f) => f.path + ' (' + f.bytes + ' bytes)').join(', '))
const index: string = API.read('mcp/index.d.ts').content
const declarations: string = API.read('mcp/everything.d.ts').content
console.log('mcp/index.d.ts:', index.split('\\n')[0])
console.log('mcp/everything.d.ts declares getSum:', declarations.includes('getSum'))

const echoed = await MCP.everything.echo({ message: 'hello from code mode' })
const sum = await MCP.everything.getSum({ a: 19, b: 23 })
const { resources } = await MCP.everything.resources.list({})
const doc = await MCP.everything.resources.read({ uri: resources[0].uri })
json({ resource: resources[0].uri, firstLine: doc.contents[0].text.split('\\n')[0] })
return { echo: echoed.content[0].text, sum: sum.content[0].text }
`
console.log('\nexec call_1 (nested calls as they happen):')
let result = await run.exec({ language: 'typescript', code }, { toolCallId: 'call_1' })
let waits = 0
while (result.status === 'waiting') {
  // A slow MCP call parked the run: resume it (a model would call `wait`).
  console.log(`  (parked as ${result.runId}; waiting on ${result.pendingToolCalls.map((p) => p.toolId).join(', ')})`)
  for (const item of result.output) console.log('  output:', item.type === 'text' ? item.text : JSON.stringify(item.value))
  result = await run.wait({ runId: result.runId }, { toolCallId: `call_wait_${++waits}` })
}

console.log('\noutput items:')
for (const item of result.output) console.log(' ', item.type === 'text' ? item.text : JSON.stringify(item.value))
console.log(`\n${result.status}:`, JSON.stringify(result.status === 'failed' ? { code: result.code, error: result.error } : result.value, null, 2))

await codeMode.close()
await client.close()
