// B10 and B11: workloads that drive run surfaces of the product only, next
// to each other: MCP and plugin namespace calls beside tools.call, and a
// quiet session beside one flooding the workers. Each returns its section of
// the report, as in workloads.mjs.
import * as cells from './cells.mjs'
import { check } from './host.mjs'
import { ms, num, table, us } from './report.mjs'
import { interleave, timed } from './rounds.mjs'
import { summarize } from './stats.mjs'

const B10_CELLS = {
  'tools.call, 100 sequential': "for (let i = 0; i < 100; i++) await tools.call('echo', { n: i, mode: 'fast' }); return 1",
  'MCP, 100 sequential': 'for (let i = 0; i < 100; i++) await MCP.docs.echo({ n: i }); return 1',
  'namespace, 100 sequential': 'for (let i = 0; i < 100; i++) await Echo.echo(i); return 1',
  'tools.call, 100 in Promise.all': "await Promise.all(Array.from({ length: 100 }, (_, i) => tools.call('echo', { n: i, mode: 'fast' }))); return 1",
  'MCP, 100 in Promise.all': 'await Promise.all(Array.from({ length: 100 }, (_, i) => MCP.docs.echo({ n: i }))); return 1',
  'namespace, 100 in Promise.all': 'await Promise.all(Array.from({ length: 100 }, (_, i) => Echo.echo(i))); return 1',
}

export async function b10({ products, plan }) {
  const entries = products.flatMap((p) => Object.entries(B10_CELLS).map(([cell, code]) => ({ name: `${p.name}|${cell}`, product: p, cell, code })))
  const samples = await interleave({
    entries,
    ...plan.calls,
    sample: async (entry) => {
      const { ms: elapsed, value } = await timed(() => entry.product.cell(entry.code))
      check(entry.name, value, 1)
      return elapsed
    },
  })
  const data = {}
  const rows = entries.map((e) => {
    const s = summarize(samples.get(e.name))
    data[e.name] = s
    const style = e.cell.endsWith('sequential') ? 'sequential' : 'Promise.all'
    const ref = data[`${e.product.name}|tools.call, 100 ${style === 'sequential' ? 'sequential' : 'in Promise.all'}`]
    return [e.product.name, e.cell, ms(s.median), ms(s.p95), us(s.median / 100), num(s.median / ref.median, 3)]
  })
  return {
    id: 'B10',
    title: '`MCP.<server>.<tool>` and plugin namespace calls next to `tools.call`',
    method:
      'One run surface with an in-process executor: `echo` (core), `docs__echo` (MCP server `docs`, tool `echo`) and `plugin_echo` behind a plugin namespace `Echo` whose mapper turns `Echo.echo(i)` into `{ n: i, mode: "fast" }`. All three share one input schema; MCP fills in the `mode` default.',
    tables: [
      {
        markdown: table(
          [['build'], ['cell'], ['median', 'r'], ['p95', 'r'], ['per call', 'r'], ['÷ tools.call', 'r']],
          rows,
        ),
      },
    ],
    notes: [],
    data,
  }
}

// ---------------------------------------------------------------------------

export async function b11({ products, plan }) {
  const FLOOD = 64
  const data = {}
  const rows = []
  const entries = []
  for (const p of products) {
    const flood = p.surface(undefined, 'flood-session')
    const quiet = p.surface(undefined, 'quiet-session')
    // Calibrate the heavy cell to about 40 ms of compute on this build.
    const probe = []
    for (let i = 0; i < 3; i++) probe.push((await timed(() => flood.exec({ code: cells.heavy(1e6) }))).ms)
    const iterations = Math.round((1e6 * 40) / summarize(probe).median)
    entries.push({ name: p.name, p, flood, quiet, heavy: cells.heavy(iterations), iterations })
  }
  const execTimed = async (run, code) => {
    const { ms: elapsed, value } = await timed(() => run.exec({ code }))
    if (value.status !== 'completed') throw new Error(`B11: ${value.status} ${value.error}`)
    return elapsed
  }
  const samples = await interleave({
    entries,
    ...plan.fairness,
    sample: async (entry) => {
      const alone = []
      for (let i = 0; i < plan.aloneCells; i++) alone.push(await execTimed(entry.quiet, cells.B1.code))
      const busy = []
      let finished = false
      const heavyTimes = []
      const start = performance.now()
      const flood = Promise.all(
        Array.from({ length: FLOOD }, async () => heavyTimes.push(await execTimed(entry.flood, entry.heavy))),
      ).then(() => (finished = true))
      while (!finished) busy.push(await execTimed(entry.quiet, cells.B1.code))
      await flood
      return { alone, busy, heavy: heavyTimes, floodMs: performance.now() - start }
    },
  })
  for (const e of entries) {
    const list = samples.get(e.name)
    const alone = summarize(list.flatMap((r) => r.alone))
    const busy = summarize(list.flatMap((r) => r.busy))
    const heavy = summarize(list.flatMap((r) => r.heavy))
    const floodMs = summarize(list.map((r) => r.floodMs)).median
    data[e.name] = { alone, busy, heavy, floodMs }
    rows.push([e.name, ms(alone.median), ms(alone.p99), ms(busy.median), ms(busy.p99), ms(busy.max), String(busy.n), num(busy.median / alone.median, 3), num(busy.p99 / alone.p99, 3), ms(heavy.median), ms(floodMs)])
  }
  return {
    id: 'B11',
    title: 'fairness: a quiet session next to one flooding 64 CPU-heavy cells',
    method: `Two run surfaces (sessions) of one instance. The flooding one starts ${FLOOD} concurrent cells of about 40 ms of compute each (calibrated per build: ${entries.map((e) => `${e.name} ${e.iterations} iterations`).join(', ')}); meanwhile the quiet one runs \`return 1 + 1\` cells one after another until the flood ends. "Alone": ${plan.aloneCells} quiet cells before each flood. A quiet cell that waits behind the whole flood shows up as the max (and, with few quiet cells, as the p99).`,
    tables: [
      {
        markdown: table(
          [['build'], ['alone p50', 'r'], ['alone p99', 'r'], ['under flood p50', 'r'], ['under flood p99', 'r'], ['under flood max', 'r'], ['quiet cells', 'r'], ['p50 ratio', 'r'], ['p99 ratio', 'r'], ['heavy cell median', 'r'], ['flood duration', 'r']],
          rows,
        ),
      },
    ],
    notes: [],
    data,
  }
}
