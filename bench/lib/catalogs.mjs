// B13: what a run costs as its catalog grows. For 10, 100, 1000 and 5000
// tools of one small schema each (OpenClaw tools, and MCP tools of ten
// servers): prepareRun on the Node thread (with the read of modelTools a
// gateway makes right after), a trivial exec, an exec with one tools.search,
// and one search timed inside the cell; the Node thread's time in the turns
// after a prepareRun (the product writes the tools then). Execs are timed
// from 100 ms after the last prepareRun, once the catalog built in the
// background is done.
import { ms, table, us } from './report.mjs'
import { summarize } from './stats.mjs'

export const SIZES = [10, 100, 1000, 5000]
const KINDS = ['openclaw', 'mcp']

const SCHEMA = { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'number' } }, required: ['path'] }
const VERBS = ['read', 'write', 'list', 'search', 'create', 'delete', 'update', 'fetch', 'send', 'sync']
const NOUNS = ['file', 'issue', 'message', 'page', 'record', 'event', 'user', 'branch', 'ticket', 'note']

/** `count` tools with one small schema each (each its own object, as a gateway builds them). */
export function catalog(count, kind = 'openclaw') {
  return Array.from({ length: count }, (_, i) => {
    const verb = VERBS[i % 10]
    const noun = NOUNS[Math.floor(i / 10) % 10]
    const name = `${verb}_${noun}_${i}`
    const description = `${verb[0].toUpperCase()}${verb.slice(1)} a ${noun} (variant ${i}).`
    const parameters = structuredClone(SCHEMA)
    if (kind !== 'mcp') return { name, description, source: 'openclaw', parameters }
    const server = `server${i % 10}`
    return { name: `${server}__${name}`, description, source: 'mcp', sourceName: server, parameters, mcp: { server, tool: name } }
  })
}

/** A search timed inside the cell: the mean of `n` searches, in ms. */
const SEARCH_CELL = (n) =>
  `const t0 = Date.now(); let hits = 0; for (let i = 0; i < ${n}; i++) hits += (await tools.search('update ticket variant', { limit: 5 })).length; return (Date.now() - t0) / ${n}`

const TURNS = 60

/** 100 ms for work in the background to end, then a full gc(). */
async function quiet() {
  await new Promise((resolve) => setTimeout(resolve, 100))
  globalThis.gc?.()
}

/** The Node thread's time in each of the next TURNS event-loop turns, less an empty turn's: the largest and the sum. */
async function turnsAfter() {
  const gaps = []
  let last = performance.now()
  for (let i = 0; i < TURNS; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    const now = performance.now()
    gaps.push(now - last)
    last = now
  }
  const empty = [...gaps].sort((a, b) => a - b)[TURNS >> 2]
  const busy = gaps.map((gap) => Math.max(0, gap - empty))
  return { largest: Math.max(...busy), total: busy.reduce((a, b) => a + b, 0) }
}

async function timedExec(run, code) {
  const t0 = performance.now()
  const result = await run.exec({ code })
  const elapsed = performance.now() - t0
  if (result.status !== 'completed') throw new Error(`B13: ${code.slice(0, 40)}: ${result.status} ${result.error}`)
  return { elapsed, value: result.value }
}

export async function b13({ products, plan }) {
  const { prepares, execs, searches } = plan.catalogs
  const data = {}
  const rows = []
  for (const kind of KINDS) {
    for (const size of SIZES) {
      const tools = catalog(size, kind)
      for (const product of products) {
        const codeMode = product.binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 }, workerThreads: 1 })
        try {
          const prepare = []
          let run
          for (let i = 0; i < prepares; i++) {
            globalThis.gc?.()
            const t0 = performance.now()
            run = codeMode.prepareRun({ runId: `b13-${i}`, tools, executeTool: async () => ({ ok: true }) })
            run.modelTools
            prepare.push(performance.now() - t0)
          }
          // The catalog is built in the background after prepareRun
          // returns; the Node thread writes the tools over the next turns.
          // Time those turns after one more prepareRun made on a quiet
          // thread, then let the build end before execs are timed.
          await quiet()
          run = codeMode.prepareRun({ runId: 'b13-after', tools, executeTool: async () => ({ ok: true }) })
          const after = await turnsAfter()
          await quiet()
          const sample = async (code) => {
            const xs = []
            for (let i = 0; i < execs + 3; i++) {
              const { elapsed } = await timedExec(run, code)
              if (i >= 3) xs.push(elapsed)
            }
            return summarize(xs)
          }
          const trivial = await sample('return 1')
          const search = await sample("return (await tools.search('send message', { limit: 5 })).length")
          const inside = []
          for (let i = 0; i < 3; i++) inside.push((await timedExec(run, SEARCH_CELL(searches))).value)
          const s = { prepare: summarize(prepare), after, trivial, search, inside: summarize(inside) }
          data[`${product.name}|${kind}|${size}`] = s
          rows.push([
            kind,
            String(size),
            product.name,
            ms(s.prepare.median),
            `${ms(s.after.largest)} / ${ms(s.after.total)}`,
            `${ms(s.trivial.median)} (p95 ${ms(s.trivial.p95)})`,
            ms(s.search.median),
            us(s.inside.median),
          ])
        } finally {
          await codeMode.close()
        }
      }
    }
  }
  return {
    id: 'B13',
    title: 'catalog size: prepareRun, a trivial exec and a search with 10 to 5000 tools',
    method: `For each size, tools of one small schema each (OpenClaw tools; MCP tools of ten servers), one \`createCodeMode\` (1 worker) per build. prepareRun: ${prepares} calls, each timed with the read of \`modelTools\` that follows it (a full gc() before each). Then: the Node thread's time in the ${TURNS} event-loop turns after one more prepareRun, made 100 ms after the others and a gc() (where the product writes the tools for its background build): the largest turn and the sum over all, each turn's time less that of an empty turn. Execs: ${execs} after 3 warm-up, from 100 ms after that. Search inside the cell: ${searches} \`tools.search\` calls timed with Date.now() in the cell (MCP tools are not searchable: 0 hits). Targets: a trivial exec at 5000 tools within 1.5× of its time at 10, a search at 5000 tools ≤ 1 ms, prepareRun at 5000 tools ≤ 2 ms on the Node thread.`,
    tables: [
      {
        markdown: table(
          [['tools'], ['count', 'r'], ['build'], ['prepareRun (Node thread)', 'r'], ['then: largest turn / all turns', 'r'], ['trivial exec', 'r'], ['exec with one search', 'r'], ['one search in the cell', 'r']],
          rows,
        ),
      },
    ],
    notes: [],
    data,
  }
}
