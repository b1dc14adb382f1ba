// Suspended runs: waiting, wait, yield, expiry, scope, limits, restartSafe and
// abort (docs/parked-runs.md).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { after, describe, test } from 'node:test'

import { binding } from './helpers.mjs'

const TOOLS = [
  { name: 'slow', description: 'Resolves when the test says so', source: 'openclaw' },
  { name: 'lookup', description: 'A replay-safe read', source: 'openclaw', replaySafe: true },
  { name: 'plugin_read', description: 'A replay-safe plugin read', source: 'openclaw', sourceName: 'files', replaySafe: true },
  { name: 'client_read', description: 'A client tool marked replay-safe', source: 'client', replaySafe: true },
  { name: 'write', description: 'Side effects', source: 'openclaw' },
]

const instances = []
after(async () => {
  for (const codeMode of instances) await codeMode.close()
})

/** A code-mode instance whose `slow` tool settles only when `release(value)` is called. */
function setup(config = {}, ctx = {}) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 200, ...config } })
  instances.push(codeMode)
  const pending = []
  const calls = []
  const executeTool = (call) => {
    calls.push(call)
    if (call.name === 'slow') {
      return new Promise((resolve, reject) => pending.push({ resolve, reject, call }))
    }
    return { tool: call.name, input: call.input }
  }
  const context = { runId: 'agent-run-1', sessionId: 'session-1', tools: TOOLS, executeTool, ...ctx }
  const run = codeMode.prepareRun(context)
  /** Settles the oldest pending slow call. */
  const release = (value) => pending.shift().resolve(value)
  return { codeMode, run, calls, pending, release, context }
}

