// The summary: product vs each peer per workload, and the product's targets
// with whether each is met. Ratios are "how many times faster (or lighter)
// the product is": peer median ÷ product median. Targets name quickjs-wasi
// unless they say otherwise.
import { bytes, ms, num, rate, table, times, us } from './report.mjs'

const WASI = 'quickjs-wasi'

/** Ratio matrix: one row per latency workload, one column per peer (and the baseline). */
export function ratioTable(results, product, others) {
  const median = (id, name) => results[id]?.data.stats?.[name]?.median
  const rows = []
  for (const [id, label] of [['B1', 'B1 cold cell'], ['B2', 'B2 100 sequential calls'], ['B3', 'B3 100 calls in Promise.all'], ['B4', 'B4 compute']]) {
    if (!results[id]) continue
    const base = median(id, product)
    rows.push([label, ms(base), ...others.map((o) => times(median(id, o) / base))])
  }
  if (results.B5) {
    const base = results.B5.data[`${product}|budget`]?.total.median
    const cell = (o) => {
      const d = results.B5.data[`${o}|snapshot`] ?? results.B5.data[`${o}|budget`]
      return d ? times(d.total.median / base) : '–'
    }
    rows.push(['B5 park + resume', ms(base), ...others.map(cell)])
  }
  if (results.B6) {
    const base = results.B6.data[product]?.perRun
    rows.push(['B6 RSS per held run', bytes(base), ...others.map((o) => (results.B6.data[o] ? times(results.B6.data[o].perRun / base) : '–'))])
  }
  if (results.B9) {
    const base = results.B9.data[product]
    rows.push(['B9 cells/s, 2 callers', rate(base?.two), ...others.map((o) => (results.B9.data[o] ? times(base.two / results.B9.data[o].two) : '–'))])
  }
  return table([['workload'], [`${product}`, 'r'], ...others.map((o) => [`÷ ${o}`, 'r'])], rows)
}

