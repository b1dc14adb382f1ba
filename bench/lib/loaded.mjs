// B12: nested calls on a busy machine. The same B2 and B3 cells, for the
// product builds and quickjs-wasi, with 0, 1 and 2 busy processes on the
// machine: child processes that spin until told to stop (and stop on their
// own after a deadline, so a crashed benchmark leaves nothing running).
import { spawn } from 'node:child_process'

import * as cells from './cells.mjs'
import { check } from './host.mjs'
import { ms, num, table, times, us } from './report.mjs'
import { interleave, timed } from './rounds.mjs'
import { quantile, summarize } from './stats.mjs'

const WASI = 'quickjs-wasi'
const LOADS = [0, 1, 2]
/** The longest a busy process lives, whatever happens to this one. */
const BUSY_DEADLINE_MS = 120_000

/** Starts `count` busy processes; resolves once each is spinning. */
async function startBusy(count) {
  const children = []
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ['-e', `process.stdout.write('go'); const end = Date.now() + ${BUSY_DEADLINE_MS}; while (Date.now() < end) {}`], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    await new Promise((resolve, reject) => {
      child.once('error', reject)
      child.stdout.once('data', resolve)
    })
    children.push(child)
  }
  return () => {
    for (const child of children) child.kill('SIGKILL')
  }
}

export async function b12({ products, peers, plan }) {
  const wasi = peers.find((p) => p.name === WASI)
  const contenders = [...products, ...(wasi ? [wasi] : [])]
  const workloads = [
    ['B2', cells.B2, '100 sequential calls'],
    ['B3', cells.B3, '100 calls in Promise.all'],
  ]
  const data = {}
  const rows = []
  for (const load of LOADS) {
    const stop = await startBusy(load)
    try {
      const entries = workloads.flatMap(([id, cell]) => contenders.map((c) => ({ name: `${c.name}|${id}`, contender: c, cell })))
      const samples = await interleave({
        entries,
        ...plan.loaded,
        perSlice: plan.b2PerSlice,
        sample: async (entry) => {
          const { ms: elapsed, value } = await timed(() => entry.contender.cell(entry.cell.code))
          check(entry.name, value, entry.cell.expect)
          return elapsed
        },
      })
      for (const [id, , label] of workloads) {
        const peer = wasi ? summarize(samples.get(`${WASI}|${id}`)) : null
        for (const c of contenders) {
          const list = samples.get(`${c.name}|${id}`)
          const s = { ...summarize(list), p90: quantile(list, 0.9) }
          data[`${c.name}|${id}|${load}`] = s
          rows.push([
            String(load),
            `${id} ${label}`,
            c.label ?? c.name,
            ms(s.median),
            ms(s.p90),
            num(s.p90 / s.median, 2),
            us(s.median / 100),
            peer && c.name !== WASI ? times(peer.median / s.median) : '–',
          ])
        }
      }
    } finally {
      stop()
    }
  }
  return {
    id: 'B12',
    title: 'nested calls on a busy machine: B2 and B3 with 0, 1 and 2 busy processes',
    method: `Each busy process is a child Node process spinning on one core (at most ${BUSY_DEADLINE_MS / 1000} s; killed when its phase ends). Per load, interleaved rounds of the B2 and B3 cells for the product builds and ${WASI}, which runs its guest on the Node thread and makes no thread hand-off. O2, OpenClaw's "exec with 100 sequential tool calls", is B2's cell here; OpenClaw itself is not a peer of this benchmark (it needs Node 24 and its own package).`,
    tables: [
      {
        markdown: table(
          [['busy processes', 'r'], ['cell'], ['contender'], ['median', 'r'], ['p90', 'r'], ['p90/median', 'r'], ['per call', 'r'], [`${WASI} ÷`, 'r']],
          rows,
        ),
      },
    ],
    notes: [],
    data,
  }
}
