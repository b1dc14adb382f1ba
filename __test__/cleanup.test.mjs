// What happens to nested calls when a run ends early: the budget, aborts,
// calls left in flight, and process exit (docs/parked-runs.md, docs/nested-calls.md).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { after, describe, test } from 'node:test'

import { abortReport, binding, codeModeFactory, tool, watchSignal } from './helpers.mjs'

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

describe('the budget, aborts and cleanup (docs/parked-runs.md)', () => {
  /** A surface whose `hang` never settles and whose `quick` answers at once; signals are watched. */
  function hanging(config = {}, onCall = () => {}) {
    const watched = []
    const run = codeModes.enabled(config).prepareRun({
      runId: 'r',
      tools: [tool('hang'), tool('quick')],
      executeTool: (call) => {
        const watch = watchSignal(call.signal)
        watch.toolCallId = call.toolCallId
        watched.push(watch)
        onCall(call)
        return call.name === 'quick' ? 'quick' : new Promise(() => {})
      },
    })
    return { run, watched }
  }

  test('a call that never settles: the run parks with the call running; dropping the run aborts it', async () => {
    const { run, watched } = hanging({ timeoutMs: 300 })
    const result = await run.exec({ code: 'text("before"); await tools.hang({}); text("after"); return 1' })
    assert.equal(result.status, 'waiting')
    assert.equal(result.reason, 'pending_tools')
    assert.deepEqual(result.output, [{ type: 'text', text: 'before' }])
    assert.equal(watched.length, 1)
    assert.equal(watched[0].isAbortSignal, true)
    assert.equal(watched[0].abortedAtStart, false)
    assert.deepEqual(await abortReport(watched[0], 50), { fired: false }, 'a parked run keeps its calls running')
    const controller = new AbortController()
    controller.abort()
    const dropped = await run.wait({ runId: result.runId }, { signal: controller.signal })
    assert.equal(dropped.code, 'aborted')
    assert.deepEqual(await abortReport(watched[0]), { fired: true, aborted: true })
  })

  test("aborting the exec's signal while a call is pending: aborted, and the call's signal fires", async () => {
    const controller = new AbortController()
    const { run, watched } = hanging({}, (call) => {
      if (call.name === 'hang') setImmediate(() => controller.abort())
    })
    const result = await run.exec({ code: 'await tools.hang({}); return 1' }, { signal: controller.signal, toolCallId: 'call_abort' })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'aborted')
    assert.equal(watched.length, 1)
    assert.deepEqual(await abortReport(watched[0]), { fired: true, aborted: true })
  })

  test('calls still in flight when a cell completes are aborted', async () => {
    const { run, watched } = hanging()
    const result = await run.exec({
      code: `
        tools.hang({ n: 1 })
        tools.call('hang', { n: 2 }).catch(() => {})
        return await tools.quick({})`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.equal(result.value, 'quick')
    const hangs = watched.filter((w) => w.toolCallId.includes(':hang:'))
    assert.equal(hangs.length, 2)
    for (const watch of hangs) assert.deepEqual(await abortReport(watch), { fired: true, aborted: true }, watch.toolCallId)
    const quick = watched.find((w) => w.toolCallId.includes(':quick:'))
    assert.equal(quick.abortedAtStart, false)
  })

  test('calls still in flight when a cell fails are aborted', async () => {
    const { run, watched } = hanging()
    const result = await run.exec({ code: `tools.hang({}); await tools.quick({}); throw new Error('stop')` })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'internal_error')
    const hang = watched.find((w) => w.toolCallId.includes(':hang:'))
    assert.deepEqual(await abortReport(hang), { fired: true, aborted: true })
  })

  test('an aborted call reports a finished event with ok false', async () => {
    const events = []
    const controller = new AbortController()
    const run = codeModes.enabled({}).prepareRun({
      runId: 'r',
      tools: [tool('hang')],
      onEvent: (e) => events.push(e),
      executeTool: () => {
        setImmediate(() => controller.abort())
        return new Promise(() => {})
      },
    })
    const result = await run.exec({ code: 'await tools.hang({})' }, { toolCallId: 'call_t', signal: controller.signal })
    assert.equal(result.code, 'aborted')
    const finished = events.filter((e) => e.type === 'nested_call_finished')
    assert.equal(finished.length, 1)
    assert.equal(finished[0].toolCallId, 'code_mode:call_t:hang:1')
    assert.equal(finished[0].ok, false)
    assert.equal(typeof finished[0].error, 'string')
  })
})

