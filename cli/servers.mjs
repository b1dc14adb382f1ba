// The runner's MCP servers: each started over stdio with the official SDK's
// client, its tools, resources and prompts turned into code-mode tools (the
// gateway's side of the MCP namespace, docs/mcp.md), and every nested call
// routed back to the right server. Servers are always shut down by close().
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

export class ServerError extends Error {
  constructor(server, message) {
    super(`MCP server "${server}" ${message}`)
    this.server = server
  }
}

const uriSchema = { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] }
const promptSchema = { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'object' } }, required: ['name'] }

/** Rejects after `ms` with `error()` unless `promise` settles first. */
function within(promise, ms, error) {
  let timer
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(error()), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** One connected server. */
class Server {
  constructor(spec, trace) {
    this.spec = spec
    this.name = spec.name
    this.trace = trace
    this.client = new Client({ name: 'code-mode', version: '0.1.0' })
    this.transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd, stderr: 'pipe' })
    this.stderrTail = ''
    this.closing = false
    this.exited = null
  }

  async start(timeoutMs) {
    this.trace.progress(`server ${this.name}: starting ${[this.spec.command, ...this.spec.args].join(' ')}`)
    this.transport.stderr?.on('data', (chunk) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-2000)
    })
    this.transport.onclose = () => {
      if (!this.closing) this.exited = this.exited ?? 'exited'
    }
    const connecting = this.client.connect(this.transport).catch((error) => {
      throw new ServerError(this.name, `failed to start: ${error.message}${this.stderrNote()}`)
    })
    await within(connecting, timeoutMs, () => new ServerError(this.name, `did not answer within ${timeoutMs} ms${this.stderrNote()}`))
    const capabilities = this.client.getServerCapabilities() ?? {}
    const listing = async () => {
      const tools = capabilities.tools ? (await this.client.listTools()).tools : []
      return { tools, resources: Boolean(capabilities.resources), prompts: Boolean(capabilities.prompts) }
    }
    const listed = await within(listing(), timeoutMs, () => new ServerError(this.name, `did not list its tools within ${timeoutMs} ms`))
    this.trace.progress(
      `server ${this.name} (pid ${this.transport.pid}): ${listed.tools.length} tools${listed.resources ? ', resources' : ''}${listed.prompts ? ', prompts' : ''}`,
    )
    return listed
  }

  stderrNote() {
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ')
    return tail ? ` (its stderr: ${tail})` : ''
  }

  async close() {
    this.closing = true
    try {
      await this.client.close()
    } catch {
      // Already gone.
    }
  }
}

/**
 * Starts every server of `specs` at once. Resolves to { tools, executeTool,
 * crashed(), close() }; rejects with a ServerError (after shutting down the
 * ones that started) when one fails to start or does not answer in time, or
 * when `signal` aborts first.
 */
export async function startServers(specs, { timeoutMs, trace, signal }) {
  const servers = specs.map((spec) => new Server(spec, trace))
  const close = () => Promise.all(servers.map((s) => s.close()))
  let listings
  let onAbort
  try {
    // An abort (Ctrl-C) while servers start stops waiting for them at once.
    const aborted = new Promise((_, reject) => {
      onAbort = () => reject(new ServerError('*', 'start was interrupted'))
      if (signal?.aborted) onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
    })
    listings = await Promise.race([Promise.all(servers.map((s) => s.start(timeoutMs))), aborted])
  } catch (error) {
    await close()
    throw error
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  const tools = []
  const routes = new Map()
  const add = (server, tool, description, parameters, operation) => {
    tools.push({ name: `${server.name}__${tool}`, description, parameters, source: 'mcp', sourceName: server.name, mcp: { server: server.name, tool, operation } })
    routes.set(`mcp:${server.name}:${tool}`, { server, tool, operation: operation ?? 'tool' })
  }
  servers.forEach((server, i) => {
    const listed = listings[i]
    for (const t of listed.tools) add(server, t.name, t.description ?? '', t.inputSchema)
    if (listed.resources) {
      add(server, 'resources_list', `List the resources of ${server.name}`, { type: 'object' }, 'resources_list')
      add(server, 'resources_read', `Read a resource of ${server.name} by URI`, uriSchema, 'resources_read')
    }
    if (listed.prompts) {
      add(server, 'prompts_list', `List the prompts of ${server.name}`, { type: 'object' }, 'prompts_list')
      add(server, 'prompts_get', `Get a prompt of ${server.name}`, promptSchema, 'prompts_get')
    }
  })

  async function executeTool(call) {
    const route = routes.get(call.id)
    if (!route) throw new Error(`no MCP server serves ${call.id}`)
    const { server, tool, operation } = route
    if (server.exited) throw new ServerError(server.name, 'has exited')
    const input = call.input ?? {}
    const options = { signal: call.signal }
    switch (operation) {
      case 'tool': return server.client.callTool({ name: tool, arguments: input }, undefined, options)
      case 'resources_list': return server.client.listResources(undefined, options)
      case 'resources_read': return server.client.readResource({ uri: input.uri }, options)
      case 'prompts_list': return server.client.listPrompts(undefined, options)
      case 'prompts_get': return server.client.getPrompt({ name: input.name, arguments: input.arguments }, options)
    }
    throw new Error(`unknown MCP operation ${operation}`)
  }

  /** The first server that exited on its own, if any. */
  const crashed = () => servers.find((s) => s.exited) ?? null
  return { tools, executeTool, crashed, close }
}
