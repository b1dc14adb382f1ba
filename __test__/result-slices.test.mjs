// Tool results are written as JSON text in slices of the event loop's turns
// (host.js `writeResults`, result-json.js `writer`): a large one never holds
// the Node thread for its whole length, and every shape comes out exactly
// as written at once (docs/nested-calls.md "Results").
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { binding } from './helpers.mjs'

const instances = []
after(async () => {
  for (const codeMode of instances) await codeMode.close()
})

function surface(executeTool, config = {}) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000, memoryLimitBytes: 256 << 20, ...config }, workerThreads: 1 })
  instances.push(codeMode)
  const run = codeMode.prepareRun({ runId: 'r', tools: [{ name: 'echo', description: 'Echo', source: 'openclaw' }], executeTool })
  return async (code) => {
    const result = await run.exec({ code })
    return result.status === 'completed' ? result.value : result.error
  }
}

describe('tool results written in slices', () => {
  test('a large result is written over several turns of the event loop, not in one', async () => {
    // The getter is read when the writing reaches it, after the 8 MiB string
    // before it. Written in one go, it was read before any later turn.
    const order = []
    const value = { big: 'x'.repeat(8 << 20), get last() { order.push('written'); return 1 } }
    const cell = surface(async () => {
      setImmediate(() => order.push('next turn'))
      return value
    })
    assert.deepEqual(await cell('const r = await tools.echo({}); return [r.big.length, r.last]'), [8 << 20, 1])
    assert.deepEqual(order, ['next turn', 'written'])
  })

  test('every shape arrives as it would have whole: long strings and keys, pairs across chunks, Buffers, deep and wide values', async () => {
    const pair = '\ud83d\ude00'
    const shapes = {
      // A surrogate pair at every chunk boundary (chunks of 32,768 units).
      pairs: 'x'.repeat(32767) + pair + 'y'.repeat(32766) + pair + 'z',
      lone: 'a'.repeat(40000) + '\ud800' + 'b',
      key: { ['k'.repeat(70000)]: 'v'.repeat(70000), after: [undefined, () => 1, 2n] },
      error: new TypeError('m'.repeat(50000)),
      buffer: Buffer.from([0, 1, 255]),
      bigBuffer: Buffer.alloc(10000, 7),
      bytes: new Uint8Array([3, 4]),
      merged: { ['a\ud800']: 1, ['a\udc00']: { ['\ud801']: [1, 'w'.repeat(40000)], ['\udc01']: 2 }, b: 3 },
      wide: Array.from({ length: 100000 }, (_, i) => ({ i })),
    }
    let deep = 'bottom'
    for (let i = 0; i < 998; i++) deep = [deep]
    shapes.deep = deep
    const whole = (name) =>
      name === 'merged'
        ? '{"a\ufffd":{"\ufffd":2},"b":3}'
        : JSON.stringify(shapes[name], (key, v) => (typeof v === 'bigint' ? String(v) : typeof v === 'string' ? v.toWellFormed() : v instanceof Error ? { name: v.name, message: v.message } : v))
    // `want` answers the text the value should come out as.
    const cell = surface(async (call) => (call.input.want ? whole(call.input.shape) : shapes[call.input.shape]))
    for (const name of Object.keys(shapes)) {
      const code = `const shape = ${JSON.stringify(name)}; const got = JSON.stringify(await tools.echo({ shape })); const want = await tools.echo({ shape, want: true }); return got === want || [got.length, want.length, got.slice(0, 80)]`
      assert.equal(await cell(code), true, name)
    }
  })

  test('a result past the bridge budget fails with its whole length in bytes, however it was written', async () => {
    // 2 MiB budget (half of 4 MiB); "é" is two bytes of UTF-8.
    const MAX = 2 << 20
    const values = { at: 'é'.repeat(MAX / 2 - 1), past: { s: 'é'.repeat(MAX / 2) }, far: ['x'.repeat(5 * MAX)] }
    const cell = surface(async (call) => values[call.input.key], { memoryLimitBytes: 4 << 20 })
    const got = await cell(`
      const out = []
      for (const key of ['at', 'past', 'far']) {
        try { out.push((await tools.echo({ key })).length) } catch (e) { out.push(e.message) }
      }
      return out`)
    const tooLarge = (len) => `tool result of ${len} bytes is larger than the code mode bridge limit of ${MAX} bytes.`
    assert.deepEqual(got, [MAX / 2 - 1, tooLarge(MAX + 8), tooLarge(5 * MAX + 4)])
  })

  test('a result nested deeper than the bound fails its call, at the bound and one past it', async () => {
    const nest = (levels) => {
      let v = 1
      for (let i = 0; i < levels; i++) v = [v]
      return v
    }
    const cell = surface(async (call) => nest(call.input.levels))
    const got = await cell(`
      const out = []
      for (const levels of [1000, 1001]) {
        try { out.push(JSON.stringify(await tools.echo({ levels })).length) } catch (e) { out.push(e.message) }
      }
      return out`)
    assert.deepEqual(got, [2001, 'tool result nests deeper than 1000 levels'])
  })
})

