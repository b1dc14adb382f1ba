// An adversarial corpus: guest code is hostile (SECURITY.md). One test per
// attack class; each asserts the exact documented outcome (status, code and
// the byte-exact message of docs/errors.md, or the exact value), then that the
// same code-mode instance still serves. Behaviour that contradicts the docs is
// kept as a `todo` test written to the docs.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { abortReport, binding, deferred, sleep, unknownToolId, watchSignal } from './helpers.mjs'

// docs/errors.md, byte-exact.
const TIMEOUT = 'code mode timeout exceeded.'
const MEMORY = 'code mode memory limit exceeded.'
const OUTPUT = 'code mode output limit exceeded.'
const MODULE = 'code mode module access is disabled.'
const CLOSED = 'code mode is closed.'
const ABORTED = 'code mode run was aborted.'
const EXPIRED = 'code mode run is unavailable or expired.'
const QUEUE_FULL = 'too many queued code mode tool calls.'
const TOO_LARGE = 'code must be at most 1048576 bytes.'
const INPUT_TOO_DEEP = 'tool input nests deeper than 1000 levels.'
const bridgeLimit = (max) => `tool input is larger than the code mode bridge limit of ${max} bytes (inputs of pending calls included).`
const nestsTooDeeply = (line, column) =>
  `code nests too deeply to parse safely: it has more than 25000 brackets, operators and keywords (the limit is passed at line ${line}:${column}). Split the work into smaller statements, functions or cells.`

const TOOLS = [
  { name: 'echo', description: 'Echo', source: 'openclaw' },
  { name: 'slow', description: 'Never settles', source: 'openclaw' },
]

const instances = []
after(() => Promise.all(instances.map((codeMode) => codeMode.close())))

/** A code-mode instance (closed in `after`) and one run surface over it. */
function instance(config = {}, executeTool = async (call) => call.input, options = { workerThreads: 1 }) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000, ...config }, ...options })
  instances.push(codeMode)
  const run = codeMode.prepareRun({ runId: 'adversary', sessionId: 'hostile', tools: TOOLS, executeTool })
  const exec = (input, call) => run.exec(typeof input === 'string' ? { code: input } : input, call)
  return { codeMode, run, exec }
}

/** After an attack: the same instance still runs `return 1` to completion. */
async function assertServes(codeMode) {
  const run = codeMode.prepareRun({ runId: 'bystander', sessionId: 'other', tools: TOOLS, executeTool: async () => null })
  const result = await run.exec({ code: 'return 1' })
  assert.equal(result.status, 'completed', `the instance still serves: ${result.code}: ${result.error}`)
  assert.equal(result.value, 1)
}

function assertFailed(result, code, error, label = '') {
  assert.deepEqual([result.status, result.code, result.error], ['failed', code, error], label)
}

function assertCompleted(result, value, label = '') {
  assert.equal(result.status, 'completed', `${label}: ${result.code}: ${result.error}`)
  assert.deepEqual(result.value, value, label)
}

