// B7 of the benchmark plan: how late a 1 ms setInterval fires on the Node
// thread while cells work, first with two cells spinning in `for (;;) {}`
// until their timeout, then under floods of nested calls with large inputs
// (the Node thread turns every input into a value). Prints a markdown table;
// the target is a p99 lag under 5 ms in every row.
//
//   node bench/event-loop-lag.mjs [seconds per workload, default 3]

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const binding = require('../index.js')

const seconds = Number(process.argv[2] ?? 3)
if (!(seconds > 0)) throw new Error('usage: node bench/event-loop-lag.mjs [seconds > 0]')

const flood = (keys) =>
  `const o = {}; for (let i = 0; i < ${keys}; i++) o['k' + i] = i
   const until = Date.now() + ${seconds * 1000}; let n = 0
   while (Date.now() < until) { await tools.echo(o); n++ }
   return n`

const workloads = [
  { name: 'two cells spinning until their timeout', code: 'for (;;) {}', timeoutMs: seconds * 1000 },
  { name: 'two cells looping nested calls, 1,000-key inputs (14 KB)', code: flood(1000) },
  { name: 'two cells looping nested calls, 50,000-key inputs (700 KB)', code: flood(50000) },
]

/** Runs two copies of `code` at once and records each 1 ms interval's lateness. */
async function measure({ code, timeoutMs = 60000 }) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs }, workerThreads: 2 })
  let calls = 0
  const run = codeMode.prepareRun({
    runId: 'lag',
    tools: [{ name: 'echo', description: 'Counts its calls.', source: 'openclaw' }],
    executeTool: () => ++calls,
  })
  const lags = []
  let previous = performance.now()
  const interval = setInterval(() => {
    const now = performance.now()
    lags.push(now - previous - 1)
    previous = now
  }, 1)
  const results = await Promise.all([run.exec({ code }), run.exec({ code })])
  clearInterval(interval)
  await codeMode.close()
  const expected = timeoutMs < 60000 ? 'timeout' : 'completed'
  for (const result of results) {
    const outcome = result.code ?? result.status
    if (outcome !== expected) throw new Error(`a cell ended ${outcome}: ${result.error}`)
  }
  lags.sort((a, b) => a - b)
  const at = (q) => Math.max(0, lags[Math.min(lags.length - 1, Math.floor(q * lags.length))])
  return { p50: at(0.5), p99: at(0.99), max: at(1), ticks: lags.length, calls }
}

const ms = (value) => `${value.toFixed(2)} ms`
const rows = []
for (const workload of workloads) {
  const { p50, p99, max, ticks, calls } = await measure(workload)
  rows.push(`| ${workload.name} | ${ms(p50)} | ${ms(p99)} | ${ms(max)} | ${ticks} | ${calls} | ${p99 < 5 ? 'yes' : 'no'} |`)
}
console.log(`B7, event-loop lag of a 1 ms setInterval, ${seconds} s per workload, Node ${process.version}\n`)
console.log('| workload | p50 lag | p99 lag | max lag | ticks | nested calls | p99 < 5 ms |')
console.log('|---|---:|---:|---:|---:|---:|:-:|')
for (const row of rows) console.log(row)
