// Builtins whose loops grow with guest input stop at the deadline, on the VM's
// own worker: none of them leaves a thread behind. These cells used to run for
// seconds to forever inside QuickJS without reaching the interrupt handler;
// the vendored QuickJS polls in each loop (vendor/rquickjs-sys/PATCHES.md).
import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'

import { binding, codeModeFactory, TOOLS, until } from './helpers.mjs'

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

const TIMEOUT = 'code mode timeout exceeded.'

function runWith(config) {
  const codeMode = codeModes.enabled({ memoryLimitBytes: 256 << 20, ...config }, { workerThreads: 2 })
  return codeMode.prepareRun({ runId: 'builtins', tools: TOOLS, executeTool: async () => null })
}

const running = () => binding.codeModeDiagnostics().abandonedWorkersRunning

/**
 * No worker is left computing. A builtin that polls stops at the deadline on
 * its own worker; on a loaded machine the watchdog may still abandon that
 * worker (it was not scheduled within 500 ms of the deadline), and the worker
 * then gets back at its next poll. A builtin that does not poll keeps its
 * thread for minutes to forever. (Whether any worker was abandoned at all
 * depends on the machine's load, so it is not asserted.)
 */
async function assertNoWorkerLeftComputing(before) {
  await until(() => running() <= before, 'every abandoned worker to get back', 60000)
}

/** Every cell ends with `timeout`, and leaves no worker computing. */
async function assertAllStopAtTheDeadline(run, cells) {
  const before = running()
  for (const [name, code] of Object.entries(cells)) {
    const result = await run.exec({ code })
    assert.equal(result.status, 'failed', `${name}: ${JSON.stringify(result)}`)
    assert.equal(result.code, 'timeout', `${name}: ${result.error}`)
    assert.equal(result.error, TIMEOUT, name)
  }
  await assertNoWorkerLeftComputing(before)
  assert.equal((await run.exec({ code: 'return 1' })).value, 1, 'the instance keeps serving')
}

describe('builtins over huge array-likes poll the interrupt handler', () => {
  test('Array.prototype methods on {length: 2**53 - 1}', async () => {
    const huge = '{ length: 2 ** 53 - 1 }'
    await assertAllStopAtTheDeadline(runWith({ timeoutMs: 150 }), {
      reverse: `Array.prototype.reverse.call(${huge})`,
      copyWithin: `Array.prototype.copyWithin.call(${huge}, 0, 1)`,
      unshift: 'Array.prototype.unshift.call({ length: 2 ** 53 - 2 }, 1)',
      shift: `Array.prototype.shift.call(${huge})`,
      splice: `Array.prototype.splice.call(${huge}, 0, 1)`,
      sort: 'Array.prototype.sort.call({ length: 2 ** 32 - 1 })',
      fill: `Array.prototype.fill.call(${huge}, 0)`,
      join: `Array.prototype.join.call(${huge}, '')`,
      flat: `Array.prototype.flat.call(${huge})`,
      concat: `[].concat({ length: 2 ** 53 - 1, [Symbol.isConcatSpreadable]: true })`,
      from: 'Array.from({ length: 2 ** 32 - 1 })',
      lastIndexOf: `Array.prototype.lastIndexOf.call(${huge}, 1)`,
      stringRaw: `String.raw({ raw: ${huge} })`,
    })
  })

  test('typed arrays: from, set, join and sort', async () => {
    await assertAllStopAtTheDeadline(runWith({ timeoutMs: 150 }), {
      from: 'Uint8Array.from({ length: 2 ** 25 })',
      set: 'new Uint8Array(2 ** 25).set({ length: 2 ** 25 })',
      join: 'new Uint8Array(2 ** 26).join()',
      sortLoop: 'const a = new Uint8Array(2 ** 24); for (;;) a.sort()',
    })
  })
})

