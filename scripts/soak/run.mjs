// The soak's sequence (main.mjs explains it): every cell generated first, the
// warm-up on an instance of its own, the baseline, the jobs in segments of
// --rotate execs, the end measurement, the report. Resolves to the exit code.
import { readdirSync, statSync } from 'node:fs'

import { binding } from './binding.mjs'
import { makeJob, makeWarmupJobs } from './jobs/index.mjs'
import { handleCounts, measure, mib, threadCount } from './measure.mjs'
import { report } from './report.mjs'
import { runSegment } from './segment.mjs'
import { stats } from './stats.mjs'

export async function run(options) {
  const startedAt = performance.now()
  const initial = { ...process.memoryUsage(), threads: threadCount(), handles: handleCounts() }

  const jobs = Array.from({ length: options.execs }, (_, i) => makeJob(options.seed, i, options.stuck, options.only))
  const warmupJobs = makeWarmupJobs(options.seed, options.only)

  console.log(`soak: ${options.execs} execs, concurrency ${options.concurrency}, seed ${options.seed}, stuck builtins ${options.stuck ? 'included' : 'excluded'}, workerThreads ${options.workers ?? 'default'}, new instance every ${options.rotate || 'never'} execs, node ${process.version}`)
  const addon = readdirSync(new URL('../..', import.meta.url)).find((f) => f.endsWith('.node'))
  const addonTime = addon ? statSync(new URL(`../../${addon}`, import.meta.url)).mtime.toISOString() : 'unknown'
  console.log(`soak: addon ${addon} built ${addonTime}; malloc: ${process.env.MALLOC_MMAP_THRESHOLD_ !== undefined ? `MALLOC_MMAP_THRESHOLD_=${process.env.MALLOC_MMAP_THRESHOLD_}` : 'default'}`)
  console.log(`soak: reproduce with: node --expose-gc scripts/soak/main.mjs --execs ${options.execs} --concurrency ${options.concurrency} --seed ${options.seed}${options.stuck ? '' : ' --no-stuck'}${options.workers ? ` --workers ${options.workers}` : ''}${options.rotate !== 5000 ? ` --rotate ${options.rotate}` : ''}${options.only ? ` --only ${options.only.join(',')}` : ''}${options.defaultMalloc ? ' --default-malloc' : ''}`)

  await runSegment(options, warmupJobs)
  const warmupFailures = stats.failures.length
  const baseline = await measure(undefined)
  // The warm-up counts toward nothing but failures.
  stats.outcomes.clear()
  stats.apiCalls = 0
  stats.toolCalls = 0
  console.log(`baseline after a warm-up of ${warmupJobs.length} execs: rss ${mib(baseline.rss)} MiB, threads ${baseline.threads}, handles ${JSON.stringify(baseline.handles)}${warmupFailures ? `, ${warmupFailures} warm-up failure(s)` : ''}`)

  const mainStart = performance.now()
  let done = 0
  const progress = () => {
    done++
    if (done % options.progress === 0 || done === jobs.length) {
      globalThis.gc()
      const secs = (performance.now() - mainStart) / 1000
      const abandoned = binding.codeModeDiagnostics().abandonedWorkersRunning
      const memory = process.memoryUsage()
      console.log(`progress ${String(done).padStart(6)}/${jobs.length}  ${secs.toFixed(1).padStart(6)} s  ${(done / secs).toFixed(0).padStart(5)} execs/s  rss ${mib(memory.rss).padStart(7)} MiB (V8 heap ${mib(memory.heapUsed)} of ${mib(memory.heapTotal)})  threads ${String(threadCount()).padStart(3)}${abandoned === undefined ? '' : `  abandoned workers running ${abandoned}`}  failures ${stats.failures.length}`)
    }
  }
  const segment = options.rotate > 0 ? options.rotate : jobs.length
  for (let from = 0; from < jobs.length; from += segment) {
    await runSegment(options, jobs.slice(from, from + segment), progress)
  }
  const mainSecs = (performance.now() - mainStart) / 1000
  const end = await measure(baseline.threads)

  return report({ options, jobs, initial, baseline, end, mainSecs, startedAt })
}