describe('1. escape through the bridge', () => {
  test('the host is unreachable, forbidden globals are absent, prototype pollution is contained both ways', async () => {
    const inputs = []
    const replies = {
      polluting: () => JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"p": 1}}, "a": 1}'),
      plain: () => ({ x: 1, list: [1, 2] }),
    }
    const { codeMode, exec } = instance({}, async (call) => {
      inputs.push(call.input)
      if (call.input.fail) throw new Error('host failure')
      return (replies[call.input.reply] ?? replies.plain)()
    })

    // Host names, by typeof and by `in`.
    const hostNames = ['require', 'process', 'module', 'exports', 'Buffer', 'global', 'std', 'os', 'scriptArgs', 'Deno', 'Bun',
      'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'importScripts', 'fetch', 'XMLHttpRequest', '__dirname', '__filename']
    const names = await exec(`return [[${hostNames.map((n) => `typeof ${n}`)}], ${JSON.stringify(hostNames)}.filter((n) => n in globalThis)]`)
    assertCompleted(names, [hostNames.map(() => 'undefined'), []], 'typeof and in')

    // Every object reachable from globalThis (own properties, getters, prototypes).
    const walked = hostNames.filter((n) => n !== 'global') // RegExp.prototype.global is a flag
    const walk = await exec(`
      const wanted = new Set(${JSON.stringify(walked)})
      const seen = new Set()
      const found = []
      const visit = (o, path, depth) => {
        if (o === null || (typeof o !== 'object' && typeof o !== 'function') || seen.has(o) || depth > 5) return
        seen.add(o)
        for (const key of Reflect.ownKeys(o)) {
          if (wanted.has(String(key))) found.push(path + '.' + String(key))
          let v
          try { v = o[key] } catch { continue }
          visit(v, path + '.' + String(key), depth + 1)
        }
        visit(Object.getPrototypeOf(o), path + '.[[Prototype]]', depth + 1)
      }
      visit(globalThis, 'globalThis', 0)
      return { found, manyObjects: seen.size > 300 }`)
    assertCompleted(walk, { found: [], manyObjects: true }, 'globalThis walk')

    // Every way back to a global object reaches the guest's own.
    const globals = await exec(`
      const viaFunction = Function('return this')()
      const viaCtor = (() => {}).constructor.constructor('return this')()
      const viaAsync = await (async () => {}).constructor('return this')()
      const viaGenerator = (function* () {}).constructor('yield this')().next().value
      const viaEval = (0, eval)('this')
      return [viaFunction, viaCtor, viaAsync, viaGenerator, viaEval].map((g) => [g === globalThis, typeof g.process, typeof g.require])`)
    assertCompleted(globals, Array(5).fill([true, 'undefined', 'undefined']), 'Function("return this")() and friends')

    // The bridge's own functions are ordinary guest functions.
    const bridged = await exec(`
      const fns = { search: tools.search, describe: tools.describe, call: tools.call, echo: tools.echo, text, json, yield_control, log: console.log }
      const out = {}
      for (const [name, f] of Object.entries(fns)) {
        let constructed
        try { new f(); constructed = 'constructed' } catch (e) { constructed = e.name }
        out[name] = [f.constructor === Function, f.constructor('return this')() === globalThis,
          f.constructor('return typeof process + typeof require')(), typeof f.prototype, constructed]
      }
      out.own = Object.getOwnPropertyNames(tools.echo)
      return out`)
    const ordinary = [true, true, 'undefinedundefined', 'undefined', 'TypeError']
    assertCompleted(bridged, {
      search: ordinary, describe: ordinary, call: ordinary, echo: ordinary,
      text: ordinary, json: ordinary, yield_control: ordinary, log: ordinary, own: ['length', 'name'],
    }, 'tools functions and their constructors')

    // Errors the bridge creates carry no host frame, even to a stack-trace hook;
    // and behind the import() screening there is no module loader.
    const frames = await exec(`
      const files = []
      Error.prepareStackTrace = (e, sites) => { files.push(...sites.map((s) => s.getFileName())); return 'hooked' }
      try { await tools.echo({ fail: true }) } catch (e) {}
      try { await tools.call('nope') } catch (e) {}
      new Error('own')
      Error.prepareStackTrace = undefined
      const loaded = await eval("import('/etc/passwd')").then(() => 'loaded', (e) => [e.name, e.message])
      return { hostFrames: files.filter((f) => f !== 'cell'), loaded }`)
    assert.equal(frames.status, 'completed', frames.error)
    assert.deepEqual(frames.value.hostFrames, [])
    assert.equal(frames.value.loaded[0], 'ReferenceError')
    assert.match(frames.value.loaded[1], /^could not load module /)

    // Guest pollutes its prototypes: the host receives exactly the own data.
    inputs.length = 0
    const polluted = await exec(`
      Object.prototype.polluted = 'yes'
      Array.prototype.extra = 'arr'
      Array.prototype[7] = 'beyond length'
      const stolen = []
      Object.defineProperty(Object.prototype, 'x', { set(v) { stolen.push(v) }, get() { return 'inherited' }, configurable: true })
      Object.defineProperty(Array.prototype, '0', { set(v) { stolen.push(v) }, get() { return 'inherited' }, configurable: true })
      const r = await tools.echo({ a: 1, list: [1, 2] })
      json({ j: [1, 2] })
      text({ t: [3] })
      return { r, own: Object.keys(r), rx: r.x, first: r.list[0], stolen, v: [1, 2] }`)
    assertCompleted(polluted, { r: { x: 1, list: [1, 2] }, own: ['x', 'list'], rx: 1, first: 1, stolen: [], v: [1, 2] }, 'results are own data in the guest')
    assert.deepEqual(polluted.output, [{ type: 'json', value: { j: [1, 2] } }, { type: 'text', text: '{"t":[3]}' }])
    assert.deepEqual(inputs, [{ a: 1, list: [1, 2] }])
    assert.equal(Object.getPrototypeOf(inputs[0]), Object.prototype)

    // docs/guest-runtime.md#tampering: toJSON methods run, inherited ones included.
    assertCompleted(await exec("Object.prototype.toJSON = function () { return 'replaced' }; return { a: 1 }"), 'replaced')

    // Host data with __proto__ / constructor keys arrives as data and pollutes nothing.
    inputs.length = 0
    const keys = await exec(`
      const r = await tools.echo({ reply: 'polluting' })
      const sent = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"p": 1}}}')
      await tools.echo({ reply: 'plain', sent })
      return [Object.keys(r), Object.getPrototypeOf(r) === Object.prototype, ({}).polluted, ({}).p, r.polluted, r.__proto__, sent]`)
    assertCompleted(keys, [
      ['__proto__', 'constructor', 'a'], true, null, null, null, { polluted: 1 },
      { ['__proto__']: { polluted: 1 }, constructor: { prototype: { p: 1 } } },
    ], 'host __proto__ keys in the guest')
    assert.deepEqual(Object.keys(keys.value[6]), ['__proto__', 'constructor'])
    assert.equal(Object.getPrototypeOf(keys.value[6]), Object.prototype)
    assert.deepEqual(Object.keys(inputs[1].sent), ['__proto__', 'constructor'])
    assert.equal(Object.getPrototypeOf(inputs[1].sent), Object.prototype)
    assert.equal({}.polluted, undefined, 'the host is not polluted')
    assert.equal({}.p, undefined)
    assert.equal([].extra, undefined)

    await assertServes(codeMode)
  })
})

