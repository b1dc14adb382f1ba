// Plugin namespaces (docs/namespaces.md): registration rules, visibility,
// createScope, the guest's frozen trees, and calls through executeTool.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { afterEach, after, describe, test } from 'node:test'

import { ATTEMPT, binding, deferred, until } from './helpers.mjs'
import { GITHUB_TOOLS, PREFIX, codeModes, issuesScope, prepare, registerIssues } from './namespace-fixtures.mjs'

const {
  registerCodeModeNamespaceForPlugin: register,
  createCodeModeNamespaceTool: namespaceTool,
  clearCodeModeNamespacesForPlugin,
  clearCodeModeNamespacesForTest,
  listCodeModeNamespaces,
} = binding

after(() => codeModes.closeAll())
afterEach(() => clearCodeModeNamespacesForTest())

describe('registration', () => {
  const valid = () => ({ id: 'ns', globalName: 'Ns', requiredToolNames: ['t'], createScope: () => ({}) })

  test('listCodeModeNamespaces lists registrations in order; clearing by plugin removes only its own', () => {
    register('a', { ...valid(), id: 'a1', globalName: 'A1' })
    register('b', { ...valid(), id: 'b1', globalName: 'B1' })
    register('a', { ...valid(), id: 'a2', globalName: 'A2' })
    assert.deepEqual(listCodeModeNamespaces(), [
      { id: 'a1', pluginId: 'a', globalName: 'A1' },
      { id: 'b1', pluginId: 'b', globalName: 'B1' },
      { id: 'a2', pluginId: 'a', globalName: 'A2' },
    ])
    clearCodeModeNamespacesForPlugin('a')
    assert.deepEqual(listCodeModeNamespaces(), [{ id: 'b1', pluginId: 'b', globalName: 'B1' }])
    clearCodeModeNamespacesForPlugin('nobody')
    assert.equal(listCodeModeNamespaces().length, 1)
    clearCodeModeNamespacesForTest()
    assert.deepEqual(listCodeModeNamespaces(), [])
  })

  test('every rejected registration throws an Error naming the field and the rule', () => {
    const rejected = [
      [['', valid()], 'pluginId must be a non-empty string.'],
      [['p', null], 'registration must be an object.'],
      [['p', { ...valid(), id: '' }], 'id must be a non-empty string.'],
      [['p', { ...valid(), globalName: 'not-an-identifier' }], 'globalName "not-an-identifier" is not a JavaScript identifier.'],
      [['p', { ...valid(), globalName: 'class' }], 'globalName "class" is a reserved word.'],
      [['p', { ...valid(), globalName: '__openclawX' }], 'globalName "__openclawX" is reserved (names starting __openclaw are code mode\'s).'],
      [['p', { ...valid(), globalName: 'process' }], 'globalName "process" collides with a global of Node\'s globalThis.'],
      [['p', { ...valid(), createScope: undefined }], 'createScope must be a function.'],
      [['p', { ...valid(), requiredToolNames: [] }], 'requiredToolNames must be a non-empty array of tool names.'],
      [['p', { ...valid(), requiredToolNames: ['ok', ''] }], 'requiredToolNames must hold only non-empty strings.'],
      [['p', { ...valid(), description: 42 }], 'description must be a string when given.'],
      [['p', { ...valid(), prompt: 'x'.repeat(5000) }], 'prompt must be at most 4096 characters.'],
    ]
    for (const name of ['tools', 'namespaces', 'text', 'json', 'yield_control', 'MCP', 'API', 'ALL_TOOLS', 'console', 'JSON', 'Object', 'Promise', 'globalThis']) {
      rejected.push([['p', { ...valid(), globalName: name }], `globalName "${name}" is reserved: the guest already has a global of that name.`])
    }
    for (const [args, rule] of rejected) {
      assert.throws(() => register(...args), { name: 'TypeError', message: `registerCodeModeNamespaceForPlugin: ${rule}` }, rule)
    }
    assert.deepEqual(listCodeModeNamespaces(), [], 'nothing rejected is registered')
    register('p', valid())
    assert.throws(() => register('q', { ...valid(), globalName: 'Other' }), {
      message: 'registerCodeModeNamespaceForPlugin: id "ns" is already registered (by plugin "p").',
    })
    assert.throws(() => register('q', { ...valid(), id: 'other' }), {
      message: 'registerCodeModeNamespaceForPlugin: globalName "Ns" is already registered (by namespace "ns").',
    })
    assert.throws(() => namespaceTool(''), { message: 'createCodeModeNamespaceTool: toolName must be a non-empty string.' })
    assert.throws(() => namespaceTool('t', 'nope'), {
      message: 'createCodeModeNamespaceTool: inputMapper must be a function when given.',
    })
    assert.throws(() => clearCodeModeNamespacesForPlugin(3), { message: 'clearCodeModeNamespacesForPlugin: pluginId must be a string.' })
    assert.throws(() => namespaceTool('t', null), { message: 'createCodeModeNamespaceTool: inputMapper must be a function when given.' })
    const throwing = { ...valid(), id: 'getter', get globalName() { throw new Error('boom') } }
    assert.throws(() => register('p', throwing), { name: 'TypeError', message: 'registerCodeModeNamespaceForPlugin: reading globalName threw: boom' })
    register('p', { ...valid(), id: 'repeats', globalName: 'Repeats', requiredToolNames: Array(300).fill('t') })
    assert.throws(() => register('p', { ...valid(), id: 'many', globalName: 'Many', requiredToolNames: Array.from({ length: 257 }, (_, i) => `t${i}`) }), {
      message: 'registerCodeModeNamespaceForPlugin: requiredToolNames must list at most 256 different tools.',
    })
  })

  test('a marker is a frozen, inert object', () => {
    const marker = namespaceTool('github_list_issues')
    assert.deepEqual(marker, { kind: 'code_mode_namespace_tool', toolName: 'github_list_issues' })
    assert.ok(Object.isFrozen(marker))
  })
})

