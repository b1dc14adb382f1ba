// Catalogs of any size (issue 18): `ALL_TOOLS` and the `tools` members are
// made when a cell first uses them, and behave exactly as data properties of
// frozen objects did (docs/catalog.md "What a cell costs").
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { binding } from './helpers.mjs'

const instances = []
after(async () => {
  for (const codeMode of instances) await codeMode.close()
})

function surface(tools) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 }, workerThreads: 1 })
  instances.push(codeMode)
  const run = codeMode.prepareRun({ runId: 'r', tools, executeTool: async (call) => ({ got: call.name }) })
  return async (code) => {
    const result = await run.exec({ code })
    return result.status === 'completed' ? result.value : result.error
  }
}

const TOOLS = [
  { name: 'read', description: 'Read', source: 'openclaw', parameters: { type: 'object' } },
  { name: 'write_file', description: 'W', source: 'openclaw' },
  { name: 'dup', description: 'a', source: 'openclaw' },
  { name: 'dup', description: 'b', source: 'openclaw', sourceName: 'p' },
  { name: 'class', description: 'reserved', source: 'openclaw' },
  { name: 'gh__x', description: 'mcp', source: 'mcp', sourceName: 'gh', mcp: { server: 'gh', tool: 'x' } },
]

describe('tools and ALL_TOOLS behave as frozen data', () => {
  const cell = surface(TOOLS)

  test('own names, keys, in, typeof', async () => {
    assert.deepEqual(await cell('return Object.getOwnPropertyNames(tools)'), ['search', 'describe', 'call', 'read', 'write_file'])
    assert.deepEqual(await cell('return Object.keys(tools)'), [])
    assert.deepEqual(
      await cell('return [typeof tools, typeof tools.read, typeof tools.nope, "read" in tools, "nope" in tools, "dup" in tools, "class" in tools, "toString" in tools, typeof tools.toString]'),
      ['object', 'function', 'undefined', true, false, false, false, true, 'function'],
    )
    assert.deepEqual(
      await cell('const t = tools; return [typeof t.read, t.hasOwnProperty("read"), Object.hasOwn(tools, "write_file"), tools.propertyIsEnumerable("read")]'),
      ['function', true, true, false],
    )
    assert.deepEqual(await cell('return [Reflect.ownKeys(tools).length, Object.getOwnPropertySymbols(tools).length, Object.prototype.toString.call(tools), String(tools), Object.getPrototypeOf(tools) === Object.prototype]'), [5, 0, '[object Object]', '[object Object]', true])
  })

  test('frozen: descriptors, identity, assignment, delete, defineProperty', async () => {
    assert.deepEqual(
      await cell('return [Object.isFrozen(tools), Object.isExtensible(tools), Object.isSealed(tools), tools.read === tools.read, tools.read.name, tools.search.name, tools.read.length]'),
      [true, false, true, true, 'read', '', 0],
    )
    const frozen = JSON.stringify({ writable: false, enumerable: false, configurable: false })
    assert.equal(
      await cell('return JSON.stringify(Object.getOwnPropertyDescriptor(tools, "read")) + JSON.stringify(Object.getOwnPropertyDescriptor(tools, "search")) + JSON.stringify(Object.getOwnPropertyDescriptor(tools, "nope"))'),
      `${frozen}${frozen}undefined`,
    )
    assert.deepEqual(await cell('tools.read = 1; tools.x = 2; delete tools.read; return [typeof tools.read, tools.x, delete tools.nope]'), ['function', null, true])
    assert.deepEqual(
      await cell(`"use strict"; const r = []
        for (const f of [() => { tools.read = 1 }, () => { tools.x = 2 }, () => { delete tools.read }, () => Object.defineProperty(tools, "y", { value: 1 }),
                         () => Object.defineProperty(tools, "read", { value: 1 }), () => Object.defineProperty(tools, "read", { value: tools.read }),
                         () => Object.freeze(tools), () => Object.setPrototypeOf(tools, null)]) {
          try { f(); r.push("ok") } catch (e) { r.push(e.constructor.name + ": " + e.message) }
        }
        return r`),
      [
        "TypeError: 'read' is read-only",
        'TypeError: object is not extensible',
        'TypeError: could not delete property',
        'TypeError: object is not extensible',
        'TypeError: property is not configurable',
        'ok',
        'ok',
        'TypeError: object is not extensible',
      ],
    )
    assert.equal(await cell('tools.read.x = tools; return typeof tools.read.x.read'), 'function')
  })

  test('enumeration sees no members (they are not enumerable)', async () => {
    assert.deepEqual(
      await cell('const r = []; for (const k in tools) r.push(k); return [r, {...tools}, JSON.stringify(tools), Object.entries(tools).length, Object.assign({}, tools)]'),
      [[], {}, '{}', 0, {}],
    )
  })

  test('calls, search and ALL_TOOLS', async () => {
    assert.deepEqual(await cell('return [await tools.read({}), await tools.call("read", {}), (await tools.search("read")).map(e => e.name)]'), [{ got: 'read' }, { got: 'read' }, ['read']])
    assert.deepEqual(
      await cell('return [ALL_TOOLS.length, Object.isFrozen(ALL_TOOLS), Object.isFrozen(ALL_TOOLS[0]), ALL_TOOLS.map(t => t.id), Array.isArray(ALL_TOOLS), ALL_TOOLS === ALL_TOOLS]'),
      [5, true, true, ['openclaw:core:read', 'openclaw:core:write_file', 'openclaw:core:dup', 'openclaw:core:class', 'openclaw:p:dup'], true, true],
    )
    assert.deepEqual(
      await cell('const d = Object.getOwnPropertyDescriptor(globalThis, "ALL_TOOLS"); return [d.writable, d.enumerable, d.configurable, Array.isArray(d.value), Object.getOwnPropertyNames(globalThis).includes("ALL_TOOLS"), delete globalThis.ALL_TOOLS, (ALL_TOOLS = 5, typeof ALL_TOOLS)]'),
      [false, false, false, true, true, false, 'object'],
    )
    assert.equal(await cell('"use strict"; try { ALL_TOOLS = 1 } catch (e) { return e.constructor.name + ": " + e.message }'), "TypeError: 'ALL_TOOLS' is read-only")
    // Listed before it is ever read, with the descriptor of a data property.
    assert.equal(await cell('return Object.getOwnPropertyNames(globalThis).includes("ALL_TOOLS") && !("get" in Object.getOwnPropertyDescriptor(globalThis, "ALL_TOOLS"))'), true)
  })
})