/** Waits until `predicate()` holds (polling), failing after a generous bound. */
async function until(predicate, what) {
  const deadline = Date.now() + 10000
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('waiting and wait', () => {
  test('a slow tool parks the run; wait completes with a value computed after resuming', async () => {
    const { codeMode, run, release, pending } = setup()
    const waiting = await run.exec(
      { code: "text('before'); const r = await tools.slow({}); text('after ' + r.n); return r.n * 2" },
      { toolCallId: 'call_exec' },
    )
    assert.equal(waiting.status, 'waiting')
    assert.equal(waiting.reason, 'pending_tools')
    assert.match(waiting.runId, /^cm_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.deepEqual(waiting.pendingToolCalls, [{ id: 'code_mode:call_exec:slow:1', method: 'call', toolId: 'openclaw:core:slow' }])
    assert.deepEqual(waiting.output, [{ type: 'text', text: 'before' }])
    assert.equal(typeof waiting.snapshotBytes, 'number')
    assert.ok(waiting.snapshotBytes > 0)
    assert.equal(waiting.replaySafe, false)
    assert.equal(codeMode.suspendedRunCount(), 1)

    // The call keeps running while the run is parked.
    assert.equal(pending.length, 1)
    release({ n: 21 })
    const done = await run.wait({ runId: waiting.runId }, { toolCallId: 'call_wait' })
    assert.equal(done.status, 'completed')
    assert.equal(done.value, 42)
    assert.deepEqual(done.output, [{ type: 'text', text: 'after 21' }])
    assert.equal(codeMode.suspendedRunCount(), 0)
  })

  test('a run that parks twice gets a new runId; nothing new keeps the same one', async () => {
    const { run, release, pending, calls } = setup()
    const first = await run.exec({ code: 'const a = await tools.slow({}); const b = await tools.slow({}); return a + b' })
    assert.equal(first.status, 'waiting')
    const same = await run.wait({ runId: first.runId })
    assert.equal(same.status, 'waiting')
    assert.equal(same.runId, first.runId, 'nothing could run: same runId')
    release(1)
    await until(() => pending.length === 0, 'the first call to settle')
    const second = await run.wait({ run_id: `  ${first.runId}  ` }, { toolCallId: 'call_w1' })
    assert.equal(second.status, 'waiting')
    assert.notEqual(second.runId, first.runId, 'the VM parked anew')
    assert.equal(calls[1].toolCallId, 'code_mode:call_w1:slow:2', 'calls made after resuming name the wait call')
    const stale = await run.wait({ runId: first.runId })
    assert.equal(stale.error, 'code mode run is unavailable or expired.')
    await until(() => pending.length === 1, 'the second call')
    release(2)
    const done = await run.wait({ runId: second.runId })
    assert.equal(done.value, 3)
  })

  test('yield_control parks at once; the guest receives {status: "yielded", reason}', async () => {
    const { run } = setup({ timeoutMs: 5000 })
    const waiting = await run.exec({ code: "text('a'); const r = await yield_control('let the user see progress'); text('b'); return r" })
    assert.equal(waiting.status, 'waiting')
    assert.equal(waiting.reason, 'yield')
    assert.equal(waiting.pendingToolCalls.length, 1)
    assert.equal(waiting.pendingToolCalls[0].method, 'yield')
    assert.equal(waiting.pendingToolCalls[0].toolId, undefined)
    assert.deepEqual(waiting.output, [{ type: 'text', text: 'a' }])
    const done = await run.wait({ runId: waiting.runId })
    assert.deepEqual(done.value, { status: 'yielded', reason: 'let the user see progress' })
    assert.deepEqual(done.output, [{ type: 'text', text: 'b' }])
  })

  test('a pending promise with no host work fails', async () => {
    const { run } = setup()
    const result = await run.exec({ code: 'await new Promise(() => {})' })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'internal_error')
    assert.equal(result.error, 'code mode promise is pending without host work.')
  })

  test('a wait that gets its worker only after its budget is gone parks the run again, untouched', async () => {
    const codeMode = binding.createCodeMode({ config: { enabled: true }, workerThreads: 1 })
    instances.push(codeMode)
    const tools = [{ name: 'echo', description: '', source: 'openclaw' }]
    const victim = codeMode.prepareRun({ runId: 'victim', sessionId: 'a', tools, agentConfig: { timeoutMs: 100 }, executeTool: async (c) => c.input })
    // The same session: a wait of a session that computes nothing would get
    // a thread of its own (docs/scheduling.md).
    const busy = codeMode.prepareRun({ runId: 'busy', sessionId: 'a', tools, agentConfig: { timeoutMs: 400 }, executeTool: async (c) => c.input })
    const parked = await victim.exec({ code: "text('a'); const r = await yield_control('r'); text('b'); return r.status" })
    assert.equal(parked.status, 'waiting')
    // The one worker spins for 400 ms: the wait's 100 ms are gone before it starts.
    const spinning = busy.exec({ code: 'for (;;) {}' })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const late = await victim.wait({ runId: parked.runId })
    assert.equal(late.status, 'waiting', `${late.code}: ${late.error}`)
    assert.equal(late.runId, parked.runId)
    assert.deepEqual(late.output, [], 'nothing of the guest ran')
    assert.equal((await spinning).code, 'timeout')
    const done = await victim.wait({ runId: parked.runId })
    assert.equal(done.status, 'completed', `${done.code}: ${done.error}`)
    assert.equal(done.value, 'yielded')
    assert.deepEqual(done.output, [{ type: 'text', text: 'b' }])
  })

  test('output limits are checked before parking', async () => {
    const { run } = setup({ maxOutputBytes: 1024 })
    const result = await run.exec({ code: "for (let i = 0; i < 100; i++) text('x'.repeat(50)); await tools.slow({})" })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'output_limit_exceeded')
  })
})