/** The targets, evaluated for each product build given. */
export function targetRows(results, builds) {
  const R = (id) => results[id]?.data
  const stat = (id, name) => R(id)?.stats?.[name]
  const ratioVsWasi = (id) => (name) => {
    const mine = stat(id, name)?.median
    const theirs = stat(id, WASI)?.median
    return mine && theirs ? theirs / mine : NaN
  }
  const targets = [
    { id: 'B1', text: `≥ 5× faster than ${WASI}`, value: ratioVsWasi('B1'), show: times, met: (v) => v >= 5 },
    { id: 'B2', text: `≥ 3× faster than ${WASI}`, value: ratioVsWasi('B2'), show: times, met: (v) => v >= 3 },
    { id: 'B2', text: '≤ 12 µs per call (median / 100)', value: (n) => stat('B2', n)?.median / 100, show: us, met: (v) => v <= 0.012 },
    { id: 'B2', text: 'p95 ≤ 2× median', value: (n) => stat('B2', n)?.p95 / stat('B2', n)?.median, show: (v) => `${num(v, 2)}×`, met: (v) => v <= 2 },
    { id: 'B3', text: `≥ 4× faster than ${WASI}`, value: ratioVsWasi('B3'), show: times, met: (v) => v >= 4 },
    { id: 'B3', text: "≤ 40% of B2's time", value: (n) => stat('B3', n)?.median / stat('B2', n)?.median, show: (v) => `${num(v * 100, 3)}%`, met: (v) => v <= 0.4 },
    { id: 'B4', text: `≥ 2.5× faster than ${WASI}`, value: ratioVsWasi('B4'), show: times, met: (v) => v >= 2.5 },
    {
      id: 'B5',
      text: `park + resume ≥ 20× faster than ${WASI} snapshot + restore`,
      value: (n) => R('B5')?.[`${WASI}|snapshot`]?.total.median / R('B5')?.[`${n}|budget`]?.total.median,
      show: times,
      met: (v) => v >= 20,
    },
    { id: 'B5', text: 'resume ≤ 150 µs median', value: (n) => R('B5')?.[`${n}|budget`]?.resume.median, show: us, met: (v) => v <= 0.15 },
    { id: 'B5', text: 'bytes held per parked run ≤ 100 KB', value: (n) => R('B5')?.[`${n}|budget`]?.bytes, show: bytes, met: (v) => v <= 100_000 },
    {
      id: 'B6',
      text: `RSS per held run ≤ 1/3 of ${WASI}'s per held VM`,
      value: (n) => R('B6')?.[n]?.perRun / R('B6')?.[WASI]?.perRun,
      show: (v) => `${num(v, 2)} of it`,
      met: (v) => v <= 1 / 3,
    },
    ...['spin', 'small', 'large'].map((phase) => ({
      id: 'B7',
      text: `p99 lag < 5 ms: ${{ spin: 'two cells spinning', small: 'flood, 14 KB inputs', large: 'flood, 512 KiB inputs' }[phase]}`,
      value: (n) => R('B7')?.[`${n}|${phase}`]?.p99,
      show: ms,
      met: (v) => v < 5,
    })),
    {
      id: 'B8',
      text: '≥ 20× faster than the typescript package, first call',
      value: (n) => R('B8')?.typescript?.first.median / R('B8')?.[n]?.first.median,
      show: times,
      met: (v) => v >= 20,
    },
    {
      id: 'B8',
      text: '≥ 20× faster than the typescript package, steady state',
      value: (n) => R('B8')?.typescript?.steady.median / R('B8')?.[n]?.steady.median,
      show: times,
      met: (v) => v >= 20,
    },
    { id: 'B9', text: `≥ 5× ${WASI}'s cells per second (2 callers each)`, value: (n) => R('B9')?.[n]?.two / R('B9')?.[WASI]?.two, show: times, met: (v) => v >= 5 },
    { id: 'B9', text: '2 callers ≥ 1.6× one caller', value: (n) => R('B9')?.[n]?.two / R('B9')?.[n]?.one, show: (v) => `${num(v, 2)}×`, met: (v) => v >= 1.6 },
    ...['MCP, 100 sequential', 'namespace, 100 sequential', 'MCP, 100 in Promise.all', 'namespace, 100 in Promise.all'].map((cell) => ({
      id: 'B10',
      text: `${cell.replace(', 100', '')}: per call within 15% of tools.call`,
      value: (n) => {
        const ref = cell.endsWith('sequential') ? 'tools.call, 100 sequential' : 'tools.call, 100 in Promise.all'
        return R('B10')?.[`${n}|${cell}`]?.median / R('B10')?.[`${n}|${ref}`]?.median
      },
      show: (v) => `${num(v, 3)}×`,
      met: (v) => v <= 1.15,
    })),
    { id: 'B11', text: 'quiet session p99 within 3× of alone', value: (n) => R('B11')?.[n]?.busy.p99 / R('B11')?.[n]?.alone.p99, show: (v) => `${num(v, 3)}×`, met: (v) => v <= 3 },
    {
      id: 'B12',
      text: `1 busy process: B2 ≥ 1.5× faster than ${WASI}`,
      value: (n) => R('B12')?.[`${WASI}|B2|1`]?.median / R('B12')?.[`${n}|B2|1`]?.median,
      show: times,
      met: (v) => v >= 1.5,
    },
    { id: 'B12', text: '1 busy process: B2 ≤ 60 µs per call', value: (n) => R('B12')?.[`${n}|B2|1`]?.median / 100, show: us, met: (v) => v <= 0.06 },
    {
      id: 'B13',
      text: 'trivial exec at 5000 tools within 1.5× of 10 tools (OpenClaw; MCP)',
      value: (n) => Math.max(...['openclaw', 'mcp'].map((k) => R('B13')?.[`${n}|${k}|5000`]?.trivial.median / R('B13')?.[`${n}|${k}|10`]?.trivial.median)),
      show: (v) => `${num(v, 2)}×`,
      met: (v) => v <= 1.5,
    },
    { id: 'B13', text: 'tools.search over 5000 tools ≤ 1 ms in the cell', value: (n) => R('B13')?.[`${n}|openclaw|5000`]?.inside.median, show: ms, met: (v) => v <= 1 },
    {
      id: 'B13',
      text: 'prepareRun at 5000 tools ≤ 2 ms on the Node thread (OpenClaw; MCP)',
      value: (n) => Math.max(...['openclaw', 'mcp'].map((k) => R('B13')?.[`${n}|${k}|5000`]?.prepare.median)),
      show: ms,
      met: (v) => v <= 2,
    },
    // isolation: 'process' against threads (the "process" column).
    ...['B1', 'B2', 'B3'].map((id) => ({
      id,
      text: "isolation 'process': ≤ 1.2× the thread product's time",
      value: (n) => (n === 'process' ? stat(id, n)?.median / stat(id, 'product')?.median : NaN),
      show: (v) => `${num(v, 2)}×`,
      met: (v) => v <= 1.2,
    })),
    {
      id: 'B5',
      text: "isolation 'process': park + resume ≤ 1.2× the thread product's",
      value: (n) => (n === 'process' ? R('B5')?.[`${n}|budget`]?.total.median / R('B5')?.['product|budget']?.total.median : NaN),
      show: (v) => `${num(v, 2)}×`,
      met: (v) => v <= 1.2,
    },
    {
      id: 'B9',
      text: "isolation 'process': cells per second ≥ 1/1.2 of the thread product's",
      value: (n) => (n === 'process' ? R('B9')?.product?.two / R('B9')?.[n]?.two : NaN),
      show: (v) => `${num(v, 2)}×`,
      met: (v) => v <= 1.2,
    },
    {
      id: 'B8',
      text: 'first exec of a process (createCodeMode, a sandbox start with process isolation) ≤ 20 ms',
      value: (n) => R('B8')?.[n]?.firstExec?.median,
      show: ms,
      met: (v) => v <= 20,
    },
    ...[0, 1].map((load) => ({
      id: 'B12',
      text: `${load} busy: B2 p90 ≤ 2× median`,
      value: (n) => R('B12')?.[`${n}|B2|${load}`]?.p90 / R('B12')?.[`${n}|B2|${load}`]?.median,
      show: (v) => `${num(v, 2)}×`,
      met: (v) => v <= 2,
    })),
  ]
  const rows = []
  let met = 0
  let counted = 0
  for (const t of targets) {
    if (!results[t.id]) continue
    const cells = builds.map((name) => {
      const v = t.value(name)
      if (!Number.isFinite(v)) return ['–', '–']
      const ok = t.met(v)
      return [t.show(v), ok ? 'yes' : '**no**']
    })
    if (cells[0][1] !== '–') {
      counted++
      if (cells[0][1] === 'yes') met++
    }
    rows.push([t.id, t.text, ...cells.flat()])
  }
  const columns = [['workload'], ['target'], ...builds.flatMap((b) => [[b, 'r'], ['met', 'c']])]
  return { markdown: table(columns, rows), met, counted }
}