describe('a catalog of 5000 tools', () => {
  const tools = Array.from({ length: 5000 }, (_, i) => ({ name: `tool_${i}`, description: `Tool number ${i}.`, source: 'openclaw', parameters: { type: 'object', properties: { n: { type: 'number' } } } }))
  const cell = surface(tools)

  test('every member is there, in catalog order, and calls its own tool', async () => {
    const got = await cell(`const names = Object.getOwnPropertyNames(tools)
      return [names.length, names.slice(0, 5), names.at(-1), ALL_TOOLS.length, ALL_TOOLS[4999].name, ALL_TOOLS.every((t, i) => t.name === "tool_" + i),
              (await tools.tool_4321({ n: 1 })).got, Object.isFrozen(tools)]`)
    assert.deepEqual(got, [5003, ['search', 'describe', 'call', 'tool_0', 'tool_1'], 'tool_4999', 5000, 'tool_4999', true, 'tool_4321', true])
  })

  test('a cell that reads neither makes neither', async () => {
    assert.equal(await cell('return 1 + 1'), 2)
    assert.deepEqual(await cell('return [(await tools.search("number 4999", { limit: 1 }))[0].name, typeof tools.tool_17]'), ['tool_4999', 'function'])
  })
})

describe('hostile use of the lazy objects', () => {
  const tools = Array.from({ length: 5000 }, (_, i) => ({ name: `tool_${i}`, description: '', source: 'openclaw' }))

  test('making every member, tying them in cycles and collecting garbage leaves a VM that tears down cleanly', async () => {
    const cell = surface(tools)
    const got = await cell(`let made = 0
      for (const name of Object.getOwnPropertyNames(tools)) { const f = tools[name]; f.back = tools; f.self = f; made++ }
      let junk = []; for (let i = 0; i < 200000; i++) junk.push({ i, tools }); junk = null
      for (let i = 0; i < 20; i++) Object.getOwnPropertyNames(tools)
      return [made, Object.isFrozen(tools), tools.tool_9.back === tools]`)
    assert.deepEqual(got, [5003, true, true])
    // The next cell runs in a new VM: the last one was freed without error.
    assert.equal(await cell('return 1'), 1)
  })

  test('enumerating under a tight memory limit fails the cell, not the process', async () => {
    const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000, memoryLimitBytes: 1048576 }, workerThreads: 1 })
    instances.push(codeMode)
    const run = codeMode.prepareRun({ runId: 'r', tools, executeTool: async () => null })
    const result = await run.exec({ code: 'const all = []; for (;;) all.push(Object.getOwnPropertyNames(tools), ALL_TOOLS.map((t) => ({ ...t })))' })
    assert.equal(result.status, 'failed')
    assert.equal(result.error, 'code mode memory limit exceeded.')
    assert.equal((await run.exec({ code: 'return typeof tools.tool_1' })).value, 'function')
  })
})

