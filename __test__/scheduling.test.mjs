// The worker pool's fairness rule (docs/scheduling.md): sessions take turns,
// a session that floods the pool queues behind its own cells, and a session
// that computes nothing while the pool is busy gets a thread of its own.
// Every ordering below is decided by budgets hundreds of milliseconds apart,
// never by how fast a cell computes.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { codeModeFactory, tool } from './helpers.mjs'

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
    // Each returns when it started, by the guest's clock, after 400 ms of compute.
    const busy = 'const start = Date.now(); while (Date.now() < start + 400) {} return start'
    const [first, second, third] = await Promise.all([run.exec({ code: busy }), run.exec({ code: busy }), run.exec({ code: 'return Date.now()' })])
    assert.deepEqual([first.status, second.status, third.status], ['completed', 'completed', 'completed'])
    assert.ok(Math.abs(first.value - second.value) < 300, `the two busy cells started together: ${first.value}, ${second.value}`)
    assert.ok(third.value >= Math.min(first.value, second.value) + 400, 'the third cell of the session waited for one of its own to end')
  })
})
