// Timers inside a cell: setTimeout, clearTimeout, setInterval, clearInterval,
// owned by the run (docs/guest-runtime.md#timers, docs/parked-runs.md#timers).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { after, describe, test } from 'node:test'

import { binding, sleep } from './helpers.mjs'

const TOOLS = [
  { name: 'write', description: 'Side effects', source: 'openclaw' },
  { name: 'lookup', description: 'A replay-safe read', source: 'openclaw', replaySafe: true },
  { name: 'broken', description: 'Always fails', source: 'openclaw' },
  { name: 'slow', description: 'Answers after input.ms', source: 'openclaw' },
  { name: 'setTimeout', description: 'Never answers; shares a timer function name', source: 'openclaw' },
]

const TOO_MANY =
  'too many live timers: a code mode run holds at most 128 at once; clear one with clearTimeout or clearInterval first.'

const instances = []
after(async () => {
  for (const codeMode of instances) await codeMode.close()
})

/** A run surface whose tool calls are recorded in `calls`. */
function setup(config = {}, options = { workerThreads: 1 }) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000, ...config }, ...options })
  instances.push(codeMode)
  const calls = []
  const executeTool = (call) => {
    calls.push(call)
    if (call.name === 'broken') throw new Error('backend down')
    if (call.name === 'slow') return new Promise((resolve) => setTimeout(() => resolve({ slow: true }), call.input.ms))
    if (call.name === 'setTimeout') return new Promise(() => {})
    return { tool: call.name, input: call.input }
  }
  const run = codeMode.prepareRun({ runId: 'agent-run-1', sessionId: 'session-1', tools: TOOLS, executeTool })
  const exec = (code, extra = {}, call) => run.exec({ code, ...extra }, call)
  return { codeMode, run, calls, exec }
}

/** Runs `code` and returns its completed value. */
async function value(exec, code) {
  const result = await exec(code)
  assert.equal(result.status, 'completed', result.error)
  return result.value
}