describe('2. Proxy, getter and toJSON inputs', () => {
  test('each hostile tool input gets the documented conversion or refusal', async () => {
    const inputs = []
    const { codeMode, exec } = instance({}, async (call) => {
      inputs.push(call.input)
      return 'sent'
    })
    const cases = [
      // Proxies are read through their traps like any object.
      ['proxy traps', `new Proxy({ a: 1 }, { get: (t, k) => (k === 'a' ? 'trapped' : t[k]), ownKeys: () => ['a', 'b'],
          getOwnPropertyDescriptor: () => ({ value: 'd', enumerable: true, configurable: true }) })`, { input: { a: 'trapped' } }],
      ['ownKeys trap throws', `new Proxy({ a: 1 }, { ownKeys() { throw new Error('trap') } })`, { input: {} }],
      ['get trap throws (toJSON lookup)', `new Proxy({ a: 1 }, { get() { throw new Error('trap') } })`, { input: '[object Object]' }],
      ['revoked proxy', `(() => { const { proxy, revoke } = Proxy.revocable({ a: 1 }, {}); revoke(); return { p: proxy, b: 2 } })()`,
        { input: { p: '[object Object]', b: 2 } }],
      // Getters that throw: the property is dropped, an array element is null.
      ['throwing getters', `{ get bad() { throw new Error('getter') }, ok: 1, list: [1, { get x() { throw 1 } }],
          arr: Object.defineProperty([1, 2], 1, { get() { throw 1 } }) }`, { input: { ok: 1, list: [1, {}], arr: [1, null] } }],
      // toJSON: its result is converted in turn.
      ['toJSON returns 20 MiB', `{ toJSON() { return 'x'.repeat(20 * 1024 * 1024) } }`, { error: bridgeLimit(16777216) }],
      ['toJSON returns a cycle', `{ a: { toJSON() { const c = { n: 1 }; c.self = c; return c } } }`, { input: { a: { n: 1, self: '[Circular]' } } }],
      ['toJSON returns its object', `(() => { const o = { v: 1, toJSON() { return o } }; return o })()`, { input: { v: 1 } }],
      ['toJSON nests 1200 deep', `(() => { const mk = (n) => ({ toJSON() { return n ? { next: mk(n - 1) } : 'end' } }); return mk(1200) })()`,
        { error: INPUT_TOO_DEEP }],
      ['toJSON throws', `{ a: { toJSON() { throw new Error('no') } }, b: 1 }`, { input: { a: '[object Object]', b: 1 } }],
      ['cycles', `(() => { const c = { n: 1, arr: [] }; c.self = c; c.arr.push(c, [c]); return c })()`,
        { input: { n: 1, arr: ['[Circular]', ['[Circular]']], self: '[Circular]' } }],
      ['shared, not cyclic', `(() => { const s = { s: 1 }; return [s, s] })()`, { input: [{ s: 1 }, { s: 1 }] }],
      ['BigInt', `{ b: 10n ** 30n, arr: [1n, -2n] }`, { input: { b: '1000000000000000000000000000000', arr: ['1', '-2'] } }],
      ['top-level BigInt', `5n`, { input: '5' }],
      ['functions and symbols', `{ f() {}, g: () => 1, arr: [() => 1, Symbol('s')], s: Symbol('x'), [Symbol('k')]: 1, u: undefined }`,
        { input: { arr: [null, null] } }],
      ['top-level function', `() => 1`, { input: null }],
      ['top-level symbol', `Symbol('s')`, { input: null }],
      ['undefined', `undefined`, { input: {} }],
    ]
    for (const [name, expression, expected] of cases) {
      inputs.length = 0
      const result = await exec(`
        try { return { value: await tools.echo(${expression}) } }
        catch (e) { return { error: e.message, plain: Object.getPrototypeOf(e) === Error.prototype } }`)
      assert.equal(result.status, 'completed', `${name}: ${result.error}`)
      if ('error' in expected) {
        assert.deepEqual(result.value, { error: expected.error, plain: true }, name)
        assert.deepEqual(inputs, [], `${name}: never dispatched`)
      } else {
        assert.deepEqual(result.value, { value: 'sent' }, name)
        assert.deepEqual(inputs, [expected.input], name)
      }
    }
    await assertServes(codeMode)

    // Guest code attached to values runs under the cell's deadline.
    const short = instance({ timeoutMs: 300 }, async (call) => {
      inputs.push(call.input)
      return 'sent'
    })
    inputs.length = 0
    for (const expression of ['{ get spin() { for (;;) {} } }', '{ toJSON() { for (;;) {} } }', 'new Proxy({}, { ownKeys() { for (;;) {} } })']) {
      assertFailed(await short.exec(`try { await tools.echo(${expression}) } catch (e) { return 'caught' }`), 'timeout', TIMEOUT, expression)
    }
    assert.deepEqual(inputs, [])
    await assertServes(short.codeMode)
  })

  test('a Proxy over an array crosses as an array', async () => {
    const inputs = []
    const { codeMode, exec } = instance({}, async (call) => {
      inputs.push(call.input)
      return 'sent'
    })
    const result = await exec('await tools.echo({ list: new Proxy([1, 2], {}) }); return new Proxy([1, 2], {})')
    assert.deepEqual(inputs, [{ list: [1, 2] }])
    assertCompleted(result, [1, 2])
    await assertServes(codeMode)
  })
})

