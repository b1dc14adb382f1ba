// Runs real code-mode cells end to end against real in-process tools that read
// a folder this demo creates, and a real MCP server (the reference
// `@modelcontextprotocol/server-everything`, a dev dependency) over stdio,
// whose tools the cells reach as `MCP.everything.<tool>`. `npm run demo` runs
// the built-in cells; `npm run demo -- '<code>'` runs your own JavaScript cell
// against the same tools. examples/mcp.mjs shows the MCP side in more detail.
import { readFileSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const require = createRequire(import.meta.url)
const { createCodeMode, nestedCallTranscript } = require('../index.js')

// The MCP server, as a child process the MCP client talks to over stdio.
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json')
const serverScript = path.join(path.dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin['mcp-server-everything'])
const mcpClient = new Client({ name: 'code-mode-demo', version: '1.0.0' })
await mcpClient.connect(new StdioClientTransport({ command: process.execPath, args: [serverScript, 'stdio'], stderr: 'ignore' }))
const { tools: mcpServerTools } = await mcpClient.listTools()

// A small workspace for the tools to read.
const root = await mkdtemp(path.join(tmpdir(), 'code-mode-demo-'))
await writeFile(path.join(root, 'README.md'), '# Demo project\nA tiny project for the code-mode demo.\n')
await writeFile(path.join(root, 'notes.txt'), 'buy milk\ncall Ada\nship code mode\n')
await writeFile(path.join(root, 'data.json'), JSON.stringify({ users: 3, active: true }))

/** Resolves a path inside the workspace, refusing escapes. */
function inside(relative = '.') {
  const resolved = path.resolve(root, String(relative))
  if (resolved !== root && !resolved.startsWith(root + path.sep)) throw new Error(`path is outside the workspace: ${relative}`)
  return resolved
}

// The gateway's tools: what the model would otherwise see as schemas.
const tools = [
  {
    name: 'list_files',
    description: 'List the files of a folder in the workspace',
    source: 'openclaw',
    parameters: { type: 'object', properties: { dir: { type: 'string', description: 'Folder, relative to the workspace' } } },
  },
  {
    name: 'read_file',
    label: 'Read file',
    description: 'Read a local text file from the workspace',
    source: 'openclaw',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'file_info',
    description: 'Size and modification time of a file',
    source: 'openclaw',
    sourceName: 'files-plugin',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  { name: 'delete_file', description: 'Delete a file (denied by policy in this demo)', source: 'openclaw' },
  { name: 'screenshot', description: 'Take a screenshot (direct-only: stays model-visible)', source: 'openclaw', directOnly: true },
  // The MCP server's tools: hidden from tools.*, callable as MCP.everything.<tool>.
  ...mcpServerTools.map((tool) => ({
    name: `everything__${tool.name}`,
    description: tool.description ?? '',
    parameters: tool.inputSchema,
    source: 'mcp',
    sourceName: 'everything',
    mcp: { server: 'everything', tool: tool.name },
  })),
]

const implementations = {
  list_files: async ({ dir }) => (await readdir(inside(dir))).sort(),
  read_file: async ({ path: file }) => ({ path: file, text: await readFile(inside(file), 'utf8') }),
  file_info: async ({ path: file }) => {
    const info = await stat(inside(file))
    return { path: file, bytes: info.size, modified: info.mtime.toISOString() }
  },
}

// The gateway's executor: policy first (a hook that denies), then the tool.
async function executeTool(call) {
  if (call.id.startsWith('mcp:everything:')) {
    // The MCP request is cancelled if the exec is aborted.
    return mcpClient.callTool({ name: call.id.slice('mcp:everything:'.length), arguments: call.input }, undefined, { signal: call.signal })
  }
  if (call.name === 'delete_file') throw new Error('delete_file is denied by policy')
  const implementation = implementations[call.name]
  if (!implementation) throw new Error(`no such tool: ${call.name}`)
  return implementation(call.input ?? {})
}

const events = []
const codeMode = createCodeMode({ config: { enabled: true, timeoutMs: 5000 } })
const run = codeMode.prepareRun({ runId: 'demo-run', sessionId: 'demo-session', tools, executeTool, onEvent: (e) => events.push(e) })

console.log('model-visible tools:', run.modelTools.map((t) => t.name).join(', '))
console.log('hidden catalog:', run.catalog.map((t) => t.id).join(', '))
console.log('MCP servers:', run.modelTools[0].description.match(/MCP servers: (.*)/)?.[1], `(${mcpServerTools.length} tools under MCP.everything)`)

const cells = process.argv[2]
  ? [{ title: 'your cell', input: { code: process.argv[2] } }]
  : [
      {
        title: 'search, describe and call tools',
        input: {
          code: `
const [reader] = await tools.search('read file')
const described = await tools.describe(reader.id)
console.log('using', described.id, 'with parameters', Object.keys(described.parameters.properties))
const names = await tools.list_files({ dir: '.' })
const files = await Promise.all(names.map((name) => tools.call(reader.id, { path: name })))
const info = await tools.call('openclaw:files-plugin:file_info', { path: 'notes.txt' })
let denied
try { await tools.delete_file({ path: 'notes.txt' }) } catch (error) { denied = error.message }
const [mcpFile] = API.list('mcp/').files.filter((f) => f.path !== 'mcp/index.d.ts')
const sum = await MCP.everything.getSum({ a: info.bytes, b: files.length })
return {
  files: files.map((f) => ({ path: f.path, lines: f.text.split('\\n').length })),
  notesBytes: info.bytes,
  denied,
  mcp: { declarations: mcpFile.path, sum: sum.content[0].text },
}`,
        },
      },
      {
        title: 'TypeScript cell',
        input: {
          language: 'typescript',
          code: `
interface Todo { text: string; done: boolean }
const { text } = (await tools.read_file({ path: 'notes.txt' })) as { text: string }
const todos: Todo[] = text.trim().split('\\n').map((line) => ({ text: line, done: line.startsWith('ship') }))
json(todos.filter((t) => !t.done))
return todos.length`,
        },
      },
      { title: 'a guessed id of a tool that is not in the catalog', input: { code: "return await tools.call('openclaw:core:rm', { path: '/' })" } },
      { title: 'module access is refused', input: { code: "const fs = require('fs')" } },
      { title: 'an infinite loop after await times out', input: { code: 'await null; for (;;) {}' } },
    ]

let ticks = 0
const ticker = setInterval(() => ticks++, 10)
let callId = 0
for (const { title, input } of cells) {
  const toolCallId = `call_${++callId}`
  const started = performance.now()
  const result = await run.exec(input, { toolCallId })
  const ms = (performance.now() - started).toFixed(2)
  console.log(`\n== ${title} (${ms} ms)`)
  console.log(JSON.stringify({ ...result, telemetry: undefined }, null, 2))
  const trace = nestedCallTranscript(events, toolCallId)
  if (trace.length > 0) {
    console.log('nested calls under', toolCallId)
    for (const message of trace) {
      if (message.role === 'assistant') {
        const call = message.content[0]
        console.log(`  -> ${call.id} ${JSON.stringify(call.arguments)}`)
      } else {
        const text = message.content[0].text
        console.log(`  <- ${message.isError ? 'error: ' : ''}${text.length > 70 ? text.slice(0, 67) + '...' : text}`)
      }
    }
  }
}
clearInterval(ticker)
const telemetry = (await run.exec({ code: 'return null' })).telemetry
console.log(`\ntelemetry: ${JSON.stringify(telemetry)}`)
console.log(`the Node event loop ticked ${ticks} times while the cells ran`)
await codeMode.close()
await mcpClient.close()
await rm(root, { recursive: true, force: true })
