// The workloads B1-B13 (B10 and B11, which drive several run surfaces of
// the product, live in sessions.mjs). Each takes the contenders and the plan (round
// counts), measures, and returns its section of the report: tables, notes,
// and `data`, the figures the summary's targets are read from.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import * as cells from './cells.mjs'
import { check } from './host.mjs'
import { startLagSampler } from './lag.mjs'
import { bytes, mark, ms, num, rate, table, times, us } from './report.mjs'
import { collect, interleave, rotation, timed } from './rounds.mjs'
import { summarize } from './stats.mjs'

const FIRST_CALL_CHILD = fileURLToPath(new URL('./first-call.mjs', import.meta.url))
const HOLD_CHILD = fileURLToPath(new URL('./hold-child.mjs', import.meta.url))

/** Times `entry.cell(code)` and checks its value. */
const cellSample = (cell) => async (entry) => {
  const { ms: elapsed, value } = await timed(() => entry.cell(cell.code))
  check(`${entry.name}`, value, cell.expect)
  return elapsed
}

/**
 * The usual latency table: median, p95, p95/median, and how many times the
 * product's median the contender's is. `extra` adds columns per row.
 */
function latencyTable(entries, samples, product, extra = []) {
  const stats = new Map(entries.map((e) => [e.name, summarize(samples.get(e.name))]))
  const base = stats.get(product.name)?.median
  const rows = entries.map((e) => {
    const s = stats.get(e.name)
    return [
      e.label ?? e.name,
      ms(s.median),
      ms(s.p95),
      num(s.p95 / s.median, 2),
      e.name === product.name ? '1×' : times(s.median / base),
      ...extra.map(([, f]) => f(e, s)),
    ]
  })
  const columns = [['contender'], ['median', 'r'], ['p95', 'r'], ['p95/median', 'r'], ['÷ product median', 'r'], ...extra.map(([h]) => [h, 'r'])]
  return { markdown: table(columns, rows), stats }
}

const statsObject = (stats) => Object.fromEntries([...stats].map(([k, v]) => [k, v]))

/** How the contenders are set up (printed once, in the report's header). */
export const SETUP_NOTE = `Every peer runs each cell in a fresh VM, disposed after: quickjs-wasi (module compiled once) and quickjs-emscripten (sync variant) with a 64 MiB memory limit and a deadline interrupt handler; isolated-vm with a 64 MiB isolate and node:vm without their \`timeout\` option, whose watchdog thread costs each 0.3-0.4 ms a cell here (and which would not stop a loop after an \`await\`). The guest reaches the host through one async host function \`__call(name, inputJson)\`, wrapped as \`tools.call\`, backed by the same \`echo\` tool (resolving \`{ ok: true, n }\`) as the product's \`executeTool\`. The product: \`createCodeMode\` once (\`maxPendingToolCalls\` 128, \`timeoutMs\` 60 s), one \`prepareRun\` with four tools (each with a small input schema, so every nested call's input is validated), and one \`exec\` per cell.`

// ---------------------------------------------------------------------------

/** One latency workload: `cell` timed in interleaved rounds, one latency table. */
async function latency({ id, title, method, cell, entries, product, rounds, perSlice, perCall }) {
  const samples = await interleave({ entries, ...rounds, perSlice, sample: cellSample(cell) })
  const extra = perCall ? [['per call (median / 100)', (e, s) => us(s.median / 100)]] : []
  const t = latencyTable(entries, samples, product, extra)
  return { id, title, method, tables: [t], notes: [], data: { stats: statsObject(t.stats) } }
}

export const b1 = ({ all, product, plan }) =>
  latency({
    id: 'B1',
    title: 'cold cell, `return 1 + 1`',
    method: 'A fresh VM per cell for every peer; one `exec` for the product.',
    cell: cells.B1,
    entries: all,
    product,
    rounds: plan.latency,
    perSlice: plan.b1PerSlice,
  })

export const b2 = ({ all, product, workers, plan }) =>
  latency({
    id: 'B2',
    title: '100 sequential awaited tool calls, return the sum',
    method: "`for (i < 100) sum += (await tools.call('echo', { n: i })).n`. The product rows with a worker count are separate `createCodeMode` instances.",
    cell: cells.B2,
    entries: [...all, ...workers],
    product,
    rounds: plan.latency,
    perSlice: plan.b2PerSlice,
    perCall: true,
  })

export const b3 = ({ all, product, plan }) =>
  latency({
    id: 'B3',
    title: '100 tool calls through `Promise.all`',
    method: 'The product runs with `maxPendingToolCalls: 128`, so all 100 calls are in flight at once.',
    cell: cells.B3,
    entries: all,
    product,
    rounds: plan.latency,
    perSlice: plan.b2PerSlice,
    perCall: true,
  })

