// Nested calls through the gateway's executeTool and their failures
// (docs/nested-calls.md); events and transcript are in nested-events.test.mjs.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { after, describe, test } from 'node:test'

import { attemptValue as value, codeModeFactory, deferred, tool, unknownToolId } from './helpers.mjs'

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

describe('nested calls (docs/nested-calls.md)', () => {
  test('the executor receives the exact NestedToolCall; the guest gets its value', async () => {
    const tools = [
      tool('read'),
      tool('browser_request', { sourceName: 'browser' }),
      tool('pick', { source: 'client', sourceName: 'app' }),
    ]
    const received = []
    const run = codeModes.enabled().prepareRun({
      runId: 'run-shape',
      tools,
      executeTool: (call) => {
        received.push(call)
        return { echo: call.input, by: call.id, nested: { list: [1, 'two', null, { three: true }] } }
      },
    })
    const first = await value(run, `
      return [
        await tools.read({ path: 'a.txt', fn() {}, missing: undefined, when: new Date(0), big: 12n, list: [undefined, NaN] }),
        await tools.call('openclaw:browser:browser_request', { url: 'https://example.com' }),
        await tools.call('pick', 7),
      ]`, { toolCallId: 'call_abc' })
    assert.deepEqual(first, [
      {
        echo: { path: 'a.txt', when: '1970-01-01T00:00:00.000Z', big: '12', list: [null, null] },
        by: 'openclaw:core:read',
        nested: { list: [1, 'two', null, { three: true }] },
      },
      { echo: { url: 'https://example.com' }, by: 'openclaw:browser:browser_request', nested: { list: [1, 'two', null, { three: true }] } },
      { echo: 7, by: 'client:app:pick', nested: { list: [1, 'two', null, { three: true }] } },
    ])
    const second = await value(run, `return await tools.read({ path: 'b' })`)
    assert.equal(second.by, 'openclaw:core:read')

    const shapes = received.map(({ signal, codeModeRunId, ...rest }) => {
      assert.ok(signal instanceof AbortSignal, 'signal is an AbortSignal')
      assert.equal(signal.aborted, false)
      if (codeModeRunId !== undefined) assert.equal(typeof codeModeRunId, 'string')
      return rest
    })
    assert.deepEqual(shapes, [
      {
        id: 'openclaw:core:read', name: 'read', source: 'openclaw',
        input: { path: 'a.txt', when: '1970-01-01T00:00:00.000Z', big: '12', list: [null, null] },
        toolCallId: 'code_mode:call_abc:read:1', parentToolCallId: 'call_abc',
      },
      {
        id: 'openclaw:browser:browser_request', name: 'browser_request', source: 'openclaw', sourceName: 'browser',
        input: { url: 'https://example.com' }, toolCallId: 'code_mode:call_abc:browser_request:2', parentToolCallId: 'call_abc',
      },
      {
        id: 'client:app:pick', name: 'pick', source: 'client', sourceName: 'app',
        input: 7, toolCallId: 'code_mode:call_abc:pick:3', parentToolCallId: 'call_abc',
      },
      // No toolCallId for the exec: "exec" names the parent, the count goes on.
      { id: 'openclaw:core:read', name: 'read', source: 'openclaw', input: { path: 'b' }, toolCallId: 'code_mode:exec:read:4' },
    ])
    assert.equal('sourceName' in received[0], false)
    assert.equal(received[3].parentToolCallId, undefined)

    // The sequence counts per run surface: a new prepareRun starts at 1.
    const fresh = codeModes.enabled().prepareRun({ runId: 'run-shape', tools, executeTool: (call) => call.toolCallId })
    assert.equal(await value(fresh, `return await tools.read({})`, { toolCallId: 'call_abc' }), 'code_mode:call_abc:read:1')
  })

  test('Promise.all over 100 calls completes in one exec with unique ids', async () => {
    const seen = new Set()
    const run = codeModes.enabled().prepareRun({
      runId: 'r',
      tools: [tool('double')],
      executeTool: async (call) => {
        seen.add(call.toolCallId)
        return call.input.i * 2
      },
    })
    const result = await run.exec({ code: `return await Promise.all(Array.from({ length: 100 }, (_, i) => tools.double({ i })))` })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, Array.from({ length: 100 }, (_, i) => i * 2))
    assert.equal(seen.size, 100)
    assert.equal(result.telemetry.callCount, 100)
  })

  test('no more than maxPendingToolCalls are in flight; all 30 calls complete', async () => {
    const maxPending = 3
    let inFlight = 0
    let maxSeen = 0
    let held = []
    let timer
    const release = () => {
      clearTimeout(timer)
      const batch = held
      held = []
      for (const settle of batch) settle()
    }
    const run = codeModes.enabled({ maxPendingToolCalls: maxPending }).prepareRun({
      runId: 'r',
      tools: [tool('work')],
      executeTool: (call) =>
        new Promise((resolve) => {
          inFlight++
          maxSeen = Math.max(maxSeen, inFlight)
          held.push(() => {
            inFlight--
            resolve(call.input.i)
          })
          // Hold calls until the slots are full (a fallback keeps a wrong
          // implementation from hanging the test).
          if (held.length >= maxPending) release()
          else {
            clearTimeout(timer)
            timer = setTimeout(release, 1000)
          }
        }),
    })
    const result = await run.exec({ code: `return await Promise.all(Array.from({ length: 30 }, (_, i) => tools.work({ i })))` })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, Array.from({ length: 30 }, (_, i) => i))
    assert.ok(maxSeen <= maxPending, `max in flight ${maxSeen}`)
    assert.equal(maxSeen, maxPending, 'the slots are used')
  })

  test('the queue is bounded: a burst beyond 1024 queued calls rejects in the guest', async () => {
    const run = codeModes.enabled({ maxPendingToolCalls: 1 }).prepareRun({
      runId: 'r',
      tools: [tool('work')],
      executeTool: async (call) => call.input.i,
    })
    const got = await value(run, `
      const outcomes = await Promise.all(Array.from({ length: 1030 }, (_, i) =>
        tools.work({ i }).then((v) => ({ v }), (e) => ({ e: e.message, plain: Object.getPrototypeOf(e) === Error.prototype }))))
      return outcomes`)
    const accepted = got.findIndex((o) => 'e' in o)
    // 1024 queued (plus, at most, the one call that may already count as in flight).
    assert.ok(accepted === 1024 || accepted === 1025, `first rejection at ${accepted}`)
    got.slice(0, accepted).forEach((o, i) => assert.deepEqual(o, { v: i }))
    for (const o of got.slice(accepted)) assert.deepEqual(o, { e: 'too many queued code mode tool calls.', plain: true })
  })
})