describe('visibility and the prompt', () => {
  test('the prompt appears only while every required tool of the plugin is in the run', () => {
    registerIssues()
    const description = (tools) => codeModes.enabled().prepareRun({ runId: 'r', tools, executeTool: () => null }).modelTools[0].description
    const shown = description(GITHUB_TOOLS)
    assert.ok(
      shown.endsWith(
        '\n\n- Issues: GitHub issue helpers for the current repository.\nUse Issues.list(params) and Issues.update(number, patch).',
      ),
      shown,
    )
    assert.ok(shown.includes('The plugin namespaces listed below are globals, also reachable as `namespaces.<globalName>`.'))
    const hidden = [
      GITHUB_TOOLS.slice(1),
      [GITHUB_TOOLS[0], { ...GITHUB_TOOLS[1], sourceName: 'evil' }],
      [GITHUB_TOOLS[0], { ...GITHUB_TOOLS[1], sourceName: undefined }],
      [GITHUB_TOOLS[0], { ...GITHUB_TOOLS[1], source: 'client' }],
      [GITHUB_TOOLS[0], { ...GITHUB_TOOLS[1], directOnly: true }],
    ]
    for (const tools of hidden) {
      const text = description(tools)
      assert.ok(!text.includes('Issues') && !text.includes('plugin namespaces'), text)
    }
  })

  test('a same-named tool of another plugin hides the namespace and is never called through it', async () => {
    registerIssues()
    const foreign = GITHUB_TOOLS.map((tool) => ({ ...tool, sourceName: tool.sourceName && 'evil' }))
    const { exec, calls } = prepare({ tools: foreign })
    const result = await exec('return [typeof Issues, Object.keys(namespaces)]')
    assert.deepEqual(result.value, ['undefined', []])
    const both = prepare({ tools: [...foreign, ...GITHUB_TOOLS.slice(0, 2)] })
    assert.equal((await both.exec('await Issues.list(); return 1')).status, 'completed')
    assert.deepEqual(both.calls.map((call) => call.id), ['openclaw:github:github_list_issues'])
    assert.equal(calls.length, 0)
  })

  test('clearing a plugin takes effect at the next prepareRun, not on runs already prepared', async () => {
    registerIssues()
    const before = prepare()
    clearCodeModeNamespacesForPlugin('github')
    const afterClear = prepare()
    assert.equal((await before.exec('return typeof Issues.list')).value, 'function')
    assert.equal((await afterClear.exec('return typeof Issues')).value, 'undefined')
    assert.ok(!afterClear.run.modelTools[0].description.includes('Issues'))
  })

  test('two CodeMode instances in one process share the registry', async () => {
    registerIssues()
    const first = prepare()
    const second = prepare()
    assert.deepEqual((await first.exec('return Object.keys(namespaces)')).value, ['Issues'])
    assert.deepEqual((await second.exec('return Object.keys(namespaces)')).value, ['Issues'])
    assert.notEqual(first.codeMode, second.codeMode)
  })
})

