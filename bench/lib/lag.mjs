// Event-loop lag: how late a 1 ms setInterval fires on the Node thread.

/** Starts sampling; `stop()` returns the lateness (ms) of every tick seen. */
export function startLagSampler() {
  const lags = []
  let previous = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    lags.push(Math.max(0, now - previous - 1))
    previous = now
  }, 1)
  return {
    stop() {
      clearInterval(timer)
      // A loop blocked until now shows up as one late tick that never fired:
      // count the time since the last tick too, so a fully blocked loop is
      // not reported as "no ticks, no lag".
      lags.push(Math.max(0, performance.now() - previous - 1))
      return lags
    },
  }
}
