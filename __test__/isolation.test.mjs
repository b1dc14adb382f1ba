// isolation: 'process' (docs/isolation.md): what a sandbox process contains.
// The sandbox used here is `code-mode-sandbox-probes`, the same executable
// built with its test hooks (`npm run build` puts it beside the addon): a
// cell whose code is `//probe:<what>` runs that probe inside the sandbox
// instead (abort the process, make a forbidden system call, open a file).
// Published packages carry only `code-mode-sandbox`, which has no probes.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { binding, deferred, until } from './helpers.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const PROBES = path.join(root, 'code-mode-sandbox-probes')
const linux = process.platform === 'linux'
// The probes' build is made by `npm run build`; a release's test job has
// only the published executable.
const probes = linux && existsSync(PROBES)
const STOPPED =
  'code mode sandbox process stopped (it crashed, was killed or stopped answering); the runs it held are lost. Run the cell again.'
const EXHAUSTED = 'code mode sandbox process of this session stopped too often; new runs are refused for up to a minute.'

const TOOLS = [{ name: 'slow', description: 'Answers when the test says', source: 'openclaw' }]

/** A process-isolated code mode whose sandbox has the probes, closed after test `t`. */
function sandboxed(t, config = {}, options = {}) {
  const codeMode = binding.createCodeMode({
    config: { enabled: true, ...config },
    isolation: 'process',
    sandboxBinary: PROBES,
    ...options,
  })
  t.after(() => codeMode.close())
  const pending = []
  const run = (sessionId) =>
    codeMode.prepareRun({
      runId: `run-${sessionId}`,
      sessionId,
      tools: TOOLS,
      executeTool: (call) => {
        const answer = deferred()
        pending.push({ call, answer })
        return answer.promise
      },
    })
  return { codeMode, run, pending }
}

/** The sandbox processes this process started: its children running code-mode-sandbox. */
function sandboxPids() {
  const pids = []
  for (const task of readdirSync('/proc/self/task')) {
    const children = readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim()
    for (const pid of children ? children.split(' ').map(Number) : []) {
      const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
      if (name.startsWith('code-mode-sand')) pids.push(pid)
    }
  }
  return pids
}

const diagnostics = () => binding.codeModeDiagnostics()

