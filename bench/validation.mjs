// The cost of checking nested-call inputs against their schemas
// (docs/nested-calls.md, "Input validation"), in one run: compiling each
// tool's schema (once per run surface, at its first call) at 100 and 500
// tools, and checking an input per call, with `validateToolInputs` on and
// off. Prints a markdown table.
//
//   node bench/validation.mjs [rounds, default 50] [--hostile]
//
// With --hostile, only the second part: hostile schemas of namespace calls,
// and the Node thread's longest stall.

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const binding = require('../index.js')

const hostileOnly = process.argv.includes('--hostile')
const rounds = Number(process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 50)
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
for (const n of hostileOnly ? [] : [100, 500]) {
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

if (!hostileOnly) {
  console.log(`Input validation, ${rounds} rounds, one call to each tool per pass, Node ${process.version}\n`)
  console.log('| tools | first pass (compiles) | second pass | validation off | compile per tool | check per call |')
  console.log('|---:|---:|---:|---:|---:|---:|')
  for (const row of rows) console.log(row)
}

// Hostile schemas and inputs of plugin namespace calls, whose mapped input
// the Node thread checks itself only when it is short and its check cheap
// (docs/nested-calls.md; the others go to the checker thread): the event
// loop's longest stall while each call is started. A sampler measures the
// gaps between its turns (setImmediate); each case sweeps the input's size
// up to 256 KiB, past where the Node thread stops checking, so the worst
// lands near the budget it allows itself. Every stall must stay under 50 ms.

/** `levels` definitions, each made by `link` from a `$ref` to the next. */
function chain(levels, link, last = { type: 'object' }) {
  const $defs = { [`d${levels}`]: last }
  for (let level = levels - 1; level >= 0; level--) $defs[`d${level}`] = link({ $ref: `#/$defs/d${level + 1}` })
  return { $defs, $ref: '#/$defs/d0' }
}
const sizes = (from, to) => {
  const list = []
  for (let n = from; n <= to; n *= 2) list.push(n)
  return list
}
const abString = (n) => `Array.from({ length: ${n} }, (_, i) => (i * 7919) % 3 ? 'a' : 'b').join('')`
const names = (count, prefix) => Array.from({ length: count }, (_, i) => `${prefix}${i}`)

const HOSTILE = [
  { name: 'baseline: a small schema, a small input', parameters: { type: 'object', properties: { a: { type: 'integer' } } }, inputs: [() => '{ a: 1 }'] },
  { name: 'dependentSchemas pairs chained 40 deep (not checked)', parameters: chain(40, (next) => ({ dependentSchemas: { a: next, b: next } })), inputs: [() => '{ a: 1, b: 1 }'] },
  {
    name: 'draft-7 dependencies pairs chained 40 deep (not checked)',
    parameters: { $schema: 'http://json-schema.org/draft-07/schema#', ...chain(40, (next) => ({ dependencies: { a: next, b: next } })) },
    inputs: [() => '{ a: 1, b: 1 }'],
  },
  {
    name: 'dependentSchemas pairs chained 9 deep, every branch failing, over many objects',
    parameters: { type: 'array', items: chain(9, (next) => ({ dependentSchemas: { a: next, b: next } }), { type: 'array' }) },
    inputs: sizes(1, 4096).map((n) => () => `Array.from({ length: ${n} }, () => ({ a: 1, b: 1 }))`),
  },
  {
    name: 'anyOf of 64 branches failing late, over many objects',
    parameters: { type: 'array', items: { anyOf: Array.from({ length: 64 }, (_, i) => ({ type: 'object', properties: { a: { type: 'integer' } }, required: [`k${i}`] })) } },
    inputs: sizes(1, 16384).map((n) => () => `Array.from({ length: ${n} }, (_, i) => ({ a: i, z: 1 }))`),
  },
  {
    name: 'a pattern whose DFA explodes, (a|b)*a(a|b){24}x, over a/b strings',
    parameters: { type: 'array', items: { type: 'string', pattern: '(a|b)*a(a|b){24}x' } },
    inputs: sizes(64, 131072).map((n) => () => `[${abString(n)}]`),
  },
  {
    name: 'a bounded Unicode repetition, [\\p{L}\\p{N}]{0,6}, over long strings',
    parameters: { type: 'array', items: { type: 'string', pattern: '^x[\\p{L}\\p{N}]{0,6}$' } },
    inputs: sizes(64, 131072).map((n) => () => `['x' + 'Ж'.repeat(${n / 2})]`),
  },
  {
    name: '3000 Unicode-class patterns (not checked)',
    parameters: { type: 'object', patternProperties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`^\\p{L}+${i}$`, { type: 'string' }])) },
    inputs: [() => '{ "Ж1": 1 }'],
  },
  {
    name: '100 Unicode-class patterns (compiled on the worker), many keys',
    parameters: { type: 'object', patternProperties: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`^\\p{Lu}${i}`, { type: 'integer' }])) },
    inputs: sizes(16, 16384).map((n) => () => `Object.fromEntries(Array.from({ length: ${n} }, (_, i) => ['Ж' + i, 'x']))`),
  },
  {
    name: 'propertyNames refusing every key',
    parameters: { type: 'object', propertyNames: { maxLength: 2 } },
    inputs: sizes(16, 32768).map((n) => () => `Object.fromEntries(Array.from({ length: ${n} }, (_, i) => ['key' + i, 0]))`),
  },
  {
    name: 'unknown keys with near misses among 2000 properties',
    parameters: { type: 'object', properties: Object.fromEntries(names(2000, 'property_').map((k) => [k, { type: 'integer' }])), additionalProperties: false },
    inputs: sizes(16, 16384).map((n) => () => `Object.fromEntries(Array.from({ length: ${n} }, (_, i) => ['propertx_' + i, 0]))`),
  },
  {
    name: '2000 required names, the input has others',
    parameters: { type: 'object', required: names(2000, 'name_') },
    inputs: sizes(16, 16384).map((n) => () => `Object.fromEntries(Array.from({ length: ${n} }, (_, i) => ['nome_' + i, 0]))`),
  },
  {
    name: 'uniqueItems over objects',
    parameters: { type: 'array', uniqueItems: true, items: { type: 'object' } },
    inputs: sizes(16, 16384).map((n) => () => `Array.from({ length: ${n} }, (_, i) => ({ a: i, b: [i, i] }))`),
  },
  {
    name: 'the largest input read (256 KiB), a simple schema',
    parameters: { type: 'array', items: { type: 'integer', minimum: 0 } },
    inputs: [() => 'new Array(130000).fill(1)'],
  },
]

