// The timings the test suites used to assert, measured instead (tests are
// deterministic: no clock decides whether one passes). Each row prints the
// figure and the bound a test once held it to, as a reference for a reader
// of the numbers; nothing here fails.
//
//   node --expose-gc bench/probe/timings.mjs [--rounds N] [--product PATH]
//
// The rows, and where their test went (issue 32):
//   close-idle      close() of an idle instance, median of N. Was
//                   cleanup.test.mjs "close() returns promptly" (< 50 ms).
//   spin-timeout    a `for (;;) {}` cell with a 300 ms budget: when its
//                   `timeout` arrives. Was limits.test.mjs (>= 290 ms) and
//                   tests/engine.rs loops_time_out_even_after_await (< 5 s).
//   timer-sleep     `await setTimeout 50 ms` as the guest's own Date.now()
//                   sees it. Was timers.test.mjs (>= 49 ms); the due time is
//                   now checked in sandbox/bound_tests.rs.
//   interval-ticks  ticks of setInterval(f, 0) during a 100 ms timer. Was
//                   timers.test.mjs (<= 11); now counted by due order.
//   stuck-answer    a quadratic indexOf with a 200 ms budget: when its
//                   `timeout` arrives. Was hardening.test.mjs (< 20 s).
//   stuck-close     close() while that search runs with a 60 s budget. Was
//                   hardening.test.mjs (< 20 s).
//   flood-stall     the longest event-loop stall while two cells send
//                   50000-member inputs for 2 s. Was hardening.test.mjs
//                   (< 1000 ms); B11 of bench/run.mjs measures lag too.
//   beside-slow     a `return 1` cell on the one worker of an instance whose
//                   other cell awaits a 500 ms tool. Was tests/engine.rs
//                   a_waiting_worker_runs_other_cells (< 400 ms).
import { monitorEventLoopDelay } from 'node:perf_hooks'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createRequire } from 'node:module'

const here = path.dirname(fileURLToPath(import.meta.url))
const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    product: { type: 'string', default: path.join(here, '../../index.js') },
  },
})
const rounds = Number(args.rounds)
const binding = createRequire(import.meta.url)(path.resolve(args.product))
const ECHO = [{ name: 'echo', description: '', source: 'openclaw' }]
const QUADRATIC = "const h = 'a'.repeat(1e6); const n = 'a'.repeat(4e4) + 'b'; return h.indexOf(n)"
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const rows = []
/** Records `values` (ms or counts) under `name`, with the bound a test once held and whether they keep it. */
function row(name, values, unit, formerBound, within) {
  const sorted = [...values].sort((a, b) => a - b)
  const median = sorted[sorted.length >> 1]
  rows.push({ name, median, min: sorted[0], max: sorted[sorted.length - 1], unit, formerBound, within: within(values, median), n: values.length })
}

async function timed(fn) {
  const started = performance.now()
  const result = await fn()
  return [performance.now() - started, result]
}

// close-idle
{
  const times = []
  for (let i = 0; i < rounds; i++) {
    const codeMode = binding.createCodeMode({ config: { enabled: true }, workerThreads: 2 })
    times.push((await timed(() => codeMode.close()))[0])
  }
  row('close-idle', times, 'ms', '< 50 ms (median)', (_, median) => median < 50)
}

// spin-timeout
{
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 300 } })
  const run = codeMode.prepareRun({ runId: 'spin', tools: ECHO, executeTool: async () => null })
  const times = []
  for (let i = 0; i < rounds; i++) {
    const [ms, result] = await timed(() => run.exec({ code: i % 2 ? 'await null; for(;;){}' : 'for(;;){}' }))
    if (result.code !== 'timeout') throw new Error(`spin-timeout: ${result.code}`)
    times.push(ms)
  }
  await codeMode.close()
  row('spin-timeout', times, 'ms', '>= 290 ms and < 5000 ms', (values) => values.every((ms) => ms >= 290 && ms < 5000))
}

