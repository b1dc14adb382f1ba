// The gateway side of every job: the run's tools, an executor that records
// each nested call (and answers, fails, answers late or never), run surfaces,
// and the check that every nested call of a job ended.
import { Mismatch } from './checks.mjs'
import { sleep } from './measure.mjs'
import { stats } from './stats.mjs'

export const TOOLS = [
  { name: 'echo', description: 'Returns its input', source: 'openclaw' },
  { name: 'add', description: 'Adds a and b', source: 'openclaw' },
  { name: 'slow', description: 'Returns v after ms milliseconds', source: 'openclaw' },
  { name: 'fail', description: 'Always fails with msg', source: 'openclaw' },
  { name: 'hang', description: 'Never answers', source: 'openclaw' },
  { name: 'lookup', description: 'A replay-safe read of v', source: 'openclaw', replaySafe: true },
]

/** A surface for `job`, with its own executor that records every call. */
export function surfaceFor(env, job, state, config) {
  return env.codeMode.prepareRun({
    runId: `soak-run-${job.i}`,
    sessionId: `soak-session-${job.i}`,
    tools: TOOLS,
    agentConfig: config,
    onEvent: (event) => {
      if (event.type === 'nested_call_started') state.started++
      else if (event.type === 'nested_call_finished') state.finished++
    },
    executeTool: (call) => executeTool(state, call),
  })
}

function executeTool(state, call) {
  const record = { name: call.name, toolCallId: call.toolCallId, signal: call.signal, settled: false }
  state.calls.push(record)
  stats.toolCalls++
  const input = call.input
  const settle = (promise) => promise.finally(() => { record.settled = true })
  switch (call.name) {
    case 'echo':
      record.settled = true
      return input
    case 'lookup':
      record.settled = true
      return input.v
    case 'add':
      return settle(Promise.resolve(input.a + input.b))
    case 'fail':
      if (input.sync) {
        record.settled = true
        throw new Error(input.msg)
      }
      return settle(Promise.reject(new Error(input.msg)))
    case 'slow':
      return settle(delay(input.ms, input.v, input.ignoreAbort ? null : call.signal))
    case 'hang':
      state.onHang?.(call)
      return new Promise(() => {})
  }
  throw new Error(`no such tool ${call.name}`)
}

/** Resolves to `value` after `ms`; rejects at once when `signal` fires. */
function delay(ms, value, signal) {
  return new Promise((resolve, reject) => {
    stats.liveTimers++
    const onAbort = () => {
      clearTimeout(timer)
      stats.liveTimers--
      reject(new Error('aborted'))
    }
    const timer = setTimeout(() => {
      stats.liveTimers--
      signal?.removeEventListener('abort', onAbort)
      resolve(value)
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Every nested call of the job ends (settled or aborted) and its events balance. */
export async function callsEnd(state, ms = 3000) {
  const open = () => state.calls.filter((c) => !c.settled && !c.signal.aborted)
  const deadline = Date.now() + ms
  while (open().length > 0 || state.started !== state.finished) {
    if (Date.now() > deadline) {
      throw new Mismatch(`nested calls left open ${ms} ms after the result: ${open().map((c) => c.toolCallId).join(', ') || 'none'}; events started ${state.started}, finished ${state.finished}`)
    }
    await sleep(10)
  }
}