export const b4 = ({ all, product, plan }) =>
  latency({
    id: 'B4',
    title: 'compute: sum of i*i for i < 1e6, then JSON.stringify of 10k small objects',
    cell: cells.B4,
    entries: all,
    product,
    rounds: plan.compute,
    perSlice: 1,
  })

// ---------------------------------------------------------------------------

export async function b5({ products, peers, plan }) {
  const wasi = peers.find((p) => p.name === 'quickjs-wasi')
  // One entry per way of suspending: the products park on their budget and
  // through yield_control; quickjs-wasi snapshots and restores.
  const entries = [
    ...products.flatMap((p) => [
      { name: `${p.name}|budget`, label: `${p.name}, park at the end of the budget`, run: () => p.suspend(cells.SUSPEND.code), expect: cells.SUSPEND.expect },
      { name: `${p.name}|yield`, label: `${p.name}, park through \`yield_control()\``, run: () => p.yieldPark(cells.YIELD.code), expect: cells.YIELD.expect },
    ]),
    ...(wasi ? [{ name: 'quickjs-wasi|snapshot', label: 'quickjs-wasi, snapshot + restore', run: () => wasi.suspend(cells.SUSPEND.code), expect: cells.SUSPEND.expect }] : []),
  ]
  const samples = await interleave({
    entries,
    ...plan.suspend,
    sample: async (entry) => {
      const r = await entry.run()
      check(entry.name, r.value, entry.expect)
      return r
    },
  })
  const data = {}
  const rows = entries.map((e) => {
    const list = samples.get(e.name)
    const park = summarize(list.map((r) => r.park))
    const resume = summarize(list.map((r) => r.resume))
    const total = summarize(list.map((r) => r.park + r.resume))
    const held = summarize(list.map((r) => r.bytes))
    data[e.name] = { park, resume, total, bytes: held.median }
    return [e.label, ms(park.median), ms(park.p95), ms(resume.median), ms(resume.p95), ms(total.median), bytes(held.median)]
  })
  const base = data[`${products[0].name}|budget`]?.total.median
  rows.forEach((row, i) => row.push(i === 0 ? '1×' : times(data[entries[i].name].total.median / base)))
  const others = peers.filter((p) => p.name !== 'quickjs-wasi').map((p) => p.name)
  return {
    id: 'B5',
    title: 'suspend and resume a run awaiting a tool that settles after the exec budget',
    method:
      "The cell awaits `slow`, which settles only after the run is suspended. Product: exec (budget 100 ms) → `waiting`, counted from the end of the budget (exec → waiting less 100 ms, the budget the product waits out before parking); then the tool settles, and wait → `completed` is \"resume\". Bytes held: the product's own `snapshotBytes` of the parked run. The `yield_control()` row parks at once, with no budget to wait out. quickjs-wasi: the VM is snapshotted and disposed (\"park\"), then restored, the call settled into it through a guest-side resolver, and run to completion (\"resume\"); bytes held: the snapshot's memory image.",
    tables: [
      {
        markdown: table(
          [['contender'], ['park median', 'r'], ['park p95', 'r'], ['resume median', 'r'], ['resume p95', 'r'], ['park + resume', 'r'], ['bytes held per run', 'r'], ['÷ product', 'r']],
          [...rows, ...others.map((n) => [`${n}${mark(0)}`, '–', '–', '–', '–', '–', '–', '–'])],
        ),
      },
    ],
    notes: [`${others.join(', ')}: no snapshot or restore; a suspended run can only be held live (see B6).`],
    data,
  }
}

export async function b6({ all, product, plan, productPaths, isolations }) {
  const COUNT = 64
  const samples = await interleave({
    entries: all,
    ...plan.hold,
    sample: (entry) =>
      child(
        HOLD_CHILD,
        [entry.kind === 'product' ? 'product' : entry.name, String(COUNT), ...(entry.kind === 'product' ? [productPaths[entry.name]] : [])],
        ['--expose-gc'],
        isolations[entry.name],
      ),
  })
  const data = {}
  const rows = all.map((e) => {
    const list = samples.get(e.name)
    const per = summarize(list.map((r) => r.perRun))
    data[e.name] = { perRun: per.median, min: per.min, max: per.max, snapshotBytes: list[0]?.snapshotBytes ?? NaN }
    return [e.label ?? e.name, bytes(per.median), `${bytes(per.min)} – ${bytes(per.max)}`, e.kind === 'product' ? bytes(data[e.name].snapshotBytes) : '–']
  })
  const base = data[product.name].perRun
  rows.forEach((row, i) => row.push(all[i].name === product.name ? '1×' : times(data[all[i].name].perRun / base)))
  return {
    id: 'B6',
    title: `${COUNT} suspended runs held: RSS growth per run`,
    method: `process.memoryUsage().rss after gc(), before and after holding ${COUNT} suspended runs, divided by ${COUNT}, in a fresh process per sample (in one long-lived process, memory freed by one contender, such as malloc arenas or a WASM memory that never shrinks, is reused by the next and hides its growth); each process first runs a B2 cell and suspends and drops one run. Product: ${COUNT} parked runs (the cap per instance) of one run surface; its own \`snapshotBytes\` per run beside it. Peers: ${COUNT} live VMs, each with a cell awaiting a host promise that never settles.`,
    tables: [
      {
        markdown: table(
          [['contender'], ['RSS per held run, median', 'r'], ['range over processes', 'r'], ['snapshotBytes (product)', 'r'], ['÷ product', 'r']],
          rows,
        ),
      },
    ],
    notes: [],
    data,
  }
}