describe('3. microtask storms', () => {
  test('endless microtasks time out; growing promise chains hit the memory limit; the instance keeps serving', async () => {
    // Storms that hold no memory: only the deadline stops them.
    const short = instance({ timeoutMs: 300 })
    for (const code of [
      'for (;;) await null',
      'for (;;) { try { await Promise.reject(1) } catch {} }',
      'const tick = (n) => Promise.resolve(n).then((m) => { tick(m + 1) }); tick(0)',
      'const loop = () => queueMicrotask(loop); loop()',
      'const loop = () => queueMicrotask(loop); loop(); return "returned while the queue never drains"',
    ]) {
      assertFailed(await short.exec(code), 'timeout', TIMEOUT, code)
    }
    await assertServes(short.codeMode)

    // Storms that accumulate: the memory limit ends them first (generous budget).
    const small = instance({ memoryLimitBytes: 16 * 1024 * 1024 })
    for (const code of [
      'const step = () => Promise.resolve().then(step); step(); await new Promise(() => {})',
      'const step = () => Promise.resolve().then(step); step(); return 1',
      'const r = await Promise.all(Array.from({ length: 1e6 }, (_, i) => Promise.resolve(i))); return r.length',
      'const loop = () => { queueMicrotask(loop); queueMicrotask(loop) }; loop()',
    ]) {
      assertFailed(await small.exec(code), 'internal_error', MEMORY, code)
    }
    // Many reactions on a promise that never settles: no host work to wait for.
    assertFailed(
      await small.exec('const p = new Promise(() => {}); for (let i = 0; i < 1000; i++) p.then(() => {}); await p'),
      'internal_error', 'code mode promise is pending without host work.')
    await assertServes(small.codeMode)
  })
})

describe('4. regex backtracking', () => {
  test('catastrophic patterns time out, even inside try/catch', async () => {
    const { codeMode, exec } = instance({ timeoutMs: 300 })
    for (const code of [
      "return /(a+)+b/.test('a'.repeat(40))",
      "return /^(a|a)*$/.test('a'.repeat(40) + 'b')",
      "return /(x+x+)+y/.test('x'.repeat(50))",
      "return /^(\\w+\\s?)*$/.test('a'.repeat(39) + '!')",
      "return /(a|aa)+$/.test('a'.repeat(100) + 'b')",
      "return 'a'.repeat(40).replace(/(a*)*b/g, 'x')",
      "return [...'a'.repeat(40).matchAll(/(a+)+b/g)]",
      "try { return /(a+)+b/.test('a'.repeat(40)) } catch (e) { return 'caught' }",
    ]) {
      assertFailed(await exec(code), 'timeout', TIMEOUT, code)
    }
    await assertServes(codeMode)
  })
})

