// What one sandbox process costs (isolation: 'process'): a fresh Node
// process creates a code mode with process isolation and times its first
// exec (the sandbox's start and lockdown included), its second, and the
// resident memory of the sandbox process after them; then the same first
// exec with threads, for comparison. Linux only (where sandboxes are locked
// down). Each sample is its own Node process, so nothing is warm.
//
//   node bench/sandbox.mjs [--runs N]
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const runsAt = process.argv.indexOf('--runs')
const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 20
if (process.platform !== 'linux') {
  console.log('bench/sandbox.mjs: sandbox processes are measured on Linux only so far')
  process.exit(0)
}

// One sample, in a child Node process: [first exec ms, second exec ms, sandbox RSS KiB].
const SAMPLE = `
import { readdirSync, readFileSync } from 'node:fs'
import { createCodeMode } from ${JSON.stringify(`${root}index.js`)}
const isolation = process.argv[1]
const t0 = performance.now()
const codeMode = createCodeMode({ config: { enabled: true }, isolation })
const run = codeMode.prepareRun({ runId: 'b', tools: [{ name: 'echo', description: 'echo', source: 'openclaw' }], executeTool: (c) => c.input })
const first = await run.exec({ code: 'return (await tools.echo({ n: 1 })).n' })
const t1 = performance.now()
const second = await run.exec({ code: 'return (await tools.echo({ n: 2 })).n' })
const t2 = performance.now()
if (first.value !== 1 || second.value !== 2) throw new Error(JSON.stringify([first, second]))
let rss = 0
for (const task of readdirSync('/proc/self/task')) {
  for (const pid of readFileSync('/proc/self/task/' + task + '/children', 'utf8').trim().split(' ').filter(Boolean)) {
    rss += Number(readFileSync('/proc/' + pid + '/status', 'utf8').match(/^VmRSS:\\s+(\\d+)/m)[1])
  }
}
await codeMode.close()
console.log(JSON.stringify([t1 - t0, t2 - t1, rss]))
`

function sample(isolation) {
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', SAMPLE, isolation], { encoding: 'utf8' })
  if (ran.status !== 0) throw new Error(ran.stderr)
  return JSON.parse(ran.stdout)
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}
const process_ = []
const thread = []
for (let i = 0; i < runs; i++) {
  process_.push(sample('process'))
  thread.push(sample('thread'))
}
const column = (rows, i) => rows.map((row) => row[i])
console.log(`sandbox processes, ${runs} fresh Node processes each (medians):`)
console.log(`  first exec with a nested call, createCodeMode and the sandbox's start included: ${median(column(process_, 0)).toFixed(1)} ms (threads: ${median(column(thread, 0)).toFixed(1)} ms)`)
console.log(`  second exec: ${median(column(process_, 1)).toFixed(2)} ms (threads: ${median(column(thread, 1)).toFixed(2)} ms)`)
console.log(`  resident memory of the sandbox process: ${(median(column(process_, 2)) / 1024).toFixed(1)} MiB`)
