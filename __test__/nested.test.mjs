// tools.search/describe/call, convenience functions, nested calls through the
// gateway's executeTool, their events, the budget and process exit
// (SPEC 5, 7, 14.6, 14.7, 14.11, 14.15, 14.16, 14.30).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { after, describe, test } from 'node:test'

import {
  ATTEMPT, RECOVERY, abortReport, binding, codeModeFactory, deferred, tool, unknownToolId, watchSignal,
} from './tools.mjs'

const { nestedCallTranscript } = binding

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

/** Runs `code` (with the ATTEMPT prelude) and returns the completed value. */
async function value(run, code, call) {
  const result = await run.exec({ code: ATTEMPT + code }, call)
  assert.equal(result.status, 'completed', result.error)
  return result.value
}

const ids = (entries) => entries.map((entry) => entry.id)

describe('tools.search (SPEC 5, 14.6)', () => {
  // Scores for "mail", by SPEC 5: +20 name/id equals, +8 name contains,
  // +6 id contains, +4 label contains, +2 description contains.
  const SEARCH_TOOLS = [
    tool('x_desc', { description: 'Send mail' }), //               desc 2            = 2
    tool('x_label', { label: 'Mail sender' }), //                  label 4           = 4
    tool('mailer'), //                                             name 8 + id 6     = 14
    tool('zzz', { description: 'nothing here' }), //               0, dropped
    tool('x_both', { label: 'MAIL', description: 'Mail' }), //     label 4 + desc 2  = 6
    tool('mail'), //                                               20 + 8 + 6        = 34
    tool('x_owner', { source: 'client', sourceName: 'mail' }), //  id 6 (client:mail:x_owner) = 6
    tool('sender'), //                                             ("send": 8 + 6 = 14)
    tool('B_tool'),
    tool('a_tool'),
  ]
  const run = codeModes.enabled().prepareRun({ runId: 'r', tools: SEARCH_TOOLS, executeTool: () => null })
  const catalogIds = ids(run.catalog)

  test('scores add up; ties sort by id', async () => {
    const got = await value(run, `
      return {
        mail: (await tools.search('mail')).map((e) => e.id),
        upper: (await tools.search('MAIL')).map((e) => e.id),
      }`)
    const expected = [
      'openclaw:core:mail', // 34
      'openclaw:core:mailer', // 14
      'client:mail:x_owner', // 6 (tie, by id)
      'openclaw:core:x_both', // 6
      'openclaw:core:x_label', // 4
      'openclaw:core:x_desc', // 2
    ]
    assert.deepEqual(got.mail, expected)
    assert.deepEqual(got.upper, expected, 'the query is lower-cased')
  })

  test('several terms add their scores; separators split terms', async () => {
    const got = await value(run, `return (await tools.search('MAIL, send!', { limit: 50 })).map((e) => e.id)`)
    assert.deepEqual(got, [
      'openclaw:core:mail', // 34 + 0
      'openclaw:core:mailer', // 14 + 0 (tie with sender, by id)
      'openclaw:core:sender', // 0 + 14
      'openclaw:core:x_label', // 4 + 4
      'client:mail:x_owner', // 6 + 0
      'openclaw:core:x_both', // 6 + 0
      'openclaw:core:x_desc', // 2 + 2
    ])
  })

  test('a term equal to an id scores 20; ":" stays inside a term', async () => {
    const got = await value(run, `return (await tools.search('openclaw:core:mail')).map((e) => e.id)`)
    // mail: id equals 20 + id contains 6 = 26; mailer: id contains 6.
    assert.deepEqual(got, ['openclaw:core:mail', 'openclaw:core:mailer'])
  })

  test('ties sort by id in plain code-unit order (uppercase before lowercase)', async () => {
    const got = await value(run, `
      return {
        tool: (await tools.search('tool')).map((e) => e.id),
        exact: (await tools.search('b_tool')).map((e) => e.id),
      }`)
    assert.deepEqual(got.tool, ['openclaw:core:B_tool', 'openclaw:core:a_tool'])
    assert.deepEqual(got.exact, ['openclaw:core:B_tool'], 'names are compared lower-cased')
  })

  test('_ . / : - stay inside terms; other characters (non-ASCII letters too) split them', async () => {
    const tools = [tool('fs.read'), tool('read_fs'), tool('my-tool'), tool('tool_my'), tool('path/x'), tool('x_path'), tool('cafe_menu')]
    const small = codeModes.enabled().prepareRun({ runId: 'r', tools, executeTool: () => null })
    const got = await value(small, `
      const names = async (query) => (await tools.search(query)).map((e) => e.name)
      return [await names('fs.read'), await names('MY-TOOL'), await names('path/x'), await names('Café'), await names('read,fs')]`)
    assert.deepEqual(got, [
      ['fs.read'],
      ['my-tool'],
      ['path/x'],
      ['cafe_menu'], // "café" -> the term "caf"
      ['fs.read', 'read_fs'], // "read" and "fs": 8 + 6 each, for both names
    ])
  })

  test('no terms: every entry (score 1) by id, up to the default limit of 8', async () => {
    const byId = [...catalogIds].sort()
    assert.ok(byId.length > 8)
    const got = await value(run, `
      return {
        empty: (await tools.search('')).map((e) => e.id),
        separators: (await tools.search('  !!! ,, ???')).map((e) => e.id),
        all: (await tools.search('', { limit: 50 })).map((e) => e.id),
      }`)
    assert.deepEqual(got.empty, byId.slice(0, 8))
    assert.deepEqual(got.separators, byId.slice(0, 8))
    assert.deepEqual(got.all, byId)
  })

  test('search returns compact entries, equal to ALL_TOOLS entries', async () => {
    const got = await value(run, `
      const found = await tools.search('mail')
      return { found, same: found.every((e) => JSON.stringify(e) === JSON.stringify(ALL_TOOLS.find((a) => a.id === e.id))) }`)
    assert.equal(got.same, true)
    assert.deepEqual(got.found[0], { id: 'openclaw:core:mail', name: 'mail', description: '', source: 'openclaw' })
    assert.deepEqual(got.found.find((e) => e.name === 'x_both'), {
      id: 'openclaw:core:x_both', name: 'x_both', label: 'MAIL', description: 'Mail', source: 'openclaw',
    })
    for (const entry of got.found) assert.equal('parameters' in entry, false)
  })

  test('default limit is searchDefaultLimit; limits clamp to maxSearchLimit', async () => {
    const tools = Array.from({ length: 12 }, (_, i) => tool(`t${String(i).padStart(2, '0')}`))
    const names = tools.map((t) => t.name)
    const small = codeModes.enabled({ searchDefaultLimit: 3, maxSearchLimit: 5 }).prepareRun({ runId: 'r', tools, executeTool: () => null })
    const got = await value(small, `
      const names = async (...args) => (await tools.search(...args)).map((e) => e.name)
      return [await names(''), await names('', {}), await names('', { limit: 2 }), await names('', { limit: 5 }), await names('', { limit: 100 }), await names('t0')]`)
    assert.deepEqual(got, [
      names.slice(0, 3), names.slice(0, 3), names.slice(0, 2), names.slice(0, 5), names.slice(0, 5),
      names.slice(0, 3), // t00..t09 all score 8 + 6; cut to the default 3
    ])
    const clamped = codeModes.enabled({ searchDefaultLimit: 20, maxSearchLimit: 4 }).prepareRun({ runId: 'r', tools, executeTool: () => null })
    assert.deepEqual(await value(clamped, `return (await tools.search('')).map((e) => e.name)`), names.slice(0, 4))
  })

  test('a limit that is not a positive integer is a guest error', async () => {
    const got = await value(run, `
      const out = []
      for (const limit of [0, -1, 1.5, '3', NaN, Infinity, null, true, {}]) out.push(await attempt(() => tools.search('mail', { limit })))
      out.push(await attempt(async () => (await tools.search('mail', { limit: 1 })).length))
      return out`)
    const last = got.pop()
    assert.deepEqual(last, { ok: 1 })
    const labels = ['0', '-1', '1.5', "'3'", 'NaN', 'Infinity', 'null', 'true', '{}']
    got.forEach((outcome, i) => {
      // null may reasonably mean "absent" (SPEC 14.5 for exec fields); every other case must fail.
      if (labels[i] === 'null' && 'ok' in outcome) return
      assert.equal(outcome.error, 'limit must be a positive integer.', labels[i])
      assert.equal(outcome.isError, true, labels[i])
    })
  })
})