describe('5. output floods', () => {
  // docs/limits.md: output items count as the UTF-8 JSON of the output array.
  const MAX = 65536
  /** How many equal items of `itemBytes` fit: 2 brackets + n items + (n - 1) commas <= MAX. */
  const fitting = (itemBytes) => Math.floor((MAX - 1) / (itemBytes + 1))

  test('console, text and json floods and huge values are output_limit_exceeded, keeping the items that fit', async () => {
    const { codeMode, exec } = instance()
    const floods = [
      ["for (;;) console.log('x'.repeat(1e4))", { type: 'text', text: 'x'.repeat(1e4) }],
      ["for (;;) text('y'.repeat(1000))", { type: 'text', text: 'y'.repeat(1000) }],
      ["for (;;) json({ a: 'z'.repeat(500) })", { type: 'json', value: { a: 'z'.repeat(500) } }],
      ["try { for (;;) console.log('x'.repeat(1e4)) } catch (e) { return 'caught' }", { type: 'text', text: 'x'.repeat(1e4) }],
      ["for (;;) console.error('e'.repeat(1e4))", { type: 'text', text: 'error: ' + 'e'.repeat(1e4) }],
    ]
    for (const [code, item] of floods) {
      const result = await exec(code)
      assertFailed(result, 'output_limit_exceeded', OUTPUT, code)
      const count = fitting(Buffer.byteLength(JSON.stringify(item)))
      assert.deepEqual(result.output, Array(count).fill(item), `${code}: the ${count} items that fit`)
    }
    for (const code of [
      "return 'x'.repeat(1e6)",
      "return 'x'.repeat(65535)", // its JSON is 65537 bytes
      "return 'é'.repeat(32768)", // UTF-8: 65538 bytes
      'return Array.from({ length: 1e5 }, (_, i) => i)',
      "return { toJSON() { return 'x'.repeat(1e6) } }",
      "const s = 'x'.repeat(1e6); console.log(s, s, s)",
    ]) {
      const result = await exec(code)
      assertFailed(result, 'output_limit_exceeded', OUTPUT, code)
      assert.deepEqual(result.output, [], code)
    }
    // A final value of exactly MAX bytes of JSON is whole.
    assertCompleted(await exec("return 'x'.repeat(65534)"), 'x'.repeat(65534))
    assertCompleted(await exec("return 'é'.repeat(32767)"), 'é'.repeat(32767))
    await assertServes(codeMode)
  })

  test('an output array of exactly maxOutputBytes fits, as the final value does', async () => {
    const { codeMode, exec } = instance({ maxOutputBytes: 1024 })
    // [{"type":"text","text":"x…x"}]: 27 bytes + 997 = 1024.
    const result = await exec("text('x'.repeat(997))")
    assertCompleted(result, null)
    assert.deepEqual(result.output, [{ type: 'text', text: 'x'.repeat(997) }])
    assertCompleted(await exec("return 'x'.repeat(1022)"), 'x'.repeat(1022)) // the final value: 1024 bytes, accepted
    await assertServes(codeMode)
  })
})

describe('6. 5000 concurrent nested calls', () => {
  test('a burst beyond the queue of 1024: the documented refusal; spread out, all 5000 complete', async () => {
    let calls = 0
    let inFlight = 0
    let maxInFlight = 0
    const { codeMode, exec } = instance({}, async (call) => {
      calls++
      maxInFlight = Math.max(maxInFlight, ++inFlight)
      await new Promise((resolve) => setImmediate(resolve))
      inFlight--
      return call.input.i
    })

    // The cell as written: one synchronous burst. The 1025th call rejects at
    // once, Promise.all rejects, the cell fails; queued calls never start.
    const code = 'await Promise.all(Array.from({length: 5000}, (_, i) => tools.echo({i})))'
    const burst = await exec(code)
    assertFailed(burst, 'internal_error', `Error: ${QUEUE_FULL} at line 1:${code.indexOf('echo(') + 1}`)
    assert.equal(calls, 0, 'no queued call was started')

    // With every rejection caught: exactly the first 1024 are queued and run.
    calls = 0
    const caught = await exec(`
      const out = await Promise.all(Array.from({ length: 5000 }, (_, i) => tools.echo({ i }).catch((e) => e.message)))
      return { values: out.slice(0, 1024), refused: [...new Set(out.slice(1024))] }`)
    assertCompleted(caught, { values: Array.from({ length: 1024 }, (_, i) => i), refused: [QUEUE_FULL] })
    assert.equal(calls, 1024)

    // Awaited in waves under the bound: all 5000 values, in order.
    calls = 0
    const waves = await exec(`
      const out = []
      for (let w = 0; w < 5; w++) out.push(...await Promise.all(Array.from({ length: 1000 }, (_, i) => tools.echo({ i: w * 1000 + i }))))
      return out`)
    assertCompleted(waves, Array.from({ length: 5000 }, (_, i) => i))
    assert.equal(calls, 5000)
    assert.ok(maxInFlight <= 16, `at most maxPendingToolCalls in flight: ${maxInFlight}`)
    await assertServes(codeMode)
  })
})

