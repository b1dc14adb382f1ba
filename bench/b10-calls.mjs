// B10 of the benchmark plan: 100 sequential and 100 parallel
// `MCP.<server>.<tool>` and plugin namespace calls in one cell against an
// in-process executor, next to the same through `tools.call`, in one run.
// All three paths end in the same bridge, so they should cost the same per
// call. Prints a markdown table.
//
//   node bench/b10-calls.mjs [rounds, default 200]

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const binding = require('../index.js')

const rounds = Number(process.argv[2] ?? 200)
if (!Number.isInteger(rounds) || rounds < 10) throw new Error('usage: node bench/b10-calls.mjs [rounds >= 10]')

const schema = {
  type: 'object',
  properties: { i: { type: 'number' }, mode: { type: 'string', default: 'fast' } },
  required: ['i'],
}
binding.registerCodeModeNamespaceForPlugin('bench', {
  id: 'bench-echo',
  globalName: 'Echo',
  requiredToolNames: ['plugin_echo'],
  createScope: () => ({ echo: binding.createCodeModeNamespaceTool('plugin_echo', ([i]) => ({ i, mode: 'fast' })) }),
})
const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 } })
const run = codeMode.prepareRun({
  runId: 'bench',
  tools: [
    { name: 'echo', description: 'Echo the input.', source: 'openclaw', parameters: schema },
    { name: 'plugin_echo', description: 'Echo the input.', source: 'openclaw', sourceName: 'bench', parameters: schema },
    { name: 'docs__echo', description: 'Echo the input.', source: 'mcp', sourceName: 'docs', parameters: schema, mcp: { server: 'docs', tool: 'echo' } },
  ],
  executeTool: (call) => call.input,
})

const cells = {
  'tools.call, 100 sequential': "for (let i = 0; i < 100; i++) await tools.call('echo', { i, mode: 'fast' }); return 1",
  'MCP, 100 sequential': 'for (let i = 0; i < 100; i++) await MCP.docs.echo({ i }); return 1',
  'namespace, 100 sequential': 'for (let i = 0; i < 100; i++) await Echo.echo(i); return 1',
  'tools.call, 100 in Promise.all': "await Promise.all(Array.from({ length: 100 }, (_, i) => tools.call('echo', { i, mode: 'fast' }))); return 1",
  'MCP, 100 in Promise.all': 'await Promise.all(Array.from({ length: 100 }, (_, i) => MCP.docs.echo({ i }))); return 1',
  'namespace, 100 in Promise.all': 'await Promise.all(Array.from({ length: 100 }, (_, i) => Echo.echo(i))); return 1',
}

const times = Object.fromEntries(Object.keys(cells).map((name) => [name, []]))
const order = Object.entries(cells)
for (let round = 0; round < rounds; round++) {
  // Interleaved, so a slow moment of the machine hits every cell alike, and
  // rotated: the first cell of a round runs slower (about 1 ms here), so each
  // cell takes that place as often as the others.
  for (let k = 0; k < order.length; k++) {
    const [name, code] = order[(round + k) % order.length]
    const start = performance.now()
    const result = await run.exec({ code })
    const elapsed = performance.now() - start
    if (result.status !== 'completed') throw new Error(`${name}: ${result.status} ${result.error}`)
    times[name].push(elapsed)
  }
}
await codeMode.close()

const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
console.log(`B10, ${rounds} rounds, one run, in-process executor, Node ${process.version}\n`)
console.log('| cell | median | p95 | median per call |')
console.log('|---|---:|---:|---:|')
for (const [name, list] of Object.entries(times)) {
  const sorted = list.sort((a, b) => a - b)
  const median = at(sorted, 0.5)
  console.log(`| ${name} | ${median.toFixed(2)} ms | ${at(sorted, 0.95).toFixed(2)} ms | ${((median * 1000) / 100).toFixed(1)} µs |`)
}
