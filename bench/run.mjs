// The benchmark of @openclaw/code-mode against its peers (B1-B13), all in
// one process, in interleaved rounds. Writes bench/RESULTS.md (or --out) and
// prints the same tables.
//
//   node --expose-gc bench/run.mjs [--quick] [--product PATH] [--baseline PATH]
//                                  [--only B2,B3] [--out FILE]
//
//   --quick           about one minute: fewer rounds, shorter phases
//   --product PATH    the index.js of the build to measure (default: ../index.js)
//   --baseline PATH   a second build's index.js, measured as "baseline" next to
//                     the product (copy its index.js and .node to one folder:
//                     the loader finds the .node next to index.js)
//   --only IDS        a comma-separated subset of B1..B13
//   --isolation MODE  thread, process or both (default): with both, the
//                     product also runs as "process" (isolation: 'process',
//                     its cells in a sandbox process), beside "product"
//   --out FILE        where to write the markdown (default: bench/RESULTS.md,
//                     or bench/RESULTS.partial.md with --only)
//
// Peers are devDependencies of bench/package.json (bench/ensure-peers.mjs
// installs them). A peer that does not load is left out with a note.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { PEERS } from './contenders/index.mjs'
import { createProduct, loadBinding } from './contenders/product.mjs'
import { loadAverage, machineInfo } from './lib/machine.mjs'
import { section, table } from './lib/report.mjs'
import { ratioTable, targetRows } from './lib/targets.mjs'
import * as workloads from './lib/workloads.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, '..')

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    product: { type: 'string', default: path.join(repo, 'index.js') },
    baseline: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string' },
    isolation: { type: 'string', default: 'both' },
  },
})
if (!['thread', 'process', 'both'].includes(args.isolation)) throw new Error('--isolation: thread, process or both')
// A partial run never overwrites the full results the README quotes.
args.out ??= path.join(here, args.only ? 'RESULTS.partial.md' : 'RESULTS.md')