describe('timers within the budget', () => {
  const { exec } = setup()

  test('the four timer functions exist and return positive integer ids', async () => {
    const ids = await value(
      exec,
      `return [typeof setTimeout, typeof clearTimeout, typeof setInterval, typeof clearInterval,
        setTimeout(() => {}, 0), setTimeout(() => {}, 0, 'a', 'b'), setInterval(() => {}, 5)]`,
    )
    assert.deepEqual(ids, ['function', 'function', 'function', 'function', 1, 2, 3])
  })

  test('a cell sleeps and resumes within its budget', async () => {
    // The timer is due 50 ms after it was armed, never earlier: a Rust test
    // checks the due time (sandbox/bound_tests.rs), and how long the cell
    // actually slept is measured by bench/probe/timings.mjs.
    const result = await exec("text('before'); const v = await new Promise((r) => setTimeout(r, 50, 'woke')); text('after'); return v")
    assert.equal(result.status, 'completed', result.error)
    assert.equal(result.value, 'woke')
    assert.deepEqual(result.output, [{ type: 'text', text: 'before' }, { type: 'text', text: 'after' }])
  })

  test('timers fire in due-time order, same delays in the order they were set, after the microtasks before them', async () => {
    const order = await value(
      exec,
      `const order = []
       setTimeout(() => order.push('c'), 30)
       setTimeout(() => order.push('a'), 10)
       setTimeout(() => order.push('b'), 20)
       setTimeout(() => order.push('a2'), 10)
       setTimeout(() => { order.push('zero'); Promise.resolve().then(() => order.push('zero-micro')) }, 0)
       setTimeout(() => order.push('zero2'), 0)
       Promise.resolve().then(() => order.push('micro'))
       order.push('sync')
       await new Promise((r) => setTimeout(r, 40))
       return order`,
    )
    assert.deepEqual(order, ['sync', 'micro', 'zero', 'zero-micro', 'zero2', 'a', 'a2', 'b', 'c'])
  })

  test('an async callback whose promise rejects fails the cell, like an unhandled rejection in Node', async () => {
    const result = await exec(`let tries = 0
const status = await new Promise((resolve) => {
  const id = setInterval(async () => {
    const s = await tools.broken({})
    if (++tries === 3) { clearInterval(id); resolve(s) }
  }, 10)
})
return status`)
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'internal_error')
    assert.equal(result.error, 'Error: backend down')
  })

  test('callbacks get the extra arguments and an undefined this', async () => {
    const got = await value(
      exec,
      `return await new Promise((r) => setTimeout(function (a, b) { 'use strict'; r([a, b, this === undefined]) }, 1, 'x', { y: 1 }))`,
    )
    assert.deepEqual(got, ['x', { y: 1 }, true])
  })

  test('clearTimeout and clearInterval clear either kind; other ids are ignored', async () => {
    const fired = await value(
      exec,
      `const fired = []
       const a = setTimeout(() => fired.push('a'), 5)
       const b = setTimeout(() => fired.push('b'), 5)
       const c = setInterval(() => fired.push('c'), 5)
       setTimeout(() => fired.push('kept'), 5)
       clearTimeout(a); clearInterval(b); clearTimeout(c)
       for (const id of [undefined, null, 'x', -1, 0.5, 1e300, {}, { valueOf: () => 4 }, 999]) { clearTimeout(id); clearInterval(id) }
       clearTimeout()
       await new Promise((r) => setTimeout(r, 30))
       return fired`,
    )
    assert.deepEqual(fired, ['kept'])
  })

  test('an id is read as the web reads it: a numeric string or a fraction clears the timer', async () => {
    const fired = await value(
      exec,
      `const fired = []
       const a = setTimeout(() => fired.push('a'), 5)
       const b = setTimeout(() => fired.push('b'), 5)
       const c = setTimeout(() => fired.push('c'), 5)
       clearTimeout(String(a)); clearInterval(b + 0.5); clearTimeout(' ' + c + ' ')
       setTimeout(() => fired.push('kept'), 5)
       await new Promise((r) => setTimeout(r, 30))
       return fired`,
    )
    assert.deepEqual(fired, ['kept'])
  })

  test('an interval cleared after N ticks ticks exactly N times', async () => {
    const ticks = await value(
      exec,
      `let ticks = 0
       await new Promise((r) => { const id = setInterval(() => { if (++ticks === 5) { clearInterval(id); r() } }, 1) })
       await new Promise((r) => setTimeout(r, 50))
       return ticks`,
    )
    assert.equal(ticks, 5)
  })

  test('delays: strings and objects are read as numbers, anything odd is 0, huge ones are clamped; symbols and bigints throw', async () => {
    const got = await value(
      exec,
      `const order = []
       setTimeout(() => order.push('20'), '20')
       setTimeout(() => order.push('obj10'), { valueOf: () => 10 })
       for (const d of [NaN, -5, undefined, null, 'soon', -Infinity]) setTimeout(() => order.push(String(d)), d)
       const far = [setTimeout(() => order.push('inf'), Infinity), setTimeout(() => order.push('huge'), 1e308), setInterval(() => order.push('huge-i'), 2 ** 40)]
       const thrown = []
       for (const d of [Symbol('s'), 10n]) { try { setTimeout(() => {}, d) } catch (e) { thrown.push(e.constructor.name) } }
       await new Promise((r) => setTimeout(r, 40))
       far.forEach(clearTimeout)
       return { order, thrown }`,
    )
    assert.deepEqual(got.order, ['NaN', '-5', 'undefined', 'null', 'soon', '-Infinity', 'obj10', '20'])
    assert.deepEqual(got.thrown, ['TypeError', 'TypeError'])
  })

  test('setInterval has a minimum period of 10 ms', async () => {
    // Counted by due times, not by a clock: timers fire in due-time order, so
    // before a 100 ms timer armed ahead of the interval at most 9 ticks of a
    // 10 ms period are due, and before one armed after it at least the first.
    // However late the worker looks, neither count can be otherwise.
    const [before, after] = await value(
      exec,
      `let ticks = 0
       let before
       setTimeout(() => { before = ticks }, 100)
       const id = setInterval(() => ticks++, 0)
       const after = await new Promise((r) => setTimeout(() => r(ticks), 100))
       clearInterval(id)
       return [before, after]`,
    )
    assert.ok(before <= 9, `${before} ticks due before the timer armed first`)
    assert.ok(after >= 1, `${after} ticks due before the timer armed last`)
  })

  test('a callback that is not a function is a TypeError; strings of code never run', async () => {
    const result = await exec('globalThis.ran = false; setTimeout("globalThis.ran = true", 0)')
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'internal_error')
    assert.equal(result.error, 'TypeError: setTimeout expects a function as its first argument; strings of code are not run. at line 1:25')
    const caught = await value(exec, 'try { setInterval(null, 5) } catch (e) { return [e instanceof TypeError, e.message] }')
    assert.deepEqual(caught, [true, 'setInterval expects a function as its first argument; strings of code are not run.'])
  })

  test('a callback that throws fails the cell with its error, like any uncaught error', async () => {
    const result = await exec(`text('before')
setTimeout(() => { throw new RangeError('boom') }, 1)
await new Promise((r) => setTimeout(r, 1000))
return 'not reached'`)
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'internal_error')
    assert.equal(result.error, 'RangeError: boom at line 2:30')
    assert.deepEqual(result.output, [{ type: 'text', text: 'before' }])
  })
})

