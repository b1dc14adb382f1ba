// The worker pool's fairness rule (docs/scheduling.md): sessions take turns,
// a session that floods the pool queues behind its own cells, and a session
// that computes nothing while the pool is busy gets a thread of its own.
// Every ordering below is decided by budgets hundreds of milliseconds apart,
// never by how fast a cell computes.
//
// Workers stuck in calls that cannot be interrupted (the per-session limit
// and the process cap of abandoned threads) are tested in the engine's own
// suite (crates/code-mode-core/tests/watchdog.rs), where a host can hold a
// worker for as long as the test needs.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { binding, codeModeFactory, tool } from './helpers.mjs'

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

const TOOLS = [tool('echo')]
const SPIN = 'for (;;) {}'

/** A run surface of `session` on `codeMode`, with its own budget. */
function surface(codeMode, session, timeoutMs, runId = `${session}-${timeoutMs}`) {
  return codeMode.prepareRun({ runId, sessionId: session, tools: TOOLS, agentConfig: { timeoutMs }, executeTool: async (c) => c.input })
}

/** Resolves with `[label, result]`, and records the order results came in. */
function track(order, label, promise) {
  return promise.then((result) => {
    order.push(label)
    return result
  })
}

describe('fair scheduling across sessions', () => {
  test('a quiet session is not held behind a session that floods the workers', async () => {
    const codeMode = codeModes.create({ enabled: true }, { workerThreads: 1 })
    const flood = surface(codeMode, 'flood', 1500)
    const quiet = surface(codeMode, 'quiet', 5000)
    const order = []
    const spinning = Array.from({ length: 4 }, (_, i) => track(order, `flood ${i}`, flood.exec({ code: SPIN })))
    const answer = await track(order, 'quiet', quiet.exec({ code: 'return 1 + 1' }))
    assert.equal(answer.status, 'completed', `${answer.code}: ${answer.error}`)
    assert.equal(answer.value, 2)
    assert.deepEqual(order, ['quiet'], 'the quiet cell ended before any flood cell')
    const results = await Promise.all(spinning)
    // The first flood cell used its whole budget; the ones queued behind it
    // in the same session lost theirs waiting, as SPEC's budget rule says.
    assert.ok(results.every((r) => r.status === 'failed' && r.code === 'timeout'))
  })

  test('a session with nothing computing goes before a session with queued cells', async () => {
    const codeMode = codeModes.create({ enabled: true }, { workerThreads: 1 })
    const order = []
    // One worker, and at most one more thread for another session: a
    // computes on the first, b on the added one.
    const a1 = track(order, 'a1', surface(codeMode, 'a', 1500).exec({ code: SPIN }))
    const b1 = track(order, 'b1', surface(codeMode, 'b', 300).exec({ code: SPIN }))
    // Both threads busy: a's second cell and c's first wait. c computes
    // nothing, so it takes b's thread when b's cell ends; a's second cell
    // waits for a's first.
    const a2 = track(order, 'a2', surface(codeMode, 'a', 10000, 'a-second').exec({ code: 'return "a2"' }))
    const c1 = track(order, 'c1', surface(codeMode, 'c', 10000).exec({ code: 'return "c1"' }))
    const results = await Promise.all([a1, b1, a2, c1])
    assert.deepEqual(results.map((r) => r.status), ['failed', 'failed', 'completed', 'completed'])
    assert.deepEqual(order, ['b1', 'c1', 'a1', 'a2'])
  })

  test('cells of one session still compute side by side up to workerThreads, and no further', async () => {
    const codeMode = codeModes.create({ enabled: true }, { workerThreads: 2 })
    const run = surface(codeMode, 'one', 10000)
    // Each busy cell computes for 1.5 s by the guest's clock and returns when
    // it started and ended; the third returns when it started.
    const busy = 'const start = Date.now(); while (Date.now() < start + 1500) {} return [start, Date.now()]'
    const [first, second, third] = await Promise.all([run.exec({ code: busy }), run.exec({ code: busy }), run.exec({ code: 'return Date.now()' })])
    assert.deepEqual([first.status, second.status, third.status], ['completed', 'completed', 'completed'])
    const [[start1, end1], [start2, end2]] = [first.value, second.value]
    // Side by side: each started before the other ended (one after the other,
    // the second would start after the first's 1.5 s).
    assert.ok(start1 < end2 && start2 < end1, `the two busy cells overlapped: ${first.value}, ${second.value}`)
    // No further: the third started after one of the two had ended.
    assert.ok(third.value >= Math.min(end1, end2), `the third cell of the session waited for one of its own to end: ${third.value}`)
  })
})

// docs/scheduling.md rule 7: a cell no worker starts is answered by the end
// of its budget, by the watchdog, even while every thread of the pool stays
// busy. The busy cells spin for 20 s and are aborted once the queued cell is
// answered: on a pool that answered queued cells only when a worker came
// free, the queued cell would come after them.
describe('a queued cell is always answered', () => {
  /** Fills the pool of a one-worker instance (one worker, and one thread more for a second session) with two spinning cells. */
  function fill(codeMode, order) {
    const controllers = [new AbortController(), new AbortController()]
    const busy = ['a', 'b'].map((session, i) =>
      track(order, session, surface(codeMode, session, 20000).exec({ code: SPIN }, { signal: controllers[i].signal })),
    )
    return { busy, abort: () => controllers.forEach((c) => c.abort()) }
  }

  test('an exec queued behind a pool that stays busy is answered timeout at its deadline', async () => {
    const codeMode = codeModes.create({ enabled: true }, { workerThreads: 1 })
    const before = binding.codeModeDiagnostics().answeredInQueue
    const order = []
    const pool = fill(codeMode, order)
    const queued = await track(order, 'c', surface(codeMode, 'c', 300).exec({ code: 'return 1 + 1' }))
    assert.deepEqual(order, ['c'], 'answered while both busy cells still compute')
    assert.equal(queued.status, 'failed')
    assert.equal(queued.code, 'timeout')
    assert.equal(queued.error, 'code mode timeout exceeded.')
    assert.equal(binding.codeModeDiagnostics().answeredInQueue - before, 1)
    pool.abort()
    const busy = await Promise.all(pool.busy)
    assert.deepEqual(busy.map((r) => r.code), ['aborted', 'aborted'])
  })

  test('a wait queued behind a pool that stays busy answers waiting under the same runId, and its run is kept', async () => {
    const codeMode = codeModes.create({ enabled: true }, { workerThreads: 1 })
    let release
    const released = new Promise((resolve) => (release = resolve))
    const parked = codeMode.prepareRun({
      runId: 'c-run',
      sessionId: 'c',
      tools: TOOLS,
      agentConfig: { timeoutMs: 300 },
      executeTool: async (call) => {
        await released
        return call.input
      },
    })
    const first = await parked.exec({ code: 'const r = await tools.call("echo", { v: 5 }); return r.v' })
    assert.equal(first.status, 'waiting', `${first.code}: ${first.error}`)
    const order = []
    const pool = fill(codeMode, order)
    const waited = await track(order, 'c', parked.wait({ runId: first.runId }))
    assert.deepEqual(order, ['c'], 'answered while both busy cells still compute')
    assert.equal(waited.status, 'waiting')
    assert.equal(waited.runId, first.runId)
    assert.equal(codeMode.suspendedRunCount(), 1)
    pool.abort()
    await Promise.all(pool.busy)
    release()
    const done = await parked.wait({ runId: first.runId })
    assert.equal(done.status, 'completed', `${done.code}: ${done.error}`)
    assert.equal(done.value, 5)
  })
})
