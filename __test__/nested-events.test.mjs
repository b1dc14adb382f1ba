// Nested-call events and their transcript projection: the started and
// finished events a gateway's onEvent receives, and nestedCallTranscript
// (docs/nested-calls.md, docs/surface.md).
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { attemptValue as value, binding, codeModeFactory, deferred, tool } from './helpers.mjs'

const { nestedCallTranscript } = binding

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

describe('events and transcript (docs/nested-calls.md)', () => {
  test('started in call order, finished in settle order; transcript pairs', async () => {
    const events = []
    const pending = new Map()
    const run = codeModes.enabled().prepareRun({
      runId: 'r',
      tools: [tool('step', { sourceName: 'plug' })],
      onEvent: (event) => events.push(event),
      executeTool: (call) => {
        const d = deferred()
        pending.set(call.input.k, d)
        if (pending.size === 3) {
          // Once all three have started (and been handed back), settle them
          // in the order c, a, b.
          setImmediate(() => {
            pending.get('c').resolve({ k: 'c' })
            pending.get('a').reject(new Error('a failed'))
            pending.get('b').resolve('b done')
          })
        }
        return d.promise
      },
    })
    const got = await value(run, `
      const settled = await Promise.allSettled([tools.step({ k: 'a' }), tools.step({ k: 'b' }), tools.step({ k: 'c' })])
      return settled.map((s) => s.status === 'fulfilled' ? s.value : s.reason.message)`, { toolCallId: 'call_ev' })
    assert.deepEqual(got, ['a failed', 'b done', { k: 'c' }])

    const id = (n) => `code_mode:call_ev:step:${n}`
    assert.deepEqual(events.map((e) => [e.type, e.toolCallId]), [
      ['nested_call_started', id(1)],
      ['nested_call_started', id(2)],
      ['nested_call_started', id(3)],
      ['nested_call_finished', id(3)],
      ['nested_call_finished', id(1)],
      ['nested_call_finished', id(2)],
    ])
    const common = (n) => ({ toolCallId: id(n), parentToolCallId: 'call_ev', toolId: 'openclaw:plug:step', name: 'step' })
    assert.deepEqual(events.slice(0, 3), ['a', 'b', 'c'].map((k, i) => ({ type: 'nested_call_started', ...common(i + 1), input: { k } })))
    for (const event of events.slice(3)) {
      assert.equal(typeof event.durationMs, 'number')
      assert.ok(event.durationMs >= 0)
    }
    const durations = events.slice(3).map((e) => e.durationMs)
    assert.deepEqual(events.slice(3), [
      { type: 'nested_call_finished', ...common(3), ok: true, durationMs: durations[0], result: { k: 'c' } },
      { type: 'nested_call_finished', ...common(1), ok: false, durationMs: durations[1], error: 'a failed' },
      { type: 'nested_call_finished', ...common(2), ok: true, durationMs: durations[2], result: 'b done' },
    ])

    const duration = (n) => events.find((e) => e.type === 'nested_call_finished' && e.toolCallId === id(n)).durationMs
    const pair = (n, k, text, isError) => [
      {
        role: 'assistant',
        content: [{ type: 'toolCall', id: id(n), name: 'step', arguments: { k } }],
        toolId: 'openclaw:plug:step',
        parentToolCallId: 'call_ev',
        codeModeNested: true,
      },
      {
        role: 'toolResult',
        toolCallId: id(n),
        toolName: 'step',
        content: [{ type: 'text', text }],
        isError,
        parentToolCallId: 'call_ev',
        codeModeNested: true,
      },
    ]
    const transcript = nestedCallTranscript(events, 'call_ev')
    // durationMs is compared separately: its exact bits are the subject of the
    // number-preservation test below.
    const results = transcript.filter((m) => m.role === 'toolResult')
    results.forEach((m, i) => {
      assert.equal(typeof m.durationMs, 'number')
      assert.ok(Math.abs(m.durationMs - duration(i + 1)) < 1e-9, `${m.durationMs} vs ${duration(i + 1)}`)
    })
    const withoutDurations = transcript.map(({ durationMs, ...rest }) => rest)
    assert.deepEqual(withoutDurations, [
      ...pair(1, 'a', 'a failed', true),
      ...pair(2, 'b', 'b done', false),
      ...pair(3, 'c', '{"k":"c"}', false),
    ])
    assert.deepEqual(nestedCallTranscript(events), transcript)
    assert.deepEqual(nestedCallTranscript(events, 'call_other'), [])
  })

  test(
    'the transcript keeps numbers exactly (docs/nested-calls.md)',
    () => {
      const doubles = [0.15831127762795313, 0.023738465905189514, 0.9270711171627045, 90868505835.80249, 0.47821643415804804, 0.1 + 0.2, 5e-324, 2 ** 53 + 2]
      const events = [
        { type: 'nested_call_started', toolCallId: 'n1', parentToolCallId: 'p', toolId: 'openclaw:core:t', name: 't', input: { doubles } },
        {
          type: 'nested_call_finished', toolCallId: 'n1', parentToolCallId: 'p', toolId: 'openclaw:core:t', name: 't',
          ok: true, durationMs: doubles[0], result: { doubles },
        },
      ]
      const [call, result] = nestedCallTranscript(events, 'p')
      assert.deepEqual(call.content[0].arguments, { doubles })
      assert.equal(result.content[0].text, JSON.stringify({ doubles }))
      assert.equal(result.durationMs, doubles[0])
    },
  )

  test('events of two execs carry their own parents', async () => {
    const events = []
    const run = codeModes.enabled().prepareRun({
      runId: 'r', tools: [tool('ping')], onEvent: (event) => events.push(event), executeTool: () => 'pong',
    })
    await value(run, `return await tools.ping({})`, { toolCallId: 'p1' })
    await value(run, `return await tools.ping({ n: 2 })`, { toolCallId: 'p2' })
    assert.deepEqual(events.map((e) => [e.type, e.toolCallId, e.parentToolCallId]), [
      ['nested_call_started', 'code_mode:p1:ping:1', 'p1'],
      ['nested_call_finished', 'code_mode:p1:ping:1', 'p1'],
      ['nested_call_started', 'code_mode:p2:ping:2', 'p2'],
      ['nested_call_finished', 'code_mode:p2:ping:2', 'p2'],
    ])
    const second = nestedCallTranscript(events, 'p2')
    assert.equal(second.length, 2)
    assert.deepEqual(second[0].content[0].arguments, { n: 2 })
    assert.equal(second[1].content[0].text, 'pong')
  })
})
