// The time the Node thread gives one kind of code mode work per event-loop
// turn (starting nested calls, assembling results): the work is measured as
// it goes, stops when the turn's budget is spent, and goes on in the next
// turn with a fresh one. One unit of work (a call, a piece) always goes
// ahead, so a turn ends at most one unit past its budget.
'use strict'

/**
 * A per-turn budget of `turnMs` milliseconds on the clock `now`; `immediate`
 * schedules the next turn (setImmediate).
 * @param {number} turnMs
 * @param {() => number} now
 * @param {(callback: () => void) => unknown} immediate
 */
function turnBudget(turnMs, now, immediate) {
  /** Milliseconds this turn may still spend. */
  let left = turnMs
  /** When the work counted so far ended. */
  let mark = 0
  let scheduled = false
  return {
    /**
     * Counts the work from `since` on (the start of a pass of work).
     * @param {number} since
     */
    begin(since) {
      mark = since
    },
    /** Counts the work done since the last mark; true while the turn has time left. */
    spend() {
      const at = now()
      left -= at - mark
      mark = at
      return left > 0
    },
    /** Whether the turn has time left, as of the last count. */
    hasTime() {
      return left > 0
    },
    /** The clock reading at which this turn's time runs out, as of the last count. */
    deadline() {
      return mark + left
    },
    /**
     * Ends a pass: when work `remains`, or this turn spent time, `again`
     * runs in the next turn with a fresh budget (once, however often this is
     * called before then).
     * @param {boolean} remains
     * @param {() => void} again
     */
    next(remains, again) {
      if (scheduled || (!remains && left >= turnMs)) return
      scheduled = true
      immediate(() => {
        scheduled = false
        left = turnMs
        again()
      })
    },
  }
}

module.exports = { turnBudget }