describe('7. memory bombs', () => {
  test('arrays, strings, typed arrays and Map growth end the VM with the memory limit; the next exec works', async () => {
    const { codeMode, exec } = instance({ memoryLimitBytes: 16 * 1024 * 1024 })
    for (const code of [
      'const a = []; for (;;) a.push([1, 2, 3])',
      'return new Array(1e8).fill(0).length',
      "return 'x'.repeat(2 ** 29)",
      "const parts = []; for (let i = 0; ; i++) parts.push('x'.repeat(1000) + i)",
      "let s = 'ab'; for (;;) { s += s; s.indexOf('z') }",
      'new Uint8Array(64 * 1024 * 1024)',
      'const chunks = []; for (;;) chunks.push(new Float64Array(1e5))',
      'const b = new ArrayBuffer(1024, { maxByteLength: 2 ** 30 }); b.resize(2 ** 30); return b.byteLength',
      'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i })',
      "const s = new Set(); for (let i = 0; ; i++) s.add('k' + i)",
      "const o = {}; for (let i = 0; ; i++) o['k' + i] = i",
      'try { new ArrayBuffer(1e9) } catch (e) {} return 2',
      'for (;;) { try { const a = []; for (;;) a.push({}) } catch (e) {} }',
    ]) {
      const result = await exec(code)
      assertFailed(result, 'internal_error', MEMORY, code)
      assertCompleted(await exec('return [1, 2, 3].length'), 3, `the next exec after ${code}`)
    }
    await assertServes(codeMode)
  })
})

describe('8. deeply nested sources', () => {
  test('JavaScript and TypeScript, with and without a syntax error: invalid_input before any parser runs', async () => {
    const { codeMode, exec } = instance()
    // The column of the 25001st opening unit ("return" is the first; the
    // first repeated unit is at column 8).
    const nested = [
      ['parens', 'return ' + '('.repeat(100000) + '1' + ')'.repeat(100000), nestsTooDeeply(1, 7 + 25000)],
      ['brackets', 'return ' + '['.repeat(400000), nestsTooDeeply(1, 7 + 25000)],
      ['nots', 'return ' + '!'.repeat(1e6) + '1', nestsTooDeeply(1, 7 + 25000)], // 1000008 bytes: under the cap
      ['braces', '{'.repeat(500000), nestsTooDeeply(1, 25001)],
      ['objects', 'return ' + '{a:'.repeat(150000) + '1' + '}'.repeat(150000), nestsTooDeeply(1, 8 + 12499 * 3 + 2)], // `{` and `:`
      ['templates', 'return ' + '`${'.repeat(100000) + '1' + '}`'.repeat(100000), nestsTooDeeply(1, 8 + 24999 * 3 + 2)], // `{` only
      ['arrows', 'return ' + '()=>'.repeat(150000) + '1', nestsTooDeeply(1, 8 + 8333 * 4)], // `(`, `=`, `>`
      ['keywords', 'return ' + 'void '.repeat(30000) + '1', nestsTooDeeply(1, 8 + 24999 * 5)],
      ['second line', 'const x = 1\nreturn ' + '('.repeat(100000) + '1' + ')'.repeat(100000), nestsTooDeeply(2, 7 + 24998)],
      ['nots over the cap', 'return ' + '!'.repeat(1.1e6) + '1', TOO_LARGE], // the size is checked first
    ]
    for (const language of ['javascript', 'typescript']) {
      for (const [name, code, error] of nested) {
        for (const variant of [code, code + '\n)syntax error(']) {
          assertFailed(await exec({ code: variant, language }), 'invalid_input', error, `${language} ${name}`)
        }
      }
      assertCompleted(await exec({ code: 'return ' + '('.repeat(1000) + '1' + ')'.repeat(1000), language }), 1, `${language}: within the limit`)
    }
    // The 1 MiB cap counts UTF-8 bytes after trimming.
    assertCompleted(await exec('//' + 'é'.repeat(524287)), null)
    assertFailed(await exec('//' + 'é'.repeat(524287) + 'x'), 'invalid_input', TOO_LARGE)
    assertCompleted(await exec('  \n//' + 'x'.repeat(1048574) + '\n  '), null)
    await assertServes(codeMode)
  })
})

