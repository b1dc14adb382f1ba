// For every job, every nested call must end: its promise settled or its
// AbortSignal fired, within 3 s of the result, with as many
// nested_call_finished events as nested_call_started ones. No parked run may
// be left in an instance when it is closed.
//
// An exec with a 100-200 ms budget may fail with `timeout` before producing
// anything when both workers are busy with other cells: docs/parked-runs.md
// ("an exec that gets a worker after its budget is gone fails with timeout
// without running"), or when it got its worker just before the end of its
// budget and was still computing then. That is counted as `starved`, not as
// a failure; so is a 100 ms `wait` of the resume class that ends the same
// way (its guest was fed results and computing at the deadline). A
// loop-after-await cell whose budget ends while it awaits its call parks
// (`waiting`, as documented); it is resumed and must then time out.
// Everything else unexpected is a failure: a wrong status, code, message,
// value or output; an internal_error other than the expected guest error or
// memory limit (`code mode internal error.` is a caught Rust panic); an API
// call that throws; a job that has not settled after 60 s. The first 20 are
// printed with their cell.
import { describeResult, expectResult, failed, GONE, matches, Mismatch } from './checks.mjs'
import { callsEnd, surfaceFor } from './gateway.mjs'
import { sleep } from './measure.mjs'
import { count, fail, stats } from './stats.mjs'

// An exec with a budget of 100 ms that reaches a worker only at (or after)
// the end of its budget: `timeout` before the cell produced anything. Calls
// may have been made when the budget ended during the cell's first steps.
const isStarved = (r) => r?.status === 'failed' && r.code === 'timeout' && r.output?.length === 0

async function api(promise) {
  stats.apiCalls++
  return promise
}

/** run.exec of a cell expected to park; records how late past its budget the waiting result came. */
async function parkingExec(run, input, call, budgetMs) {
  const started = performance.now()
  const r = await api(run.exec(input, call))
  if (r?.status === 'waiting' && r.reason === 'pending_tools') stats.parkLateMs = Math.max(stats.parkLateMs, performance.now() - started - budgetMs)
  return r
}

