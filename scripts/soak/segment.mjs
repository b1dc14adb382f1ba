// A segment of the soak: a fresh code-mode instance, `concurrency` lanes that
// take the next job, a 60 s guard per job, and at the end the check that no
// parked run is left before the instance is closed.
import { binding } from './binding.mjs'
import { Mismatch } from './checks.mjs'
import { callsEnd } from './gateway.mjs'
import { sleep } from './measure.mjs'
import { runnerOf } from './runners.mjs'
import { count, fail, stats } from './stats.mjs'

async function runJob(env, job) {
  if (job.cls === 'expire') {
    while (env.expiring >= env.expiringCap) await sleep(20)
  }
  const state = { calls: [], started: 0, finished: 0, onHang: null }
  let timer
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Mismatch('the job did not settle within 60 s')), 60000)
  })
  try {
    const outcome = await Promise.race([runnerOf(job)(env, job, state), guard])
    if (outcome !== null) count(job, outcome)
  } catch (error) {
    // A failed job may also have left nested calls open: say so.
    if (error instanceof Mismatch && !error.message.startsWith('nested calls left open')) {
      try {
        await callsEnd(state)
      } catch (open) {
        error.message += `; and ${open.message}`
      }
    }
    fail(job, error)
  } finally {
    clearTimeout(timer)
  }
}

function createInstance(options) {
  const codeMode = binding.createCodeMode({
    config: { enabled: true },
    ...(options.workers !== undefined ? { workerThreads: options.workers } : {}),
  })
  return { codeMode, detached: [], expiring: 0, expiringCap: Math.max(1, 60 - options.concurrency) }
}

/** Runs `jobs` on a fresh instance with `concurrency` lanes, then closes it. */
export async function runSegment(options, jobs, onDone) {
  const env = createInstance(options)
  let next = 0
  const lane = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]
      await runJob(env, job)
      stats.parkedMax = Math.max(stats.parkedMax, env.codeMode.suspendedRunCount())
      onDone?.()
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, lane))
  await Promise.all(env.detached)
  let parked = env.codeMode.suspendedRunCount()
  for (let k = 0; k < 60 && parked !== 0; k++) {
    await sleep(50)
    parked = env.codeMode.suspendedRunCount()
  }
  if (parked !== 0) {
    stats.failures.push({ job: null, kind: 'leak', message: `${parked} parked run(s) left in the instance after every job ended` })
  }
  await env.codeMode.close()
}
