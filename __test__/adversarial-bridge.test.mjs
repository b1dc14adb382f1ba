// The adversarial corpus (adversarial-fixtures.mjs), across the bridge: escape
// through it, hostile tool inputs (Proxy, getters, toJSON), and data that must
// cross whole both ways.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { assertCompleted, assertFailed, assertServes, bridgeLimit, closeInstances, INPUT_TOO_DEEP, instance, TIMEOUT } from './adversarial-fixtures.mjs'
import { unknownToolId } from './helpers.mjs'

after(closeInstances)

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