describe('9. yield reasons', () => {
  test('a huge yield_control reason is cut to 1 KiB of UTF-8 on a character boundary, marked with …', async () => {
    const { codeMode, run } = instance()
    const cases = [
      ["'x'.repeat(1e6)", 'x'.repeat(1024) + '…'],
      ["'x'.repeat(1024)", 'x'.repeat(1024)],
      ["'x'.repeat(1025)", 'x'.repeat(1024) + '…'],
      ["'é'.repeat(1e6)", 'é'.repeat(512) + '…'],
      ["'中'.repeat(1e6)", '中'.repeat(341) + '…'],
      ["'😀'.repeat(1e5)", '😀'.repeat(256) + '…'],
      ["'a' + '😀'.repeat(1e5)", 'a' + '😀'.repeat(255) + '…'],
      ["{ toString() { return 'z'.repeat(1e6) } }", 'z'.repeat(1024) + '…'],
      ['undefined', undefined],
    ]
    for (const [i, [reason, expected]] of cases.entries()) {
      const waiting = await run.exec({ code: `text('before'); return await yield_control(${reason})` })
      assert.equal(waiting.status, 'waiting', `${reason}: ${waiting.error}`)
      assert.equal(waiting.reason, 'yield')
      assert.deepEqual(waiting.pendingToolCalls, [{ id: `code_mode:exec:yield_control:${i + 1}`, method: 'yield' }])
      assert.deepEqual(waiting.output, [{ type: 'text', text: 'before' }])
      assert.ok(waiting.snapshotBytes < 1024 * 1024, `${reason}: the parked run holds ${waiting.snapshotBytes} bytes`)
      const done = await run.wait({ runId: waiting.runId })
      assertCompleted(done, expected === undefined ? { status: 'yielded' } : { status: 'yielded', reason: expected }, reason)
    }
    await assertServes(codeMode)
  })
})

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

describe('11. screening', () => {
  test('module access is refused by syntax; a cell\'s own require runs; the VM holds the rest', async () => {
    const { codeMode, exec } = instance()
    const refused = [
      ['require?.("fs")'],
      ['require`fs`'],
      ['new require("fs")'],
      ['import("fs")'],
      ['await import("fs")'],
      ['return import?.("fs")'],
      ['return (require)("fs")'],
      ['return require\n("fs")'],
      ['try { require("fs") } catch { return "caught" }'],
      ['return import.meta'],
      ['export default 1'],
      ['require("fs")', 'typescript'],
      ['import fs = require("fs")', 'typescript'],
      ['import type { X } from "fs"', 'typescript'],
    ]
    for (const [code, language = 'javascript'] of refused) {
      const result = await exec({ code: `text('ran'); ${code}`, language })
      assertFailed(result, 'invalid_input', MODULE, `${language}: ${code}`)
      assert.deepEqual(result.output, [], `${code}: nothing ran`)
    }
    const own = [
      ['const require = (x) => x; return require("fs")', 'fs'],
      ['function require(x) { return "mine:" + x } return require("fs")', 'mine:fs'],
      ['const f = (require) => require("fs"); return f((x) => x + "!")', 'fs!'],
      ['class require { constructor(x) { this.x = x } } return new require("fs").x', 'fs'],
      ['return typeof require', 'undefined'],
      ['const o = { import: 1, require: 2 }; return o.import + o.require', 3],
    ]
    for (const [code, value] of own) assertCompleted(await exec(code), value, code)
    assertCompleted(await exec({ code: 'const require = (x: string): string => x; return require("fs")', language: 'typescript' }), 'fs')
    // Not screened, and still nothing to reach.
    const held = [
      ['{ const require = (x) => x } return require("fs")', 'ReferenceError: require is not defined at line 1:37'],
      ['return (0, require)("fs")', 'ReferenceError: require is not defined at line 1:12'],
      ['return eval("require(\'fs\')")', 'ReferenceError: require is not defined at line 1:8'],
    ]
    for (const [code, error] of held) assertFailed(await exec(code), 'internal_error', error, code)
    await assertServes(codeMode)
  })

  test('import?.() as a statement is refused with the module-access message', async () => {
    const { codeMode, exec } = instance()
    for (const language of ['javascript', 'typescript']) {
      const result = await exec({ code: 'import?.("fs")', language })
      assertFailed(result, 'invalid_input', MODULE, language)
      assert.deepEqual(result.output, [])
    }
    await assertServes(codeMode)
  })
})