describe('createScope', () => {
  test('it gets the run context and a signal, once per run surface, and its result serves every exec', async () => {
    const seen = []
    registerIssues((ctx) => {
      seen.push(ctx)
      return issuesScope(ctx)
    })
    const { exec } = prepare()
    assert.deepEqual((await exec('return Issues.repository')).value, { repo: 'openclaw/openclaw' })
    assert.deepEqual((await exec('return Issues.repository.repo')).value, 'openclaw/openclaw')
    assert.equal(seen.length, 1)
    const [ctx] = seen
    assert.deepEqual(
      { ...ctx, signal: undefined },
      { agentId: 'agent-1', sessionKey: 'key-1', sessionId: 'session-1', runId: 'agent-run-1', config: { repo: 'openclaw/openclaw' }, signal: undefined },
    )
    assert.ok(ctx.signal instanceof AbortSignal)
    assert.equal(ctx.signal.aborted, false)
  })

  test('an async createScope works; concurrent first execs share one call', async () => {
    let calls = 0
    const gate = deferred()
    registerIssues(async (ctx) => {
      calls++
      await gate.promise
      return issuesScope(ctx)
    })
    const { exec } = prepare()
    const a = exec('return typeof Issues.list')
    const b = exec('return Object.isFrozen(namespaces.Issues)')
    gate.resolve()
    assert.deepEqual([(await a).value, (await b).value], ['function', true])
    assert.equal(calls, 1)
  })

  test('a createScope that throws or rejects fails the exec with invalid_input, and the next exec tries again', async () => {
    let attempt = 0
    registerIssues((ctx) => {
      attempt++
      if (attempt === 1) throw new Error('token expired')
      if (attempt === 2) return Promise.reject('plain reason')
      return Promise.resolve(issuesScope(ctx))
    })
    const { exec, calls } = prepare()
    const first = await exec('return 1')
    assert.deepEqual([first.status, first.code, first.error], ['failed', 'invalid_input', `${PREFIX}createScope failed: token expired`])
    const second = await exec('return 1')
    assert.equal(second.error, `${PREFIX}createScope failed: plain reason`)
    assert.equal((await exec('return typeof Issues.update')).value, 'function')
    assert.equal(calls.length, 0)
    assert.equal(attempt, 3)
  })

  test('a createScope that never settles ends with the exec budget; an abort ends the wait at once', async () => {
    const forever = new Promise(() => {})
    let signal
    registerIssues((ctx) => {
      signal = ctx.signal
      return forever
    })
    const { exec } = prepare({ config: { timeoutMs: 200 } })
    const timedOut = await exec('return 1')
    assert.deepEqual([timedOut.code, timedOut.error], ['timeout', 'code mode timeout exceeded.'])
    const controller = new AbortController()
    const pending = exec('return 1', { signal: controller.signal })
    assert.equal(signal.aborted, false, 'an exec that ran out of budget does not abort createScope')
    controller.abort()
    assert.equal((await pending).code, 'aborted')
    assert.equal(signal.aborted, true, 'the last exec waiting for createScope was aborted: its signal fires')
  })

  test('an exec aborted before it starts never calls createScope', async () => {
    let calls = 0
    registerIssues((ctx) => {
      calls++
      return issuesScope(ctx)
    })
    const { exec } = prepare()
    const controller = new AbortController()
    controller.abort()
    const result = await exec('return 1', { signal: controller.signal })
    assert.deepEqual([result.code, calls], ['aborted', 0])
    assert.equal((await exec('return typeof Issues')).value, 'object')
    assert.equal(calls, 1)
  })

  test('aborting one of two execs waiting for createScope leaves the other waiting, and the call unaborted', async () => {
    let signal
    const gate = deferred()
    registerIssues(async (ctx) => {
      signal = ctx.signal
      await gate.promise
      return issuesScope(ctx)
    })
    const { exec } = prepare()
    const controller = new AbortController()
    const aborted = exec('return 1', { signal: controller.signal })
    const waiting = exec('return typeof Issues.list')
    await new Promise((resolve) => setTimeout(resolve, 20))
    controller.abort()
    assert.equal((await aborted).code, 'aborted')
    assert.equal(signal.aborted, false)
    gate.resolve()
    assert.deepEqual([(await waiting).status, (await waiting).value], ['completed', 'function'])
  })

  test('a createScope that makes an exec of its own on the same run shares the one call', async () => {
    let calls = 0
    let run
    let inner
    registerIssues((ctx) => {
      calls++
      if (inner === undefined) inner = run.exec({ code: 'return typeof Issues.update' })
      return issuesScope(ctx)
    })
    ;({ run } = prepare())
    const outer = await run.exec({ code: 'return typeof Issues.list' })
    assert.deepEqual([outer.value, (await inner).value, calls], ['function', 'function', 1])
  })

  test('a scope the core refuses is not kept: the next exec calls createScope again', async () => {
    let calls = 0
    registerIssues((ctx) => {
      calls++
      // 100000 characters of three bytes each: small in UTF-16, too large in UTF-8.
      return calls === 1 ? { big: '€'.repeat(100_000) } : issuesScope(ctx)
    })
    const { exec } = prepare()
    assert.equal((await exec('return 1')).error, `${PREFIX}the scope has more than 10000 values or 262144 bytes of JSON.`)
    assert.equal((await exec('return typeof Issues.list')).value, 'function')
    assert.equal(calls, 2)
  })

  test('close answers an exec still waiting for createScope', async () => {
    registerIssues(() => new Promise(() => {}))
    const { exec, codeMode } = prepare()
    const pending = exec('return 1')
    await codeMode.close()
    const result = await pending
    assert.deepEqual([result.code, result.error], ['runtime_unavailable', 'code mode is closed.'])
  })
})