describe('wait failures', () => {
  test('unknown, empty and malformed runIds', async () => {
    const { run } = setup()
    for (const input of [{ runId: 'cm_nope' }]) {
      const result = await run.wait(input)
      assert.equal(result.status, 'failed')
      assert.equal(result.code, 'invalid_input')
      assert.equal(result.error, 'code mode run is unavailable or expired.')
    }
    for (const input of [{}, { runId: '' }, { runId: '   ' }, { runId: 42 }, null, 'cm_x']) {
      const result = await run.wait(input)
      assert.equal(result.code, 'invalid_input')
      assert.equal(result.error, 'runId must be a non-empty string.')
    }
  })

  test('a foreign agent run or session cannot resume a run', async () => {
    const { codeMode, run, context } = setup()
    const waiting = await run.exec({ code: 'await tools.slow({})' })
    const otherRun = codeMode.prepareRun({ ...context, runId: 'agent-run-2' })
    assert.equal((await otherRun.wait({ runId: waiting.runId })).error, 'code mode run belongs to a different agent run.')
    const otherSession = codeMode.prepareRun({ ...context, sessionId: 'session-2' })
    assert.equal((await otherSession.wait({ runId: waiting.runId })).error, 'code mode run belongs to a different session.')
    const otherAgent = codeMode.prepareRun({ ...context, agentId: 'agent-b' })
    assert.equal((await otherAgent.wait({ runId: waiting.runId })).error, 'code mode run belongs to a different session.')
    // A new surface of the same agent run and session may resume it.
    const sameRun = codeMode.prepareRun({ ...context })
    assert.equal((await sameRun.wait({ runId: waiting.runId })).status, 'waiting')
  })

  // docs/parked-runs.md: sessionId, sessionKey and agentId must all match the
  // parker's (absent on one side and present on the other counts as
  // different), then RunContext.runId; the session check comes first. Each
  // owner field is varied on its own here, so each comparison of the store's
  // owner check has a test of its own.
  const OWNER = { runId: 'agent-run-1', sessionId: 'session-1', sessionKey: 'key-1', agentId: 'agent-a' }
  const OTHER_SESSION = 'code mode run belongs to a different session.'
  const OTHER_AGENT_RUN = 'code mode run belongs to a different agent run.'
  const BEING_RESUMED = 'code mode run is already being resumed.'
  const without = (field) => Object.fromEntries(Object.entries(OWNER).filter(([key]) => key !== field))
  const FOREIGN = [
    ['another sessionId', { ...OWNER, sessionId: 'session-2' }, OTHER_SESSION],
    ['no sessionId', without('sessionId'), OTHER_SESSION],
    ['another sessionKey', { ...OWNER, sessionKey: 'key-2' }, OTHER_SESSION],
    ['no sessionKey', without('sessionKey'), OTHER_SESSION],
    ['another agentId', { ...OWNER, agentId: 'agent-b' }, OTHER_SESSION],
    ['no agentId', without('agentId'), OTHER_SESSION],
    ['another runId', { ...OWNER, runId: 'agent-run-2' }, OTHER_AGENT_RUN],
    ['another runId and sessionKey (the session check comes first)', { ...OWNER, runId: 'agent-run-2', sessionKey: 'key-2' }, OTHER_SESSION],
  ]

  /** A surface of `owner` on `codeMode`, over the shared `slow` executor of `setup`. */
  const surfaceOf = (codeMode, context, owner) => {
    const { runId, sessionId, sessionKey, agentId, ...rest } = context
    return codeMode.prepareRun({ ...rest, ...owner })
  }

  // The run parks through yield_control, at once, so no test here depends on
  // when a budget ends.
  test('every owner field: a run parked by one session or agent run is refused to another, untouched', async () => {
    const { codeMode, run, context } = setup({ timeoutMs: 10000 }, OWNER)
    const waiting = await run.exec({ code: "const r = await yield_control('park'); return r.status" })
    assert.equal(waiting.status, 'waiting')
    for (const [label, owner, message] of FOREIGN) {
      const refused = await surfaceOf(codeMode, context, owner).wait({ runId: waiting.runId })
      assert.deepEqual([refused.status, refused.code, refused.error], ['failed', 'invalid_input', message], label)
      assert.equal(codeMode.suspendedRunCount(), 1, `${label}: the run stays parked`)
    }
    // The parker's own session and agent run, on a new surface, resumes it.
    const done = await surfaceOf(codeMode, context, OWNER).wait({ runId: waiting.runId })
    assert.equal(done.status, 'completed', `${done.code}: ${done.error}`)
    assert.equal(done.value, 'yielded')
    assert.equal(codeMode.suspendedRunCount(), 0)
  })

  test('a field the parker did not have must be absent for the waiter too', async () => {
    const parker = { runId: 'agent-run-1', sessionId: 'session-1' }
    const { codeMode, run, context } = setup({ timeoutMs: 10000 }, parker)
    const waiting = await run.exec({ code: "const r = await yield_control('park'); return r.status" })
    assert.equal(waiting.status, 'waiting')
    for (const [label, owner] of [
      ['a sessionKey', { ...parker, sessionKey: 'key-1' }],
      ['an agentId', { ...parker, agentId: 'agent-a' }],
      ['a sessionId where the parker had none', { runId: 'agent-run-1' }],
    ]) {
      const refused = await surfaceOf(codeMode, context, owner).wait({ runId: waiting.runId })
      assert.deepEqual([refused.status, refused.code, refused.error], ['failed', 'invalid_input', OTHER_SESSION], label)
    }
    const done = await surfaceOf(codeMode, context, parker).wait({ runId: waiting.runId })
    assert.equal(done.value, 'yielded', `${done.code}: ${done.error}`)
  })

  test('while a wait resumes the run, a foreign waiter gets its own refusal, the owner "being resumed"', async () => {
    const { codeMode, run, release, pending, context } = setup({ timeoutMs: 60000 }, OWNER)
    const waiting = await run.exec({ code: "await yield_control('park'); return (await tools.slow({})).v" })
    assert.equal(waiting.status, 'waiting')
    // This wait holds the run (its marker) until the slow call is released.
    const resuming = surfaceOf(codeMode, context, OWNER).wait({ runId: waiting.runId })
    for (const [label, owner, message] of [...FOREIGN, ['the owner', OWNER, BEING_RESUMED]]) {
      const refused = await surfaceOf(codeMode, context, owner).wait({ runId: waiting.runId })
      assert.deepEqual([refused.status, refused.code, refused.error], ['failed', 'invalid_input', message], label)
    }
    await until(() => pending.length === 1, 'the resumed guest to call slow')
    release({ v: 'once' })
    const done = await resuming
    assert.equal(done.status, 'completed', `${done.code}: ${done.error}`)
    assert.equal(done.value, 'once')
  })

  test('a second wait while one is in progress is refused', async () => {
    const { run, release } = setup({ timeoutMs: 3000 })
    const waiting = await run.exec({ code: 'return (await tools.slow({})).v' }, {})
    assert.equal(waiting.status, 'waiting')
    const first = run.wait({ runId: waiting.runId })
    const second = await run.wait({ runId: waiting.runId })
    assert.equal(second.status, 'failed')
    assert.equal(second.error, 'code mode run is already being resumed.')
    release({ v: 'ok' })
    assert.equal((await first).value, 'ok')
  })

  test('a run expires after its TTL: the timer frees it and aborts its calls', async () => {
    const { codeMode, run, pending } = setup({ snapshotTtlSeconds: 1 })
    const waiting = await run.exec({ code: 'await tools.slow({})' })
    assert.equal(codeMode.suspendedRunCount(), 1)
    const signal = pending[0].call.signal
    await until(() => codeMode.suspendedRunCount() === 0, 'the run to expire')
    await until(() => signal.aborted, 'the nested call to be aborted')
    const result = await run.wait({ runId: waiting.runId })
    assert.equal(result.error, 'code mode run is unavailable or expired.')
  })

  test('at most 64 runs are parked', async () => {
    const { codeMode, run } = setup({ timeoutMs: 100 })
    const results = []
    for (let i = 0; i < 65; i++) results.push(await run.exec({ code: 'await tools.slow({})' }))
    assert.equal(results.filter((r) => r.status === 'waiting').length, 64)
    const last = results[64]
    assert.equal(last.status, 'failed')
    assert.equal(last.code, 'invalid_input')
    assert.equal(last.error, 'too many suspended code mode runs.')
    assert.equal(codeMode.suspendedRunCount(), 64)
    await codeMode.close()
    assert.equal(codeMode.suspendedRunCount(), 0)
  })

  test('a parked heap above maxSnapshotBytes is snapshot_limit_exceeded', async () => {
    const { codeMode, run, pending } = setup({ maxSnapshotBytes: 1024 })
    const result = await run.exec({ code: 'await tools.slow({})' })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'snapshot_limit_exceeded')
    assert.equal(codeMode.suspendedRunCount(), 0)
    await until(() => pending[0].call.signal.aborted, 'the call of the dropped run to be aborted')
  })
})

