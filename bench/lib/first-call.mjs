// B8's child process: the first TypeScript cell of a fresh process.
//   node first-call.mjs product <index.js> | node first-call.mjs typescript
// Prints { loadMs, firstMs, value } as JSON: the module's load time, then the
// first TypeScript cell's time after one JavaScript cell has warmed up the
// rest of the path (worker thread, VM, context).
import { TS_CELL } from './cells.mjs'

const [kind, indexPath] = process.argv.slice(2)
let loadMs
let firstMs
let firstExecMs
let value

if (kind === 'product') {
  const { createProduct, loadBinding } = await import('../contenders/product.mjs')
  const start = performance.now()
  const binding = loadBinding(indexPath)
  loadMs = performance.now() - start
  const created = performance.now()
  const product = await createProduct({ name: 'product', binding })
  await product.cell('return 1')
  // The first exec of the process: createCodeMode, prepareRun and a trivial
  // cell (with isolation 'process', the sandbox's start and lockdown too).
  firstExecMs = performance.now() - created
  const t0 = performance.now()
  value = await product.typescriptCell(TS_CELL.code)
  firstMs = performance.now() - t0
  await product.close()
} else if (kind === 'typescript') {
  const { createRequire } = await import('node:module')
  const { createNodeVm } = await import('../contenders/node-vm.mjs')
  const start = performance.now()
  createRequire(import.meta.url)('typescript')
  loadMs = performance.now() - start
  const peer = await createNodeVm()
  await peer.cell('return 1')
  const t0 = performance.now()
  value = await peer.typescriptCell(TS_CELL.code)
  firstMs = performance.now() - t0
} else {
  throw new Error(`unknown contender ${kind}`)
}
process.stdout.write(JSON.stringify({ loadMs, firstMs, firstExecMs, value }))