// ---------------------------------------------------------------------------

export async function b7({ all, plan }) {
  const seconds = plan.lagSeconds
  const phases = [
    {
      key: 'spin',
      label: 'two cells spinning in `for (;;) {}` until their timeout',
      run: (entry) => entry.spin(cells.SPIN, seconds * 1000),
    },
    {
      key: 'small',
      label: 'one cell flooding awaited nested calls, 14 KB inputs',
      run: (entry) => floodFor(entry, cells.SMALL_INPUT, 2000, seconds),
    },
    {
      key: 'large',
      label: 'one cell flooding awaited nested calls, 512 KiB inputs',
      run: (entry) => floodFor(entry, cells.LARGE_INPUT, 100, seconds),
    },
  ]
  const data = {}
  const rows = []
  for (const [index, phase] of phases.entries()) {
    for (const entry of rotation(all, index)) {
      collect()
      const sampler = startLagSampler()
      const calls = await phase.run(entry)
      const lags = sampler.stop()
      const s = summarize(lags)
      data[`${entry.name}|${phase.key}`] = { ...s, calls }
    }
    // Measured in rotated order, listed in the contenders' order.
    for (const entry of all) {
      const s = data[`${entry.name}|${phase.key}`]
      rows.push([phase.label, entry.label ?? entry.name, ms(s.median), ms(s.p99), ms(s.max), String(s.n), typeof s.calls === 'number' ? String(s.calls) : '–'])
    }
  }
  return {
    id: 'B7',
    title: 'event-loop lag (1 ms setInterval) while cells spin or flood nested calls',
    method: `Each phase runs ${seconds} s per contender; lag is how late each 1 ms tick fires (a loop blocked to the end counts as one late tick). Product: two cells with \`timeoutMs\` ${seconds * 1000} spinning on worker threads; floods are cells looping \`await tools.call('echo', input)\` until the phase ends (up to 2000 or 100 calls per cell, then the next cell: the product sends at most 64 MiB of inputs per exec).`,
    tables: [
      {
        markdown: table(
          [['phase'], ['contender'], ['p50 lag', 'r'], ['p99 lag', 'r'], ['max lag', 'r'], ['ticks', 'r'], ['nested calls', 'r']],
          rows,
        ),
      },
    ],
    notes: [
      "Peers spin synchronously (`for (;;) {}` as a plain script) and are stopped by their own timeout or interrupt handler. A spin that starts after an `await` is not run for them: node:vm would block the loop for good, and isolated-vm's timeout and quickjs-wasi's handler (as used here) do not end it, which would hang the benchmark. quickjs-wasi, quickjs-emscripten and node:vm run on the Node thread, so their two spins run one after the other and block the loop throughout; isolated-vm runs them on its own threads.",
      'Peer floods resolve each call in a microtask on the Node thread, so a flood blocks the loop until its cells end.',
    ],
    data,
  }
}

/** Runs flood cells (each up to `maxCalls` calls) back to back for `seconds`; returns the calls made. */
async function floodFor(entry, inputExpr, maxCalls, seconds) {
  const until = Date.now() + seconds * 1000
  let calls = 0
  while (Date.now() < until) calls += await entry.cell(cells.flood(inputExpr, maxCalls, until))
  return calls
}

// ---------------------------------------------------------------------------