describe('tools.describe and lookup (SPEC 5, 14.7)', () => {
  const READ_SCHEMA = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
  const LOOKUP_TOOLS = [
    tool('record'),
    tool('read', { description: 'Read a file', label: 'Read', parameters: READ_SCHEMA }),
    tool('rename'),
    tool('reboot'),
    tool('dup', { description: 'core dup' }),
    tool('dup', { description: 'client dup', source: 'client' }),
    tool('client:client:zz', { description: 'a name that looks like an id' }),
    tool('zz', { description: 'the real id client:client:zz', source: 'client' }),
    tool('widget', { description: 'Will frobnicate things' }),
  ]
  const calls = []
  const run = codeModes.enabled().prepareRun({ runId: 'r', tools: LOOKUP_TOOLS, executeTool: (call) => { calls.push(call.id); return call.id } })

  test('describe adds parameters ({} when absent)', async () => {
    const got = await value(run, `return [await tools.describe('openclaw:core:read'), await tools.describe('reboot')]`)
    assert.deepEqual(got[0], {
      id: 'openclaw:core:read', name: 'read', label: 'Read', description: 'Read a file', source: 'openclaw', parameters: READ_SCHEMA,
    })
    assert.deepEqual(got[1], { id: 'openclaw:core:reboot', name: 'reboot', description: '', source: 'openclaw', parameters: {} })
  })

  test('exact id first, then a unique name; the same for call', async () => {
    const got = await value(run, `
      return {
        byId: (await tools.describe('client:client:zz')).description,
        namedLikeId: (await tools.describe('openclaw:core:client:client:zz')).name,
        nameOnly: (await tools.describe('zz')).id,
        dupById: (await tools.describe('client:client:dup')).description,
        call: await tools.call('client:client:zz', {}),
        callByName: await tools.call('reboot', {}),
      }`)
    assert.equal(got.byId, 'the real id client:client:zz', 'the exact id wins over a tool named like it')
    assert.equal(got.namedLikeId, 'client:client:zz')
    assert.equal(got.nameOnly, 'client:client:zz')
    assert.equal(got.dupById, 'client dup')
    assert.equal(got.call, 'client:client:zz')
    assert.equal(got.callByName, 'openclaw:core:reboot')
  })

  test('an ambiguous name is an error for describe and call', async () => {
    const before = calls.length
    const got = await value(run, `return [await attempt(() => tools.describe('dup')), await attempt(() => tools.call('dup', {}))]`)
    for (const outcome of got) {
      assert.equal(outcome.error, 'Ambiguous tool name: dup; use an exact tool id.')
      assert.equal(outcome.isError, true)
    }
    assert.equal(calls.length, before, 'nothing reached the executor')
  })

  test('unknown ids: suggestions (at most 3, ties by id, ids for ambiguous names) and the recovery sentence', async () => {
    const before = calls.length
    const got = await value(run, `
      return [
        await attempt(() => tools.describe('openclaw:core:re')),
        await attempt(() => tools.call('openclaw:core:re', {})),
        await attempt(() => tools.describe('dupx')),
        await attempt(() => tools.describe('qqq')),
        await attempt(() => tools.call('qqq', {})),
        await attempt(() => tools.describe('frobnicate')),
      ]`)
    // "openclaw:core:re": the ids of read/reboot/record/rename contain it (+40)
    // and share the tokens openclaw and core (+24): the best 3 by id.
    assert.equal(got[0].error, unknownToolId('openclaw:core:re', ['read', 'reboot', 'record']))
    assert.equal(got[1].error, got[0].error)
    // "dupx" contains the name dup of two entries: shown by id.
    assert.equal(got[2].error, unknownToolId('dupx', ['client:client:dup', 'openclaw:core:dup']))
    assert.equal(got[3].error, `Unknown tool id: qqq. ${RECOVERY}`)
    assert.equal(got[4].error, got[3].error)
    assert.equal(
      got[3].error,
      'Unknown tool id: qqq. Use tools.search to find a tool, tools.describe to inspect it, then tools.call with the exact id or name.',
    )
    // "frobnicate" only occurs in widget's description (+8).
    assert.equal(got[5].error, unknownToolId('frobnicate', ['widget']))
    for (const outcome of got) assert.equal(outcome.isError, true)
    assert.equal(calls.length, before)
  })
})