describe('nested call failures (docs/nested-calls.md)', () => {
  const behaviours = {
    syncThrow: () => {
      throw new TypeError('sync boom')
    },
    rejectError: async () => {
      throw new RangeError('async boom')
    },
    rejectString: () => Promise.reject('string boom'),
    plainValue: () => ({ plain: true }),
    plainUndefined: () => undefined,
    rejectObject: () => Promise.reject({ code: 7, detail: 'not an Error' }),
    thenable: () => ({ then: (resolve) => resolve('from a thenable') }),
    throwingGetter: async () => ({
      get broken() {
        throw new Error('getter boom')
      },
    }),
    hostStack: () => {
      const error = new Error('with a host stack')
      error.extra = 'host data'
      error.stack = `Error: with a host stack\n    at secret (${process.cwd()}/gateway.js:1:1)`
      throw error
    },
  }
  const tools = Object.keys(behaviours).map((name) => tool(name))
  const run = codeModes.enabled().prepareRun({ runId: 'r', tools, executeTool: (call) => behaviours[call.name](call) })

  test('each failure reaches the guest as a plain Error with its message only', async () => {
    const got = await value(run, `
      const out = {}
      for (const e of ALL_TOOLS) out[e.name] = await attempt(() => tools.call(e.id, {}))
      out.stacks = []
      try { await tools.hostStack({}) } catch (e) { out.stacks.push(String(e.stack)) }
      return out`)
    assert.deepEqual(got.plainValue, { ok: { plain: true } }, 'a non-promise value is the result')
    assert.deepEqual(got.plainUndefined, { ok: null })
    assert.deepEqual(got.thenable, { ok: 'from a thenable' }, 'a thenable is followed, as await would')
    const plain = (message) => ({ error: message, isError: true, plainError: true, name: 'Error', own: got.syncThrow.own })
    assert.deepEqual(got.syncThrow, plain('sync boom'))
    assert.deepEqual(got.rejectError, plain('async boom'), 'the host error class does not cross')
    assert.deepEqual(got.rejectString, plain('string boom'))
    assert.deepEqual(got.hostStack, plain('with a host stack'))
    // A rejection with a non-Error object and a result that cannot be read
    // (a getter throws while it is serialised) are still catchable plain Errors.
    for (const name of ['rejectObject', 'throwingGetter']) {
      assert.equal(got[name].isError, true, name)
      assert.equal(got[name].plainError, true, name)
      assert.equal(typeof got[name].error, 'string', name)
      assert.ok(got[name].error.length > 0, name)
    }
    for (const outcome of [got.syncThrow, got.rejectError, got.rejectString, got.hostStack, got.rejectObject, got.throwingGetter]) {
      assert.ok(outcome.own.every((key) => key === 'message' || key === 'stack'), JSON.stringify(outcome.own))
    }
    assert.ok(!got.stacks[0].includes(process.cwd()) && !got.stacks[0].includes('gateway.js'), got.stacks[0])
  })

  test('tool inputs and results are size-bounded: an oversized one is a catchable error, never truncated', async () => {
    const executed = []
    const run = codeModes.enabled({ memoryLimitBytes: 8 * 1024 * 1024 }).prepareRun({
      runId: 'r',
      tools: [tool('huge'), tool('echo')],
      executeTool: (call) => {
        executed.push(call.name)
        return call.name === 'huge' ? 'x'.repeat(6 * 1024 * 1024) : 'small'
      },
    })
    const got = await value(run, `
      return [
        await attempt(() => tools.huge({})),
        await attempt(() => tools.echo({ s: 'y'.repeat(5 * 1024 * 1024) })),
        await attempt(() => tools.echo({})),
      ]`)
    assert.equal(got[0].isError, true)
    assert.equal(got[0].plainError, true)
    assert.equal(typeof got[0].error, 'string')
    assert.equal(got[1].isError, true)
    assert.equal(typeof got[1].error, 'string')
    assert.deepEqual(got[2], { ok: 'small' })
    assert.deepEqual(executed, ['huge', 'echo'], 'the oversized input never reached the executor')
  })

  test(
    'tool results get the node-by-node JSON-safe conversion (docs/guest-runtime.md)',
    async () => {
      const cyclic = { name: 'c' }
      cyclic.self = cyclic
      const results = {
        bigint: () => ({ n: 1n, big: 12345678901234567890n, keep: 'x' }),
        topBigint: () => 5n,
        error: () => ({ error: new TypeError('bad'), keep: 'x' }),
        cycle: () => cyclic,
        throwingToJSON: () => ({ a: 1, t: { toJSON() { throw new Error('no') } } }),
      }
      const run = codeModes.enabled().prepareRun({
        runId: 'r',
        tools: Object.keys(results).map((name) => tool(name)),
        executeTool: (call) => results[call.name](),
      })
      const got = await value(run, `
        const out = {}
        for (const e of ALL_TOOLS) out[e.name] = await attempt(() => tools.call(e.id, {}))
        return out`)
      assert.deepEqual(got, {
        bigint: { ok: { n: '1', big: '12345678901234567890', keep: 'x' } },
        topBigint: { ok: '5' },
        error: { ok: { error: { name: 'TypeError', message: 'bad' }, keep: 'x' } },
        cycle: { ok: { name: 'c', self: '[Circular]' } },
        throwingToJSON: { ok: { a: 1, t: '[object Object]' } },
      })
    },
  )

  test('each call has its own signal, made when first read: the same object every read, aborted with the exec even if read after, and replaceable', async () => {
    const calls = []
    const started = deferred()
    const run = codeModes.enabled().prepareRun({
      runId: 'r',
      tools: [tool('fast'), tool('held')],
      executeTool: (call) => {
        calls.push(call)
        if (call.name === 'fast') return { ok: true }
        started.resolve()
        return new Promise(() => {})
      },
    })
    assert.deepEqual(await value(run, 'return await tools.fast({})'), { ok: true })
    const [first] = calls
    const { signal, ...rest } = { ...first }
    assert.ok(signal instanceof AbortSignal, 'a spread copies the signal')
    assert.equal(first.signal, signal, 'every read gives the same signal')
    assert.ok(Object.keys(first).includes('signal'), 'an enumerable own property')
    assert.equal(rest.name, 'fast')
    first.signal = 'replaced'
    assert.equal(first.signal, 'replaced', 'assigning it replaces it, as on a plain property')

    const controller = new AbortController()
    const pending = run.exec({ code: 'await tools.held({})' }, { signal: controller.signal })
    await started.promise
    const held = calls[1]
    controller.abort()
    assert.equal((await pending).code, 'aborted')
    assert.equal(held.signal.aborted, true, 'a signal first read after the abort is aborted')
  })

  test('a batch past its inline bytes (256-byte inputs, 16 KiB a batch) hands the rest over whole: every input arrives as sent', async () => {
    const received = new Map()
    const run = codeModes.enabled({ maxPendingToolCalls: 128 }).prepareRun({
      runId: 'r',
      tools: [tool('echo')],
      executeTool: (call) => {
        received.set(call.input.i, call.input)
        return call.input.i
      },
    })
    // All ready together, one batch of 120 calls: 80 inputs of about 230
    // bytes (inline until the batch's 16 KiB are used, about 70 of them) and
    // 40 of about 320 (never inline).
    const got = await value(run, `
      const calls = Array.from({ length: 120 }, (_, i) => tools.echo({ i, pad: 'x'.repeat(i % 3 ? 190 : 280), ['__proto__']: { i } }))
      return (await Promise.all(calls)).reduce((a, b) => a + b, 0)`)
    assert.equal(got, (119 * 120) / 2)
    assert.equal(received.size, 120)
    for (const [i, input] of received) {
      assert.equal(input.pad, 'x'.repeat(i % 3 ? 190 : 280))
      assert.deepEqual(Object.keys(input), ['i', 'pad', '__proto__'], '__proto__ stays a data key, inline or not')
      assert.equal(Object.getPrototypeOf(input), Object.prototype)
    }
  })

  test('result keys that differ only in lone surrogates become one key, the last value', async () => {
    const run = codeModes.enabled().prepareRun({
      runId: 'r',
      tools: [tool('keys')],
      executeTool: () => ({ '\uFFFD': 1, a: 2, '\uD800': 3, '\uDC00': 4 }),
    })
    const got = await value(run, 'const r = await tools.keys({}); return [Object.keys(r), Object.values(r)]')
    assert.deepEqual(got, [['\uFFFD', 'a'], [4, 2]])
  })

  test('a hook-like executor denies a call; the guest catches it and continues', async () => {
    const events = []
    const executed = []
    const guarded = codeModes.enabled().prepareRun({
      runId: 'r',
      tools: [tool('rm'), tool('ls')],
      onEvent: (event) => events.push(event),
      executeTool: async (call) => {
        if (call.name === 'rm') throw new Error('denied by policy')
        executed.push(call.name)
        return ['a', 'b']
      },
    })
    const got = await value(guarded, `
      let denied
      try { await tools.rm({ path: '/' }) } catch (e) { denied = e.message }
      const listing = await tools.ls({})
      return { denied, listing }`, { toolCallId: 'call_hook' })
    assert.deepEqual(got, { denied: 'denied by policy', listing: ['a', 'b'] })
    assert.deepEqual(executed, ['ls'])
    const finished = events.filter((e) => e.type === 'nested_call_finished')
    assert.deepEqual(finished.map((e) => [e.name, e.ok, e.error ?? e.result]), [['rm', false, 'denied by policy'], ['ls', true, ['a', 'b']]])
  })

  test('a tool the policy removed is uncallable by a guessed id', async () => {
    const executed = []
    const run = codeModes.enabled().prepareRun({ runId: 'r', tools: [tool('read')], executeTool: (call) => executed.push(call.id) })
    const got = await value(run, `
      return [
        await attempt(() => tools.call('openclaw:core:secret', {})),
        await attempt(() => tools.describe('openclaw:core:secret')),
        typeof tools.secret,
        ALL_TOOLS.map((e) => e.id),
      ]`)
    // The only entry, read, shares the tokens openclaw and core (+24).
    assert.equal(got[0].error, unknownToolId('openclaw:core:secret', ['read']))
    assert.equal(got[1].error, got[0].error)
    assert.equal(got[2], 'undefined')
    assert.deepEqual(got[3], ['openclaw:core:read'])
    assert.deepEqual(executed, [])
  })
})