describe('process exit (docs/parked-runs.md)', () => {
  const index = JSON.stringify(new URL('../index.js', import.meta.url).pathname)
  const runChild = (script) => spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 })

  test('a process that never calls close() exits on its own', () => {
    const child = runChild(`
      const b = require(${index})
      const cm = b.createCodeMode({ config: { enabled: true, timeoutMs: 1000 } })
      const run = cm.prepareRun({
        runId: 'r',
        tools: [{ name: 'echo', description: '', source: 'openclaw' }, { name: 'hang', description: '', source: 'openclaw' }],
        executeTool: async (call) => (call.name === 'echo' ? call.input : new Promise(() => {})),
      })
      ;(async () => {
        const done = await run.exec({ code: 'return await tools.echo({ v: 7 })' })
        const parked = await run.exec({ code: 'return await tools.hang({})' })
        console.log(JSON.stringify([done.value, parked.status, cm.suspendedRunCount()]))
      })()`)
    assert.equal(child.error, undefined, String(child.error))
    assert.equal(child.signal, null)
    assert.equal(child.status, 0, child.stderr)
    assert.deepEqual(JSON.parse(child.stdout), [{ v: 7 }, 'waiting', 1])
  })

  test('a process that calls close() exits', () => {
    const child = runChild(`
      const b = require(${index})
      const cm = b.createCodeMode({ config: { enabled: true } })
      const run = cm.prepareRun({
        runId: 'r', tools: [{ name: 'echo', description: '', source: 'openclaw' }], executeTool: async (call) => call.input,
      })
      ;(async () => {
        const done = await run.exec({ code: 'return await tools.echo({ v: 8 })' })
        await cm.close()
        console.log(JSON.stringify([done.value, cm.suspendedRunCount()]))
      })()`)
    assert.equal(child.error, undefined, String(child.error))
    assert.equal(child.status, 0, child.stderr)
    assert.deepEqual(JSON.parse(child.stdout), [{ v: 8 }, 0])
  })

  test('the signals passed to exec and wait are not kept once the calls settle', () => {
    const child = spawnSync(process.execPath, ['--expose-gc', '-e', `
      const b = require(${index})
      const cm = b.createCodeMode({ config: { enabled: true } })
      const run = cm.prepareRun({ runId: 'r', tools: [{ name: 'echo', description: '', source: 'openclaw' }], executeTool: (call) => call.input })
      let collected = 0
      const registry = new FinalizationRegistry(() => collected++)
      ;(async () => {
        for (let i = 0; i < 200; i++) {
          const controller = new AbortController()
          registry.register(controller.signal, i)
          await run.exec({ code: 'return 1' }, { signal: controller.signal })
          await run.wait({ runId: 'cm_none' }, { signal: new AbortController().signal })
        }
        for (let i = 0; i < 10 && collected < 200; i++) {
          globalThis.gc()
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
        await cm.close()
        console.log(collected)
      })()`], { encoding: 'utf8', timeout: 30000 })
    assert.equal(child.status, 0, child.stderr)
    // Every signal is collectable; a few may still be in flight at the last gc.
    assert.ok(Number(child.stdout) >= 190, `only ${child.stdout.trim()} of 200 signals were collected`)
  })

  test('a run surface keeps its runtime open after the CodeMode object is collected, and the threads go with the last reference', { skip: process.platform !== 'linux' && 'counts threads in /proc' }, () => {
    const child = spawnSync(process.execPath, ['--expose-gc', '-e', `
      const fs = require('node:fs')
      const b = require(${index})
      const threads = () => fs.readdirSync('/proc/self/task').filter((t) => {
        try { return fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').startsWith('code-mode') } catch { return false }
      }).length
      const collect = async (times) => { for (let i = 0; i < times; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 5)) } }
      let release
      const tools = [{ name: 'echo', description: '', source: 'openclaw' }, { name: 'slow', description: '', source: 'openclaw' }]
      const executeTool = (call) => call.name === 'echo' ? call.input : new Promise((resolve) => { release = () => resolve({ v: 42 }) })
      // Only the surface is kept: the CodeMode object is garbage at once.
      // A budget a loaded machine cannot spend before a cell starts: the
      // parked exec below waits all of it.
      const make = (runId) => b.createCodeMode({ config: { enabled: true, timeoutMs: 2000 } }).prepareRun({ runId, sessionId: 's', tools, executeTool })
      ;(async () => {
        const before = threads()
        let surface = make('kept')
        const first = await surface.exec({ code: 'return 1' })
        await collect(5)
        const second = await surface.exec({ code: 'return (await tools.echo({ n: 2 })).n' })
        const parked = await surface.exec({ code: 'return (await tools.slow({})).v' })
        await collect(5)
        release()
        const resumed = await surface.wait({ runId: parked.runId })
        // An exec in progress holds the runtime too: nothing else does here.
        const pending = make('one-shot').exec({ code: 'const t = Date.now(); while (Date.now() < t + 150) {} return 3' })
        await collect(10)
        const oneShot = await pending
        const during = threads() - before
        surface = null
        let after = threads() - before
        for (let i = 0; i < 200 && after > 0; i++) { await collect(1); after = threads() - before }
        console.log(JSON.stringify([first.value, second.value, parked.status, resumed.value, oneShot.value, during > 0, after]))
      })()`], { encoding: 'utf8', timeout: 30000 })
    assert.equal(child.status, 0, child.stderr)
    assert.deepEqual(JSON.parse(child.stdout), [1, 2, 'waiting', 42, 3, true, 0])
  })

  // How long close() takes when no cell is stuck (it used to wait for a
  // watchdog that slept 100 ms at a time; now about a millisecond) is a
  // timing, not a property a test can check without a clock: it is measured
  // by bench/probe/timings.mjs ("close() of an idle instance").
})
