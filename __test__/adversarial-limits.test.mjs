// The adversarial corpus (adversarial-fixtures.mjs), against the limits:
// microtask storms, regex backtracking, output floods, 5000 concurrent nested
// calls, memory bombs and huge yield reasons.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { assertCompleted, assertFailed, assertServes, closeInstances, instance, MEMORY, OUTPUT, QUEUE_FULL, TIMEOUT } from './adversarial-fixtures.mjs'

after(closeInstances)

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
