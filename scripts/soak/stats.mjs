// What the soak counts: outcomes per class, failures, calls, live tool timers
// and the worst timings the report prints.
import { Mismatch } from './checks.mjs'

export const stats = {
  liveTimers: 0, apiCalls: 0, toolCalls: 0,
  outcomes: new Map(), // class -> Map(outcome -> count)
  failures: [],
  slowest: new Map(), // class/variant -> longest exec (ms), waiting for a worker included
  timeoutLateMs: 0, stuckAnswerMs: 0, expiryMs: 0, waitsMax: 0, parkLateMs: 0,
  parkedMax: 0,
}

export function count(job, outcome) {
  let byOutcome = stats.outcomes.get(job.cls)
  if (!byOutcome) stats.outcomes.set(job.cls, (byOutcome = new Map()))
  byOutcome.set(outcome, (byOutcome.get(outcome) || 0) + 1)
}

export function fail(job, error) {
  const kind = error instanceof Mismatch ? 'unexpected outcome' : 'exception'
  const message = error instanceof Mismatch ? error.message : `${error?.name}: ${error?.message}`
  count(job, kind === 'exception' ? 'EXCEPTION' : 'UNEXPECTED')
  stats.failures.push({ job, kind, message })
}