describe('abort and close', () => {
  test('aborting a wait drops the run and fires its nested call signals', async () => {
    const { codeMode, run, pending } = setup({ timeoutMs: 5000 })
    const controller = new AbortController()
    const exec = run.exec({ code: 'await tools.slow({}); return 1' }, { signal: controller.signal })
    await until(() => pending.length === 1, 'the nested call')
    const signal = pending[0].call.signal
    let fired = 0
    signal.addEventListener('abort', () => fired++)
    controller.abort()
    const result = await exec
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'aborted')
    await until(() => signal.aborted, 'the nested signal')
    assert.equal(fired, 1)
    assert.equal(codeMode.suspendedRunCount(), 0)

    const parked = await setup().run
    const waiting = await parked.exec({ code: 'await tools.slow({})' })
    const waitController = new AbortController()
    waitController.abort()
    const aborted = await parked.wait({ runId: waiting.runId }, { signal: waitController.signal })
    assert.equal(aborted.code, 'aborted')
    assert.equal((await parked.wait({ runId: waiting.runId })).error, 'code mode run is unavailable or expired.')
  })

  test('close() drops parked runs, aborts their calls, and later calls are closed', async () => {
    const { codeMode, run, pending } = setup()
    const waiting = await run.exec({ code: 'await tools.slow({})' })
    assert.equal(codeMode.suspendedRunCount(), 1)
    await codeMode.close()
    assert.equal(codeMode.suspendedRunCount(), 0)
    await until(() => pending[0].call.signal.aborted, 'the parked run call to be aborted')
    const result = await run.wait({ runId: waiting.runId })
    assert.equal(result.code, 'runtime_unavailable')
    assert.equal(result.error, 'code mode is closed.')
  })

  test('parked runs do not keep the process alive', () => {
    const script = `
      const b = require(${JSON.stringify(new URL('../index.js', import.meta.url).pathname)})
      const cm = b.createCodeMode({ config: { enabled: true, timeoutMs: 10000 } })
      const run = cm.prepareRun({ runId: 'r', tools: [{ name: 'slow', description: '', source: 'openclaw' }], executeTool: () => new Promise(() => {}) })
      // Parked at once by the yield, with a call in flight that never settles.
      run.exec({ code: 'tools.slow({}); await yield_control()' }).then((r) => console.log(r.status, cm.suspendedRunCount()))`
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 })
    assert.equal(child.status, 0, child.stderr)
    assert.equal(child.stdout.trim(), 'waiting 1')
  })
})

