// End to end with server-everything (mcp-e2e-fixtures.mjs): a long MCP call
// parks the run, and abort cancels the MCP request.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'

import { codeMode, LONG_SECONDS, LONG_TOOL, PARK_TIMEOUT_MS, prepare, runToolName, startServer, stopServer } from './mcp-e2e-fixtures.mjs'
import { abortReport, watchSignal } from './helpers.mjs'

before(startServer)
after(stopServer)

describe('a long MCP call parks the run', () => {
  test('exec returns waiting on the MCP call; wait delivers its result and the output after resuming', async () => {
    const { run, calls, events } = prepare({ agentConfig: { timeoutMs: PARK_TIMEOUT_MS } })
    const code = `
text('starting')
const op = await MCP.everything.triggerLongRunningOperation({ duration: ${LONG_SECONDS}, steps: ${LONG_SECONDS} })
const done = op.content[0].text
text('resumed: ' + done)
const sum = await MCP.everything.getSum({ a: 2, b: 3 })
return { done, sum: sum.content[0].text }`
    const first = await run.exec({ code }, { toolCallId: 'call_park' })
    const longId = `code_mode:call_park:${runToolName(LONG_TOOL)}:1`
    assert.equal(first.status, 'waiting', JSON.stringify(first))
    assert.equal(first.reason, 'pending_tools')
    assert.match(first.runId, /^cm_/)
    assert.deepEqual(first.pendingToolCalls, [{ id: longId, method: 'mcp', toolId: `mcp:everything:${LONG_TOOL}` }])
    assert.deepEqual(first.output, [{ type: 'text', text: 'starting' }])
    assert.equal(codeMode.suspendedRunCount(), 1)
    assert.deepEqual(calls.map((c) => [c.id, c.input]), [[`mcp:everything:${LONG_TOOL}`, { duration: LONG_SECONDS, steps: LONG_SECONDS }]])

    // Each wait has a fresh budget of PARK_TIMEOUT_MS; the operation takes
    // LONG_SECONDS, so a few waits come back waiting first. Bounded.
    let result = first
    let waits = 0
    while (result.status === 'waiting') {
      assert.ok(++waits <= 60, 'the run never completed')
      assert.deepEqual(result.pendingToolCalls.map((p) => p.id), [longId])
      if (waits > 1) assert.deepEqual(result.output, [])
      result = await run.wait({ runId: result.runId }, { toolCallId: `call_wait_${waits}` })
    }
    assert.equal(result.status, 'completed', JSON.stringify(result))
    const done = `Long running operation completed. Duration: ${LONG_SECONDS} seconds, Steps: ${LONG_SECONDS}.`
    assert.deepEqual(result.value, { done, sum: 'The sum of 2 and 3 is 5.' })
    assert.deepEqual(result.output, [{ type: 'text', text: `resumed: ${done}` }])
    assert.equal(codeMode.suspendedRunCount(), 0)

    // The call made after resuming names the wait that resumed the run; the
    // long call keeps its exec as parent.
    const finishes = events.filter((e) => e.type === 'nested_call_finished')
    assert.deepEqual(finishes.map((e) => [e.toolId, e.ok]), [[`mcp:everything:${LONG_TOOL}`, true], ['mcp:everything:get-sum', true]])
    assert.equal(finishes[0].toolCallId, longId)
    assert.equal(finishes[0].parentToolCallId, 'call_park')
    assert.deepEqual(finishes[0].result, { content: [{ type: 'text', text: done }] })
    assert.equal(finishes[1].parentToolCallId, `call_wait_${waits}`)
    assert.equal(calls[1].toolCallId, `code_mode:call_wait_${waits}:${runToolName('get-sum')}:2`)
  })
})

describe('abort cancels the MCP request', () => {
  test('aborting the exec while the MCP call is in flight ends aborted and cancels the request', async () => {
    const controller = new AbortController()
    let watch
    const { run, calls, mcpSettled, events } = prepare({
      onMcpCall: (call) => {
        watch = watchSignal(call.signal)
        // The request is on the wire: now the user presses stop.
        controller.abort()
      },
    })
    const result = await run.exec(
      { code: `await MCP.everything.triggerLongRunningOperation({ duration: ${LONG_SECONDS}, steps: 1 }); return 'not reached'` },
      { toolCallId: 'call_abort', signal: controller.signal },
    )
    assert.equal(result.status, 'failed', JSON.stringify(result))
    assert.equal(result.code, 'aborted')
    assert.equal(result.error, 'code mode run was aborted.')
    assert.equal(codeMode.suspendedRunCount(), 0)
    assert.equal(calls.length, 1)
    assert.equal(watch.isAbortSignal, true)
    assert.equal(watch.abortedAtStart, false)
    assert.deepEqual(await abortReport(watch), { fired: true, aborted: true })
    // The SDK rejected the request (it also tells the server with notifications/cancelled).
    const [settled] = await Promise.all(mcpSettled)
    assert.equal(settled.ok, false)
    assert.match(String(settled.error?.message), /AbortError|aborted|cancel/i)
    // The transcript still gets a finish for the call, under the exec.
    assert.deepEqual(
      events.map((e) => [e.type, e.toolCallId, e.parentToolCallId, e.ok, e.error]),
      [
        ['nested_call_started', `code_mode:call_abort:${runToolName(LONG_TOOL)}:1`, 'call_abort', undefined, undefined],
        ['nested_call_finished', `code_mode:call_abort:${runToolName(LONG_TOOL)}:1`, 'call_abort', false, 'code mode run was aborted.'],
      ],
    )
  })

  test('aborting the wait of a parked run cancels the MCP call the exec started', async () => {
    const { run, calls, mcpSettled } = prepare({ agentConfig: { timeoutMs: PARK_TIMEOUT_MS } })
    const first = await run.exec(
      { code: `return await MCP.everything.triggerLongRunningOperation({ duration: ${LONG_SECONDS}, steps: 1 })` },
      { toolCallId: 'call_park_abort' },
    )
    assert.equal(first.status, 'waiting', JSON.stringify(first))
    assert.equal(codeMode.suspendedRunCount(), 1)
    const watch = watchSignal(calls[0].signal)
    const controller = new AbortController()
    const waiting = run.wait({ runId: first.runId }, { toolCallId: 'call_wait_abort', signal: controller.signal })
    controller.abort()
    const result = await waiting
    assert.equal(result.status, 'failed', JSON.stringify(result))
    assert.equal(result.code, 'aborted')
    assert.equal(result.error, 'code mode run was aborted.')
    assert.deepEqual(await abortReport(watch), { fired: true, aborted: true })
    const [settled] = await Promise.all(mcpSettled)
    assert.equal(settled.ok, false)
    assert.match(String(settled.error?.message), /AbortError|aborted|cancel/i)
    assert.equal(codeMode.suspendedRunCount(), 0)
    // The run is gone.
    const again = await run.wait({ runId: first.runId })
    assert.equal(again.status, 'failed')
    assert.equal(again.error, 'code mode run is unavailable or expired.')
  })
})
