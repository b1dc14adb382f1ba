// The cost of checking nested-call inputs against their schemas
// (docs/nested-calls.md, "Input validation"), in one run: compiling each
// tool's schema (once per run surface, at its first call) at 100 and 500
// tools, and checking an input per call, with `validateToolInputs` on and
// off. Prints a markdown table.
//
//   node bench/validation.mjs [rounds, default 50]

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const binding = require('../index.js')

const rounds = Number(process.argv[2] ?? 50)
if (!Number.isInteger(rounds) || rounds < 5) throw new Error('usage: node bench/validation.mjs [rounds >= 5]')

/** A schema of the size MCP servers send: a few typed keys, an enum, a nested array. */
const schema = (i) => ({
  type: 'object',
  properties: {
    path: { type: 'string', description: `The path of item ${i}` },
    mode: { enum: ['read', 'write', 'append'], default: 'read' },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9-]+$' }, maxItems: 20 },
    options: { type: 'object', properties: { recursive: { type: 'boolean' }, depth: { type: 'integer' } }, additionalProperties: false },
  },
  required: ['path'],
  additionalProperties: false,
})
const tools = (n) => Array.from({ length: n }, (_, i) => ({ name: `tool_${i}`, description: `Tool ${i}`, source: 'openclaw', parameters: schema(i) }))
const INPUT = "{ path: 'src/a.txt', mode: 'read', limit: 10, tags: ['x', 'y-2'], options: { recursive: true, depth: 2 } }"

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
async function timed(run, code) {
  const start = performance.now()
  const result = await run.exec({ code })
  const elapsed = performance.now() - start
  if (result.status !== 'completed') throw new Error(`${result.status}: ${result.error}`)
  return elapsed
}

const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 } })
const rows = []
for (const n of [100, 500]) {
  const everyTool = `for (let i = 0; i < ${n}; i++) await tools.call('tool_' + i, ${INPUT}); return 1`
  const first = []
  const again = []
  const off = []
  for (let round = 0; round < rounds; round++) {
    // A fresh run surface each round: its first pass compiles every schema.
    const checked = codeMode.prepareRun({ runId: `r${round}`, tools: tools(n), executeTool: () => null })
    first.push(await timed(checked, everyTool))
    const unchecked = codeMode.prepareRun({ runId: `u${round}`, tools: tools(n), agentConfig: { validateToolInputs: false }, executeTool: () => null })
    // Alternated, so that neither pass always runs warmer than the other.
    if (round % 2) {
      again.push(await timed(checked, everyTool))
      off.push(await timed(unchecked, everyTool))
    } else {
      off.push(await timed(unchecked, everyTool))
      again.push(await timed(checked, everyTool))
    }
  }
  const compile = (median(first) - median(again)) / n
  const check = (median(again) - median(off)) / n
  rows.push(`| ${n} | ${median(first).toFixed(2)} ms | ${median(again).toFixed(2)} ms | ${median(off).toFixed(2)} ms | ${(compile * 1000).toFixed(1)} µs (${(compile * n).toFixed(2)} ms per run) | ${(check * 1000).toFixed(1)} µs |`)
}
await codeMode.close()

console.log(`Input validation, ${rounds} rounds, one call to each tool per pass, Node ${process.version}\n`)
console.log('| tools | first pass (compiles) | second pass | validation off | compile per tool | check per call |')
console.log('|---:|---:|---:|---:|---:|---:|')
for (const row of rows) console.log(row)
