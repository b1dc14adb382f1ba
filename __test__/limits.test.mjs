import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { surface } from './helpers.mjs'

describe('limits', () => {
  test('for(;;){} and a loop after await time out while the event loop keeps turning', async () => {
    // How long after its budget a spinning cell is answered is measured by
    // bench/probe/timings.mjs, not here.
    const { codeMode, exec } = surface({ timeoutMs: 300 })
    for (const code of ['for(;;){}', 'await null; for(;;){}', 'await Promise.resolve(); while (true) { try { for(;;){} } catch {} }']) {
      // Turns of the event loop while the guest spins: a cell run on this
      // thread would resolve before the first setImmediate callback.
      let turns = 0
      let spinning = true
      const turn = () => {
        if (!spinning) return
        turns++
        setImmediate(turn)
      }
      setImmediate(turn)
      const result = await exec(code)
      spinning = false
      assert.equal(result.code, 'timeout', code)
      assert.equal(result.error, 'code mode timeout exceeded.')
      assert.ok(turns > 0, 'the Node event loop turned while the guest spun')
    }
    await codeMode.close()
  })

  test('a memory bomb fails and the next exec succeeds', async () => {
    const { codeMode, exec } = surface({ memoryLimitBytes: 16 * 1024 * 1024 })
    for (const code of [
      'const a = []; for (;;) a.push({n: a.length})',
      'const a = []; try { for (;;) a.push(new Array(1000).fill(1)) } catch (e) {} return "caught"',
      "let s = 'x'; for (;;) { s += s; s.indexOf('y') }",
    ]) {
      const result = await exec(code)
      assert.equal(result.code, 'internal_error', code)
      assert.equal(result.error, 'code mode memory limit exceeded.')
    }
    assert.equal((await exec('return "fine"')).value, 'fine')
    await codeMode.close()
  })

  test('deep recursion fails cleanly and can be caught', async () => {
    const { codeMode, exec } = surface()
    const result = await exec('function f(n) { return f(n + 1) + 1 }\nreturn f(0)')
    assert.equal(result.code, 'internal_error')
    assert.match(result.error, /^RangeError: /)
    assert.equal((await exec('function f() { return f() }\ntry { f() } catch (e) { return e.name }')).value, 'RangeError')
    await codeMode.close()
  })

  test('a text() flood and a huge return value exceed the output limit', async () => {
    const { codeMode, exec } = surface({ maxOutputBytes: 4096 })
    const flood = await exec('for (let i = 0; ; i++) text("line " + i)')
    assert.equal(flood.code, 'output_limit_exceeded')
    assert.ok(flood.output.length > 10, 'the items that fit are kept')
    assert.ok(JSON.stringify(flood.output).length <= 4096)
    assert.deepEqual(flood.output[0], { type: 'text', text: 'line 0' })
    const huge = await exec('return "x".repeat(100000)')
    assert.equal(huge.code, 'output_limit_exceeded')
    const jsonFlood = await exec('const big = Array.from({length: 10000}, (_, i) => ({i})); json(big)')
    assert.equal(jsonFlood.code, 'output_limit_exceeded')
    await codeMode.close()
  })

  test('two cells run in parallel on two worker threads', async () => {
    const order = async (workerThreads) => {
      const { codeMode, exec } = surface({ timeoutMs: 1500 }, { workerThreads })
      const seen = []
      const spinning = exec('for(;;){}').then((r) => seen.push(['spinner', r.code]))
      const quick = exec('return 1').then((r) => seen.push(['quick', r.status === 'completed' ? r.value : r.code]))
      await Promise.all([spinning, quick])
      await codeMode.close()
      return seen
    }
    // With two workers the quick cell finishes while the spinner still runs.
    assert.deepEqual(await order(2), [['quick', 1], ['spinner', 'timeout']])
    // With one worker it waits for the spinner, and that wait counts against its
    // own budget (docs/parked-runs.md): it never runs, and is answered at its
    // deadline, about when the spinner is (docs/scheduling.md, rule 7), in
    // either order.
    assert.deepEqual((await order(1)).sort(), [['quick', 'timeout'], ['spinner', 'timeout']])
  })

  test('abort: an aborted signal runs nothing; a later abort stops a running cell', async () => {
    const { codeMode, exec } = surface()
    const done = new AbortController()
    done.abort()
    const before = await exec('text("ran"); return 1', { signal: done.signal })
    assert.equal(before.code, 'aborted')
    assert.deepEqual(before.output, [])
    const later = new AbortController()
    setTimeout(() => later.abort(), 50)
    assert.equal((await exec('for(;;){}', { signal: later.signal })).code, 'aborted')
    await codeMode.close()
  })

  test('close() settles running cells and refuses new ones', async () => {
    const { codeMode, exec } = surface({ timeoutMs: 60000 })
    const running = exec('for(;;){}')
    await new Promise((resolve) => setTimeout(resolve, 50))
    await codeMode.close()
    assert.equal((await running).code, 'runtime_unavailable')
    const after = await exec('return 1')
    assert.deepEqual([after.code, after.error], ['runtime_unavailable', 'code mode is closed.'])
    assert.equal(codeMode.suspendedRunCount(), 0)
  })
})
