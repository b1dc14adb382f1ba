// Regressions from the hostile review: host memory the guest cannot see,
// promises that must never be left pending, close() semantics.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { after, describe, test } from 'node:test'

import { binding } from './helpers.mjs'

const instances = []
after(async () => {
  for (const codeMode of instances) await codeMode.close()
})

function setup(config = {}, executeTool = async (call) => call.input) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 10000, ...config } })
  instances.push(codeMode)
  const run = codeMode.prepareRun({ runId: 'r', tools: [{ name: 'echo', description: '', source: 'openclaw' }], executeTool })
  return { codeMode, run }
}

describe('host memory stays bounded', () => {
  test('a console line of many large arguments stops at the output limit', async () => {
    const { run } = setup({ maxOutputBytes: 1024 })
    const result = await run.exec({ code: "const s = 'x'.repeat(1e6); console.log(s, s, s, s, s, s, s, s)" })
    assert.equal(result.code, 'output_limit_exceeded')
  })

  test('inputs of pending calls share one byte budget', async () => {
    const { run } = setup({ memoryLimitBytes: 4 * 1024 * 1024 }, () => new Promise(() => {}))
    const result = await run.exec({
      code: `
        const big = 'x'.repeat(600 * 1024)
        const errors = []
        for (let i = 0; i < 10; i++) tools.echo({ big }).catch((e) => errors.push(e.message))
        await null
        return errors`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.ok(result.value.length >= 6, `most calls over the 2 MiB budget are refused: ${result.value.length}`)
    assert.match(result.value[0], /^tool input is larger than the code mode bridge limit of 2097152 bytes/)
  })

  test('an uncaught error with a huge message is cut', async () => {
    const { run } = setup()
    const result = await run.exec({ code: "throw new Error('x'.repeat(1e6))" })
    assert.equal(result.code, 'internal_error')
    assert.ok(result.error.length < 5000, `error length ${result.error.length}`)
    assert.match(result.error, /^Error: x+…/)
  })

  test('a tool result nested too deep fails the call instead of losing data', async () => {
    const deep = {}
    let node = deep
    for (let i = 0; i < 1100; i++) node = node.next = {}
    const { run } = setup({}, () => deep)
    const result = await run.exec({ code: 'try { await tools.echo({}) } catch (e) { return e.message }' })
    assert.equal(result.value, 'tool result nests deeper than 1000 levels')
  })
})

describe('builtins that never poll the interrupt handler', () => {
  // A quadratic indexOf over a megabyte runs for minutes inside QuickJS with
  // no interrupt check: the watchdog answers the call and replaces the worker.
  const QUADRATIC = "const h = 'a'.repeat(1e6); const n = 'a'.repeat(4e4) + 'b'; return h.indexOf(n)"

  test('the call still ends as a timeout, and other cells keep running', async () => {
    const { run } = setup({ timeoutMs: 200 })
    const started = Date.now()
    const stuck = await run.exec({ code: QUADRATIC })
    assert.equal(stuck.status, 'failed')
    assert.equal(stuck.code, 'timeout')
    assert.ok(Date.now() - started < 20000, 'answered by the watchdog, not when the loop ends')
    const next = await Promise.all([1, 2, 3].map((n) => run.exec({ code: `return ${n}` })))
    assert.deepEqual(next.map((r) => r.value), [1, 2, 3])
  })

  test('close() does not wait for a stuck worker', async () => {
    const { codeMode, run } = setup({ timeoutMs: 60000 })
    const stuck = run.exec({ code: QUADRATIC })
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = Date.now()
    await codeMode.close()
    assert.ok(Date.now() - started < 20000, 'close() returned')
    assert.equal((await stuck).code, 'runtime_unavailable')
  })
})

describe('promises and close()', () => {
  test('exec right after close() (not awaited) is refused', async () => {
    const { codeMode, run } = setup()
    const closing = codeMode.close()
    const results = await Promise.all([run.exec({ code: 'return 1' }), run.exec({}), run.wait({})])
    for (const result of results) {
      assert.equal(result.code, 'runtime_unavailable')
      assert.equal(result.error, 'code mode is closed.')
    }
    await closing
  })

  test('the abort listener is removed when the call settles', async () => {
    const { run } = setup()
    const controller = new AbortController()
    const { signal } = controller
    let added = 0
    let removed = 0
    const add = signal.addEventListener.bind(signal)
    const remove = signal.removeEventListener.bind(signal)
    signal.addEventListener = (...args) => (added++, add(...args))
    signal.removeEventListener = (...args) => (removed++, remove(...args))
    for (let i = 0; i < 5; i++) await run.exec({ code: 'return 1' }, { signal })
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(added, 5)
    assert.equal(removed, 5)
  })

  test('a throwing input getter throws from exec and leaves nothing that holds the process', () => {
    const script = `
      const b = require(${JSON.stringify(new URL('../index.js', import.meta.url).pathname)})
      const cm = b.createCodeMode({ config: { enabled: true } })
      const run = cm.prepareRun({ runId: 'r', tools: [{ name: 'echo', description: '', source: 'openclaw' }], executeTool: async () => 1 })
      const hostile = { get code() { throw new Error('getter') } }
      const signal = { get aborted() { throw new Error('signal getter') } }
      let thrown = 0
      try { run.exec(hostile) } catch { thrown++ }
      try { run.exec({ code: 'return 1' }, { signal }) } catch { thrown++ }
      try { run.wait({ get runId() { throw new Error('x') } }) } catch { thrown++ }
      console.log(thrown)`
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 })
    assert.equal(child.signal, null, 'the process exited on its own')
    assert.equal(child.status, 0, child.stderr)
    assert.equal(child.stdout.trim(), '3')
  })
})