const ALL = ['B1', 'B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'B8', 'B9', 'B10', 'B11', 'B12', 'B13']
const selected = args.only ? args.only.split(',').map((s) => s.trim().toUpperCase()) : ALL
for (const id of selected) if (!ALL.includes(id)) throw new Error(`--only: unknown workload ${id} (${ALL.join(', ')})`)
if (typeof globalThis.gc !== 'function') console.warn('warning: run with node --expose-gc, so that gc() runs between slices')

// Round counts. A round runs every contender once per workload (see lib/rounds.mjs).
const plan = args.quick
  ? {
      latency: { warmup: 2, rounds: 8 },
      b1PerSlice: 5,
      b2PerSlice: 2,
      compute: { warmup: 1, rounds: 4 },
      suspend: { warmup: 1, rounds: 6 },
      hold: { warmup: 0, rounds: 3 },
      lagSeconds: 0.5,
      firstCallProcesses: 3,
      throughput: { warmup: 1, rounds: 2 },
      sliceMs: 150,
      calls: { warmup: 2, rounds: 15 },
      fairness: { warmup: 0, rounds: 2 },
      aloneCells: 40,
      loaded: { warmup: 1, rounds: 5 },
      catalogs: { prepares: 5, execs: 10, searches: 50 },
    }
  : {
      latency: { warmup: 5, rounds: 30 },
      b1PerSlice: 10,
      b2PerSlice: 3,
      compute: { warmup: 2, rounds: 15 },
      suspend: { warmup: 3, rounds: 25 },
      hold: { warmup: 0, rounds: 5 },
      lagSeconds: 2,
      firstCallProcesses: 8,
      throughput: { warmup: 1, rounds: 6 },
      sliceMs: 300,
      calls: { warmup: 5, rounds: 100 },
      fairness: { warmup: 1, rounds: 5 },
      aloneCells: 100,
      loaded: { warmup: 2, rounds: 20 },
      catalogs: { prepares: 15, execs: 40, searches: 200 },
    }

// --- contenders -------------------------------------------------------------

const notes = []
const productBinding = loadBinding(args.product)
const product = await createProduct({
  name: 'product',
  binding: productBinding,
  isolation: args.isolation === 'process' ? 'process' : 'thread',
})
const products = [product]
const productPaths = { product: path.resolve(args.product) }
// The product again with its cells in a sandbox process; child processes
// (B6, B8) run it with CODE_MODE_ISOLATION=process.
const isolations = { product: args.isolation === 'process' ? 'process' : 'thread' }
if (args.isolation === 'both') {
  const sandboxed = await createProduct({ name: 'process', binding: productBinding, isolation: 'process' })
  sandboxed.label = "product (isolation: 'process')"
  products.push(sandboxed)
  productPaths.process = productPaths.product
  isolations.process = 'process'
}
if (args.baseline) {
  const baseline = await createProduct({ name: 'baseline', binding: loadBinding(args.baseline) })
  products.push(baseline)
  productPaths.baseline = path.resolve(args.baseline)
}

// B2 also runs the product with 1, 2 and 4 worker threads, as separate
// instances (the default row is the number of cores, 1..16).
const cores = (await import('node:os')).availableParallelism()
product.label = `product (default: ${Math.min(16, cores)} workers)`
const workers = []
for (const n of [1, 2, 4]) {
  if (n === Math.min(16, cores)) continue
  const w = await createProduct({ name: `product-w${n}`, binding: productBinding, workerThreads: n })
  w.label = `product (workerThreads ${n})`
  workers.push(w)
}

const peers = []
for (const [name, create] of Object.entries(PEERS)) {
  try {
    peers.push(await create())
  } catch (error) {
    notes.push(`${name} did not load (${error.message.split('\n')[0]}); run \`node bench/ensure-peers.mjs\`.`)
    console.warn(`warning: ${name} left out: ${error.message.split('\n')[0]}`)
  }
}
const nodeVm = peers.find((p) => p.name === 'node:vm')
let tsPeer = null
if (nodeVm) {
  try {
    await nodeVm.typescriptCell('return 1')
    tsPeer = { name: 'typescript', kind: 'peer', typescriptCell: (code) => nodeVm.typescriptCell(code) }
  } catch (error) {
    notes.push(`the typescript package did not load (${error.message.split('\n')[0]}): B8 has no peer.`)
  }
}
const all = [...products, ...peers]

// --- run ----------------------------------------------------------------------

const info = machineInfo(repo)
const loadBefore = loadAverage()
const startedAt = performance.now()
const results = {}
const context = { all, product, products, peers, workers, tsPeer, plan, productPaths, isolations }
for (const id of selected) {
  const t0 = performance.now()
  process.stderr.write(`${id}... `)
  results[id] = await workloads[id.toLowerCase()](context)
  process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
}
const loadAfter = loadAverage()
const elapsed = (performance.now() - startedAt) / 1000
for (const c of [...products, ...workers, ...peers]) await c.close()

// --- report ---------------------------------------------------------------------

const builds = products.map((p) => p.name)
const header = [
  `# code-mode benchmark${args.quick ? ' (quick)' : ''}`,
  table(
    [['field'], ['value']],
    [
      ['date', info.date],
      ['commit', info.commit],
      ['product', path.relative(repo, productPaths.product) || productPaths.product],
      ['isolation', Object.entries(isolations).map(([name, mode]) => `${name}: ${mode}`).join(', ')],
      ...(productPaths.baseline ? [['baseline', productPaths.baseline]] : []),
      ['machine', `${info.cpu}, ${info.cores} cores, ${info.ramGiB} GiB RAM, ${info.platform}`],
      ['Node', info.node],
      ['load average before / after', `${loadBefore} / ${loadAfter}`],
      ['rounds', describePlan(plan)],
      ['peers', peers.map((p) => p.name).join(', ') || 'none'],
      ['duration', `${elapsed.toFixed(0)} s`],
    ],
  ),
  'Method: all contenders run in this one process. Each round runs every contender once per workload, in an order that rotates every round; a full gc() runs between slices; warm-up rounds are discarded. Ratios are the other contender\'s figure over the product\'s: how many times faster or lighter the product is (below 1×: slower). No test depends on these figures.',
  `Setup: ${workloads.SETUP_NOTE}`,
  ...notes,
].join('\n\n')

const targets = targetRows(results, builds)
const summary = [
  '## Summary',
  `Product vs each peer (medians; in the ÷ columns, how many times faster or lighter the product is):`,
  ratioTable(results, 'product', [...builds.slice(1), ...peers.map((p) => p.name)]),
  `Targets (against ${'quickjs-wasi'} in this run unless named): ${targets.met} of ${targets.counted} met by the product.`,
  targets.markdown,
].join('\n\n')

const markdown = [header, summary, ...selected.map((id) => section(results[id]))].join('\n\n') + '\n'
writeFileSync(args.out, markdown)
console.log(markdown)
console.error(`wrote ${path.relative(process.cwd(), args.out) || args.out} in ${elapsed.toFixed(0)} s`)

function describePlan(p) {
  return [
    `latency ${p.latency.warmup} warm-up + ${p.latency.rounds} (B1 ×${p.b1PerSlice}, B2/B3 ×${p.b2PerSlice} per slice)`,
    `compute ${p.compute.warmup} + ${p.compute.rounds}`,
    `suspend ${p.suspend.warmup} + ${p.suspend.rounds}`,
    `hold ${p.hold.warmup} + ${p.hold.rounds}`,
    `lag ${p.lagSeconds} s per phase`,
    `first call ${p.firstCallProcesses} processes`,
    `throughput ${p.throughput.warmup} + ${p.throughput.rounds} of ${p.sliceMs} ms`,
    `calls ${p.calls.warmup} + ${p.calls.rounds}`,
    `fairness ${p.fairness.warmup} + ${p.fairness.rounds}`,
    `loaded ${p.loaded.warmup} + ${p.loaded.rounds} per load`,
    `catalogs ${p.catalogs.prepares} prepareRun, ${p.catalogs.execs} execs, ${p.catalogs.searches} searches per size`,
  ].join('; ')
}