describe('the run owns its timers', () => {
  test('a timer on a run that completes never fires', async () => {
    const { exec, calls } = setup()
    const result = await exec("setTimeout(() => tools.write({ late: true }), 20); setInterval(() => tools.write({ tick: true }), 10); text('done'); return 1")
    assert.equal(result.status, 'completed')
    assert.equal(result.value, 1)
    await sleep(100)
    assert.deepEqual(calls, [])
  })

  test('a run that fails or is aborted drops its timers', async () => {
    const { exec, calls } = setup()
    const failed = await exec("setInterval(() => tools.write({ tick: true }), 10); throw new Error('stop')")
    assert.equal(failed.status, 'failed')
    const controller = new AbortController()
    const pending = exec("setInterval(() => tools.write({ tick: true }), 10); await new Promise((r) => setTimeout(r, 600000))", {}, { signal: controller.signal })
    await sleep(20)
    const callsBeforeAbort = calls.length
    controller.abort()
    const aborted = await pending
    assert.equal(aborted.status, 'failed')
    assert.equal(aborted.code, 'aborted')
    const afterAbort = calls.length
    assert.ok(afterAbort >= callsBeforeAbort)
    await sleep(60)
    assert.equal(calls.length, afterAbort, 'no tick after the run ended')
  })

  test('at most 128 live timers per run; a fired or cleared timer frees its place', async () => {
    const { exec } = setup()
    const got = await value(
      exec,
      `const ids = []
       let error
       try { for (let i = 0; i < 200; i++) ids.push(i % 2 ? setTimeout(() => {}, 60000) : setInterval(() => {}, 60000)) } catch (e) { error = e }
       const plain = Object.getPrototypeOf(error) === Error.prototype
       clearTimeout(ids.pop())
       const again = setTimeout(() => {}, 0)
       let full = false
       try { setTimeout(() => {}, 0) } catch (e) { full = e.message }
       await new Promise((r) => setTimeout(r, 0)).catch(() => {})
       ids.forEach(clearTimeout)
       return { count: ids.length + 1, plain, message: error.message, again: typeof again, full }`,
    )
    assert.deepEqual(got, { count: 128, plain: true, message: TOO_MANY, again: 'number', full: TOO_MANY })
  })
})