describe('quadratic string and number work polls the interrupt handler', () => {
  test('substring search, split and replaceAll over megabytes', async () => {
    const setup = "const h = 'a'.repeat(2e6); const n = 'a'.repeat(1e6) + 'b';"
    await assertAllStopAtTheDeadline(runWith({ timeoutMs: 150 }), {
      indexOf: `${setup} h.indexOf(n)`,
      lastIndexOf: `${setup} h.lastIndexOf(n)`,
      includes: `${setup} h.includes(n)`,
      split: `${setup} h.split(n)`,
      replaceAll: `${setup} h.replaceAll(n, '')`,
    })
  })

  test('BigInt to decimal, and the duplicate-key check of a Proxy ownKeys trap', async () => {
    await assertAllStopAtTheDeadline(runWith({ timeoutMs: 150 }), {
      toString: 'const x = 7n ** 300000n; for (;;) x.toString()',
      ownKeys: "const keys = Array.from({ length: 200000 }, (_, i) => 'k' + i); Reflect.ownKeys(new Proxy({}, { ownKeys: () => keys }))",
    })
  })

  test('long runs of combining marks normalize in linear time', async () => {
    const run = runWith({ timeoutMs: 30000 })
    const marks = "'\\u0301\\u0316'.repeat(300000)"
    const nfd = await run.exec({ code: `return ('a' + ${marks}).normalize('NFD').length` })
    assert.equal(nfd.status, 'completed', nfd.error)
    assert.equal(nfd.value, 600001)
    const compared = await run.exec({ code: `const s = 'q' + ${marks}; return [s.localeCompare(s), s.localeCompare(s + 'b')]` })
    assert.deepEqual(compared.value, [0, -1], compared.error)
    // Canonical order: class 220 (U+0316) before class 230 (U+0301), stable.
    const ordered = await run.exec({ code: "return 'a\\u0301\\u0316'.repeat(40).normalize('NFD') === ('a\\u0316\\u0301').repeat(40)" })
    assert.equal(ordered.value, true)
    const long = await run.exec({
      code: "const s = 'a' + '\\u0301\\u0316\\u0300'.repeat(50); const n = s.normalize('NFD'); return [n.slice(1, 51) === '\\u0316'.repeat(50), n.slice(51) === '\\u0301\\u0300'.repeat(50)]",
    })
    assert.deepEqual(long.value, [true, true], 'a long run sorts stably by class')
  })
})

describe('a loop of long builtin calls stops after the call it is in', () => {
  // Each step is one call that does millions of units of work: the interrupt
  // counter alone would reach the handler only after 10,000 of them.
  test('string, array, JSON and typed-array steps', async () => {
    await assertAllStopAtTheDeadline(runWith({ timeoutMs: 150 }), {
      toUpperCase: "const s = '\\u00df'.repeat(1 << 22); for (;;) s.toUpperCase()",
      slice: 'const a = new Array(1 << 22).fill(1); for (;;) a.slice()',
      fill: 'const a = new Uint8Array(1 << 25); for (;;) a.fill(1)',
      parse: "const s = JSON.stringify(new Array(1 << 20).fill('abc')); for (;;) JSON.parse(s)",
      repeat: "for (;;) 'ab'.repeat(1 << 24)",
    })
  })

  test('an abort reaches a VM inside such a loop', async () => {
    const run = runWith({ timeoutMs: 60000 })
    const controller = new AbortController()
    const pending = run.exec({ code: "const s = '\\u00df'.repeat(1 << 22); for (;;) s.toUpperCase()" }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 200)
    const before = running()
    const result = await pending
    assert.equal(result.code, 'aborted', result.error)
    await assertNoWorkerLeftComputing(before)
  })
})

describe('sorting', () => {
  test('an interrupted sort stops at once and sorts still sort', async () => {
    const run = runWith({ timeoutMs: 30000 })
    const sorted = await run.exec({
      code: `
        const t = new Float64Array([3, -0, 0, NaN, -Infinity, 2]).sort()
        const u = new Int16Array([5, -3, 9, 0]).sort()
        const a = [10, 9, 1, 'b', 'a', undefined, 2].sort()
        const c = [3, 1, 2].sort((x, y) => y - x)
        return [Array.from(t).map(String), Array.from(u), a, c, [..."hello"].toSorted().join('')]`,
    })
    assert.equal(sorted.status, 'completed', sorted.error)
    assert.deepEqual(sorted.value, [
      ['-Infinity', '0', '0', '2', '3', 'NaN'],
      [-3, 0, 5, 9],
      [1, 10, 2, 9, 'a', 'b', null],
      [3, 2, 1],
      'ehllo',
    ])
    const slow = runWith({ timeoutMs: 1000 })
    await assertAllStopAtTheDeadline(slow, {
      float64: 'const a = new Float64Array(1 << 23); for (let i = 0; i < a.length; i++) a[i] = Math.random(); for (;;) a.slice().sort()',
      strings: 'const a = []; for (let i = 0; i < 1e6; i++) a.push(String(Math.random())); for (;;) a.slice().sort()',
    })
  })
})
