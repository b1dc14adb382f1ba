// Probe: what a run costs as its catalog grows (issue 18). For 10, 100, 1000
// and 5000 tools of one small schema each: prepareRun on the Node thread, a
// trivial exec, an exec with one tools.search, and the search alone inside
// the cell.
//
//   node --expose-gc bench/probe/catalog.mjs [--product PATH] [--mcp] [--rounds N]
//
//   --mcp      the tools come from ten MCP servers (MCP namespace, declarations)
//   --rounds   samples per size (default 30)
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { catalog } from '../lib/catalogs.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const { values: args } = parseArgs({
  options: {
    product: { type: 'string', default: path.join(here, '../../index.js') },
    mcp: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '30' },
  },
})
const binding = createRequire(import.meta.url)(path.resolve(args.product))
const rounds = Number(args.rounds)

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]
const fmt = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(3))

const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 }, workerThreads: 1 })
const executeTool = async () => ({ ok: true })
console.log(`| tools | prepareRun (Node thread) | trivial exec | exec with one tools.search | search inside the cell |`)
console.log(`|---:|---:|---:|---:|---:|`)
for (const count of [10, 100, 1000, 5000]) {
  const tools = catalog(count, args.mcp ? 'mcp' : 'openclaw')
  const prepare = []
  let run
  for (let i = 0; i < Math.max(5, Math.floor(rounds / 3)); i++) {
    globalThis.gc?.()
    const t0 = performance.now()
    run = codeMode.prepareRun({ runId: `r${count}-${i}`, tools, executeTool })
    prepare.push(performance.now() - t0)
  }
  const time = async (code) => {
    const xs = []
    for (let i = 0; i < rounds + 3; i++) {
      const t0 = performance.now()
      const result = await run.exec({ code })
      const t = performance.now() - t0
      if (result.status !== 'completed') throw new Error(`${code}: ${result.status} ${result.error}`)
      if (i >= 3) xs.push(t)
    }
    return xs
  }
  const trivial = await time('return 1')
  const search = await time("return (await tools.search('send message', { limit: 5 })).length")
  const inside = []
  for (let i = 0; i < 5; i++) {
    const result = await run.exec({ code: "const t0 = Date.now(); let n = 0; for (let i = 0; i < 200; i++) n += (await tools.search('update ticket variant', { limit: 5 })).length; return (Date.now() - t0) / 200" })
    inside.push(result.value)
  }
  console.log(`| ${count} | ${fmt(median(prepare))} ms | ${fmt(median(trivial))} ms (p95 ${fmt(p95(trivial))}) | ${fmt(median(search))} ms | ${fmt(median(inside))} ms |`)
}
await codeMode.close()