describe('convenience functions (SPEC 5)', () => {
  const tools = [
    tool('alpha'),
    tool('my-tool'),
    tool('2fast'),
    tool('search'),
    tool('describe'),
    tool('call'),
    tool('dup'),
    tool('dup', { source: 'client' }),
    tool('$ok_name'),
    tool('direct_only', { directOnly: true }),
  ]
  const calls = []
  const run = codeModes.enabled().prepareRun({ runId: 'r', tools, executeTool: (call) => { calls.push(call.id); return `ran ${call.name}` } })

  test('exist only for unique identifier names that are not search/describe/call', async () => {
    const got = await value(run, `
      const kinds = {}
      for (const name of ['alpha', '$ok_name', 'my-tool', '2fast', 'dup', 'direct_only']) kinds[name] = typeof tools[name]
      return {
        kinds,
        alpha: await tools.alpha({}),
        dollar: await tools.$ok_name({}),
        helpers: {
          search: (await tools.search('alpha')).map((e) => e.id),
          describe: (await tools.describe('alpha')).id,
          call: await tools.call('alpha', {}),
        },
        viaCall: [
          await tools.call('my-tool', {}), await tools.call('2fast', {}), await tools.call('search', {}),
          await tools.call('openclaw:core:describe', {}), await tools.call('call', {}), await tools.call('client:client:dup', {}),
        ],
      }`)
    assert.deepEqual(got.kinds, {
      alpha: 'function', $ok_name: 'function', 'my-tool': 'undefined', '2fast': 'undefined', dup: 'undefined', direct_only: 'undefined',
    })
    assert.equal(got.alpha, 'ran alpha')
    assert.equal(got.dollar, 'ran $ok_name')
    assert.deepEqual(got.helpers, { search: ['openclaw:core:alpha'], describe: 'openclaw:core:alpha', call: 'ran alpha' })
    assert.deepEqual(got.viaCall, ['ran my-tool', 'ran 2fast', 'ran search', 'ran describe', 'ran call', 'ran dup'])
    assert.deepEqual(calls, [
      'openclaw:core:alpha', 'openclaw:core:$ok_name', 'openclaw:core:alpha', 'openclaw:core:my-tool', 'openclaw:core:2fast',
      'openclaw:core:search', 'openclaw:core:describe', 'openclaw:core:call', 'client:client:dup',
    ])
  })
})