// timer-sleep and interval-ticks
{
  const codeMode = binding.createCodeMode({ config: { enabled: true } })
  const run = codeMode.prepareRun({ runId: 'timers', tools: ECHO, executeTool: async () => null })
  const slept = []
  const ticks = []
  for (let i = 0; i < rounds; i++) {
    slept.push((await run.exec({ code: 'const t0 = Date.now(); await new Promise((r) => setTimeout(r, 50)); return Date.now() - t0' })).value)
    ticks.push((await run.exec({ code: 'let n = 0; const id = setInterval(() => n++, 0); await new Promise((r) => setTimeout(r, 100)); clearInterval(id); return n' })).value)
  }
  await codeMode.close()
  row('timer-sleep', slept, 'ms', '>= 49 ms', (values) => values.every((ms) => ms >= 49))
  row('interval-ticks', ticks, 'ticks', '1 to 11', (values) => values.every((n) => n >= 1 && n <= 11))
}

// stuck-answer and stuck-close
{
  const answers = []
  const closes = []
  for (let i = 0; i < Math.min(rounds, 5); i++) {
    const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 200 } })
    const run = codeMode.prepareRun({ runId: 'stuck', tools: ECHO, executeTool: async () => null })
    const [ms, result] = await timed(() => run.exec({ code: QUADRATIC }))
    if (result.code !== 'timeout') throw new Error(`stuck-answer: ${result.code}`)
    answers.push(ms)
    await codeMode.close()
    const closing = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 } })
    const long = closing.prepareRun({ runId: 'stuck', tools: ECHO, executeTool: async () => null })
    const pending = long.exec({ code: QUADRATIC })
    await sleep(50)
    closes.push((await timed(() => closing.close()))[0])
    await pending
  }
  row('stuck-answer', answers, 'ms', '< 20000 ms', (values) => values.every((ms) => ms < 20000))
  row('stuck-close', closes, 'ms', '< 20000 ms', (values) => values.every((ms) => ms < 20000))
}

// flood-stall
{
  const stalls = []
  for (let i = 0; i < Math.min(rounds, 3); i++) {
    const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 }, workerThreads: 2 })
    const run = codeMode.prepareRun({ runId: 'flood', tools: ECHO, executeTool: () => 1 })
    const code = "const o = {}; for (let i = 0; i < 50000; i++) o['k' + i] = i; const until = Date.now() + 2000; let n = 0; while (Date.now() < until) { await tools.echo(o); n++ } return n"
    const lag = monitorEventLoopDelay({ resolution: 1 })
    lag.enable()
    await Promise.all([run.exec({ code }), run.exec({ code })])
    lag.disable()
    stalls.push(lag.max / 1e6)
    await codeMode.close()
  }
  row('flood-stall', stalls, 'ms', '< 1000 ms', (values) => values.every((ms) => ms < 1000))
}

// beside-slow
{
  const times = []
  for (let i = 0; i < rounds; i++) {
    const codeMode = binding.createCodeMode({ config: { enabled: true }, workerThreads: 1 })
    const slow = codeMode.prepareRun({ runId: 'slow', sessionId: 's', tools: ECHO, executeTool: () => sleep(500).then(() => 'slow') })
    const fast = codeMode.prepareRun({ runId: 'fast', sessionId: 's', tools: ECHO, executeTool: async () => null })
    const waiting = slow.exec({ code: 'return await tools.echo({})' })
    await sleep(50)
    const [ms, result] = await timed(() => fast.exec({ code: 'return 1' }))
    if (result.value !== 1) throw new Error(`beside-slow: ${result.code}`)
    times.push(ms)
    await waiting
    await codeMode.close()
  }
  row('beside-slow', times, 'ms', '< 400 ms', (values) => values.every((ms) => ms < 400))
}

const fmt = (n, unit) => (unit === 'ms' ? `${n.toFixed(1)} ms` : String(n))
console.log(`timings (${rounds} rounds; node ${process.version}; ${path.relative(process.cwd(), path.resolve(args.product))})`)
console.log('| timing | n | median | min | max | the bound a test once held | held |')
console.log('|---|---:|---:|---:|---:|---|---|')
for (const r of rows) {
  console.log(`| ${r.name} | ${r.n} | ${fmt(r.median, r.unit)} | ${fmt(r.min, r.unit)} | ${fmt(r.max, r.unit)} | ${r.formerBound} | ${r.within ? 'yes' : 'NO'} |`)
}