describe('exec and wait results delivered in pieces', () => {
  // A result whose JSON text passes 16 KiB (INPUT_PIECE_BYTES) is cut into
  // pieces on the worker thread and assembled by host.js over several turns
  // of the event loop (host/batch.rs `ResultText`), instead of one JSON.parse.
  // How long a turn is held is measured by `npm run bench:stalls` (the
  // "output:" cases), not here.
  const config = { maxOutputBytes: 8 << 20 }

  test('every shape arrives as JSON.parse of the whole text would make it: the value, output items, __proto__ keys, deep and wide parts', async () => {
    const cell = `
      const deep = (n) => { let v = 'bottom'; for (let i = 0; i < n; i++) v = [v]; return v }
      const proto = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}')
      const wide = {}
      for (let i = 0; i < 20000; i++) wide['k' + i] = i % 3 === 0 ? 'é\\u2028"\\\\' + i : [i, { i }]
      const value = { proto, wide, nums: [-1.5, 1e21, 5e-324, 0.1, -7, 1.7976931348623157e308, true, false, null], deep: deep(900), long: 'x'.repeat(100000) + '\\ud83d\\ude00', list: Array.from({ length: 3000 }, (_, i) => ({ i, n: null, b: i % 2 === 0 })), nested: { a: { b: { c: { d: { e: { f: { g: { h: { i: { j: Array.from({ length: 5000 }, (_, i) => i) } } } } } } } } } } }
      json(value)
      console.log('y'.repeat(50000))
      return value`
    const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000, memoryLimitBytes: 256 << 20, ...config }, workerThreads: 1 })
    instances.push(codeMode)
    const run = codeMode.prepareRun({ runId: 'shapes', tools: [{ name: 'echo', description: 'Echo', source: 'openclaw' }], executeTool: async () => null })
    const result = await run.exec({ code: cell })
    assert.equal(result.status, 'completed', result.error)
    // The reference: the same cell's value as Node makes it.
    const expected = new Function(`const json = () => {}; const console = { log() {} }; ${cell}`)()
    assert.deepEqual(result.value, expected)
    assert.deepEqual(result.output[0], { type: 'json', value: expected })
    assert.deepEqual(result.output[1], { type: 'text', text: 'y'.repeat(50000) })
    // `__proto__` is an own data member, as JSON.parse makes it, not the prototype.
    assert.equal(Object.getPrototypeOf(result.value.proto), Object.prototype)
    assert.deepEqual(Object.keys(result.value.proto), ['__proto__', 'x'])
    assert.equal({}.polluted, undefined)
    assert.deepEqual(Object.keys(result.value.wide).slice(0, 3), ['k0', 'k1', 'k2'])
  })

  test('results of parallel runs each arrive whole and as their own', async () => {
    const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000, memoryLimitBytes: 256 << 20, ...config }, workerThreads: 2 })
    instances.push(codeMode)
    const execs = Array.from({ length: 6 }, (_, k) => {
      const run = codeMode.prepareRun({ runId: `parallel-${k}`, tools: [{ name: 'echo', description: 'Echo', source: 'openclaw' }], executeTool: async () => null })
      return run.exec({ code: `return { k: ${k}, items: Array.from({ length: ${20000 + k} }, (_, i) => [${k}, i]) }` })
    })
    const results = await Promise.all(execs)
    results.forEach((result, k) => {
      assert.equal(result.status, 'completed', result.error)
      assert.equal(result.value.k, k)
      assert.equal(result.value.items.length, 20000 + k)
      assert.deepEqual(result.value.items.at(-1), [k, 20000 + k - 1])
    })
  })
})
