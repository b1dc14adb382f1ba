// `code-mode serve`: code mode as an MCP server over stdio. Its tools are
// the run surface's exec and wait (their model-facing definitions, catalog
// prompt included); the downstream servers of --mcp-config sit behind them
// as the cell's MCP namespace with their declaration files. Any MCP client
// pointed at it gets code mode over all of its other servers. The trace
// goes to the client as logging notifications (and to stderr); stdout is
// the MCP channel and carries nothing else.
import { createRequire } from 'node:module'

import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

import { EXIT, exitForSignal } from './exit.mjs'
import { ServerError, startServers } from './servers.mjs'
import { createTrace } from './trace.mjs'

const require = createRequire(import.meta.url)

/** What a logging notification carries for a nested-call event. */
function logged(event) {
  const data = { type: event.type, toolCallId: event.toolCallId, toolId: event.toolId }
  if (event.type === 'nested_call_finished') {
    data.ok = event.ok
    data.durationMs = Math.round(event.durationMs * 10) / 10
    if (!event.ok) data.error = event.error
  }
  return data
}

export async function serve({ specs, limits, serverTimeoutMs, quiet, demo }) {
  const trace = createTrace({ quiet })
  if (demo) trace.progress('no --mcp-config: serving the built-in demo server (MCP.demo)')
  const controller = new AbortController()
  let interrupted = null
  let stopped
  const stopping = new Promise((resolve) => (stopped = resolve))
  const onSignal = (signal) => {
    if (interrupted) process.exit(exitForSignal(signal))
    interrupted = signal
    controller.abort()
    stopped()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)

  let servers = null
  let codeMode = null
  let server = null
  try {
    try {
      servers = await startServers(specs, { timeoutMs: serverTimeoutMs, trace, signal: controller.signal })
    } catch (error) {
      if (!(error instanceof ServerError)) throw error
      if (interrupted) return exitForSignal(interrupted)
      process.stderr.write(`code-mode: ${error.message}\n`)
      return EXIT.serverStart
    }
    const { createCodeMode } = require('../index.js')
    codeMode = createCodeMode({ config: { enabled: true, timeoutMs: 10000, ...limits } })
    const version = require('../package.json').version
    server = new Server({ name: 'code-mode', version }, { capabilities: { tools: {}, logging: {} } })
    const run = codeMode.prepareRun({
      runId: 'serve',
      sessionId: 'serve',
      tools: servers.tools,
      executeTool: servers.executeTool,
      onEvent: (event) => {
        trace.event(event)
        if (event.type === 'nested_call_started' || event.type === 'nested_call_finished') {
          server.sendLoggingMessage({ level: event.type === 'nested_call_finished' && !event.ok ? 'warning' : 'info', logger: 'code-mode', data: logged(event) }).catch(() => {})
        }
      },
    })
    const definitions = run.modelTools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters }))
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: definitions }))
    let calls = 0
    server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
      const options = { toolCallId: `mcp_${++calls}`, signal: extra.signal }
      let result
      if (params.name === 'exec') result = await run.exec(params.arguments ?? {}, options)
      else if (params.name === 'wait') result = await run.wait(params.arguments ?? {}, options)
      else return { isError: true, content: [{ type: 'text', text: `Unknown tool ${params.name}: this server has exec and wait.` }] }
      trace.output(result.output)
      trace.result(result, NaN)
      return { content: [{ type: 'text', text: JSON.stringify(result) }], isError: result.status === 'failed' }
    })
    server.onclose = () => stopped()
    // The client went away (its end of stdin closed): the SDK's transport does
    // not report that, and the downstream servers must not outlive it.
    process.stdin.once('end', () => stopped())
    process.stdin.once('close', () => stopped())
    await server.connect(new StdioServerTransport())
    trace.progress(`serving exec and wait over stdio; ${servers.tools.length} MCP operations behind them`)
    await stopping
    return interrupted ? exitForSignal(interrupted) : EXIT.ok
  } finally {
    await server?.close().catch(() => {})
    await codeMode?.close()
    await servers?.close()
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}
