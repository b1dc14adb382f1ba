// `code-mode serve`: code mode as an MCP server over stdio. Its tools are
// the run surface's exec and wait (their model-facing definitions, catalog
// prompt included); the downstream servers of --mcp-config sit behind them
// as the cell's MCP namespace with their declaration files. Any MCP client
// pointed at it gets code mode over all of its other servers. The trace
// goes to the client as logging notifications (and to stderr); stdout is
// the MCP channel and carries nothing else.
import { EventEmitter } from 'node:events'
import { createRequire } from 'node:module'

import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

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

/** The longest message serve reads, newline included: the SDK's own bound. */
export const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE

const NEWLINE = 0x0a

/**
 * What the SDK's stdio transport reads instead of stdin: each complete line
 * (one JSON-RPC message) as one chunk, when it fits in `maxBytes` with its
 * newline. The SDK closes its transport on a longer one, and serve took
 * that for the client leaving (exit 0, nothing said); a longer line is
 * skipped to its end instead, without being kept (only read for its
 * request id, by `IdScanner`), and handed to `oversized({ bytes, id })`.
 * The transport uses `on`/`off('data' | 'error')`, `listenerCount` and
 * `pause`, which an EventEmitter and the methods below give it.
 */
export class MessageGate extends EventEmitter {
  #input
  #maxBytes
  #oversized
  #parts = []
  #bytes = 0
  // While a line is skipped: what reads its id.
  #scanner = null
  #attached = false

  constructor(input, { maxBytes = MAX_MESSAGE_BYTES, oversized }) {
    super()
    this.#input = input
    this.#maxBytes = maxBytes
    this.#oversized = oversized
    this.on('newListener', (event) => {
      if (event === 'data' && !this.#attached) {
        this.#attached = true
        this.#input.on('data', this.#ondata)
        this.#input.on('error', this.#onerror)
      }
    })
  }

  pause() {
    this.#input.off('data', this.#ondata)
    this.#input.off('error', this.#onerror)
    this.#attached = false
    this.#input.pause()
    return this
  }

  #onerror = (error) => this.emit('error', error)

  #ondata = (chunk) => {
    let from = 0
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from)
      this.#take(chunk.subarray(from, newline === -1 ? chunk.length : newline))
      if (newline === -1) return
      this.#endLine()
      from = newline + 1
    }
  }

  #take(piece) {
    if (this.#scanner === null && this.#bytes + piece.length + 1 <= this.#maxBytes) {
      this.#parts.push(piece)
    } else {
      if (this.#scanner === null) {
        // Too long: what came so far is read for the id and dropped.
        this.#scanner = new IdScanner()
        for (const part of this.#parts) this.#scanner.feed(part)
        this.#parts = []
      }
      this.#scanner.feed(piece)
    }
    this.#bytes += piece.length
  }

  #endLine() {
    const [parts, bytes, scanner] = [this.#parts, this.#bytes, this.#scanner]
    this.#parts = []
    this.#bytes = 0
    this.#scanner = null
    if (scanner === null) this.emit('data', Buffer.concat([...parts, Buffer.from([NEWLINE])]))
    else this.#oversized({ bytes: bytes + 1, id: scanner.id() })
  }
}

const [QUOTE, BACKSLASH, OPEN, CLOSE, OPEN_ARRAY, CLOSE_ARRAY, COLON, COMMA] = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x3a, 0x2c]
const isSpace = (c) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a
// Where the scanner is in the top-level object.
const [BEFORE, KEY, IN_KEY, COLON_NEXT, VALUE, DONE] = [0, 1, 2, 3, 4, 5]
/** A key longer than this is not "id" (however escaped); an id value longer than this is not kept. */
const KEY_BYTES = 32
const VALUE_BYTES = 1024

/**
 * Reads the top-level `"id"` of a JSON-RPC message fed a piece at a time,
 * keeping a few bytes only (the key being read, the id's text): its
 * members may come in any order (the SDK's client writes the id last).
 * `id()` is a string or a number, else undefined.
 */