describe('prepareRun checks every field of the tool list', () => {
  const codeMode = binding.createCodeMode({ config: { enabled: true } })
  instances.push(codeMode)
  const prepare = (tools) => codeMode.prepareRun({ runId: 'r', tools, executeTool: async () => null })
  const ok = { name: 'read', description: 'd', source: 'openclaw' }

  test('each malformed field throws the documented message (docs/errors.md)', () => {
    const cases = [
      [{ not: 'a list' }, 'RunContext.tools must be an array.'],
      ['read', 'RunContext.tools must be an array.'],
      [[ok, 7], 'RunContext.tools[1] must be an object.'],
      [[ok, [1]], 'RunContext.tools[1] must be an object.'],
      [[{ ...ok, name: '' }], 'RunContext.tools[0].name must be a non-empty string.'],
      [[{ ...ok, name: 3 }], 'RunContext.tools[0].name must be a non-empty string.'],
      [[{ ...ok, source: 'other' }], 'RunContext.tools[0].source must be "openclaw", "mcp" or "client".'],
      [[{ ...ok, label: 1 }], 'RunContext.tools[0].label must be a string.'],
      [[{ ...ok, description: {} }], 'RunContext.tools[0].description must be a string.'],
      [[{ ...ok, sourceName: true }], 'RunContext.tools[0].sourceName must be a string.'],
      [[{ ...ok, directOnly: 'yes' }], 'RunContext.tools[0].directOnly must be a boolean.'],
      [[{ ...ok, replaySafe: 1 }], 'RunContext.tools[0].replaySafe must be a boolean.'],
      [[{ ...ok, source: 'mcp', mcp: 'x' }], 'RunContext.tools[0].mcp must be an object.'],
      [[{ ...ok, source: 'mcp', mcp: { tool: 't' } }], 'RunContext.tools[0].mcp.server must be a non-empty string.'],
      [[{ ...ok, source: 'mcp', mcp: { server: 's', tool: '' } }], 'RunContext.tools[0].mcp.tool must be a non-empty string.'],
      [[{ ...ok, source: 'mcp', mcp: { server: 's', tool: 't', operation: 5 } }], 'RunContext.tools[0].mcp.operation must be a string.'],
    ]
    for (const [tools, message] of cases) assert.throws(() => prepare(tools), { message }, JSON.stringify(tools))
    // The first bad field in the documented order is the one reported.
    assert.throws(() => prepare([{ name: '', source: 'x', label: 1 }]), { message: 'RunContext.tools[0].name must be a non-empty string.' })
    assert.throws(() => prepare([{ ...ok, label: 1, replaySafe: 1 }]), { message: 'RunContext.tools[0].label must be a string.' })
  })

  test('a lone surrogate in a tool\'s text reads as U+FFFD, in the catalog and in modelTools', async () => {
    const run = prepare([
      { ...ok, description: 'a\ud800b', label: '\udc00' },
      { name: 'pick', description: 'x\ud83d', source: 'openclaw', directOnly: true },
    ])
    assert.deepEqual(run.catalog.map((t) => [t.description, t.label]), [['a\ufffdb', '\ufffd']])
    assert.equal(run.modelTools.find((t) => t.name === 'pick').description, 'x\ufffd')
    assert.equal((await run.exec({ code: 'return ALL_TOOLS[0].description' })).value, 'a\ufffdb')
  })

  test('a getter that throws throws from prepareRun; fields are read as properties', async () => {
    const boom = new Error('no tools today')
    assert.throws(() => codeMode.prepareRun({ runId: 'r', get tools() { throw boom }, executeTool: async () => null }), (e) => e === boom)
    assert.throws(() => prepare([{ ...ok, get description() { throw boom } }]), (e) => e === boom)
    class Tool {
      get name() { return 'inherited' }
      get source() { return 'openclaw' }
    }
    assert.deepEqual(prepare([new Tool()]).catalog.map((t) => t.id), ['openclaw:core:inherited'])
  })

  test('absent, null and undefined optional fields are absent; unknown fields are ignored', async () => {
    const run = prepare([{ name: 'read', source: 'openclaw', label: null, description: undefined, sourceName: null, directOnly: null, parameters: null, extra: { deep: [1] } }])
    const result = await run.exec({ code: 'return [ALL_TOOLS[0], (await tools.describe("read")).parameters]' })
    assert.deepEqual(result.value, [{ id: 'openclaw:core:read', name: 'read', description: '', source: 'openclaw' }, {}])
  })
})

