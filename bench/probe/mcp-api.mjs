// Probe (issue 32, findings 4 and 5): what the MCP namespace costs the host.
//
//   node bench/probe/mcp-api.mjs [--product PATH] [--calls N] [--schema-mb MB] [--alike N]
//
// 1. `$api` with schemas: one server of 400 tools whose schemas add up to
//    about --schema-mb (39 by default, the review's case), cells calling
//    `MCP.big.$api(undefined, { schema: true })` at the default 64 MiB memory
//    limit, one at a time and two at once, after a cell that returns 1 (the
//    floor). Prints how far RSS rose during each call (sampled every
//    millisecond on the Node thread while the cells run on the workers). The
//    review measured +936 MB a call (+1.87 GB with two cells) when each call
//    built the whole answer as values on the worker; now the answer is
//    measured up to the memory limit and, being longer, never written.
// 2. Identifiers: --alike tools (16,000 by default) of one server, with
//    distinct short names that all camel-case to createIssue, then as many
//    with distinct identifiers; the first exec comes at once, so the Node
//    thread builds the catalog and the MCP namespace itself. Prints how
//    long that exec held the thread (the review: 18 s for 16,000 alike,
//    trying 2, 3, 4, ... for each name).
//
// Compare with the build before: --product /path/to/other/checkout/index.js.
// Measured on the 2-core machine (issue 32), before -> after:
//   $api, 1 cell:   +333, +274, +74, +268, +48 MB -> +113, +54, +54, +0, +0 MB
//   $api, 2 cells:  +315, +317, +316, +314, +115 MB -> +49, +0, +0, +0, +0 MB
//     (the floor: +0 both; what is left after is the workers' allocator
//     arenas warming up, gone by the fourth call)
//   4,000 alike:    2,828 ms -> 75 ms (4,000 distinct: 19 -> 43 ms)
//   16,000 alike:   80,070 ms -> 280-760 ms (16,000 distinct: 230-290 ms)
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const here = path.dirname(fileURLToPath(import.meta.url))
const { values: args } = parseArgs({
  options: {
    product: { type: 'string', default: path.join(here, '../../index.js') },
    calls: { type: 'string', default: '5' },
    'schema-mb': { type: 'string', default: '39' },
    alike: { type: 'string', default: '16000' },
  },
})
const binding = createRequire(import.meta.url)(path.resolve(args.product))
const MB = 1024 * 1024
const peakMb = () => process.resourceUsage().maxRSS / 1024

// --- 1. $api with schemas ---
const TOOLS = 400
const perSchema = Math.floor((Number(args['schema-mb']) * 1e6) / TOOLS)
const schemaOf = (i) => ({
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: Math.ceil(perSchema / 100) }, (_, k) => [`field_${i}_${k}`, { type: 'string', description: 'd'.repeat(60) }]),
  ),
})
const tools = Array.from({ length: TOOLS }, (_, i) => ({
  name: `big__t${i}`,
  description: `tool ${i}`,
  source: 'mcp',
  sourceName: 'big',
  parameters: schemaOf(i),
  mcp: { server: 'big', tool: `t${i}` },
}))
const schemaBytes = tools.reduce((sum, tool) => sum + JSON.stringify(tool.parameters).length, 0)
const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 }, workerThreads: 2 })
const run = codeMode.prepareRun({ runId: 'api', sessionId: 'api', tools, executeTool: async () => ({}) })
const api = 'const a = await MCP.big.$api(undefined, { schema: true }); return Object.keys(a.schemas).length'
// The first call builds what every later call shares (the server's
// declaration file): not counted.
const first = await run.exec({ code: api })
console.log(`$api(undefined, { schema: true }) over ${(schemaBytes / 1e6).toFixed(1)} MB of schemas, memory limit 64 MiB`)
console.log(`  answer: ${first.status}${first.error ? ` (${first.code}: ${first.error})` : ` ${first.value} schemas`}`)
// RSS sampled every millisecond on the Node thread while the cells run on
// the workers: the highest sample over the RSS before the call.
const rssMb = () => process.memoryUsage.rss() / MB
async function sampled(work) {
  const before = rssMb()
  let high = before
  const timer = setInterval(() => (high = Math.max(high, rssMb())), 1)
  try {
    await work()
  } finally {
    clearInterval(timer)
  }
  return Math.max(high, rssMb()) - before
}
for (const [label, code, together] of [
  ['a cell that returns 1 (the floor)', 'return 1', 1],
  ['1 cell calling $api', api, 1],
  ['2 cells calling $api at once', api, 2],
]) {
  const growth = []
  for (let i = 0; i < Number(args.calls); i++) {
    growth.push(await sampled(() => Promise.all(Array.from({ length: together }, () => run.exec({ code })))))
  }
  console.log(`  ${label}: RSS +${growth.map((g) => g.toFixed(0)).join(', +')} MB during each call (process peak ${peakMb().toFixed(0)} MB)`)
}
await codeMode.close()

// --- 2. Identifiers of alike names ---
const alike = Number(args.alike)
// Separators: every character but ASCII letters and digits splits words.
const separators = [...Array.from({ length: 96 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => !/[A-Za-z0-9]/.test(c)), ...Array.from({ length: 200 }, (_, i) => String.fromCharCode(0xc0 + i))]
const alikeTools = Array.from({ length: alike }, (_, i) => {
  // Distinct, short MCP names (`create_issue_`, `create-issue.`, ...) that
  // all camel-case to createIssue.
  const tool = `create${separators[i % separators.length]}issue${separators[Math.floor(i / separators.length) % separators.length]}`
  return { name: `s__${i}`, description: 'x', source: 'mcp', sourceName: 's', parameters: { type: 'object' }, mcp: { server: 's', tool } }
})
const distinctTools = alikeTools.map((tool, i) => ({ ...tool, mcp: { server: 's', tool: `create_issue_${i}` } }))
for (const [label, list] of [['whose names camel-case alike', alikeTools], ['with distinct names', distinctTools]]) {
  const identifiers = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 }, workerThreads: 1 })
  const alikeRun = identifiers.prepareRun({ runId: 'alike', sessionId: 'alike', tools: list, executeTool: async () => ({}) })
  const t0 = performance.now()
  const started = alikeRun.exec({ code: 'return Object.keys(MCP.s).length' })
  const held = performance.now() - t0
  const result = await started
  console.log(`${list.length} MCP tools ${label}, first exec at once: the Node thread held ${held.toFixed(0)} ms; ${result.status} ${result.value ?? result.error}`)
  await identifiers.close()
}
