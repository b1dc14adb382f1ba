// Tool results as JSON text, on the Node thread. Writing one walks the
// whole value, so results are written for at most `turnMs` of measured time
// per event-loop turn, like calls are started: a small one at once, a large
// one (a 16 MB string, a million small objects) over as many turns as it
// needs, its text handed to the binding after each (`appendResult`; the
// binding keeps no more of it than the run's bridge budget, and counts the
// rest). A result whose call was aborted meanwhile is dropped.
'use strict'

const { turnBudget } = require('./turns.js')

/**
 * What the writer of results needs from the bridge (host.js).
 * @typedef {{
 *   writer: (value: unknown) => import('./result-json.js').Writer,
 *   turnMs: number,
 *   now: () => number,
 *   immediate: (callback: () => void) => unknown,
 *   isLive: (key: number) => boolean,
 *   appendResult: (key: number, text: string) => void,
 *   finish: (key: number, ok: boolean, payload: string, value?: unknown) => void,
 *   message: (error: unknown) => string,
 * }} Bridge
 */

/**
 * `follow(key, returned, namespace)`: waits for what the gateway's
 * executeTool returned (like `await`) and writes it, then ends the call
 * with `finish`.
 * @param {Bridge} bridge
 * @returns {(key: number, returned: unknown, namespace: boolean) => void}
 */
function resultsWriter({ writer, turnMs, now, immediate, isLive, appendResult, finish, message }) {
  const PromiseClass = Promise
  const promiseResolve = Promise.resolve
  const promiseThen = Promise.prototype.then
  const apply = Reflect.apply
  const isArray = Array.isArray

  /**
   * What a plugin namespace call resolves to: the result's `details` when it
   * is an object that has them, else the result.
   * @param {unknown} value
   * @returns {unknown}
   */
  function details(value) {
    if (value !== null && typeof value === 'object' && !isArray(value)) {
      const inner = /** @type {{ details?: unknown }} */ (value).details
      if (inner !== undefined) return inner
    }
    return value
  }

  /**
   * Results being written, oldest first.
   * @type {({ key: number, w: import('./result-json.js').Writer, value: unknown } | undefined)[]}
   */
  const results = []
  let head = 0
  const writing = turnBudget(turnMs, now, immediate)
  function writeResults() {
    while (head < results.length && writing.hasTime()) {
      // Below `results.length` from `head` on, every slot holds a job.
      const job = /** @type {NonNullable<(typeof results)[number]>} */ (results[head])
      if (!isLive(job.key)) {
        results[head++] = undefined
        continue
      }
      writing.begin(now())
      let done
      try {
        done = job.w.write(writing.deadline())
        if (!done) {
          const text = job.w.take()
          if (text.length > 0) appendResult(job.key, text)
        }
      } catch (error) {
        results[head++] = undefined
        writing.spend()
        finish(job.key, false, message(error))
        continue
      }
      writing.spend()
      if (!done) break
      results[head++] = undefined
      finish(job.key, true, job.w.take(), job.value)
    }
    if (head === results.length) {
      results.length = 0
      head = 0
    }
    // Next turn: a fresh budget, and whatever still waits.
    writing.next(head < results.length, writeResults)
  }

  return function follow(key, returned, namespace) {
    /** @param {unknown} value */
    const onValue = (value) => {
      let w
      try {
        w = writer(namespace ? details(value) : value)
      } catch (error) {
        finish(key, false, message(error))
        return
      }
      results.push({ key, w, value })
      writeResults()
    }
    /** @param {unknown} error */
    const onError = (error) => finish(key, false, message(error))
    // Like `await`: a plain value is the result, a thenable is followed.
    apply(promiseThen, apply(promiseResolve, PromiseClass, [returned]), [onValue, onError])
  }
}

module.exports = { resultsWriter }