describe('restartSafe', () => {
  test('only replay-safe OpenClaw tools run; everything else fails before it runs', async () => {
    const { run, calls } = setup({ timeoutMs: 5000 })
    const refused = await run.exec({ code: "await tools.search('x'); await tools.describe('lookup'); await tools.write({})", restartSafe: true })
    assert.equal(refused.status, 'failed')
    assert.equal(refused.code, 'invalid_input')
    assert.equal(refused.error, 'restart-safe code mode cannot call side-effecting tools.')
    assert.equal(refused.replaySafe, true)
    assert.equal(calls.length, 0, 'the tool never ran')
    const client = await run.exec({ code: 'await tools.client_read({})', restartSafe: true })
    assert.equal(client.error, 'restart-safe code mode cannot call side-effecting tools.')
    assert.equal(calls.length, 0)
  })

  test('every await parks, and results carry replaySafe: true', async () => {
    const { run, calls } = setup({ timeoutMs: 5000 })
    const first = await run.exec({ code: 'const a = await tools.lookup({v: 1}); const b = await tools.plugin_read({v: 2}); return [a.input.v, b.input.v]', restartSafe: true })
    assert.equal(first.status, 'waiting')
    assert.equal(first.replaySafe, true)
    await until(() => calls.length === 1, 'the first call')
    await new Promise((resolve) => setTimeout(resolve, 20))
    const second = await run.wait({ runId: first.runId })
    assert.equal(second.status, 'waiting', 'the second await parks too')
    assert.equal(second.replaySafe, true)
    await until(() => calls.length === 2, 'the second call')
    await new Promise((resolve) => setTimeout(resolve, 20))
    const done = await run.wait({ runId: second.runId })
    assert.equal(done.status, 'completed')
    assert.deepEqual(done.value, [1, 2])
    assert.equal(done.replaySafe, true)
  })

  test('yield is allowed in a restart-safe cell', async () => {
    const { run } = setup({ timeoutMs: 5000 })
    const waiting = await run.exec({ code: 'return await yield_control()', restartSafe: true })
    assert.equal(waiting.reason, 'yield')
    const done = await run.wait({ runId: waiting.runId })
    assert.deepEqual(done.value, { status: 'yielded' })
    assert.equal(done.replaySafe, true)
  })
})