describe('timers and parked runs', () => {
  test('a timer pending at the budget end parks the run; a wait after it falls due fires it', async () => {
    const { run } = setup({ timeoutMs: 200 })
    const waiting = await run.exec(
      { code: "text('start'); await new Promise((r) => setTimeout(r, 400)); text('woke'); return 'done'" },
      { toolCallId: 'call_exec' },
    )
    assert.equal(waiting.status, 'waiting')
    assert.equal(waiting.reason, 'pending_tools')
    assert.deepEqual(waiting.pendingToolCalls, [{ id: 'code_mode:call_exec:setTimeout:1', method: 'setTimeout' }])
    assert.deepEqual(waiting.output, [{ type: 'text', text: 'start' }])
    await sleep(450)
    const done = await run.wait({ runId: waiting.runId }, { toolCallId: 'call_wait' })
    assert.equal(done.status, 'completed', done.error)
    assert.equal(done.value, 'done')
    assert.deepEqual(done.output, [{ type: 'text', text: 'woke' }])
  })

  test('a wait before the timer is due sleeps through its budget and parks again under the same runId', async () => {
    const { run } = setup({ timeoutMs: 100 })
    const waiting = await run.exec({ code: 'await new Promise((r) => setTimeout(r, 600000)); return 1' })
    assert.equal(waiting.status, 'waiting')
    const again = await run.wait({ runId: waiting.runId })
    assert.equal(again.status, 'waiting')
    assert.equal(again.runId, waiting.runId, 'nothing ran')
    assert.deepEqual(again.pendingToolCalls, waiting.pendingToolCalls)
  })

  test('a result that arrived after a timer fell due reaches the guest after the timer fires, parked or not', async () => {
    const race = `return await Promise.race([
      tools.slow({ ms: 300 }).then(() => 'tool answered first'),
      new Promise((r) => setTimeout(() => r('timer fired first'), 150)),
    ])`
    const { run } = setup({ timeoutMs: 100 })
    const waiting = await run.exec({ code: race })
    assert.equal(waiting.status, 'waiting')
    // Both are due by the time the wait comes: the timer (150 ms) first.
    await sleep(600)
    const done = await run.wait({ runId: waiting.runId })
    assert.equal(done.status, 'completed', done.error)
    assert.equal(done.value, 'timer fired first')
  })

  test('timer ids in pendingToolCalls are unique in the run surface, even beside a tool named setTimeout', async () => {
    const { run } = setup({ timeoutMs: 100 })
    const first = await run.exec({ code: "setTimeout(() => {}, 600000); await tools.setTimeout({})" }, { toolCallId: 'call_1' })
    const second = await run.exec({ code: 'setTimeout(() => {}, 600000); await new Promise(() => {})' }, { toolCallId: 'call_1' })
    const ids = [...first.pendingToolCalls, ...second.pendingToolCalls].map((call) => call.id)
    assert.equal(new Set(ids).size, ids.length, ids.join(' '))
    assert.deepEqual(first.pendingToolCalls.map((call) => call.method).sort(), ['call', 'setTimeout'].sort())
  })

  test('timers that fell due while parked fire on the next wait in due-time order', async () => {
    const { run } = setup({ timeoutMs: 100 })
    const waiting = await run.exec({
      code: `const order = []
             setTimeout(() => order.push(2), 300)
             setTimeout(() => order.push(1), 250)
             setTimeout(() => order.push(3), 350)
             await new Promise((r) => setTimeout(r, 400))
             return order`,
    })
    assert.equal(waiting.status, 'waiting')
    assert.deepEqual(
      waiting.pendingToolCalls.map((call) => [call.id, call.method]),
      [['code_mode:exec:setTimeout:2', 'setTimeout'], ['code_mode:exec:setTimeout:1', 'setTimeout'], ['code_mode:exec:setTimeout:3', 'setTimeout'], ['code_mode:exec:setTimeout:4', 'setTimeout']],
      'earliest due first',
    )
    await sleep(450)
    const done = await run.wait({ runId: waiting.runId })
    assert.equal(done.status, 'completed', done.error)
    assert.deepEqual(done.value, [1, 2, 3])
  })

  test('an interval keeps ticking across waits until cleared', async () => {
    const { run } = setup({ timeoutMs: 100 })
    let result = await run.exec({
      code: `let ticks = 0
             await new Promise((r) => { const id = setInterval(() => { if (++ticks === 15) { clearInterval(id); r() } }, 20) })
             return ticks`,
    })
    let legs = 1
    while (result.status === 'waiting') {
      assert.ok(legs <= 40, 'the run never completed')
      assert.deepEqual(result.pendingToolCalls.map((call) => call.method), ['setInterval'])
      result = await run.wait({ runId: result.runId })
      legs++
    }
    assert.equal(result.status, 'completed', result.error)
    assert.equal(result.value, 15)
    assert.ok(legs >= 2, 'it parked at least once')
  })

  test('parked timers count toward snapshotBytes', async () => {
    const { run } = setup({ timeoutMs: 100 })
    const park = async (count) => {
      const result = await run.exec({ code: `for (let i = 0; i < ${count}; i++) setTimeout(() => {}, 600000); await new Promise(() => {})` })
      assert.equal(result.status, 'waiting')
      assert.equal(result.pendingToolCalls.length, count)
      return result.snapshotBytes
    }
    const one = await park(1)
    const many = await park(101)
    // Each live timer: 160 host bytes plus its id, beyond its closure in the heap.
    assert.ok(many - one >= 100 * 160, `${one} -> ${many}`)
    const small = await setup({ timeoutMs: 100, maxSnapshotBytes: one + 1000 }).run.exec({ code: 'for (let i = 0; i < 101; i++) setTimeout(() => {}, 600000); await new Promise(() => {})' })
    assert.equal(small.status, 'failed')
    assert.equal(small.code, 'snapshot_limit_exceeded')
  })

  test('restartSafe cells may use timers: they park at their awaits', async () => {
    const { run, calls } = setup({ timeoutMs: 5000 })
    let result = await run.exec({ code: 'await new Promise((r) => setTimeout(r, 20)); const a = await tools.lookup({ v: 1 }); return a.input.v', restartSafe: true })
    assert.equal(result.status, 'waiting')
    assert.equal(result.replaySafe, true)
    assert.deepEqual(result.pendingToolCalls.map((call) => call.method), ['setTimeout'])
    for (let waits = 0; result.status === 'waiting'; waits++) {
      assert.ok(waits < 20, 'the run never completed')
      result = await run.wait({ runId: result.runId })
    }
    assert.equal(result.status, 'completed', result.error)
    assert.equal(result.value, 1)
    assert.equal(result.replaySafe, true)
    assert.equal(calls.length, 1)
  })

  test('a parked run with pending timers does not keep the process alive', () => {
    const script = `
      const b = require(${JSON.stringify(new URL('../index.js', import.meta.url).pathname)})
      const cm = b.createCodeMode({ config: { enabled: true, timeoutMs: 10000 } })
      const run = cm.prepareRun({ runId: 'r', tools: [{ name: 'x', description: '', source: 'openclaw' }], executeTool: () => null })
      // Parked at once by the yield (not by a budget a loaded machine may
      // spend before the cell starts), with an interval and a timer live.
      run.exec({ code: 'setInterval(() => {}, 10); setTimeout(() => {}, 600000); await yield_control()' }).then((r) => console.log(r.status, cm.suspendedRunCount(), r.pendingToolCalls.map((c) => c.method).join()))`
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 })
    assert.equal(child.status, 0, child.stderr)
    assert.equal(child.stdout.trim(), 'waiting 1 yield,setInterval,setTimeout')
  })
})