describe('nested calls (SPEC 7, 14.11, 14.30)', () => {
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

describe('nested call failures (SPEC 7, 14.30)', () => {
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
    'tool results get the node-by-node JSON-safe conversion (SPEC 6)',
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

describe('events and transcript (SPEC 7, 14.11)', () => {
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
    'the transcript keeps numbers exactly (SPEC 14.29)',
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

describe('the budget, aborts and cleanup (SPEC 7, 8, 14.16)', () => {
  /** A surface whose `hang` never settles and whose `quick` answers at once; signals are watched. */
  function hanging(config = {}, onCall = () => {}) {
    const watched = []
    const run = codeModes.enabled(config).prepareRun({
      runId: 'r',
      tools: [tool('hang'), tool('quick')],
      executeTool: (call) => {
        const watch = watchSignal(call.signal)
        watch.toolCallId = call.toolCallId
        watched.push(watch)
        onCall(call)
        return call.name === 'quick' ? 'quick' : new Promise(() => {})
      },
    })
    return { run, watched }
  }

  test('a call that never settles: the run parks with the call running; dropping the run aborts it', async () => {
    const { run, watched } = hanging({ timeoutMs: 300 })
    const result = await run.exec({ code: 'text("before"); await tools.hang({}); text("after"); return 1' })
    assert.equal(result.status, 'waiting')
    assert.equal(result.reason, 'pending_tools')
    assert.deepEqual(result.output, [{ type: 'text', text: 'before' }])
    assert.equal(watched.length, 1)
    assert.equal(watched[0].isAbortSignal, true)
    assert.equal(watched[0].abortedAtStart, false)
    assert.deepEqual(await abortReport(watched[0], 50), { fired: false }, 'a parked run keeps its calls running')
    const controller = new AbortController()
    controller.abort()
    const dropped = await run.wait({ runId: result.runId }, { signal: controller.signal })
    assert.equal(dropped.code, 'aborted')
    assert.deepEqual(await abortReport(watched[0]), { fired: true, aborted: true })
  })

  test("aborting the exec's signal while a call is pending: aborted, and the call's signal fires", async () => {
    const controller = new AbortController()
    const { run, watched } = hanging({}, (call) => {
      if (call.name === 'hang') setImmediate(() => controller.abort())
    })
    const result = await run.exec({ code: 'await tools.hang({}); return 1' }, { signal: controller.signal, toolCallId: 'call_abort' })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'aborted')
    assert.equal(watched.length, 1)
    assert.deepEqual(await abortReport(watched[0]), { fired: true, aborted: true })
  })

  test('calls still in flight when a cell completes are aborted', async () => {
    const { run, watched } = hanging()
    const result = await run.exec({
      code: `
        tools.hang({ n: 1 })
        tools.call('hang', { n: 2 }).catch(() => {})
        return await tools.quick({})`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.equal(result.value, 'quick')
    const hangs = watched.filter((w) => w.toolCallId.includes(':hang:'))
    assert.equal(hangs.length, 2)
    for (const watch of hangs) assert.deepEqual(await abortReport(watch), { fired: true, aborted: true }, watch.toolCallId)
    const quick = watched.find((w) => w.toolCallId.includes(':quick:'))
    assert.equal(quick.abortedAtStart, false)
  })

  test('calls still in flight when a cell fails are aborted', async () => {
    const { run, watched } = hanging()
    const result = await run.exec({ code: `tools.hang({}); await tools.quick({}); throw new Error('stop')` })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'internal_error')
    const hang = watched.find((w) => w.toolCallId.includes(':hang:'))
    assert.deepEqual(await abortReport(hang), { fired: true, aborted: true })
  })

  test('an aborted call reports a finished event with ok false', async () => {
    const events = []
    const controller = new AbortController()
    const run = codeModes.enabled({}).prepareRun({
      runId: 'r',
      tools: [tool('hang')],
      onEvent: (e) => events.push(e),
      executeTool: () => {
        setImmediate(() => controller.abort())
        return new Promise(() => {})
      },
    })
    const result = await run.exec({ code: 'await tools.hang({})' }, { toolCallId: 'call_t', signal: controller.signal })
    assert.equal(result.code, 'aborted')
    const finished = events.filter((e) => e.type === 'nested_call_finished')
    assert.equal(finished.length, 1)
    assert.equal(finished[0].toolCallId, 'code_mode:call_t:hang:1')
    assert.equal(finished[0].ok, false)
    assert.equal(typeof finished[0].error, 'string')
  })
})

describe('process exit (SPEC 14.19)', () => {
  const index = JSON.stringify(new URL('../index.js', import.meta.url).pathname)
  const runChild = (script) => spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 })

  test('a process that never calls close() exits on its own', () => {
    const child = runChild(`
      const b = require(${index})
      const cm = b.createCodeMode({ config: { enabled: true, timeoutMs: 1000 } })
      const run = cm.prepareRun({
        runId: 'r',
        tools: [{ name: 'echo', description: '', source: 'openclaw' }, { name: 'hang', description: '', source: 'openclaw' }],
        executeTool: async (call) => (call.name === 'echo' ? call.input : new Promise(() => {})),
      })
      ;(async () => {
        const done = await run.exec({ code: 'return await tools.echo({ v: 7 })' })
        const parked = await run.exec({ code: 'return await tools.hang({})' })
        console.log(JSON.stringify([done.value, parked.status, cm.suspendedRunCount()]))
      })()`)
    assert.equal(child.error, undefined, String(child.error))
    assert.equal(child.signal, null)
    assert.equal(child.status, 0, child.stderr)
    assert.deepEqual(JSON.parse(child.stdout), [{ v: 7 }, 'waiting', 1])
  })

  test('a process that calls close() exits', () => {
    const child = runChild(`
      const b = require(${index})
      const cm = b.createCodeMode({ config: { enabled: true } })
      const run = cm.prepareRun({
        runId: 'r', tools: [{ name: 'echo', description: '', source: 'openclaw' }], executeTool: async (call) => call.input,
      })
      ;(async () => {
        const done = await run.exec({ code: 'return await tools.echo({ v: 8 })' })
        await cm.close()
        console.log(JSON.stringify([done.value, cm.suspendedRunCount()]))
      })()`)
    assert.equal(child.error, undefined, String(child.error))
    assert.equal(child.status, 0, child.stderr)
    assert.deepEqual(JSON.parse(child.stdout), [{ v: 8 }, 0])
  })
})
