#!/usr/bin/env node
// The package's command (docs/cli.md). `code-mode run` runs one code-mode
// cell against MCP servers, the way a gateway would: the cell's final result
// goes to stdout as JSON, progress and a readable trace to stderr.
// `code-mode serve` is an MCP server whose tools are exec and wait
// (serve.mjs).
import { readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { ConfigError, readConfig } from './config.mjs'
import { EXIT, exitForSignal } from './exit.mjs'
import { serve } from './serve.mjs'
import { ServerError, startServers } from './servers.mjs'
import { createTrace } from './trace.mjs'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))


const USAGE = `Usage: code-mode run [FILE | -] [options]
       code-mode serve [options]

run    Runs a code-mode cell (the body of an async function, JavaScript or
       TypeScript) against the tools of MCP servers, through
       MCP.<server>.<tool>() and tools.*, and prints its result. Without
       FILE, or with -, the cell is read from stdin.
serve  Is an MCP server over stdio whose tools are exec and wait: any MCP
       client gets code mode over the servers of --mcp-config. A message
       over 10 MiB is refused (said on stderr, answered with an error) and
       serving goes on.

Options:
  --mcp-config PATH          MCP servers in the "mcpServers" format (stdio:
                             command, args, env, cwd); default: a built-in
                             demo server
  --typescript               run: the cell is TypeScript (also .ts/.mts/.cts)
  --json                     run: print the whole result, not only the value
  --timeout-ms N             budget of each exec and wait (default 10000)
  --memory-limit-bytes N     the VM's memory limit
  --max-output-bytes N       the cell's output limit
  --max-pending-tool-calls N nested calls in flight at once
  --server-timeout-ms N      how long a server may take to start and list
                             its tools (default 15000)
  --quiet                    no progress or trace on stderr
  -h, --help                 this text
  --version                  the package version

Exit codes: 0 completed, 1 the cell failed, 2 bad usage or config,
3 a server failed to start or did not answer, 4 a server exited during the
run, 130 interrupted (Ctrl-C), 143 terminated.`

class UsageError extends Error {}

const INTEGER_OPTIONS = {
  'timeout-ms': 'timeoutMs',
  'memory-limit-bytes': 'memoryLimitBytes',
  'max-output-bytes': 'maxOutputBytes',
  'max-pending-tool-calls': 'maxPendingToolCalls',
}

function parse(argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'mcp-config': { type: 'string' },
        typescript: { type: 'boolean' },
        json: { type: 'boolean' },
        quiet: { type: 'boolean' },
        'server-timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        ...Object.fromEntries(Object.keys(INTEGER_OPTIONS).map((name) => [name, { type: 'string' }])),
      },
    })
  } catch (error) {
    throw new UsageError(error.message)
  }
  const { values, positionals } = parsed
  if (values.help || values.version) return { values, positionals }
  const [command, file, ...rest] = positionals
  if (command !== 'run' && command !== 'serve') {
    throw new UsageError(command === undefined ? 'missing the command: code-mode run [FILE] or code-mode serve' : `unknown command "${command}": the commands are run and serve`)
  }
  if (command === 'serve' && file !== undefined) throw new UsageError(`serve takes no cell; unexpected "${file}"`)
  if (rest.length > 0) throw new UsageError(`one cell per run; unexpected ${rest.map((r) => `"${r}"`).join(', ')}`)
  for (const flag of ['typescript', 'json']) {
    if (command === 'serve' && values[flag]) throw new UsageError(`--${flag} is an option of run, not serve`)
  }
  const integer = (name) => {
    const text = values[name]
    if (text === undefined) return undefined
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new UsageError(`--${name}: expected a whole number, got "${text}"`)
    return Number(text)
  }
  const limits = {}
  for (const [name, field] of Object.entries(INTEGER_OPTIONS)) {
    const value = integer(name)
    if (value !== undefined) limits[field] = value
  }
  return { command, values, file, limits, serverTimeoutMs: integer('server-timeout-ms') ?? 15000 }
}