export class IdScanner {
  #state = BEFORE
  #depth = 0
  #inString = false
  #escaped = false
  #key = null
  #isId = false
  #value = null
  #id = undefined

  feed(bytes) {
    for (let i = 0; i < bytes.length && this.#state !== DONE; i++) this.#step(bytes[i])
  }

  id() {
    return this.#id
  }

  #keep(c) {
    if (this.#state === IN_KEY && this.#key !== null) this.#key = this.#key.length < KEY_BYTES ? (this.#key.push(c), this.#key) : null
    else if (this.#state === VALUE && this.#value !== null) this.#value = this.#value.length < VALUE_BYTES ? (this.#value.push(c), this.#value) : null
  }

  #step(c) {
    if (this.#inString) {
      this.#keep(c)
      if (this.#escaped) this.#escaped = false
      else if (c === BACKSLASH) this.#escaped = true
      else if (c === QUOTE) {
        this.#inString = false
        if (this.#state === IN_KEY) this.#endKey()
      }
      return
    }
    if (isSpace(c)) return
    switch (this.#state) {
      case BEFORE:
        if (c === OPEN) {
          this.#depth = 1
          this.#state = KEY
        } else this.#state = DONE
        return
      case KEY:
        if (c === QUOTE) {
          this.#state = IN_KEY
          this.#inString = true
          this.#key = [c]
        } else this.#state = DONE
        return
      case COLON_NEXT:
        if (c === COLON) {
          this.#state = VALUE
          this.#value = this.#isId ? [] : null
        } else this.#state = DONE
        return
    }
    // In a value.
    if (this.#depth === 1 && (c === COMMA || c === CLOSE)) {
      if (this.#isId) {
        this.#id = this.#value === null ? undefined : idOf(Buffer.from(this.#value).toString('utf8'))
        this.#state = DONE
      } else this.#state = c === COMMA ? KEY : DONE
      return
    }
    this.#keep(c)
    if (c === QUOTE) this.#inString = true
    else if (c === OPEN || c === OPEN_ARRAY) this.#depth++
    else if (c === CLOSE || c === CLOSE_ARRAY) this.#depth--
  }

  #endKey() {
    const key = this.#key === null ? undefined : parsed(Buffer.from(this.#key).toString('utf8'))
    this.#isId = key === 'id'
    this.#state = COLON_NEXT
  }
}

function idOf(text) {
  const id = parsed(text)
  return typeof id === 'string' || typeof id === 'number' ? id : undefined
}

/** The top-level `"id"` of one whole message's text (see `IdScanner`). */
export function requestId(text) {
  const scanner = new IdScanner()
  scanner.feed(Buffer.from(text))
  return scanner.id()
}

function parsed(json) {
  try {
    return JSON.parse(json)
  } catch {
    return undefined
  }
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
    // A message the SDK could not read or handle: said on stderr (with
    // --quiet too), and serving goes on.
    server.onerror = (error) => process.stderr.write(`code-mode: refused a message from the client: ${error?.message ?? error}\n`)
    // The client went away (its end of stdin closed): the SDK's transport does
    // not report that, and the downstream servers must not outlive it.
    process.stdin.once('end', () => stopped())
    process.stdin.once('close', () => stopped())
    let transport = null
    const gate = new MessageGate(process.stdin, {
      oversized: ({ bytes, id }) => {
        const message = `Message of ${bytes} bytes is larger than code-mode serve's limit of ${MAX_MESSAGE_BYTES} bytes; it was not read.`
        const answered = id === undefined ? 'it names no request id, so nothing was answered' : `request ${JSON.stringify(id)} was answered with an error`
        process.stderr.write(`code-mode: refused a message from the client: ${message} (${answered}; still serving)\n`)
        if (id !== undefined) transport?.send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message } }).catch(() => {})
      },
    })
    transport = new StdioServerTransport(gate, process.stdout)
    await server.connect(transport)
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
