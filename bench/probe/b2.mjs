// A probe of the nested-call round trip (B2 alone), for profiling: runs the
// B2 cell N times back to back and prints the per-call distribution and, per
// thread, the context switches (wake-ups), the time on a core and the time
// waiting for one (run queue) per nested call.
//
//   node bench/probe/b2.mjs [--runs N] [--workers N] [--product PATH] [--cell b2|b3] [--peer NAME]
//                           [--between PEER] [--gc N] [--settle MS]   (with --expose-gc: two full collections every N runs, as the benchmark does between slices)
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { PEERS } from '../contenders/index.mjs'
import { createProduct, loadBinding } from '../contenders/product.mjs'
import * as cells from '../lib/cells.mjs'
import { summarize } from '../lib/stats.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '600' },
    workers: { type: 'string' },
    product: { type: 'string', default: path.join(here, '../../index.js') },
    cell: { type: 'string', default: 'b2' },
    peer: { type: 'string' },
    gc: { type: 'string' },
    settle: { type: 'string' },
    between: { type: 'string' },
  },
})
const runs = Number(args.runs)
const cell = args.cell === 'b3' ? cells.B3 : cells.B2

/** Voluntary and involuntary context switches of every thread of this process, by name. */
function switches() {
  const out = {}
  for (const tid of readdirSync('/proc/self/task')) {
    const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8')
    const name = status.match(/^Name:\s*(.*)$/m)[1]
    const v = Number(status.match(/^voluntary_ctxt_switches:\s*(\d+)/m)[1])
    const n = Number(status.match(/^nonvoluntary_ctxt_switches:\s*(\d+)/m)[1])
    const key = `${name}#${tid}`
    // On-core time and run-queue wait, in nanoseconds (Linux schedstat).
    const [run, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ').map(Number)
    out[key] = { v, n, run, wait }
  }
  return out
}

// --peer quickjs-wasi (or another peer of bench/contenders) probes that peer
// instead, for a figure of the same cell in the same conditions.
const product = args.peer
  ? await PEERS[args.peer]()
  : await createProduct({
      name: 'product',
      binding: loadBinding(args.product),
      ...(args.workers ? { workerThreads: Number(args.workers) } : {}),
    })
for (let i = 0; i < 20; i++) await product.cell(cell.code)
const before = switches()
const times = []
const gcEvery = args.gc ? Number(args.gc) : 0
// --between NAME: one untimed cell of that peer between runs, as the
// benchmark's interleaved rounds do.
const between = args.between ? await PEERS[args.between]() : null
const afterGc = []
for (let i = 0; i < runs; i++) {
  const collected = gcEvery > 0 && i % gcEvery === 0
  if (collected) {
    globalThis.gc()
    globalThis.gc()
    if (args.settle) await new Promise((resolve) => setTimeout(resolve, Number(args.settle)))
  }
  if (between) await between.cell(cell.code)
  const start = performance.now()
  const value = await product.cell(cell.code)
  times.push(performance.now() - start)
  if (collected) afterGc.push(times.at(-1))
  if (value !== cell.expect) throw new Error(`got ${value}`)
}
const after = switches()
const s = summarize(times)
const calls = runs * 100
console.log(`${runs} runs: median ${(s.median * 10).toFixed(1)} µs/call, p95 ${(s.p95 * 10).toFixed(1)} µs/call, min ${(s.min * 10).toFixed(1)}, max ${(s.max * 10).toFixed(1)}; p95/median ${(s.p95 / s.median).toFixed(2)}`)
if (afterGc.length) {
  const a = summarize(afterGc)
  console.log(`first run after gc(): median ${(a.median * 10).toFixed(1)} µs/call over ${afterGc.length} runs`)
}
const slow = times.filter((t) => t > s.median * 3).length
console.log(`runs over 3x median: ${slow}`)
for (const [key, a] of Object.entries(after)) {
  const b = before[key] ?? { v: 0, n: 0 }
  const v = (a.v - b.v) / calls
  const n = (a.n - b.n) / calls
  const run = (a.run - (b.run ?? 0)) / calls / 1000
  const wait = (a.wait - (b.wait ?? 0)) / calls / 1000
  if (v + n > 0.001 || run > 0.05) {
    console.log(`  ${key.padEnd(28)} voluntary ${v.toFixed(3)}/call, involuntary ${n.toFixed(3)}/call, on a core ${run.toFixed(2)} µs/call, waiting for one ${wait.toFixed(2)} µs/call`)
  }
}
await product.close?.()