describe('in the guest', () => {
  test('the tree cannot be changed or replaced, and guest code cannot reach another path', async () => {
    registerIssues()
    const { exec, calls } = prepare()
    const result = await exec(`
      'use strict'
      const tries = []
      const attempt = (f) => { try { f(); tries.push('changed') } catch (e) { tries.push(e.constructor.name) } }
      attempt(() => { Issues.list = () => 'forged' })
      attempt(() => { Issues.extra = 1 })
      attempt(() => { delete Issues.update })
      attempt(() => { namespaces.Issues = {} })
      attempt(() => { namespaces.Other = {} })
      attempt(() => { globalThis.Issues = {} })
      attempt(() => { Object.defineProperty(Issues, 'list', { value: 1 }) })
      attempt(() => { Issues.repository.repo = 'x' })
      Object.prototype.remove = 'polluted'
      const detached = Issues.list
      await detached.call({ forged: true }, { via: 'detached' })
      await Reflect.apply(Issues.update, namespaces, [1, {}])
      return { tries, remove: typeof Issues.remove, hasOwnRemove: Object.hasOwn(Issues, 'remove'), source: String(Issues.list).includes('github') }
    `)
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value.tries, Array(8).fill('TypeError'))
    assert.equal(result.value.hasOwnRemove, false)
    assert.equal(result.value.source, false, 'the function text names no tool')
    assert.deepEqual(calls.map((call) => call.name), ['github_list_issues', 'github_update_issue'])
  })

  test('a call goes through executeTool as a catalog call: ids, events, details, counters', async () => {
    registerIssues()
    const { exec, calls, events } = prepare()
    const result = await exec(
      'const open = await Issues.list({ state: "open" }); const updated = await namespaces.Issues.update(5, { title: "t" }); return { open, updated }',
      { toolCallId: 'call_exec' },
    )
    assert.deepEqual(result.value, {
      open: { tool: 'github_list_issues', input: { state: 'open' } },
      updated: { tool: 'github_update_issue', input: { number: 5, patch: { title: 't' } } },
    })
    assert.equal(result.telemetry.callCount, 2)
    const [list] = calls
    assert.deepEqual(
      { ...list, signal: undefined },
      {
        id: 'openclaw:github:github_list_issues',
        name: 'github_list_issues',
        source: 'openclaw',
        sourceName: 'github',
        input: { state: 'open' },
        toolCallId: 'code_mode:call_exec:github_list_issues:1',
        parentToolCallId: 'call_exec',
        signal: undefined,
      },
    )
    assert.ok(list.signal instanceof AbortSignal)
    const finished = events.filter((event) => event.type === 'nested_call_finished')
    assert.equal(finished.length, 2)
    assert.deepEqual(finished[0].result, { content: [{ type: 'text', text: 'ok' }], details: { tool: 'github_list_issues', input: { state: 'open' } } })
  })

  test('a result without details resolves to itself; a failed call is a plain Error the guest can catch', async () => {
    registerIssues()
    const answers = [{ content: [] }, 42, null, [1, 2], { details: null }]
    const { exec } = prepare({
      answer: (call) => {
        if (call.input.fail) throw new Error('rate limited')
        return answers.shift()
      },
    })
    const result = await exec(`${ATTEMPT}
      const values = []
      for (let i = 0; i < 5; i++) values.push(await Issues.list())
      return { values, failed: await attempt(() => Issues.list({ fail: true })) }`)
    assert.deepEqual(result.value.values, [{ content: [] }, 42, null, [1, 2], null])
    assert.deepEqual(result.value.failed, { error: 'rate limited', isError: true, plainError: true, name: 'Error', own: ['message'] })
  })

  test('a mapper runs with no `this`, and one that returns a Promise is refused', async () => {
    const seen = []
    registerIssues(() => ({
      list: namespaceTool('github_list_issues', function (args) {
        seen.push(this)
        return args[0]
      }),
      update: namespaceTool('github_update_issue', async ([number]) => ({ number })),
    }))
    const { exec, calls } = prepare()
    const result = await exec(`${ATTEMPT} return [await attempt(() => Issues.list({ a: 1 })), await attempt(() => Issues.update(1))]`)
    assert.deepEqual(seen, [undefined])
    assert.deepEqual(result.value[0], { ok: { tool: 'github_list_issues', input: { a: 1 } } })
    assert.equal(result.value[1].error, 'the inputMapper of "update" returned a Promise; it must return the tool\'s input itself.')
    assert.equal(calls.length, 1)
  })

  test('an input mapper that throws rejects the call in the guest, and the executor is not called', async () => {
    registerIssues(() => ({
      update: namespaceTool('github_update_issue', ([number]) => {
        if (typeof number !== 'number') throw new TypeError('Issues.update needs an issue number')
        return { number }
      }),
    }))
    const { exec, calls } = prepare()
    const result = await exec(`${ATTEMPT} return [await attempt(() => Issues.update('seven')), await attempt(() => Issues.update(7))]`)
    assert.deepEqual(result.value[0].error, 'Issues.update needs an issue number')
    assert.deepEqual(result.value[1], { ok: { tool: 'github_update_issue', input: { number: 7 } } })
    assert.equal(calls.length, 1)
  })

  test('arguments: trailing undefineds are dropped, the depth rule and the restartSafe refusal apply', async () => {
    const seen = []
    registerIssues(() => ({
      list: namespaceTool('github_list_issues', (args) => {
        seen.push(args)
        return {}
      }),
    }))
    const { exec, calls } = prepare()
    const result = await exec(`${ATTEMPT}
      await Issues.list()
      await Issues.list(undefined, 1, undefined)
      let deep = 1
      for (let i = 0; i < 1001; i++) deep = [deep]
      return await attempt(() => Issues.list(deep))`)
    assert.deepEqual(seen, [[], [null, 1]])
    assert.equal(result.value.error, 'tool input nests deeper than 1000 levels.')
    assert.equal(calls.length, 2)
    const safe = await exec({ code: 'await Issues.list(); return 1', restartSafe: true })
    assert.deepEqual([safe.status, safe.code, safe.error], ['failed', 'invalid_input', 'restart-safe code mode cannot call plugin namespaces.'])
    assert.equal(calls.length, 2)
  })

  test("a call's arguments are bounded at 1 MiB of JSON", async () => {
    registerIssues()
    const { exec, calls } = prepare()
    const result = await exec(`${ATTEMPT} return [await attempt(() => Issues.list({ q: 'x'.repeat(1100000) })), await attempt(() => Issues.list({ q: 'x'.repeat(1000) }))]`)
    assert.equal(result.value[0].error, 'plugin namespace call arguments are larger than 1048576 bytes of JSON.')
    assert.ok(result.value[1].ok)
    assert.equal(calls.length, 1)
  })

  test("a mapped input past the run's bridge budget is refused as a call's input is, and the tool is not called", async () => {
    registerIssues(() => ({
      list: namespaceTool('github_list_issues', ([n]) => ({ q: 'x'.repeat(n) })),
    }))
    // memoryLimitBytes 4 MiB: a bridge budget of 2 MiB.
    const { exec, calls } = prepare({ config: { memoryLimitBytes: 4 * 1024 * 1024 } })
    const result = await exec(`${ATTEMPT} return [await attempt(() => Issues.list(3000000)), (await attempt(() => Issues.list(1000000))).ok.input.q.length]`)
    assert.equal(result.status, 'completed', result.error)
    assert.equal(result.value[0].error, 'tool input is larger than the code mode bridge limit of 2097152 bytes (inputs of pending calls included).')
    assert.equal(result.value[1], 1000000)
    assert.deepEqual(calls.map((call) => call.input.q.length), [1000000])
  })

  test('inputs written and rebuilt over several turns arrive equal to what the mapper returned', async () => {
    // Over 16 KiB of mapped JSON goes through the writer in slices and is
    // rebuilt from pieces; this is the same value the short path gives.
    const mapped = []
    registerIssues(() => ({
      list: namespaceTool('github_list_issues', ([value]) => {
        const input = { value, extra: { ['__proto__']: 1, n: -0, list: [undefined, () => 1, NaN] } }
        mapped.push(JSON.parse(JSON.stringify(input)))
        return input
      }),
    }))
    const { exec, calls } = prepare()
    const result = await exec(`
      const wide = {}
      for (let i = 0; i < 5000; i++) wide['k' + i] = i % 7 === 0 ? { i, s: 'é"\\\\' + i } : [i, null, true]
      const long = Array.from({ length: 100000 }, (_, i) => i % 3 ? i : 'x' + i)
      let deep = 'end'
      for (let i = 0; i < 900; i++) deep = { d: deep }
      const sizes = []
      for (const value of [wide, long, deep, 'short', { ['__proto__']: [1] }]) sizes.push(JSON.stringify(await Issues.list(value)).length)
      return sizes`)
    assert.equal(result.status, 'completed', result.error)
    assert.equal(calls.length, 5)
    for (const [index, call] of calls.entries()) assert.deepEqual(call.input, mapped[index], `call ${index}`)
    assert.ok(JSON.stringify(calls[0].input).length > 100_000)
    assert.equal(Object.getPrototypeOf(calls[4].input.value), Object.prototype)
    assert.deepEqual(Object.keys(calls[4].input.value), ['__proto__'])
  })

  test('a slow namespace call parks the run and wait resumes it', async () => {
    registerIssues()
    const pending = []
    const { exec, run } = prepare({
      config: { timeoutMs: 200 },
      answer: (call) => new Promise((resolve) => pending.push(() => resolve({ details: { n: call.input.n } }))),
    })
    const waiting = await exec('const r = await Issues.list({ n: 21 }); return r.n * 2')
    assert.equal(waiting.status, 'waiting')
    assert.deepEqual(waiting.pendingToolCalls.map(({ method, toolId }) => ({ method, toolId })), [
      { method: 'namespace', toolId: 'openclaw:github:github_list_issues' },
    ])
    pending.shift()()
    const done = await run.wait({ runId: waiting.runId })
    assert.deepEqual([done.status, done.value], ['completed', 42])
  })

  test("aborting the exec aborts a namespace call in flight, and its signal fires", async () => {
    registerIssues()
    const signals = []
    const { exec } = prepare({
      answer: (call) => {
        signals.push(call.signal)
        return new Promise(() => {})
      },
    })
    const controller = new AbortController()
    const pending = exec('return await Issues.list()', { signal: controller.signal })
    await until(() => signals.length > 0, 'the namespace call')
    controller.abort()
    const result = await pending
    assert.deepEqual([result.status, result.code], ['failed', 'aborted'])
    await until(() => signals[0].aborted, "the call's signal to fire")
  })

  test('namespace calls share the concurrency cap and queue with other nested calls', async () => {
    registerIssues()
    let inFlight = 0
    let most = 0
    const { exec } = prepare({
      config: { maxPendingToolCalls: 3 },
      answer: async () => {
        most = Math.max(most, ++inFlight)
        await new Promise((resolve) => setTimeout(resolve, 1))
        inFlight--
        return { details: 1 }
      },
    })
    const result = await exec('const all = await Promise.all(Array.from({ length: 20 }, () => Issues.list())); return all.length')
    assert.equal(result.value, 20)
    assert.equal(most, 3)
  })
})

test('examples/issues-plugin.mjs runs its cell against the fake plugin', () => {
  const example = new URL('../examples/issues-plugin.mjs', import.meta.url)
  const child = spawnSync(process.execPath, [example.pathname], { encoding: 'utf8', timeout: 60000 })
  assert.equal(child.status, 0, child.stderr)
  assert.deepEqual(JSON.parse(child.stdout), {
    status: 'completed',
    value: { repository: 'openclaw/openclaw', open: 2, labelled: [3], missing: 'no issue #99' },
  })
  assert.match(child.stderr, /- Issues: GitHub issue helpers for the current repository\./)
  assert.match(child.stderr, /executeTool github_update_issue \{"number":3,"patch":\{"labels":\["triage"\]\}\}/)
})
