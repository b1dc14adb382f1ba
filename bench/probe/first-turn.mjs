// The Node thread's first event-loop turn after a `prepareRun`, when the
// surfaces of earlier runs were just garbage-collected: the turn in which
// Node runs N-API finalizers. Freeing a surface's build there (catalog, MCP
// namespace, agent run) cost 12-20 ms at 5000 MCP tools; since issue 33 the
// builder thread frees it (`Builder::retire`). As in B13, a full gc() runs
// before each of 15 prepareRun calls, so finalizers of surfaces pile up for
// the turns that follow; without it the turn is small for both builds.
// Run from the checkout (the product is ./index.js). Nothing here fails.
//
//   node --expose-gc bench/probe/first-turn.mjs [--kind mcp|openclaw] [--rounds N] [--baseline PATH]
import { createRequire } from 'node:module'
import path from 'node:path'
import { parseArgs } from 'node:util'

import { catalog } from '../lib/catalogs.mjs'

const { values } = parseArgs({ options: { kind: { type: 'string', default: 'mcp' }, rounds: { type: 'string', default: '6' }, baseline: { type: 'string' } } })
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
const require = createRequire(import.meta.url)
const builds = [['product', path.resolve('index.js')], ...(values.baseline ? [['baseline', path.resolve(values.baseline)]] : [])]
const tools = catalog(5000, values.kind)
const quiet = async () => {
  await new Promise((resolve) => setTimeout(resolve, 100))
  globalThis.gc()
}

for (const [name, file] of builds) {
  const binding = require(file)
  const turns = []
  for (let round = 0; round < Number(values.rounds); round++) {
    const codeMode = binding.createCodeMode({ config: { enabled: true }, workerThreads: 1 })
    // As B13 does: a full collection before each prepareRun.
    for (let i = 0; i < 15; i++) {
      globalThis.gc()
      codeMode.prepareRun({ runId: `r${i}`, tools, executeTool: async () => ({}) }).modelTools
    }
    await quiet()
    codeMode.prepareRun({ runId: 'after', tools, executeTool: async () => ({}) })
    const t0 = performance.now()
    await new Promise((resolve) => setImmediate(resolve))
    turns.push(performance.now() - t0)
    await quiet()
    await codeMode.close()
  }
  turns.sort((a, b) => a - b)
  console.log(`${name}: first turn after prepareRun (5000 ${values.kind} tools), median ${turns[turns.length >> 1].toFixed(2)} ms, all ${turns.map((t) => t.toFixed(1)).join(' ')}`)
}
