// One B10 cell measured alone, product against a baseline, the way the
// bench measures it (both builds in one process, interleaved, a full gc()
// twice before every sample) but with many more rounds: the full bench's
// B10 row for namespace calls swings with the mix of cells around it.
// Nothing here fails.
//
//   node --expose-gc bench/probe/b10-isolated.mjs --baseline PATH [--cell NAME] [--rounds N]
//   cells: namespace-seq (default), tools-seq, namespace-all, tools-all, mcp-seq
import path from 'node:path'
import { parseArgs } from 'node:util'

import { createProduct, loadBinding } from '../contenders/product.mjs'

const CELLS = {
  'namespace-seq': 'for (let i = 0; i < 100; i++) await Echo.echo(i); return 1',
  'tools-seq': "for (let i = 0; i < 100; i++) await tools.call('echo', { n: i, mode: 'fast' }); return 1",
  'mcp-seq': 'for (let i = 0; i < 100; i++) await MCP.docs.echo({ n: i }); return 1',
  'namespace-all': 'await Promise.all(Array.from({ length: 100 }, (_, i) => Echo.echo(i))); return 1',
  'tools-all': "await Promise.all(Array.from({ length: 100 }, (_, i) => tools.call('echo', { n: i, mode: 'fast' }))); return 1",
}
const { values } = parseArgs({ options: { baseline: { type: 'string' }, cell: { type: 'string', default: 'namespace-seq' }, rounds: { type: 'string', default: '500' } } })
if (!values.baseline) throw new Error('--baseline PATH (an index.js of another build) is required')
if (!CELLS[values.cell]) throw new Error(`--cell: one of ${Object.keys(CELLS).join(', ')}`)
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')

const contenders = [
  await createProduct({ name: 'product', binding: loadBinding(path.resolve('index.js')) }),
  await createProduct({ name: 'baseline', binding: loadBinding(path.resolve(values.baseline)) }),
]
const code = CELLS[values.cell]
const samples = { product: [], baseline: [] }
const rounds = Number(values.rounds)
for (let round = 0; round < rounds + 5; round++) {
  for (const contender of round % 2 ? contenders : [...contenders].reverse()) {
    globalThis.gc()
    globalThis.gc()
    const t0 = performance.now()
    await contender.cell(code)
    if (round >= 5) samples[contender.name].push(performance.now() - t0)
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const [p, b] = [median(samples.product), median(samples.baseline)]
console.log(`${values.cell}, ${rounds} rounds: product ${p.toFixed(2)} ms, baseline ${b.toFixed(2)} ms, product ÷ baseline ${(p / b).toFixed(3)}`)
for (const contender of contenders) await contender.close?.()
process.exit(0)
