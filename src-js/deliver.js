// Exec and wait results too long to parse in one piece (a final value or
// output items of up to `maxOutputBytes`): the binding cuts their JSON text
// on the worker thread, as it cuts a large tool input, and `deliver(pieces)`
// answers a promise of the result object, assembled oldest first for at
// most `turnMs` of measured time per event-loop turn.
'use strict'

const { replay, assemble } = require('./pieces.js')
const { turnBudget } = require('./turns.js')

/**
 * A `deliver(pieces)` whose work takes at most `turnMs` a turn on the clock
 * `now`; `immediate` schedules the next turn.
 * @param {number} turnMs
 * @param {() => number} now
 * @param {(callback: () => void) => unknown} immediate
 * @returns {(pieces: string[]) => Promise<unknown>}
 */
function deliverer(turnMs, now, immediate) {
  const PromiseClass = Promise
  /**
   * @type {({ replay: import('./pieces.js').Replay, resolve: (value: unknown) => void, reject: (error: unknown) => void } | undefined)[]}
   */
  const deliveries = []
  let head = 0
  const delivering = turnBudget(turnMs, now, immediate)
  const spend = () => delivering.spend()

  /** @param {string[]} pieces */
  function deliver(pieces) {
    /** @type {(value: unknown) => void} */
    let resolve = () => {}
    /** @type {(error: unknown) => void} */
    let reject = () => {}
    const promise = new PromiseClass((yes, no) => {
      resolve = yes
      reject = no
    })
    deliveries.push({ replay: replay(pieces), resolve, reject })
    some()
    return promise
  }

  function some() {
    delivering.begin(now())
    while (head < deliveries.length && delivering.hasTime()) {
      // Below `deliveries.length` from `head` on, every slot holds an entry.
      const entry = /** @type {NonNullable<(typeof deliveries)[number]>} */ (deliveries[head])
      let done
      try {
        done = assemble(entry.replay, spend)
      } catch (error) {
        // Pieces the binding cut from valid JSON do not fail to parse; a
        // failure here (memory) rejects the exec or wait, as a failed
        // JSON.parse of the whole text would.
        deliveries[head++] = undefined
        entry.reject(error)
        continue
      }
      if (!done) break
      deliveries[head++] = undefined
      entry.resolve(entry.replay.input)
    }
    if (head === deliveries.length) {
      deliveries.length = 0
      head = 0
    }
    // Next turn: a fresh budget, and whatever still waits.
    delivering.next(head < deliveries.length, some)
  }

  return deliver
}

module.exports = { deliverer }