/** The longest gap between the sampler's turns while `run` runs, in ms. */
async function stall(run) {
  let last = performance.now()
  let longest = 0
  let running = true
  const tick = () => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  try {
    return { answer: await run(), longest: () => longest }
  } finally {
    running = false
  }
}

const hostileRounds = Math.max(5, Math.floor(rounds / 5))
const hostileMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000 } })
const report = []
for (const [index, { name, parameters, inputs }] of HOSTILE.entries()) {
  const plugin = `hostile${index}`
  const tool = { name: `${plugin}_call`, description: name, source: 'openclaw', sourceName: plugin, parameters }
  binding.registerCodeModeNamespaceForPlugin(plugin, {
    id: `${plugin}-tools`,
    globalName: `Hostile${index}`,
    requiredToolNames: [tool.name],
    createScope: () => ({ call: binding.createCodeModeNamespaceTool(tool.name, ([input]) => input) }),
  })
  const call = (input) => `const input = ${input()}; try { return await Hostile${index}.call(input) } catch (error) { return String(error.message).slice(0, 60) }`
  // Each input with validation on and off, in alternation: what the rest
  // of starting the call (the plugin's mapping, copies, parses) costs.
  const surfaces = []
  for (let round = 0; round < hostileRounds; round++) {
    surfaces.push({
      on: hostileMode.prepareRun({ runId: `h${index}-${round}`, tools: [tool], executeTool: () => 'sent' }),
      off: hostileMode.prepareRun({ runId: `o${index}-${round}`, tools: [tool], agentConfig: { validateToolInputs: false }, executeTool: () => 'sent' }),
    })
  }
  // Built, and the schema compiled, before anything is measured: the
  // first exec of a surface may build its catalog.
  for (const surface of surfaces) {
    for (const mode of ['on', 'off']) await surface[mode].exec({ code: call(inputs[0]) })
  }
  let worst
  for (const input of inputs) {
    const on = []
    const off = []
    let answer
    for (const surface of surfaces) {
      for (const [mode, list] of [['on', on], ['off', off]]) {
        globalThis.gc?.()
        const measured = await stall(() => surface[mode].exec({ code: call(input) }))
        if (measured.answer.status !== 'completed') throw new Error(`${name}: ${measured.answer.status}: ${measured.answer.error}`)
        list.push(measured.longest())
        if (mode === 'on') answer = String(measured.answer.value)
      }
    }
    const row = { name, on: median(on), off: median(off), most: Math.max(...on), input: input().slice(0, 48), answer }
    if (worst === undefined || row.on - row.off > worst.on - worst.off) worst = row
  }
  report.push(worst)
}
await hostileMode.close()
binding.clearCodeModeNamespacesForTest?.()

console.log(`\nHostile schemas of namespace calls (checked on the Node thread only when short and cheap), ${hostileRounds} rounds: the event loop's longest stall while the call starts`)
console.log('(median over the rounds, for the input whose validation costs most; "off": the same call with validateToolInputs false)\n')
console.log('| case | stall | validation off | validation | longest stall | at input | answer |')
console.log('|---|---:|---:|---:|---:|---|---|')
for (const { name, on, off, most, input, answer } of report) {
  console.log(`| ${name} | ${on.toFixed(2)} ms | ${off.toFixed(2)} ms | ${(on - off).toFixed(2)} ms | ${most.toFixed(2)} ms | \`${input}\` | ${answer.replace(/\|/g, '\\|')} |`)
}
const ordered = [...report].sort((a, b) => b.on - b.off - (a.on - a.off))
console.log(`\nWorst five (validation's share): ${ordered.slice(0, 5).map(({ name, on, off }) => `${(on - off).toFixed(1)} ms (${name})`).join('; ')}`)
const worstShare = ordered[0].on - ordered[0].off
const worstStall = Math.max(...report.map(({ most }) => most))
console.log(`Validation's worst share ${worstShare.toFixed(2)} ms: ${worstShare < 50 ? 'under' : 'OVER'} the 50 ms bound; the longest stall of any call ${worstStall.toFixed(2)} ms`)