/** Runs the class protocol of `job`; returns its outcome label. */
const RUNNERS = {
  async plain(env, job, state) {
    const run = surfaceFor(env, job, state, job.config)
    const started = performance.now()
    let r = await api(run.exec({ code: job.code, language: job.language, restartSafe: job.restartSafe }, { toolCallId: `call_${job.i}` }))
    const elapsed = performance.now() - started
    const key = `${job.cls}/${job.variant}`
    stats.slowest.set(key, Math.max(stats.slowest.get(key) || 0, elapsed))
    let outcome = r.status === 'failed' ? `failed:${r.code}` : r.status
    if (r.status === 'waiting' && job.cls === 'timeout' && job.variant === 'after-await') {
      // The exec reached a worker late: the guest was still awaiting its call
      // when the budget ended, so it parked (docs/parked-runs.md). Its loop
      // runs in the next wait.
      for (let waits = 1; r.status === 'waiting' && waits <= 20; waits++) r = await api(run.wait({ runId: r.runId }))
      outcome = `waiting→${r.status === 'failed' ? `failed:${r.code}` : r.status}`
    } else if (r.status === 'waiting') {
      // Unexpected, but do not leave the run parked (default TTL 900 s).
      const controller = new AbortController()
      controller.abort()
      await api(run.wait({ runId: r.runId }, { signal: controller.signal }))
    }
    // The other correct end of a few cells (see the stuck class): counted
    // under its own outcome, so the report shows how often it happened.
    if (job.alsoOk && matches(r, job.alsoOk)) return outcome
    expectResult(r, job.expect, 'exec')
    if (r.status === 'completed' && r.replaySafe !== Boolean(job.restartSafe)) throw new Mismatch(`replaySafe is ${r.replaySafe}`)
    if (job.cls === 'timeout') stats.timeoutLateMs = Math.max(stats.timeoutLateMs, elapsed - job.config.timeoutMs)
    if (job.cls === 'stuck') stats.stuckAnswerMs = Math.max(stats.stuckAnswerMs, elapsed - job.config.timeoutMs)
    await callsEnd(state)
    return outcome
  },

  async resume(env, job, state) {
    const run = surfaceFor(env, job, state, job.config)
    const waiter = job.waitTimeoutMs === job.config.timeoutMs ? run : surfaceFor(env, job, state, { timeoutMs: job.waitTimeoutMs })
    let r = await parkingExec(run, { code: job.code, restartSafe: job.restartSafe }, { toolCallId: `call_${job.i}` }, job.config.timeoutMs)
    if (isStarved(r)) return 'starved'
    if (r.status !== 'waiting' || r.reason !== job.reason) throw new Mismatch(`exec: expected waiting (${job.reason}), got ${describeResult(r)}`)
    const output = [...r.output]
    let waits = 0
    let lastRunId
    while (r.status === 'waiting') {
      if (!/^cm_[0-9a-f-]{36}$/.test(r.runId)) throw new Mismatch(`bad runId ${r.runId}`)
      if (!Array.isArray(r.pendingToolCalls) || r.pendingToolCalls.length === 0) throw new Mismatch(`waiting without pending calls: ${describeResult(r)}`)
      if (r.replaySafe !== Boolean(job.restartSafe)) throw new Mismatch(`replaySafe is ${r.replaySafe} on ${describeResult(r)}`)
      if (++waits > 100) throw new Mismatch('still waiting after 100 waits')
      lastRunId = r.runId
      r = await api(waiter.wait({ runId: r.runId }, { toolCallId: `call_${job.i}_w${waits}` }))
      if (isStarved(r) && job.waitTimeoutMs === job.config.timeoutMs) {
        // A 100 ms wait that got its worker just before its budget ended:
        // the guest was computing (results fed in) at the deadline, which
        // ends the run (docs/parked-runs.md), as a starved exec does. The
        // run must be gone, and its calls ended. Not with the 2 s budget.
        expectResult(await api(waiter.wait({ runId: lastRunId })), failed('invalid_input', GONE), 'wait on the runId of a starved wait')
        await callsEnd(state)
        return 'waiting→starved'
      }
      if (r.status !== 'waiting' && r.status !== 'completed') {
        // A wait that reaches a worker after its budget is gone feeds the
        // guest anyway and then fails it with a timeout (the run is lost).
        const late = r.code === 'timeout' ? ' [a run that was only awaiting, resumed after its budget was gone]' : ''
        throw new Mismatch(`wait ${waits}: expected waiting or completed, got ${describeResult(r)}${late}`)
      }
      output.push(...r.output)
    }
    stats.waitsMax = Math.max(stats.waitsMax, waits)
    expectResult({ ...r, output }, job.expect, `after ${waits} wait(s)`)
    if (r.replaySafe !== Boolean(job.restartSafe)) throw new Mismatch(`replaySafe is ${r.replaySafe} on the completed result`)
    const gone = await api(waiter.wait({ runId: lastRunId }))
    expectResult(gone, failed('invalid_input', GONE), 'wait on the last runId after completion')
    await callsEnd(state)
    return 'waiting→completed'
  },

  async abort(env, job, state) {
    const controller = new AbortController()
    const signal = controller.signal
    const code = job.code
    switch (job.variant) {
      case 'during-tool': {
        state.onHang = () => setImmediate(() => controller.abort())
        const run = surfaceFor(env, job, state, job.config)
        const r = await api(run.exec({ code }, { signal }))
        expectResult(r, job.expect, 'exec')
        if (state.calls.length !== 1) throw new Mismatch(`${state.calls.length} calls made`)
        await callsEnd(state)
        return 'failed:aborted'
      }
      case 'pre-aborted': {
        controller.abort()
        const r = await api(surfaceFor(env, job, state, job.config).exec({ code }, { signal }))
        expectResult(r, job.expect, 'exec')
        if (r.replaySafe !== false) throw new Mismatch('replaySafe is not false')
        return 'failed:aborted'
      }
      case 'busy-loop': {
        const timer = setTimeout(() => controller.abort(), job.abortAfterMs)
        try {
          const r = await api(surfaceFor(env, job, state, job.config).exec({ code }, { signal }))
          expectResult(r, job.expect, 'exec')
        } finally {
          clearTimeout(timer)
        }
        return 'failed:aborted'
      }
      case 'aborted-wait':
      case 'abort-during-wait': {
        const run = surfaceFor(env, job, state, job.config)
        const waiting = await parkingExec(run, { code }, {}, job.config.timeoutMs)
        if (isStarved(waiting)) return 'starved'
        if (waiting.status !== 'waiting') throw new Mismatch(`exec: expected waiting, got ${describeResult(waiting)}`)
        let r
        if (job.variant === 'aborted-wait') {
          controller.abort()
          r = await api(run.wait({ runId: waiting.runId }, { signal }))
        } else {
          const long = surfaceFor(env, job, state, { timeoutMs: 5000 })
          const timer = setTimeout(() => controller.abort(), job.abortAfterMs)
          try {
            r = await api(long.wait({ runId: waiting.runId }, { signal }))
          } finally {
            clearTimeout(timer)
          }
        }
        expectResult(r, job.expect, 'wait')
        expectResult(await api(run.wait({ runId: waiting.runId })), failed('invalid_input', GONE), 'wait after the aborted wait')
        await callsEnd(state)
        return 'waiting→aborted'
      }
      case 'abort-after-waiting': {
        const run = surfaceFor(env, job, state, job.config)
        const waiting = await parkingExec(run, { code }, { signal }, job.config.timeoutMs)
        if (isStarved(waiting)) return 'starved'
        if (waiting.status !== 'waiting') throw new Mismatch(`exec: expected waiting, got ${describeResult(waiting)}`)
        controller.abort() // the exec has returned: no effect on the parked run
        const long = surfaceFor(env, job, state, { timeoutMs: 5000 })
        const r = await api(long.wait({ runId: waiting.runId }))
        expectResult(r, job.expect, 'wait after aborting the exec signal')
        await callsEnd(state)
        return 'waiting→completed'
      }
    }
    throw new Error(job.variant)
  },

  async expire(env, job, state) {
    const run = surfaceFor(env, job, state, job.config)
    const r = await parkingExec(run, { code: job.code }, {}, job.config.timeoutMs)
    if (isStarved(r)) return 'starved'
    if (r.status !== 'waiting') throw new Mismatch(`exec: expected waiting, got ${describeResult(r)}`)
    const parkedAt = performance.now()
    // The check waits for the expiry without holding a lane.
    env.expiring++
    env.detached.push(
      (async () => {
        try {
          // The TTL counts from the park, which is at most a moment before
          // the waiting result reached this thread (parkedAt).
          const deadline = Date.now() + 10000
          const ended = () => state.calls.every((c) => c.signal.aborted || c.settled)
          while (!ended()) {
            if (Date.now() > deadline) throw new Mismatch(`the nested call was neither aborted nor answered 10 s after the run parked with a TTL of 1 s; suspendedRunCount ${env.codeMode.suspendedRunCount()}`)
            await sleep(25)
          }
          const at = performance.now() - parkedAt
          if (state.calls.length > 0 && state.calls.every((c) => c.signal.aborted)) {
            stats.expiryMs = Math.max(stats.expiryMs, at)
          } else if (state.calls.length > 0 && at > 1250) {
            // Answered, not aborted, well after the TTL: the run outlived it.
            throw new Mismatch(`the run was still alive ${at.toFixed(0)} ms after it parked with a TTL of 1 s (its call was answered, not aborted)`)
          }
          await sleep(Math.max(0, 3500 - (performance.now() - parkedAt))) // TTL 1 s plus a margin
          expectResult(await api(run.wait({ runId: r.runId })), failed('invalid_input', GONE), 'wait after the TTL')
          await callsEnd(state)
          count(job, 'waiting→expired')
        } catch (error) {
          fail(job, error)
        } finally {
          env.expiring--
        }
      })(),
    )
    return null // counted by the detached check
  },
}

export function runnerOf(job) {
  if (job.cls === 'resume') return RUNNERS.resume
  if (job.cls === 'abort') return RUNNERS.abort
  if (job.cls === 'expire') return RUNNERS.expire
  return RUNNERS.plain
}
