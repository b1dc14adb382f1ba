// The adversarial corpus (adversarial-fixtures.mjs), in every phase of a run:
// abort and close before start, computing, awaiting a tool and parked.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { ABORTED, assertCompleted, assertFailed, assertServes, CLOSED, closeInstances, EXPIRED, instance } from './adversarial-fixtures.mjs'
import { abortReport, deferred, sleep, watchSignal } from './helpers.mjs'

after(closeInstances)

describe('10. abort and close during every phase', () => {
  test('abort before start, computing, awaiting a tool, parked; close() computing, awaiting, parked', async () => {
    const signals = []
    let started = deferred()
    const executeTool = (call) => {
      signals.push(watchSignal(call.signal))
      started.resolve()
      return new Promise(() => {}) // never settles
    }
    const { codeMode, run } = instance({}, executeTool)

    // Before start: nothing runs.
    const before = new AbortController()
    before.abort()
    const notRun = await run.exec({ code: "text('ran'); return 1" }, { signal: before.signal })
    assertFailed(notRun, 'aborted', ABORTED)
    assert.deepEqual(notRun.output, [])

    // While computing.
    const computing = new AbortController()
    const spinning = run.exec({ code: 'for (;;) {}' }, { signal: computing.signal })
    await sleep(100)
    computing.abort()
    assertFailed(await spinning, 'aborted', ABORTED, 'abort while computing')

    // While awaiting a tool: the nested call's signal fires.
    started = deferred()
    signals.length = 0
    const awaiting = new AbortController()
    const pending = run.exec({ code: "text('a'); await tools.slow({}); return 1" }, { signal: awaiting.signal })
    await started.promise
    awaiting.abort()
    const aborted = await pending
    assertFailed(aborted, 'aborted', ABORTED, 'abort while awaiting')
    assert.deepEqual(aborted.output, [{ type: 'text', text: 'a' }])
    assert.deepEqual(await abortReport(signals[0]), { fired: true, aborted: true })

    // While parked: an aborted wait drops the run and aborts its calls.
    const parking = instance({ timeoutMs: 300 }, executeTool)
    signals.length = 0
    const parked = await parking.run.exec({ code: "text('p'); await tools.slow({}); return 1" })
    assert.equal(parked.status, 'waiting', parked.error)
    assert.deepEqual(parked.output, [{ type: 'text', text: 'p' }])
    assert.equal(parking.codeMode.suspendedRunCount(), 1)
    const abortedWait = new AbortController()
    abortedWait.abort()
    assertFailed(await parking.run.wait({ runId: parked.runId }, { signal: abortedWait.signal }), 'aborted', ABORTED)
    assert.deepEqual(await abortReport(signals[0]), { fired: true, aborted: true })
    assert.equal(parking.codeMode.suspendedRunCount(), 0)
    assertFailed(await parking.run.wait({ runId: parked.runId }), 'invalid_input', EXPIRED, 'the dropped run is gone')

    // Aborting a wait while the resumed guest awaits a tool (a yield parks
    // at once, so the generous budget never ends first).
    const yielding = await run.exec({ code: 'await yield_control(); await tools.slow({}); return 1' })
    assert.equal(yielding.status, 'waiting', yielding.error)
    started = deferred()
    signals.length = 0
    const duringWait = new AbortController()
    const resumed = run.wait({ runId: yielding.runId }, { signal: duringWait.signal })
    await started.promise
    duringWait.abort()
    assertFailed(await resumed, 'aborted', ABORTED, 'abort during wait')
    assert.deepEqual(await abortReport(signals[0]), { fired: true, aborted: true })
    assertFailed(await run.wait({ runId: yielding.runId }), 'invalid_input', EXPIRED, 'the aborted run is gone')

    // Aborting the exec's signal after it returned waiting has no effect.
    const late = new AbortController()
    const yielded = await run.exec({ code: "return await yield_control('r')" }, { signal: late.signal })
    assert.equal(yielded.status, 'waiting', yielded.error)
    late.abort()
    assertCompleted(await run.wait({ runId: yielded.runId }), { status: 'yielded', reason: 'r' })
    await assertServes(codeMode)
    await assertServes(parking.codeMode)

    // close() while computing.
    const closingCompute = instance({}, executeTool)
    const spinner = closingCompute.run.exec({ code: 'for (;;) {}' })
    await sleep(100)
    await closingCompute.codeMode.close()
    assertFailed(await spinner, 'runtime_unavailable', CLOSED, 'close while computing')

    // close() while awaiting a tool.
    const closingAwait = instance({}, executeTool)
    started = deferred()
    signals.length = 0
    const awaitingClose = closingAwait.run.exec({ code: "text('c'); await tools.slow({})" })
    await started.promise
    await closingAwait.codeMode.close()
    const closedAwaiting = await awaitingClose
    assertFailed(closedAwaiting, 'runtime_unavailable', CLOSED, 'close while awaiting')
    assert.deepEqual(closedAwaiting.output, [{ type: 'text', text: 'c' }])
    assert.deepEqual(await abortReport(signals[0]), { fired: true, aborted: true })

    // close() while parked.
    const closingParked = instance({ timeoutMs: 300 }, executeTool)
    signals.length = 0
    const parkedToClose = await closingParked.run.exec({ code: 'await tools.slow({})' })
    assert.equal(parkedToClose.status, 'waiting')
    await closingParked.codeMode.close()
    assert.equal(closingParked.codeMode.suspendedRunCount(), 0)
    assert.deepEqual(await abortReport(signals[0]), { fired: true, aborted: true })
    assertFailed(await closingParked.run.wait({ runId: parkedToClose.runId }), 'runtime_unavailable', CLOSED)
    assertFailed(await closingParked.run.exec({ code: 'return 1' }), 'runtime_unavailable', CLOSED)

    // A second instance created after the closes works.
    await assertServes(instance().codeMode)
  })
})
