// Event-loop lag: how late a 1 ms setInterval fires on the Node thread.
import { readFileSync } from 'node:fs'

/**
 * Nanoseconds the Node thread has run on a core and waited for one, from
 * /proc/self/task/<tid>/schedstat (Linux; null elsewhere). Lets a stall be
 * told apart: work on the thread (it ran) or a busy machine (it waited).
 */
function schedstat() {
  try {
    const [ran, waited] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number)
    return { ran, waited }
  } catch {
    return null
  }
}

/**
 * Starts sampling; `stop()` returns the lateness (ms) of every tick seen,
 * and `longest`: the longest one with how many ms of it the thread ran on
 * a core and waited for one (null where the system does not say).
 */
export function startLagSampler() {
  const lags = []
  let previous = performance.now()
  let previousStat = schedstat()
  let longest = { lag: 0, ran: null, waited: null }
  const tick = () => {
    const now = performance.now()
    const stat = schedstat()
    const lag = Math.max(0, now - previous - 1)
    lags.push(lag)
    if (lag > longest.lag) {
      const of = (field) => (stat && previousStat ? (stat[field] - previousStat[field]) / 1e6 : null)
      longest = { lag, ran: of('ran'), waited: of('waited') }
    }
    previous = now
    previousStat = stat
  }
  const timer = setInterval(tick, 1)
  return {
    stop() {
      clearInterval(timer)
      // A loop blocked until now shows up as one late tick that never fired:
      // count the time since the last tick too, so a fully blocked loop is
      // not reported as "no ticks, no lag".
      tick()
      lags.longest = longest
      return lags
    },
  }
}
