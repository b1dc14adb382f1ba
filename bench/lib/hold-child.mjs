// B6's child process: RSS growth while holding suspended runs, measured in a
// fresh process per sample, because in a long-lived process memory that one
// contender freed (malloc arenas, a WASM memory that never shrinks) is
// reused by the next and hides its growth.
//   node --expose-gc hold-child.mjs <contender> <count> [product index.js]
// Prints { perRun, snapshotBytes } as JSON.
import { readdirSync, readFileSync } from 'node:fs'

import { createProduct, loadBinding } from '../contenders/product.mjs'
import { PEERS } from '../contenders/index.mjs'
import { B2, SUSPEND } from './cells.mjs'
import { collect } from './rounds.mjs'

/**
 * This process's RSS plus its children's (a process-isolated product holds
 * its parked runs in its sandbox process).
 */
function rss() {
  let total = process.memoryUsage().rss
  if (process.platform !== 'linux') return total
  for (const task of readdirSync('/proc/self/task')) {
    for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(' ').filter(Boolean)) {
      total += Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)[1]) * 1024
    }
  }
  return total
}

const [name, countText, indexPath] = process.argv.slice(2)
const count = Number(countText)
const contender = name === 'product' ? await createProduct({ name, binding: loadBinding(indexPath) }) : await PEERS[name]()

// Warm the path up first: module instantiated, worker threads started, one
// VM created and dropped, one run parked and resumed (or one VM held).
await contender.cell(B2.code)
if (contender.kind === 'product') await (await contender.holdSuspended(SUSPEND.code, 1)).release()
else (await contender.hold(SUSPEND.code))()

collect()
const before = rss()
let release
let snapshotBytes = null
if (contender.kind === 'product') {
  const held = await contender.holdSuspended(SUSPEND.code, count)
  if (held.held !== count) throw new Error(`${held.held} runs parked, not ${count}`)
  snapshotBytes = held.bytes
  release = held.release
} else {
  const disposers = []
  for (let i = 0; i < count; i++) disposers.push(await contender.hold(SUSPEND.code))
  release = () => disposers.forEach((d) => d())
}
collect()
const after = rss()
await release()
await contender.close()
process.stdout.write(JSON.stringify({ perRun: (after - before) / count, snapshotBytes }))
process.exit(0)
