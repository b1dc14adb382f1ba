// The end of the soak: the reasons it fails (unexpected outcomes, RSS above
// the tolerance, threads or handles above the baseline), the table of
// start/baseline/end, timings, outcomes per class and the first 20 failures.
// Returns the exit code: 0 when it passed, 1 when it failed.
import { binding } from './binding.mjs'
import { CLASSES } from './jobs/index.mjs'
import { MiB, mib } from './measure.mjs'
import { stats } from './stats.mjs'

export function report({ options, jobs, initial, baseline, end, mainSecs, startedAt }) {
  const reasons = []
  const tolerance = options.rssToleranceMiB * MiB
  if (stats.failures.length > 0) reasons.push(`${stats.failures.length} unexpected outcome(s)`)
  if (end.rss - baseline.rss > tolerance) reasons.push(`RSS grew by ${mib(end.rss - baseline.rss)} MiB (tolerance ${options.rssToleranceMiB} MiB)`)
  if (end.threads > baseline.threads) reasons.push(`${end.threads - baseline.threads} thread(s) more than at baseline after 5 s`)
  const handleTypes = [...new Set([...Object.keys(baseline.handles), ...Object.keys(end.handles)])].sort()
  const extraHandles = handleTypes.filter((type) => (end.handles[type] || 0) > (baseline.handles[type] || 0))
  if (extraHandles.length > 0) reasons.push(`more handles than at baseline: ${extraHandles.map((t) => `${t} ${baseline.handles[t] || 0}→${end.handles[t]}`).join(', ')}`)

  const row = (cells, widths) => cells.map((c, k) => String(c)[k === 0 ? 'padEnd' : 'padStart'](widths[k])).join('  ')
  console.log('')
  const w = [28, 12, 12, 12, 12]
  console.log(row(['measure', 'start', 'baseline', 'end', 'end-base'], w))
  console.log(row(['RSS after gc (MiB)', mib(initial.rss), mib(baseline.rss), mib(end.rss), (end.rss >= baseline.rss ? '+' : '') + mib(end.rss - baseline.rss)], w))
  const delta = (a, b) => (a >= b ? '+' : '') + mib(a - b)
  console.log(row(['  of which V8 heap (total)', mib(initial.heapTotal), mib(baseline.heapTotal), mib(end.heapTotal), delta(end.heapTotal, baseline.heapTotal)], w))
  console.log(row(['  V8 heap used', mib(initial.heapUsed), mib(baseline.heapUsed), mib(end.heapUsed), delta(end.heapUsed, baseline.heapUsed)], w))
  console.log(row(['  RSS outside the V8 heap', mib(initial.rss - initial.heapTotal), mib(baseline.rss - baseline.heapTotal), mib(end.rss - end.heapTotal), delta(end.rss - end.heapTotal, baseline.rss - baseline.heapTotal)], w))
  console.log(row(['threads (/proc/self/task)', initial.threads, baseline.threads, end.threads, end.threads - baseline.threads], w))
  for (const type of [...new Set([...Object.keys(initial.handles), ...handleTypes])].sort()) {
    console.log(row([`handles: ${type}`, initial.handles[type] || 0, baseline.handles[type] || 0, end.handles[type] || 0, (end.handles[type] || 0) - (baseline.handles[type] || 0)], w))
  }
  console.log('')
  console.log(`${jobs.length} execs in ${mainSecs.toFixed(1)} s: ${(jobs.length / mainSecs).toFixed(0)} execs/s; ${stats.apiCalls} exec/wait calls, ${stats.toolCalls} nested tool calls`)
  console.log(`worst answer past the budget (waiting for a worker included): timeout cells ${stats.timeoutLateMs.toFixed(0)} ms, stuck builtins ${stats.stuckAnswerMs.toFixed(0)} ms; parks ${stats.parkLateMs.toFixed(0)} ms (budget 100 ms); worst expiry ${stats.expiryMs.toFixed(0)} ms after parking (TTL 1 s); most waits for one run ${stats.waitsMax}; most parked runs seen ${stats.parkedMax}`)
  console.log(`codeModeDiagnostics() at the end: ${JSON.stringify(binding.codeModeDiagnostics())}`)
  const slowest = [...stats.slowest.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6)
  console.log(`longest single execs: ${slowest.map(([k, ms]) => `${k} ${ms.toFixed(0)} ms`).join(', ')}`)
  console.log('')
  console.log(row(['class', 'execs', 'outcomes'], [8, 6, 0]))
  const order = CLASSES.map(([name]) => name)
  for (const cls of order) {
    const byOutcome = stats.outcomes.get(cls)
    if (!byOutcome) continue
    const total = [...byOutcome.values()].reduce((a, b) => a + b, 0)
    const text = [...byOutcome.entries()].sort((a, b) => b[1] - a[1]).map(([o, c]) => `${o} ${c}`).join(', ')
    console.log(`${cls.padEnd(8)}  ${String(total).padStart(6)}  ${text}`)
  }
  if (stats.failures.length > 0) {
    console.log('')
    console.log(`failures (first 20 of ${stats.failures.length}):`)
    for (const { job, kind, message } of stats.failures.slice(0, 20)) {
      if (!job) {
        console.log(`- ${kind}: ${message}`)
        continue
      }
      console.log(`- ${job.warmup ? 'warm-up ' : ''}job ${job.i} ${job.cls}/${job.variant} (${job.language}, config ${JSON.stringify(job.config)}): ${kind}: ${message}`)
      console.log(`  cell: ${JSON.stringify(job.code).slice(0, 400)}`)
    }
  }
  console.log('')
  console.log(reasons.length === 0 ? 'SOAK PASSED' : `SOAK FAILED: ${reasons.join('; ')}`)
  console.log(`(total ${((performance.now() - startedAt) / 1000).toFixed(1)} s)`)
  return reasons.length === 0 ? 0 : 1
}