describe('hand-offs between a worker and the Node thread (docs/nested-calls.md)', () => {
  // Whether hand-offs poll or block is measured while calls flow; the test
  // machine may be idle or busy, so both ways are forced here, each in a
  // process of its own (the setting is read once per process).
  for (const handOffs of ['block', 'poll']) {
    test(`with CODE_MODE_HAND_OFFS=${handOffs}, sequential, parallel, slow and aborted calls all settle`, () => {
      const index = JSON.stringify(new URL('../index.js', import.meta.url).pathname)
      const child = spawnSync(process.execPath, ['-e', `
        const b = require(${index})
        const cm = b.createCodeMode({ config: { enabled: true, maxPendingToolCalls: 64 } })
        const tools = ['echo', 'slow', 'hang'].map((name) => ({ name, description: '', source: 'openclaw' }))
        const executeTool = (call) => {
          if (call.name === 'echo') return call.input
          if (call.name === 'slow') return new Promise((resolve) => setTimeout(() => resolve(call.input), 3))
          return new Promise((resolve, reject) => call.signal.addEventListener('abort', () => reject(new Error('stopped'))))
        }
        const run = cm.prepareRun({ runId: 'r', tools, executeTool })
        ;(async () => {
          const results = []
          for (let i = 0; i < 5; i++) {
            results.push(await run.exec({ code: 'let s = 0; for (let i = 0; i < 200; i++) s += (await tools.echo({ n: i })).n; return s' }))
          }
          results.push(await run.exec({ code: 'const all = await Promise.all(Array.from({ length: 50 }, (_, n) => tools.echo({ n }))); return all.reduce((s, r) => s + r.n, 0)' }))
          results.push(await run.exec({ code: 'let s = 0; for (let i = 0; i < 5; i++) s += (await tools.slow({ n: i })).n; return s' }))
          const controller = new AbortController()
          const hung = run.exec({ code: 'await tools.hang({}); return 1' }, { signal: controller.signal })
          setTimeout(() => controller.abort(), 20)
          results.push(await hung)
          await cm.close()
          console.log(JSON.stringify(results.map((r) => [r.status, r.value ?? r.code ?? null])))
        })()`], { encoding: 'utf8', timeout: 60000, env: { ...process.env, CODE_MODE_HAND_OFFS: handOffs } })
      assert.equal(child.error, undefined, String(child.error))
      assert.equal(child.status, 0, child.stderr)
      const sequential = Array(5).fill(['completed', 19900])
      assert.deepEqual(JSON.parse(child.stdout), [...sequential, ['completed', 1225], ['completed', 10], ['failed', 'aborted']])
    })
  }
})