describe('prepareRun builds the catalog after it returns', () => {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 }, workerThreads: 1 })
  instances.push(codeMode)
  const prepare = (tools) => codeMode.prepareRun({ runId: 'r', tools, executeTool: async (call) => ({ got: call.name }) })
  const turns = async (n) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
  }

  test('the catalog is the same read at once, after some turns or after the background build', async () => {
    const tools = many(3000)
    const atOnce = prepare(tools).catalog
    const partly = prepare(tools)
    await turns(2)
    const later = prepare(tools)
    await turns(200)
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(atOnce.length, 3000)
    assert.deepEqual(partly.catalog, atOnce)
    assert.deepEqual(later.catalog, atOnce)
    const value = (await partly.exec({ code: 'return [ALL_TOOLS.length, ALL_TOOLS[2999].name, (await tools.tool_2999({})).got]' })).value
    assert.deepEqual(value, [3000, 'tool_2999', 'tool_2999'])
  })

  test('an exec right after prepareRun, and a wait, find the whole catalog', async () => {
    const run = prepare(many(2000))
    const result = await run.exec({ code: 'return [ALL_TOOLS.length, (await tools.search("tool_1999", { limit: 1 }))[0].name]' })
    assert.deepEqual(result.value, [2000, 'tool_1999'])
    const waited = await prepare(many(2000)).wait({ runId: 'nope' })
    assert.equal(waited.status, 'failed')
    assert.equal(waited.telemetry.catalogSize, 2000)
  })

  test('an exec or wait made before the build returns at once: the tools are still written in later turns', async () => {
    // Every schema is written in the background, a slice per turn; an exec
    // that finished the build on the calling thread wrote them all inside
    // the call (it held the event loop for the whole build).
    const written = []
    const watched = (name) => ({ name, source: 'openclaw', parameters: { toJSON: () => (written.push(name), { type: 'object' }) } })
    const alike = Array.from({ length: 16000 }, (_, i) => ({
      name: `docs__tool${i}`, description: 'Alike', source: 'mcp', sourceName: 'docs',
      mcp: { server: 'docs', tool: `get-${'-'.repeat(i % 7)}page${i % 2 ? '' : '_'}` },
    }))
    const run = prepare([...alike, watched('last')])
    const exec = run.exec({ code: 'return [ALL_TOOLS.length, Object.keys(MCP.docs).length, (await tools.last({})).got]' })
    const wait = run.wait({ runId: 'nope' })
    assert.deepEqual(written, [], 'exec and wait did not write the tools on this thread')
    const result = await exec
    assert.deepEqual(result.value, [1, 16001, 'last'])
    assert.deepEqual(written, ['last'])
    const waited = await wait
    assert.equal(waited.error, 'code mode run is unavailable or expired.')
    assert.deepEqual([waited.telemetry.catalogSize, waited.telemetry.sources], [16001, { openclaw: 1, mcp: 16000, client: 0 }])
  })

  test('an exec waiting for the build is answered when it is aborted, closed or its budget ends, with the run telemetry', async () => {
    const early = binding.createCodeMode({ config: { enabled: true, timeoutMs: 100 }, workerThreads: 1 })
    const tools = [...many(300), { name: 'direct', source: 'client', directOnly: true }]
    const on = (extra = {}) => early.prepareRun({ runId: 'r', tools, executeTool: async () => null, ...extra })
    const telemetry = { catalogSize: 300, sources: { openclaw: 300, mcp: 0, client: 0 }, searchCount: 0, describeCount: 0, callCount: 0, invalidInputCount: 0, visibleTools: ['exec', 'wait', 'direct'] }
    const failed = (code, error, replaySafe = false) => ({ status: 'failed', error, code, output: [], replaySafe, telemetry })

    const controller = new AbortController()
    const aborted = on().exec({ code: 'return 1' }, { signal: controller.signal })
    controller.abort()
    assert.deepEqual(await aborted, failed('aborted', 'code mode run was aborted.'))
    const before = new AbortController()
    before.abort()
    assert.deepEqual(await on().exec({ code: 'return 1' }, { signal: before.signal }), failed('aborted', 'code mode run was aborted.'))
    assert.deepEqual(await on().exec({ code: '' }), failed('invalid_input', 'code or command must be a non-empty string.'))
    assert.deepEqual(await on().wait({}), failed('invalid_input', 'runId must be a non-empty string.'))

    // A schema written in the first background turn holds that turn past
    // the budget: the deadline's timer fires before the next turn, so
    // before the last tools are written and the build can start.
    const slow = { toJSON: () => { const until = performance.now() + 150; while (performance.now() < until); return {} } }
    const held = early.prepareRun({ runId: 'r', tools: [{ name: 'slow', source: 'openclaw', parameters: slow }, ...many(299), tools[300]], executeTool: async () => null })
    assert.deepEqual(await held.exec({ code: 'return 1', restartSafe: true }), failed('timeout', 'code mode timeout exceeded.', true))
    // The build goes on for the calls that come later.
    assert.equal((await held.exec({ code: 'return ALL_TOOLS.length' })).value, 300)

    const closing = on().exec({ code: 'return 1' })
    const waiting = on().wait({ runId: 'x' })
    await early.close()
    assert.deepEqual(await closing, failed('runtime_unavailable', 'code mode is closed.'))
    assert.deepEqual(await waiting, failed('runtime_unavailable', 'code mode is closed.'))
  })

  test('a surface dropped while its exec waits for the build still answers it', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => prepare(many(2000)).exec({ code: 'return ALL_TOOLS.length' })))
    globalThis.gc?.()
    assert.deepEqual(results.map((result) => result.value), [2000, 2000, 2000, 2000, 2000])
  })

  test('names and descriptions are taken when prepareRun is called', async () => {
    const tools = many(300)
    const run = prepare(tools)
    tools[0].name = 'renamed'
    tools[1].description = 'changed'
    tools.push({ name: 'late', source: 'openclaw' })
    await turns(20)
    const catalog = run.catalog
    assert.equal(catalog.length, 300)
    assert.deepEqual([catalog[0].name, catalog[1].description], ['tool_0', 'Tool 1.'])
  })

  test('a schema JSON.stringify cannot write leaves its tool without a schema, and says so in diagnostics', async () => {
    const cyclic = { type: 'object' }
    cyclic.self = cyclic
    const run = prepare([
      ...many(100),
      { name: 'loop', description: 'cyclic schema', source: 'openclaw', parameters: cyclic },
      { name: 'big', description: 'BigInt schema', source: 'openclaw', parameters: { maxLength: 10n } },
      { name: 'direct', description: 'direct-only', source: 'openclaw', directOnly: true, parameters: cyclic },
    ])
    const direct = run.modelTools.find((t) => t.name === 'direct')
    assert.deepEqual(direct.parameters, { type: 'object', properties: {} })
    const result = await run.exec({ code: 'return [(await tools.describe("loop")).parameters, (await tools.describe("big")).parameters, await tools.loop({ any: 1 })]' })
    assert.deepEqual(result.value, [{}, {}, { got: 'loop' }])
    const problems = run.diagnostics
    assert.equal(problems.length, 3)
    assert.match(problems[0], /^Tool "direct" has no schema: its parameters could not be written as JSON \(.*circular.*\); pass parameters JSON\.stringify can write\.$/i)
    assert.match(problems[1], /^Tool "loop" has no schema: .*circular/i)
    assert.match(problems[2], /^Tool "big" has no schema: .*BigInt/)
  })

  test('whatever a schema throws while written in the background becomes a diagnostic, never an uncaught error', async () => {
    const run = prepare([
      ...many(300),
      { name: 'nullproto', source: 'openclaw', parameters: { toJSON() { throw Object.create(null) } } },
      { name: 'symbol', source: 'openclaw', parameters: { toJSON() { throw Symbol('odd') } } },
      { name: 'getter', source: 'openclaw', parameters: { toJSON() { throw { get message() { throw new Error('again') } } } } },
    ])
    // A schema that fails every other time it is written: kept as written
    // the time it worked, never written again.
    let calls = 0
    const flaky = prepare([
      ...many(300),
      { name: 'flaky', source: 'openclaw', parameters: { toJSON() { if (calls++ % 2 === 0) throw new Error('flaky'); return { type: 'object', required: ['x'] } } } },
    ])
    await turns(50)
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(run.diagnostics, [
      'Tool "nullproto" has no schema: its parameters could not be written as JSON (it threw a value with no text); pass parameters JSON.stringify can write.',
      'Tool "symbol" has no schema: its parameters could not be written as JSON (Symbol(odd)); pass parameters JSON.stringify can write.',
      'Tool "getter" has no schema: its parameters could not be written as JSON (it threw a value with no text); pass parameters JSON.stringify can write.',
    ])
    assert.deepEqual((await run.exec({ code: 'return (await tools.describe("symbol")).parameters' })).value, {})
    assert.deepEqual(flaky.diagnostics, [])
    assert.deepEqual((await flaky.exec({ code: 'return (await tools.describe("flaky")).parameters' })).value, { type: 'object', required: ['x'] })
    assert.equal(calls, 2)
  })

  test('a lone surrogate reads as U+FFFD wherever it is: a schema (still checked), an MCP server name', async () => {
    const run = prepare([
      { name: 'pick', source: 'openclaw', parameters: { type: 'object', description: 'odd \ud800', required: ['need'] } },
      { name: 'srv__t', source: 'mcp', mcp: { server: 'srv\udc00', tool: 't' }, parameters: { type: 'object' } },
    ])
    const result = await run.exec({ code: 'const d = await tools.describe("pick"); try { await tools.pick({}) } catch (e) { return [d.parameters.description, e.message.slice(0, 40), Object.keys(MCP)] }' })
    assert.deepEqual(result.value, ['odd \ufffd', 'Invalid input for tools.pick: input: mis', ['$api', 'srv']])
  })

  test('a tool list whose length is not an array length is not an array', () => {
    for (const length of [1.5, -1, 2 ** 40, '3']) {
      const tools = new Proxy([], { get: (target, key) => (key === 'length' ? length : Reflect.get(target, key)) })
      assert.throws(() => prepare(tools), { message: 'RunContext.tools must be an array.' }, String(length))
    }
  })

  test('an inactive run shows a tool whose schema JSON cannot write with an empty schema, and says so', () => {
    const off = binding.createCodeMode({ config: { enabled: false } })
    instances.push(off)
    const cyclic = { type: 'object' }
    cyclic.self = cyclic
    const run = off.prepareRun({ runId: 'r', tools: [{ name: 'loop', description: 'd', source: 'openclaw', parameters: cyclic }], executeTool: async () => null })
    assert.equal(run.active, false)
    assert.deepEqual(run.modelTools, [{ name: 'loop', description: 'd', parameters: { type: 'object', properties: {} } }])
    assert.equal(run.diagnostics.length, 1)
    assert.match(run.diagnostics[0], /^Tool "loop" has no schema: /)
  })

  test('fake timers installed after createCodeMode neither stall nor see the background writing', async () => {
    const real = { setImmediate: globalThis.setImmediate, now: performance.now }
    let faked = 0
    globalThis.setImmediate = () => {
      faked++
      throw new Error('fake setImmediate')
    }
    performance.now = () => 0
    let run
    try {
      run = prepare(many(2000))
    } finally {
      globalThis.setImmediate = real.setImmediate
      performance.now = real.now
    }
    assert.equal(faked, 0)
    await turns(200)
    assert.equal((await run.exec({ code: 'return ALL_TOOLS.length' })).value, 2000)
  })

  test('surfaces prepared and dropped before their build leave nothing behind', async () => {
    const tools = many(1000)
    for (let i = 0; i < 50; i++) prepare(tools)
    await turns(100)
    const run = prepare(tools)
    assert.equal((await run.exec({ code: 'return ALL_TOOLS.length' })).value, 1000)
  })
})

function many(count) {
  return Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool ${i}.`,
    source: 'openclaw',
    parameters: { type: 'object', properties: { n: { type: 'number' } } },
  }))
}