describe('timers and other sessions', () => {
  test("a timer fires on time while another session computes on the run's worker", async () => {
    const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 }, workerThreads: 1 })
    instances.push(codeMode)
    const surface = (sessionId) => codeMode.prepareRun({ runId: `r-${sessionId}`, sessionId, tools: TOOLS, executeTool: () => null })
    const order = []
    const sleeper = surface('a')
      .exec({ code: 'await new Promise((r) => setTimeout(r, 100)); return "slept"' })
      .then((result) => order.push(result.value))
    await sleep(20)
    // The only worker holds the sleeping run and takes this one.
    const computer = surface('b')
      .exec({ code: 'const t0 = Date.now(); while (Date.now() - t0 < 3000); return "computed"' })
      .then((result) => order.push(result.value))
    await Promise.all([sleeper, computer])
    assert.deepEqual(order, ['slept', 'computed'])
  })
})

describe('hostile timer use', () => {
  test('a loop arming timers hits the cap and then the deadline', async () => {
    const { exec } = setup({ timeoutMs: 300 })
    const result = await exec('let n = 0; for (;;) { try { setTimeout(() => {}, 0); n++ } catch {} }')
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'timeout')
  })

  test('a flood of zero-delay timers and intervals stays within the budget and leaves the worker to others', async () => {
    const { run, exec } = setup({ timeoutMs: 60000 }, { workerThreads: 1 })
    const controller = new AbortController()
    let floodDone = false
    const flood = run
      .exec(
        {
          code: `let n = 0
                 const again = () => { n++; setTimeout(again, 0) }
                 for (let i = 0; i < 64; i++) again()
                 for (let i = 0; i < 60; i++) setInterval(() => { n++ }, 0)
                 await new Promise(() => {})`,
        },
        { signal: controller.signal },
      )
      .finally(() => {
        floodDone = true
      })
    await sleep(50)
    // Another cell on the same single worker still runs while the flood goes on.
    const other = setup({}, { workerThreads: 1 })
    assert.equal(await value(other.exec, 'return 1 + 1'), 2)
    assert.equal(await value(exec, 'await new Promise((r) => setTimeout(r, 5)); return "same engine"'), 'same engine')
    assert.equal(floodDone, false)
    controller.abort()
    const aborted = await flood
    assert.equal(aborted.code, 'aborted')
  })

  test('a chain of timers that outlives its budget parks; each wait gives it one more budget', async () => {
    // (The chain sleeps between its timers, so the budget ends while it
    // waits, not inside a callback: that would be a timeout, as for any
    // guest computing at its deadline.)
    const { run } = setup({ timeoutMs: 100 })
    const waiting = await run.exec({ code: 'let n = 0; const again = () => { n++; setTimeout(again, 5) }; again(); await new Promise(() => {})' })
    assert.equal(waiting.status, 'waiting')
    assert.equal(waiting.pendingToolCalls.length, 1)
    const again = await run.wait({ runId: waiting.runId })
    assert.equal(again.status, 'waiting')
    assert.notEqual(again.runId, waiting.runId, 'timers fired: a new runId')
  })
})