export async function b8({ products, tsPeer, plan, productPaths, isolations }) {
  const entries = [...products, ...(tsPeer ? [tsPeer] : [])]
  const label = (e) => (e.kind === 'product' ? `${e.name}, exec with language 'typescript'` : 'typescript.transpileModule + node:vm')

  // First call: a fresh process per sample (the first TypeScript cell of a
  // process pays for initialising its compiler), alternating contenders.
  const first = new Map(entries.map((e) => [e.name, []]))
  for (let round = 0; round < plan.firstCallProcesses; round++) {
    for (const entry of rotation(entries, round)) {
      const args = entry.kind === 'product' ? ['product', productPaths[entry.name]] : ['typescript']
      const result = await child(FIRST_CALL_CHILD, args, [], isolations[entry.name])
      check(`${entry.name} first call`, result.value, cells.TS_CELL.expect)
      first.get(entry.name).push(result)
    }
  }
  const steady = await interleave({
    entries,
    ...plan.latency,
    perSlice: 3,
    sample: async (entry) => {
      const { ms: elapsed, value } = await timed(() => entry.typescriptCell(cells.TS_CELL.code))
      check(entry.name, value, cells.TS_CELL.expect)
      return elapsed
    },
  })
  const data = {}
  for (const e of entries) {
    data[e.name] = {
      first: summarize(first.get(e.name).map((r) => r.firstMs)),
      firstExec: summarize(first.get(e.name).map((r) => r.firstExecMs).filter(Number.isFinite)),
      load: summarize(first.get(e.name).map((r) => r.loadMs)),
      steady: summarize(steady.get(e.name)),
    }
  }
  const base = data[products[0].name]
  const rows = entries.map((e) => {
    const d = data[e.name]
    const self = e.name === products[0].name
    return [
      label(e),
      ms(d.load.median),
      ms(d.first.median),
      self ? '1×' : times(d.first.median / base.first.median),
      ms(d.steady.median),
      ms(d.steady.p95),
      self ? '1×' : times(d.steady.median / base.steady.median),
    ]
  })
  return {
    id: 'B8',
    title: 'TypeScript cell (50 lines: interfaces, generics, `as`, a class)',
    method: `First call: ${plan.firstCallProcesses} fresh processes per contender, alternating; each loads its module ("load"), runs one JavaScript cell to warm up, then times its first TypeScript cell (the product initialises swc on first use; the typescript package compiles its own code lazily). Steady state: interleaved rounds in this process. The peer transpiles with \`transpileModule\` (target ES2022, no diagnostics) and runs the output in a fresh node:vm context.`,
    tables: [
      {
        markdown: table(
          [['contender'], ['module load', 'r'], ['first call', 'r'], ['÷ product', 'r'], ['steady median', 'r'], ['steady p95', 'r'], ['÷ product', 'r']],
          rows,
        ),
      },
    ],
    notes: [],
    data,
  }
}

/** Runs a measuring child script in a fresh Node process; resolves to the JSON it prints. */
function child(script, args, nodeFlags = [], isolation) {
  return new Promise((resolve, reject) => {
    const env = isolation ? { ...process.env, CODE_MODE_ISOLATION: isolation } : process.env
    const proc = spawn(process.execPath, [...nodeFlags, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env })
    let out = ''
    proc.stdout.on('data', (d) => (out += d))
    proc.on('error', reject)
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${path.basename(script)} ${args.join(' ')} exited ${code}`))
      resolve(JSON.parse(out))
    })
  })
}

// ---------------------------------------------------------------------------

export async function b9({ all, product, plan }) {
  // Each slice: `callers` async loops calling `cell('return 1 + 1')` back to
  // back for sliceMs; cells per second = completions / elapsed.
  const entries = all.flatMap((e) => [1, 2].map((callers) => ({ name: `${e.name}|${callers}`, contender: e, callers })))
  const samples = await interleave({
    entries,
    ...plan.throughput,
    sample: async (entry) => {
      const until = performance.now() + plan.sliceMs
      let done = 0
      const start = performance.now()
      await Promise.all(
        Array.from({ length: entry.callers }, async () => {
          while (performance.now() < until) {
            check(entry.name, await entry.contender.cell(cells.B1.code), cells.B1.expect)
            done++
          }
        }),
      )
      return (done * 1000) / (performance.now() - start)
    },
  })
  const data = {}
  for (const e of all) {
    data[e.name] = { one: summarize(samples.get(`${e.name}|1`)).median, two: summarize(samples.get(`${e.name}|2`)).median }
  }
  const base = data[product.name]
  const rows = all.map((e) => {
    const d = data[e.name]
    const self = e.name === product.name
    return [e.label ?? e.name, rate(d.one), rate(d.two), num(d.two / d.one, 2), self ? '1×' : times(base.one / d.one), self ? '1×' : times(base.two / d.two)]
  })
  return {
    id: 'B9',
    title: 'throughput: trivial cells per second, 1 and 2 concurrent callers',
    method: `Each slice runs ${plan.sliceMs} ms of back-to-back \`return 1 + 1\` cells from 1 or 2 concurrent async callers; the figure is the median over rounds.`,
    tables: [
      {
        markdown: table(
          [['contender'], ['cells/s, 1 caller', 'r'], ['cells/s, 2 callers', 'r'], ['2 / 1', 'r'], ['product ÷, 1 caller', 'r'], ['product ÷, 2 callers', 'r']],
          rows,
        ),
      },
    ],
    notes: [],
    data,
  }
}

export { b10, b11 } from './sessions.mjs'
export { b12 } from './loaded.mjs'
export { b13 } from './catalogs.mjs'