describe('12. data crosses whole', () => {
  test('lone surrogates, __proto__ keys, -0, NaN and Infinity both ways; long strings whole or cut as documented', async () => {
    const inputs = []
    const replies = {
      negativeZero: -0,
      numbers: [NaN, Infinity, -Infinity, -0, 1e308 * 10],
      long: 'L'.repeat(5e6),
    }
    const { codeMode, exec } = instance({}, async (call) => {
      inputs.push(call.input)
      if (call.input.throw) throw new Error(call.input.throw.repeat(1e5))
      return replies[call.input.reply] ?? 'ok'
    })

    // Lone surrogates become U+FFFD in values, output items and tool inputs.
    const surrogates = await exec(`
      json('\\ud800'); text('\\udbff'); console.log('\\udc00', { s: '\\ud800' })
      await tools.echo({ s: 'a\\ud800b', ['\\udc00']: 1 })
      return ['\\ud800', 'a\\udc00b', '\\ud83d\\ude00', '\\ude00\\ud83d', { ['k\\ud800']: '\\udfff' }]`)
    assertCompleted(surrogates, ['\uFFFD', 'a\uFFFDb', '\u{1F600}', '\uFFFD\uFFFD', { 'k\uFFFD': '\uFFFD' }])
    assert.deepEqual(surrogates.output, [
      { type: 'json', value: '\uFFFD' },
      { type: 'text', text: '\uFFFD' },
      { type: 'text', text: '\uFFFD {"s":"\uFFFD"}' },
    ])
    assert.deepEqual(inputs, [{ s: 'a\uFFFDb', '\uFFFD': 1 }])

    // __proto__ and constructor keys in a final value are own data.
    const proto = await exec(`return JSON.parse('{"__proto__": {"x": 1}, "constructor": {"prototype": {"y": 1}}}')`)
    assert.equal(proto.status, 'completed', proto.error)
    assert.deepEqual(Object.keys(proto.value), ['__proto__', 'constructor'])
    assert.equal(Object.getPrototypeOf(proto.value), Object.prototype)
    assert.deepEqual(Object.getOwnPropertyDescriptor(proto.value, '__proto__').value, { x: 1 })
    assert.equal({}.x, undefined)

    // -0 is 0 and NaN/Infinity are null, in values, inputs and results.
    inputs.length = 0
    const numbers = await exec(`
      await tools.echo({ n: NaN, i: Infinity, z: -0, arr: [NaN, -Infinity, -0] })
      const zero = await tools.echo({ reply: 'negativeZero' })
      return [-0, [-0], { z: -0 }, NaN, Infinity, -Infinity, { n: NaN }, 1e308 * 10, Object.is(zero, -0), zero,
        await tools.echo({ reply: 'numbers' })]`)
    assertCompleted(numbers, [0, [0], { z: 0 }, null, null, null, { n: null }, null, false, 0, [null, null, null, 0, null]])
    assert.deepEqual(inputs[0], { n: null, i: null, z: 0, arr: [null, null, 0] })

    // Long strings cross whole: a 5 MB result, a 5 MB input, a final value at the limit.
    inputs.length = 0
    const long = await exec(`
      const r = await tools.echo({ reply: 'long' })
      await tools.echo({ long: 'I'.repeat(5e6) })
      return [r.length, r === 'L'.repeat(5e6)]`)
    assertCompleted(long, [5e6, true])
    assert.equal(inputs[1].long, 'I'.repeat(5e6))

    // Cut as documented: executor error texts and uncaught errors at 4 KiB,
    // tool ids read up to 4 KiB; each marked with …
    const cut = await exec(`
      const out = []
      for (const t of ['e', 'é']) try { await tools.echo({ throw: t }) } catch (e) { out.push(e.message) }
      try { await tools.call('z'.repeat(1e5), {}) } catch (e) { out.push(e.message) }
      return out`)
    assertCompleted(cut, ['e'.repeat(4096) + '…', 'é'.repeat(2048) + '…', unknownToolId('z'.repeat(4096) + '…')])
    assertFailed(await exec("const m = 'm'.repeat(1e5)\nthrow new Error(m)"), 'internal_error', `Error: ${'m'.repeat(4096)}… at line 2:17`)
    assertFailed(await exec("const m = 'é'.repeat(1e5)\nthrow new Error(m)"), 'internal_error', `Error: ${'é'.repeat(2048)}… at line 2:17`)
    assertFailed(
      await exec("const e = new Error('short')\ne.name = 'N'.repeat(1e5)\nthrow e"),
      'internal_error', `${'N'.repeat(4096)}…: short at line 1:15`)
    assertFailed(await exec("throw 'u'.repeat(1e5)"), 'internal_error', `Uncaught: ${'u'.repeat(4096)}…`)
    await assertServes(codeMode)
  })

  test('a lone surrogate in a tool result becomes U+FFFD', async () => {
    const { codeMode, exec } = instance({}, async () => ({ s: '\ud800x\udc00', ['k\ud800']: 1 }))
    const result = await exec('const r = await tools.echo({}); return [[...r.s].map((c) => c.charCodeAt(0)), Object.keys(r).filter((k) => k !== "s").map((k) => k.charCodeAt(1))]')
    assertCompleted(result, [[0xfffd, 0x78, 0xfffd], [0xfffd]])
    await assertServes(codeMode)
  })
})
