// A probe of suspend and resume (B5 alone), for profiling: parks a run at
// the end of its budget (or through yield_control) N times and prints the
// park and resume medians.
//
//   node bench/probe/b5.mjs [--runs N] [--product PATH] [--yield]
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { createProduct, loadBinding } from '../contenders/product.mjs'
import * as cells from '../lib/cells.mjs'
import { summarize } from '../lib/stats.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '40' },
    product: { type: 'string', default: path.join(here, '../../index.js') },
    yield: { type: 'boolean', default: false },
  },
})
const product = await createProduct({ name: 'product', binding: loadBinding(args.product) })
const run = () => (args.yield ? product.yieldPark(cells.YIELD.code) : product.suspend(cells.SUSPEND.code))
for (let i = 0; i < 3; i++) await run()
const park = []
const resume = []
let bytes = 0
for (let i = 0; i < Number(args.runs); i++) {
  const r = await run()
  park.push(r.park)
  resume.push(r.resume)
  bytes = r.bytes
}
const p = summarize(park)
const r = summarize(resume)
console.log(`park median ${(p.median * 1000).toFixed(0)} µs (p95 ${(p.p95 * 1000).toFixed(0)}), resume median ${(r.median * 1000).toFixed(0)} µs (p95 ${(r.p95 * 1000).toFixed(0)}), ${bytes} bytes held`)
await product.close()
