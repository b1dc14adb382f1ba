// Keep-hot turns: the hand-off policy's executor on the Node thread. The
// policy, and why, is Rust's (crates/code-mode-core/src/runs/hand_off/,
// docs/scheduling.md "Hand-offs"); this module only schedules the turns it
// asks for. While calls flow it wants the thread kept from sleeping for
// `hotMs` after the last activity: the event loop keeps turning (and
// serving I/O); it only skips the sleep whose wake-up would cost tens of
// microseconds per call. Each turn calls poll(true) (`hand_off::host_poll`),
// which takes what the workers sent (while this thread polls, they do not
// wake it) and answers whether polling goes on: true, turn again while
// `hotMs` lasts, then poll(false), which ends the polling and takes what
// raced with the end; false (polling does not pay: other work wants the
// cores), the polling has ended already, and no turn is kept hot for
// `coldMs`, so that a busy machine pays no setImmediate turn per call.
'use strict'

/**
 * `keepHot()`, to call after each activity: `poll(wantsPolling)` is the
 * binding's `codeModePoll`, `now` the clock, `immediate` setImmediate, and
 * `report` gets what `poll` throws.
 * @param {(wantsPolling: boolean) => boolean} poll
 * @param {number} hotMs
 * @param {number} coldMs
 * @param {() => number} now
 * @param {(callback: () => void) => unknown} immediate
 * @param {(error: unknown) => void} report
 * @returns {() => void}
 */
function keeperHot(poll, hotMs, coldMs, now, immediate, report) {
  let hotUntil = 0
  let coldUntil = 0
  let hot = false
  function tick() {
    let answer
    try {
      answer = poll(true)
    } catch (error) {
      report(error)
    }
    if (answer === true && now() < hotUntil) {
      immediate(tick)
      return
    }
    hot = false
    if (answer === false) {
      coldUntil = now() + coldMs
      return
    }
    try {
      poll(false)
    } catch (error) {
      report(error)
    }
  }
  return function keepHot() {
    const at = now()
    hotUntil = at + hotMs
    if (!hot && at >= coldUntil) {
      hot = true
      immediate(tick)
    }
  }
}

module.exports = { keeperHot }
