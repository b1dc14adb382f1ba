// Probe: how late a queued cell is answered while no worker can take it
// (docs/scheduling.md, "When workers get stuck"). With workerThreads 2, the
// pool's threads (two workers, and two more for other sessions) are filled,
// then another session's `return 1 + 1` with a 500 ms budget waits in the
// queue; the probe prints how long after its deadline the answer came, and
// which answer it was.
//
//   node bench/probe/stuck-pool.mjs [--rounds N] [--product PATH]
//
// Two ways of filling the pool:
//   busy   four sessions' cells spin (for (;;) {}) with 20 s budgets: they
//          poll the deadline, and nobody is abandoned
//   stuck  four sessions' cells sit in one multiplication of two 500,000-bit
//          BigInts (a builtin that does not poll: about 0.9 s alone on the
//          2-core machine) with 100 ms budgets: the watchdog answers them
//          and abandons their workers 500 ms past that, when the call is
//          still running then. Each round waits until the abandoned threads
//          are back.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { loadBinding } from '../contenders/product.mjs'
import { summarize } from '../lib/stats.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '10' },
    product: { type: 'string', default: path.join(here, '../../index.js') },
  },
})
const binding = loadBinding(args.product)
const BUDGET = 500
const FILL = {
  busy: { code: 'for (;;) {}', timeoutMs: 20000 },
  stuck: { code: 'const x = (1n << 500000n) - 1n; return x * x > 0n', timeoutMs: 100 },
}

function surface(codeMode, session, timeoutMs) {
  return codeMode.prepareRun({ runId: `${session}-${timeoutMs}`, sessionId: session, tools: [{ name: 'echo', description: '', source: 'openclaw' }], agentConfig: { timeoutMs }, executeTool: async (c) => c.input })
}

async function round(kind, n) {
  const codeMode = binding.createCodeMode({ config: { enabled: true }, workerThreads: 2 })
  const fill = FILL[kind]
  const controllers = []
  const filling = Array.from({ length: 4 }, (_, i) => {
    const controller = new AbortController()
    controllers.push(controller)
    return surface(codeMode, `fill-${n}-${i}`, fill.timeoutMs).exec({ code: fill.code }, { signal: controller.signal })
  })
  const started = performance.now()
  const result = await surface(codeMode, `queued-${n}`, BUDGET).exec({ code: 'return 1 + 1' })
  const late = performance.now() - started - BUDGET
  controllers.forEach((c) => c.abort())
  await Promise.all(filling)
  await codeMode.close()
  while (binding.codeModeDiagnostics().abandonedWorkersRunning > 0) await new Promise((resolve) => setTimeout(resolve, 100))
  return { late, answer: result.status === 'completed' ? 'completed' : result.code }
}

for (const kind of Object.keys(FILL)) {
  const late = []
  const answers = {}
  for (let n = 0; n < Number(args.rounds); n++) {
    const r = await round(kind, n)
    late.push(r.late)
    answers[r.answer] = (answers[r.answer] ?? 0) + 1
  }
  const s = summarize(late)
  const counts = Object.entries(answers).map(([answer, count]) => `${answer} ${count}`).join(', ')
  console.log(`${kind}: answered ${s.median.toFixed(1)} ms after the deadline at the median (max ${s.max.toFixed(1)}), ${counts}`)
}
const { abandonedWorkers, answeredInQueue } = binding.codeModeDiagnostics()
console.log(`abandoned workers ${abandonedWorkers}, answered in the queue ${answeredInQueue}`)