function readCell(file) {
  if (file === undefined || file === '-') {
    if (process.stdin.isTTY) throw new UsageError('no cell: give a FILE, or pipe the cell into stdin')
    return readFileSync(0, 'utf8')
  }
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read the cell ${file}: ${error.code ?? error.message}`)
  }
}

const DEMO = [{ name: 'demo', command: process.execPath, args: [path.join(here, 'demo-server.mjs')], env: {}, cwd: undefined }]

export async function main(argv) {
  let options
  let code
  let specs
  try {
    options = parse(argv)
    if (options.values.help) {
      process.stdout.write(`${USAGE}\n`)
      return EXIT.ok
    }
    if (options.values.version) {
      process.stdout.write(`${require('../package.json').version}\n`)
      return EXIT.ok
    }
    if (options.command === 'run') code = readCell(options.file)
    specs = options.values['mcp-config'] ? readConfig(options.values['mcp-config']) : DEMO
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`code-mode: ${error.message}\n`)
      if (error instanceof UsageError) process.stderr.write('Run "code-mode --help" for the options.\n')
      return EXIT.usage
    }
    throw error
  }
  if (options.command === 'serve') return serve({ specs, limits: options.limits, serverTimeoutMs: options.serverTimeoutMs, quiet: options.values.quiet, demo: !options.values['mcp-config'] })
  const trace = createTrace({ quiet: options.values.quiet })
  const typescript = options.values.typescript || /\.[cm]?ts$/.test(options.file ?? '')
  if (!options.values['mcp-config']) trace.progress('no --mcp-config: using the built-in demo server (MCP.demo)')

  // Ctrl-C and SIGTERM abort the run; the servers are shut down below either way.
  const controller = new AbortController()
  let interrupted = null
  const onSignal = (signal) => {
    if (interrupted) {
      // A second signal while shutting down: leave at once.
      process.exit(exitForSignal(signal))
    }
    interrupted = signal
    trace.progress(`${signal}: stopping the run and the servers`)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)

  let servers = null
  let codeMode = null
  try {
    try {
      servers = await startServers(specs, { timeoutMs: options.serverTimeoutMs, trace, signal: controller.signal })
    } catch (error) {
      if (!(error instanceof ServerError)) throw error
      if (interrupted) return exitForSignal(interrupted)
      process.stderr.write(`code-mode: ${error.message}\n`)
      return EXIT.serverStart
    }
    if (interrupted) return exitForSignal(interrupted)
    const { createCodeMode } = require('../index.js')
    codeMode = createCodeMode({ config: { enabled: true, timeoutMs: 10000, ...options.limits } })
    const run = codeMode.prepareRun({
      runId: 'cli',
      sessionId: 'cli',
      tools: servers.tools,
      executeTool: servers.executeTool,
      onEvent: (event) => trace.event(event),
    })
    trace.progress(`${servers.tools.length} MCP operations as MCP.<server>.<tool>(), ${run.catalog.length} in tools.*`)
    const started = performance.now()
    let result = await run.exec({ code, language: typescript ? 'typescript' : 'javascript' }, { toolCallId: 'exec_1', signal: controller.signal })
    trace.output(result.output)
    let waits = 0
    while (result.status === 'waiting' && !interrupted) {
      trace.parked(result, waits)
      result = await run.wait({ runId: result.runId }, { toolCallId: `wait_${++waits}`, signal: controller.signal })
      trace.output(result.output)
    }
    trace.result(result, performance.now() - started)
    process.stdout.write(`${JSON.stringify(options.values.json ? result : result.status === 'completed' ? (result.value ?? null) : { status: result.status, code: result.code, error: result.error })}\n`)
    if (interrupted) return exitForSignal(interrupted)
    const crashed = servers.crashed()
    if (crashed) {
      process.stderr.write(`code-mode: MCP server "${crashed.name}" exited during the run${crashed.stderrNote()}\n`)
      return EXIT.serverCrashed
    }
    return result.status === 'completed' ? EXIT.ok : EXIT.cellFailed
  } finally {
    await codeMode?.close()
    await servers?.close()
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

/** Started as a program (also through npm's bin link), not imported. */
function startedAsProgram() {
  try {
    return process.argv[1] !== undefined && fileURLToPath(import.meta.url) === realpathSync(path.resolve(process.argv[1]))
  } catch {
    return false
  }
}

if (startedAsProgram()) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code
    },
    (error) => {
      process.stderr.write(`code-mode: internal error: ${error?.stack ?? error}\n`)
      process.exitCode = EXIT.internal
    },
  )
}
