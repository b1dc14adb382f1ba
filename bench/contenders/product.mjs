// The product, driven through its public API only, the way a gateway does:
// `createCodeMode` once, `prepareRun` with a small catalog, `exec` per cell.
// Every nested call goes back to `executeTool` on this thread, backed by the
// same `echo` function the peers' host function uses.
import { createRequire } from 'node:module'
import path from 'node:path'

import { echo } from '../lib/host.mjs'

const require = createRequire(import.meta.url)

/** `{ n, mode }` as the tools' input schema: the product validates every nested call's input. */
const SCHEMA = {
  type: 'object',
  properties: { n: { type: 'number' }, mode: { type: 'string', default: 'fast' } },
  required: ['n'],
}

const TOOLS = [
  { name: 'echo', description: 'Returns { ok: true, n }.', source: 'openclaw', parameters: SCHEMA },
  { name: 'slow', description: 'Settles when the benchmark says so.', source: 'openclaw', parameters: SCHEMA },
  { name: 'plugin_echo', description: 'Returns { ok: true, n }.', source: 'openclaw', sourceName: 'bench', parameters: SCHEMA },
  { name: 'docs__echo', description: 'Returns { ok: true, n }.', source: 'mcp', sourceName: 'docs', parameters: SCHEMA, mcp: { server: 'docs', tool: 'echo' } },
]

/** Loads one build of the product (an index.js and the .node next to it). */
export function loadBinding(indexPath) {
  return require(path.resolve(indexPath))
}

/**
 * A product contender: one `createCodeMode` instance.
 * @param {{ name: string, binding: object, workerThreads?: number }} options
 */
export async function createProduct({ name, binding, workerThreads, isolation }) {
  // B10: a plugin namespace over `plugin_echo`; registered once per loaded build.
  if (!binding.listCodeModeNamespaces().some((ns) => ns.id === 'bench-echo')) {
    binding.registerCodeModeNamespaceForPlugin('bench', {
      id: 'bench-echo',
      globalName: 'Echo',
      requiredToolNames: ['plugin_echo'],
      createScope: () => ({ echo: binding.createCodeModeNamespaceTool('plugin_echo', ([n]) => ({ n, mode: 'fast' })) }),
    })
  }
  const codeMode = binding.createCodeMode({
    config: { enabled: true, timeoutMs: 60000, maxPendingToolCalls: 128 },
    ...(workerThreads ? { workerThreads } : {}),
    ...(isolation ? { isolation } : {}),
  })

  // `slow` calls wait here until the harness settles them (B5, B6).
  const slowCalls = []
  const executeTool = (call) => {
    if (call.name === 'slow') return new Promise((resolve) => slowCalls.push({ resolve, input: call.input }))
    return echo(call.input)
  }
  let surfaces = 0
  /** A run surface; `agentConfig` overrides the instance's config for it (e.g. a short timeoutMs). */
  const surface = (agentConfig, sessionId = 'bench-session') =>
    codeMode.prepareRun({ runId: `bench-${++surfaces}`, sessionId, tools: TOOLS, executeTool, agentConfig })

  const main = surface()
  const short = surface({ timeoutMs: 100 }) // B5, B6: parks 100 ms after exec

  async function exec(run, input) {
    const result = await run.exec(input)
    if (result.status !== 'completed') throw new Error(`${name}: ${result.status} ${result.code ?? ''} ${result.error ?? ''}`)
    return result.value
  }

  const settleSlow = () => {
    while (slowCalls.length) {
      const { resolve, input } = slowCalls.shift()
      resolve({ ok: true, n: input.n })
    }
  }

  return {
    name,
    kind: 'product',
    binding,
    codeMode,
    surface,
    workerThreads: workerThreads ?? null,

    cell: (code) => exec(main, { code }),

    /** B8: a TypeScript cell, stripped and run by the product itself. */
    typescriptCell: (code) => exec(main, { code, language: 'typescript' }),

    /**
     * B5: park after the budget ends, then resume once the tool settled.
     * "park" is exec → `waiting` less the 100 ms budget the run must wait out
     * (the product parks a run only when its budget ends); "resume" is
     * `wait` → `completed` with the result already there.
     */
    async suspend(code) {
      const start = performance.now()
      const parked = await short.exec({ code })
      const parkedAt = performance.now()
      if (parked.status !== 'waiting') throw new Error(`${name}: expected waiting, got ${parked.status} ${parked.error}`)
      settleSlow()
      await new Promise((resolve) => setImmediate(resolve)) // the settlement reaches the parked run
      const resumeStart = performance.now()
      const done = await short.wait({ runId: parked.runId })
      const end = performance.now()
      if (done.status !== 'completed') throw new Error(`${name}: wait ended ${done.status} ${done.error}`)
      return { park: parkedAt - start - 100, resume: end - resumeStart, bytes: parked.snapshotBytes, value: done.value }
    },

    /** B5: park at once through `yield_control`, no budget to wait out. */
    async yieldPark(code) {
      const start = performance.now()
      const parked = await main.exec({ code })
      const parkedAt = performance.now()
      if (parked.status !== 'waiting') throw new Error(`${name}: expected waiting, got ${parked.status} ${parked.error}`)
      const done = await main.wait({ runId: parked.runId })
      const end = performance.now()
      if (done.status !== 'completed') throw new Error(`${name}: wait ended ${done.status} ${done.error}`)
      return { park: parkedAt - start, resume: end - parkedAt, bytes: parked.snapshotBytes, value: done.value }
    },

    /** B6: `count` parked runs; `release()` settles their calls and resumes each to completion. */
    async holdSuspended(code, count) {
      const parked = await Promise.all(Array.from({ length: count }, () => short.exec({ code })))
      const bad = parked.find((r) => r.status !== 'waiting')
      if (bad) throw new Error(`${name}: a run did not park: ${bad.status} ${bad.error}`)
      return {
        held: codeMode.suspendedRunCount(),
        bytes: parked.reduce((sum, r) => sum + r.snapshotBytes, 0) / count,
        async release() {
          settleSlow()
          await new Promise((resolve) => setImmediate(resolve))
          for (const r of parked) {
            const done = await short.wait({ runId: r.runId })
            if (done.status !== 'completed') throw new Error(`${name}: wait ended ${done.status} ${done.error}`)
          }
        },
      }
    },

    /** B7: two cells spinning in `for (;;) {}` until their own timeout, off the Node thread. */
    async spin(code, ms) {
      const run = surface({ timeoutMs: ms })
      const results = await Promise.all([run.exec({ code }), run.exec({ code })])
      for (const r of results) if (r.code !== 'timeout') throw new Error(`${name}: a spinning cell ended ${r.status} ${r.code}`)
      return 'timeout'
    },

    async close() {
      settleSlow()
      await codeMode.close()
    },
  }
}