describe('process isolation', { skip: !probes && (linux ? 'no code-mode-sandbox-probes: npm run build makes it' : 'sandbox processes run on Linux') }, () => {
  test('createCodeMode checks isolation, sandboxProcesses and sandboxBinary', () => {
    const create = (options) => () => binding.createCodeMode({ config: { enabled: true }, ...options })
    assert.throws(create({ isolation: 'vm' }), { message: "isolation must be 'thread' or 'process'." })
    assert.throws(create({ isolation: 'process', sandboxProcesses: 0 }), {
      message: 'sandboxProcesses must be an integer from 1 to 16.',
    })
    assert.throws(create({ isolation: 'process', sandboxProcesses: 1.5 }), {
      message: 'sandboxProcesses must be an integer from 1 to 16.',
    })
    assert.throws(create({ isolation: 'process', sandboxBinary: '' }), { message: 'sandboxBinary must be a non-empty string.' })
    const missing = path.join(root, 'no-such-sandbox')
    assert.throws(create({ isolation: 'process', sandboxBinary: missing }), {
      message: `code mode sandbox executable not found at ${missing}: reinstall the package for this platform (npm install), or run npm run build in a checkout.`,
    })
  })

  test('the sandbox can open no file and no socket, and goes on', async (t) => {
    const { codeMode, run } = sandboxed(t)
    const surface = run('files')
    const opened = await surface.exec({ code: '//probe:open /etc/hostname' })
    assert.equal(opened.value, 'open error 13')
    const created = await surface.exec({ code: `//probe:create ${path.join(root, 'target', 'sandbox-wrote-this')}` })
    assert.equal(created.value, 'create error 13')
    assert.equal((await surface.exec({ code: '//probe:socket' })).value, 'socket error 13')
    assert.equal((await surface.exec({ code: 'return 6 * 7' })).value, 42)
    await codeMode.close()
  })

  for (const [what, probe] of [
    ['an abort inside the engine', 'abort'],
    ['a forbidden system call', 'forbidden'],
    ['a new process', 'fork'],
  ]) {
    test(`${what} ends the sandbox: its runs fail runtime_unavailable, the next exec runs in a new one`, async (t) => {
      const { codeMode, run } = sandboxed(t)
      const before = diagnostics()
      const surface = run(`crash-${probe}`)
      assert.equal((await surface.exec({ code: 'return 1' })).value, 1)
      const crashed = await surface.exec({ code: `//probe:${probe}` })
      assert.deepEqual([crashed.status, crashed.code, crashed.error], ['failed', 'runtime_unavailable', STOPPED])
      const again = await surface.exec({ code: 'return 2' })
      assert.equal(again.value, 2)
      const after = diagnostics()
      assert.equal(after.sandboxFailures - before.sandboxFailures, 1)
      assert.equal(after.sandboxRestarts - before.sandboxRestarts, 1)
      await codeMode.close()
    })
  }

  test('a sandbox killed from outside fails only the runs it held; parked runs in it are gone', async (t) => {
    const { codeMode, run, pending } = sandboxed(t, { timeoutMs: 20000 })
    const surface = run('killed')
    const parked = await surface.exec({ code: 'await yield_control("later"); return 1' })
    assert.equal(parked.status, 'waiting')
    const running = surface.exec({ code: 'return (await tools.slow({})) + 1' })
    await until(() => pending.length === 1, 'the nested call')
    const signal = pending[0].call.signal
    const [pid] = sandboxPids()
    assert.ok(pid, 'the sandbox runs')
    process.kill(pid, 'SIGKILL')
    const result = await running
    assert.deepEqual([result.code, result.error], ['runtime_unavailable', STOPPED])
    await until(() => signal.aborted, "the lost run's nested call is aborted")
    assert.equal(codeMode.suspendedRunCount(), 0)
    const resumed = await surface.wait({ runId: parked.runId })
    assert.deepEqual([resumed.code, resumed.error], ['invalid_input', 'code mode run is unavailable or expired.'])
    assert.equal((await surface.exec({ code: 'return "new"' })).value, 'new')
    await codeMode.close()
  })

  test('a session whose sandbox stopped gets its own: its crashes in a loop fail no other session', async (t) => {
    const { codeMode, run, pending } = sandboxed(t, { timeoutMs: 20000 })
    const killer = run('killer')
    const bystander = run('bystander')
    // The first crash takes the shared sandbox, and the bystander's cell with it.
    const first = bystander.exec({ code: 'return await tools.slow({})' })
    await until(() => pending.length === 1, "the bystander's call")
    assert.equal((await killer.exec({ code: '//probe:abort' })).code, 'runtime_unavailable')
    assert.equal((await first).code, 'runtime_unavailable')
    // From then on the killer crashes only its own sandbox.
    const second = bystander.exec({ code: 'return await tools.slow({})' })
    await until(() => pending.length === 2, "the bystander's second call")
    let refused = 0
    let crashes = 0
    for (let i = 0; i < 12; i++) {
      const result = await killer.exec({ code: '//probe:abort' })
      assert.equal(result.code, 'runtime_unavailable')
      if (result.error === EXHAUSTED) refused++
      else crashes++
    }
    // At most ten starts a minute for its own sandbox: ten crashes, then
    // refusals.
    assert.deepEqual([crashes, refused], [10, 2])
    pending[1].answer.resolve(41)
    const survived = await second
    assert.deepEqual([survived.status, survived.value], ['completed', 41])
    assert.equal((await bystander.exec({ code: 'return "still here"' })).value, 'still here')
    await codeMode.close()
  })

  test('a sandbox that stops answering is killed past the budget and a grace', async (t) => {
    const { codeMode, run } = sandboxed(t, { timeoutMs: 200 })
    const surface = run('frozen')
    assert.equal((await surface.exec({ code: 'return 1' })).value, 1)
    const [pid] = sandboxPids()
    process.kill(pid, 'SIGSTOP')
    const result = await surface.exec({ code: 'return 2' })
    assert.deepEqual([result.code, result.error], ['runtime_unavailable', STOPPED])
    assert.equal((await surface.exec({ code: 'return 3' })).value, 3)
    await codeMode.close()
  })

  test('a call answered in the addon carries the counters its sandbox last told', async (t) => {
    const { codeMode, run } = sandboxed(t)
    const surface = run('counted')
    const searched = await surface.exec({ code: 'tools.search("slow"); tools.search("x"); return 1' })
    assert.equal(searched.telemetry.searchCount, 2)
    const stopped = new AbortController()
    stopped.abort()
    const refused = await surface.exec({ code: 'return 2' }, { signal: stopped.signal })
    assert.deepEqual([refused.code, refused.telemetry.searchCount], ['aborted', 2])
    await codeMode.close()
    const closed = await surface.exec({ code: 'return 3' })
    assert.deepEqual([closed.code, closed.telemetry.searchCount], ['runtime_unavailable', 2])
  })

  test('close() ends every sandbox process', async (t) => {
    const { codeMode, run } = sandboxed(t, {}, { sandboxProcesses: 3 })
    for (const session of ['a', 'b', 'c', 'd', 'e', 'f']) {
      assert.equal((await run(session).exec({ code: 'return 1' })).value, 1)
    }
    assert.ok(sandboxPids().length >= 1)
    await codeMode.close()
    await until(() => sandboxPids().length === 0, 'no sandbox left')
  })

  test('cells see the gateway time zone in both isolations', () => {
    const script = `
      import { createCodeMode } from ${JSON.stringify(path.join(root, 'index.js'))}
      const out = []
      for (const isolation of ['thread', 'process']) {
        const codeMode = createCodeMode({ config: { enabled: true }, isolation })
        const run = codeMode.prepareRun({ runId: 'tz', tools: ${JSON.stringify(TOOLS)}, executeTool: () => null })
        out.push((await run.exec({ code: 'return [new Date(0).getTimezoneOffset(), new Date(2020, 6, 1, 12).toString()]' })).value)
        await codeMode.close()
      }
      console.log(JSON.stringify(out))
    `
    for (const [zone, offset] of [['America/New_York', 300], ['Asia/Kolkata', -330], ['UTC', 0]]) {
      const ran = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, TZ: zone },
      })
      assert.equal(ran.status, 0, ran.stderr)
      const [thread, processed] = JSON.parse(ran.stdout)
      assert.deepEqual(processed, thread, zone)
      assert.equal(thread[0], offset, zone)
    }
  })
})

test('the sandbox npm run build ships has no probes; the test build has', { skip: !probes }, () => {
  const count = (file) => spawnSync('grep', ['-c', '//probe:', path.join(root, file)], { encoding: 'utf8' }).stdout.trim()
  assert.equal(count('code-mode-sandbox'), '0')
  assert.notEqual(count('code-mode-sandbox-probes'), '0')
})
