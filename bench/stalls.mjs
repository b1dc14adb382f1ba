// The hostile corpus, timed from the Node thread: for each attack a cell or a
// gateway input can mount, the event loop's longest stall while it runs (how
// late a 1 ms interval fired, at worst). Guest code and the host work it
// drives must stay off the Node thread or in bounded slices (SECURITY.md), so
// every case should stay far under 50 ms. Not a test: timings go here, never
// in an assertion. Writes bench/STALLS.md and prints the same table.
//
//   node --expose-gc bench/stalls.mjs [--only NAME,...] [--out FILE]
//
// Each case runs on its own createCodeMode instance (two workers), after a
// gc(). A case that does not finish in 60 s is reported as such.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { startLagSampler } from './lib/lag.mjs'
import { loadAverage, machineInfo } from './lib/machine.mjs'
import { table } from './lib/report.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const binding = (await import('node:module')).createRequire(import.meta.url)('../index.js')
const { values: args } = parseArgs({
  options: { only: { type: 'string' }, out: { type: 'string', default: path.join(here, 'STALLS.md') } },
})

const BUDGET = 50 // ms: the promise of SECURITY.md

// A case is `mount()`, or `{ make, mount }`: `make()` builds its
// gateway-side values (a large tool result) before the timing starts, since
// building them is the gateway's own work, and `mount(values)` runs it.
const timed = (make, mount) => ({ make, mount })

/** A flat string of `n` x's, as a read file or a parsed message is ('x'.repeat makes a rope, which the first read flattens at once). */
const flat = (n) => Buffer.alloc(n, 'x').toString('latin1')
const echo = async (call) => call.input

/** A run surface on a fresh instance; closed by the case runner. */
function surface({ tools = [{ name: 'echo', description: 'Echo', source: 'openclaw' }], executeTool = echo, config = {}, sessionId = 'hostile', workerThreads = 2 } = {}) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 5000, ...config }, workerThreads })
  const run = codeMode.prepareRun({ runId: `stall-${sessionId}`, sessionId, tools, executeTool })
  return { codeMode, run, exec: (code, extra = {}) => run.exec({ code, ...extra }) }
}

/** `count` chained dependentSchemas pairs, each level naming the one below
 * twice through `$ref` (so the schema's text is linear in `count`):
 * exponential for a checker that applies each pair to the same value
 * twice. (A JavaScript object that shares one level between both keys
 * would be a DAG, which JSON.stringify, and so prepareRun, writes out as a
 * tree of 2^count levels.) */
function chainedDependentSchemas(count, keyword = 'dependentSchemas') {
  const $defs = { s0: { type: 'object' } }
  for (let i = 1; i <= count; i++) {
    const below = { $ref: `#/$defs/s${i - 1}` }
    $defs[`s${i}`] = { [keyword]: { a: below, b: below } }
  }
  return { type: 'object', $defs, $ref: `#/$defs/s${count}` }
}

const CASES = {
  'cpu: while (true) {}': async () => {
    const { codeMode, exec } = surface({ config: { timeoutMs: 300 } })
    await exec('while (true) {}')
    return codeMode
  },
  'cpu: sort of 2M elements': async () => {
    const { codeMode, exec } = surface({ config: { timeoutMs: 300 } })
    await exec('const a = Array.from({ length: 2e6 }, (_, i) => (i * 7919) % 1e6); a.sort((x, y) => x - y); return a[0]')
    return codeMode
  },
  'cpu: catastrophic regex': async () => {
    const { codeMode, exec } = surface({ config: { timeoutMs: 300 } })
    await exec("return /^(a+)+$/.test('a'.repeat(40) + 'b')")
    return codeMode
  },
  'cpu: [].fill.call({ length: 2 ** 40 })': async () => {
    const { codeMode, exec } = surface({ config: { timeoutMs: 300 } })
    await exec('[].fill.call({ length: 2 ** 40 }, 0)')
    return codeMode
  },
  'memory: array bomb': async () => {
    const { codeMode, exec } = surface()
    await exec('const a = []; while (true) a.push(new Array(1e5).fill(1))')
    return codeMode
  },
  'memory: string doubling': async () => {
    const { codeMode, exec } = surface()
    await exec("let s = 'x'; while (true) s += s")
    return codeMode
  },
  'memory: ballast then lazy builtins (finding 1)': async () => {
    const { codeMode, exec } = surface({ config: { memoryLimitBytes: 1 << 20 } })
    for (let bytes = 700 * 1024; bytes < 1024 * 1024; bytes += 2048) {
      await exec(`const b = new Uint8Array(${bytes}); await Array.fromAsync([1]); [...Iterator.zip([[1]])]; [...Iterator.zipKeyed({ a: [1] })]`)
    }
    return codeMode
  },
  'output: 10 MB of console.log': async () => {
    const { codeMode, exec } = surface()
    await exec("for (let i = 0; i < 1e5; i++) console.log('x'.repeat(100))")
    return codeMode
  },
  'output: 10 MiB final value of small objects': async () => {
    const { codeMode, exec } = surface({ config: { memoryLimitBytes: 256 << 20, maxOutputBytes: 10 << 20 } })
    await exec("return Array.from({ length: 500000 }, (_, i) => ({ i, s: 'v' }))")
    return codeMode
  },
  'output: final value with objects of 65,536 keys, 10 MiB': async () => {
    const { codeMode, exec } = surface({ config: { memoryLimitBytes: 512 << 20, maxOutputBytes: 10 << 20 } })
    await exec("const o = {}; for (let i = 0; i < 65536; i++) o[i.toString(36)] = 0; return Array.from({ length: 14 }, () => o)")
    return codeMode
  },
  'output: 10 MiB of json() items': async () => {
    const { codeMode, exec } = surface({ config: { memoryLimitBytes: 256 << 20, maxOutputBytes: 10 << 20 } })
    await exec("for (let k = 0; k < 100; k++) json(Array.from({ length: 5000 }, (_, i) => ({ i, s: 'v' })))")
    return codeMode
  },
  'bridge: deep tool input (1000 levels)': async () => {
    const { codeMode, exec } = surface()
    await exec('let v = 1; for (let i = 0; i < 999; i++) v = [v]; return await tools.echo({ v })')
    return codeMode
  },
  'bridge: 16 MB tool input': async () => {
    const { codeMode, exec } = surface({ config: { memoryLimitBytes: 256 << 20 } })
    await exec("return (await tools.echo({ s: 'x'.repeat(16 << 20) })).s.length")
    return codeMode
  },
  'bridge: echo of an object with 65,536 keys (MAX_OBJECT_MEMBERS)': async () => {
    const { codeMode, exec } = surface({ config: { memoryLimitBytes: 512 << 20 } })
    await exec("const o = {}; for (let i = 0; i < 65536; i++) o[i.toString(36)] = 0; return Object.keys(await tools.echo(o)).length")
    return codeMode
  },
  'bridge: tool input with an object of 1.5 million keys (refused)': async () => {
    const { codeMode, exec } = surface({ config: { memoryLimitBytes: 512 << 20 } })
    // Short keys, so it fits the 16 MiB bridge budget: 1.5 million of them.
    await exec("const o = {}; for (let i = 0; i < 1.5e6; i++) o[i.toString(36)] = 0; try { await tools.echo(o) } catch (e) { return e.message }")
    return codeMode
  },
  'bridge: 1000 parallel calls': async () => {
    const { codeMode, exec } = surface()
    await exec('await Promise.all(Array.from({ length: 1000 }, (_, i) => tools.echo({ i }))); return 1')
    return codeMode
  },
  'bridge: 16 MB tool result': timed(() => flat(16 << 20), async (big) => {
    const { codeMode, exec } = surface({ executeTool: async () => ({ big }), config: { memoryLimitBytes: 256 << 20 } })
    await exec('return (await tools.echo({})).big.length')
    return codeMode
  }),
  'bridge: 64 MB string result (past the budget)': timed(() => flat(64 << 20), async (big) => {
    const { codeMode, exec } = surface({ executeTool: async () => big, config: { memoryLimitBytes: 256 << 20 } })
    await exec('try { await tools.echo({}) } catch (e) { return e.message }')
    return codeMode
  }),
  'bridge: result of 500,000 small objects': timed(() => Array.from({ length: 500000 }, (_, i) => ({ i, s: 'v' })), async (value) => {
    const { codeMode, exec } = surface({ executeTool: async () => value, config: { memoryLimitBytes: 256 << 20 } })
    await exec('return (await tools.echo({})).length')
    return codeMode
  }),
  'bridge: result nested 999 levels, 8 KB a level': timed(() => {
    let value = 1
    for (let i = 0; i < 999; i++) value = [value, 'y'.repeat(8192)]
    return value
  }, async (value) => {
    const { codeMode, exec } = surface({ executeTool: async () => value, config: { memoryLimitBytes: 256 << 20 } })
    await exec('return (await tools.echo({})).length')
    return codeMode
  }),
  'bridge: 4 MB Buffer result': timed(() => Buffer.alloc(4 << 20, 7), async (value) => {
    const { codeMode, exec } = surface({ executeTool: async () => value, config: { memoryLimitBytes: 256 << 20 } })
    await exec('try { return (await tools.echo({})).data.length } catch (e) { return e.message }')
    return codeMode
  }),
  'bridge: 16 results of 1 MB at once': async () => {
    const value = { s: 'z'.repeat(1 << 20) }
    const { codeMode, exec } = surface({ executeTool: async () => value, config: { memoryLimitBytes: 256 << 20 } })
    await exec('return (await Promise.all(Array.from({ length: 16 }, () => tools.echo({})))).length')
    return codeMode
  },
  'source: 1 MB of nested brackets': async () => {
    const { codeMode, exec } = surface()
    await exec('return ' + '['.repeat(500000) + ']'.repeat(500000))
    return codeMode
  },
  'source: 1 MB TypeScript': async () => {
    const { codeMode, exec } = surface()
    await exec('let x: number = 1;\n'.repeat(50000) + 'return x', { language: 'typescript' })
    return codeMode
  },
  'validation: 40 chained dependentSchemas (finding 2)': async () => {
    const tools = [{ name: 'deep', description: 'Deep schema', source: 'openclaw', parameters: chainedDependentSchemas(40) }]
    const { codeMode, exec } = surface({ tools })
    await exec('return await tools.deep({ a: 1, b: 1 })')
    return codeMode
  },
  'validation: 40 chained draft-7 dependencies (finding 2)': async () => {
    const tools = [{ name: 'deep', description: 'Deep schema', source: 'openclaw', parameters: chainedDependentSchemas(40, 'dependencies') }]
    const { codeMode, exec } = surface({ tools })
    await exec('return await tools.deep({ a: 1, b: 1 })')
    return codeMode
  },
  'validation: namespace input, 28 chained dependentSchemas (finding 2)': async () => {
    binding.registerCodeModeNamespaceForPlugin('stall', {
      id: 'stall-deep',
      globalName: 'Deep',
      requiredToolNames: ['stall_deep'],
      createScope: () => ({ call: binding.createCodeModeNamespaceTool('stall_deep', ([input]) => input) }),
    })
    const tools = [{ name: 'stall_deep', description: 'Deep', source: 'openclaw', sourceName: 'stall', parameters: chainedDependentSchemas(28) }]
    const { codeMode, exec } = surface({ tools })
    await exec('return await Deep.call({ a: 1, b: 1 })')
    binding.clearCodeModeNamespacesForPlugin('stall')
    return codeMode
  },
  'namespace: 1 MiB of arguments holding an object of 65536 members': async () => {
    binding.registerCodeModeNamespaceForPlugin('stall', {
      id: 'stall-wide',
      globalName: 'Wide',
      requiredToolNames: ['stall_wide'],
      createScope: () => ({ call: binding.createCodeModeNamespaceTool('stall_wide', ([input]) => input) }),
    })
    const tools = [{ name: 'stall_wide', description: 'Wide', source: 'openclaw', sourceName: 'stall' }]
    const { codeMode, exec } = surface({ tools, executeTool: async () => 'ok', config: { memoryLimitBytes: 256 << 20 } })
    await exec("const o = {}; for (let i = 0; i < 65536; i++) o[i.toString(36)] = 'v'.repeat(4); return await Wide.call(o)")
    binding.clearCodeModeNamespacesForPlugin('stall')
    return codeMode
  },
  'namespace: 1 MiB of arguments of 400000 small elements': async () => {
    binding.registerCodeModeNamespaceForPlugin('stall', {
      id: 'stall-many',
      globalName: 'Many',
      requiredToolNames: ['stall_many'],
      createScope: () => ({ call: binding.createCodeModeNamespaceTool('stall_many', ([input]) => input) }),
    })
    const tools = [{ name: 'stall_many', description: 'Many', source: 'openclaw', sourceName: 'stall' }]
    const { codeMode, exec } = surface({ tools, executeTool: async () => 'ok', config: { memoryLimitBytes: 256 << 20 } })
    await exec('return await Many.call(new Array(400000).fill(1))')
    binding.clearCodeModeNamespacesForPlugin('stall')
    return codeMode
  },
  'validation: 3000 Unicode-class patterns (finding 2)': async () => {
    const properties = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^\\p{L}{1,${i + 1}}\\p{N}*$` }]))
    const tools = [{ name: 'wide', description: 'Wide schema', source: 'openclaw', parameters: { type: 'object', properties } }]
    const { codeMode, exec } = surface({ tools })
    await exec('return await tools.wide({ p0: "a" })')
    return codeMode
  },
  'catalog: 16,000 MCP tools named alike, exec at once (finding 4)': async () => {
    const tools = Array.from({ length: 16000 }, (_, i) => ({
      name: `docs__tool${i}`, description: 'Alike', source: 'mcp', sourceName: 'docs',
      mcp: { server: 'docs', tool: `get-${'-'.repeat(i % 7)}page${i % 2 ? '' : '_'}` },
    }))
    const { codeMode, exec } = surface({ tools })
    await exec('return Object.keys(MCP.docs).length')
    return codeMode
  },
  'catalog: $api with 39 MB of schemas (finding 5)': async () => {
    const schema = { type: 'object', properties: { q: { type: 'string', description: 'd'.repeat(39000) } } }
    const tools = Array.from({ length: 1000 }, (_, i) => ({
      name: `docs__t${i}`, description: 'Big schema', source: 'mcp', sourceName: 'docs', parameters: schema,
      mcp: { server: 'docs', tool: `t${i}` },
    }))
    const { codeMode, exec } = surface({ tools })
    await exec('return JSON.stringify(MCP.docs.$api(undefined, { schema: true })).length')
    return codeMode
  },
  'pool: four stuck calls, another session queued (finding 3)': async () => {
    const { codeMode, run } = surface({ workerThreads: 2, config: { timeoutMs: 300 } })
    const stuck = Array.from({ length: 4 }, () => run.exec({ code: 'let x = 10n ** 300000n; return String(x * x).length' }))
    const other = codeMode.prepareRun({ runId: 'quiet', sessionId: 'quiet', tools: [{ name: 'echo', description: 'Echo', source: 'openclaw' }], executeTool: echo })
    await other.exec({ code: 'return 1 + 1' })
    await Promise.all(stuck)
    return codeMode
  },
  'catalog: exec and wait at once, 16,000 MCP tools with 2 KB schemas': async () => {
    const parameters = { type: 'object', properties: { q: { type: 'string', description: 'd'.repeat(2000) } } }
    const tools = Array.from({ length: 16000 }, (_, i) => ({
      name: `docs__tool${i}`, description: 'Alike', source: 'mcp', sourceName: 'docs', parameters,
      mcp: { server: 'docs', tool: `get-${'-'.repeat(i % 7)}page${i % 2 ? '' : '_'}` },
    }))
    const { codeMode, run, exec } = surface({ tools })
    await Promise.all([exec('return ALL_TOOLS.length'), run.wait({ runId: 'nope' })])
    return codeMode
  },
  'catalog: exec at once with a 100 ms budget, 16,000 tools': async () => {
    const tools = Array.from({ length: 16000 }, (_, i) => ({ name: `t${i}`, description: `Tool ${i}`, source: 'openclaw', parameters: { type: 'object' } }))
    const { codeMode, exec } = surface({ tools, config: { timeoutMs: 100 } })
    await exec('return 1')
    return codeMode
  },
  'prepareRun: 5000 tools with schemas': async () => {
    const tools = Array.from({ length: 5000 }, (_, i) => ({ name: `t${i}`, description: `Tool ${i}`, source: 'openclaw', parameters: { type: 'object', properties: { a: { type: 'string' } } } }))
    const { codeMode, exec } = surface({ tools })
    await exec('return ALL_TOOLS.length')
    return codeMode
  },
}

function describeMachine() {
  const m = machineInfo(path.resolve(here, '..'))
  return `${m.date}, commit ${m.commit}, ${m.cpu}, ${m.cores} cores, Node ${m.node}`
}

const selected = args.only ? args.only.split(',').map((s) => s.trim()) : Object.keys(CASES)
const rows = []
for (const name of selected) {
  const entry = CASES[name] ?? CASES[Object.keys(CASES).find((key) => key.startsWith(name))]
  if (!entry) throw new Error(`--only: no case ${name}`)
  const mount = entry.mount ?? entry
  const values = entry.make?.()
  globalThis.gc?.()
  await new Promise((resolve) => setTimeout(resolve, 50))
  const sampler = startLagSampler()
  const started = performance.now()
  let note = ''
  let codeMode
  try {
    codeMode = await Promise.race([
      mount(values),
      new Promise((_, reject) => setTimeout(() => reject(new Error('did not finish in 60 s')), 60000)),
    ])
  } catch (error) {
    note = String(error?.message ?? error).slice(0, 80)
  }
  const lags = sampler.stop()
  const elapsed = performance.now() - started
  await codeMode?.close()
  const longest = Math.max(0, ...lags)
  const { ran, waited } = lags.longest
  rows.push({ name, longest, ran, waited, elapsed, note })
  const split = ran === null ? '' : ` (ran ${ran.toFixed(1)}, waited ${waited.toFixed(1)})`
  console.log(`${longest.toFixed(1).padStart(7)} ms${split}  ${name}${note ? `  (${note})` : ''}`)
}

rows.sort((a, b) => b.longest - a.longest)
const over = rows.filter((row) => row.longest > BUDGET)
const markdown = [
  '# Event-loop stalls under the hostile corpus',
  '',
  `Written by \`node --expose-gc bench/stalls.mjs\`. ${describeMachine()}; load ${loadAverage()}.`,
  `Each row: the longest the Node thread's event loop was held while the case ran (how late a 1 ms interval fired), worst first. Budget: ${BUDGET} ms.`,
  "During that longest stall, the Node thread *ran* on a core for so many ms (its own work: code mode's, the gateway's, V8's collector) and *waited* for a core for so many (other processes had them: the machine's load), from Linux's schedstat.",
  '',
  table(
    [['case'], ['longest stall (ms)', 'r'], ['ran (ms)', 'r'], ['waited (ms)', 'r'], ['case took (ms)', 'r'], ['note']],
    rows.map((row) => [row.name, row.longest.toFixed(1), row.ran?.toFixed(1) ?? '', row.waited?.toFixed(1) ?? '', row.elapsed.toFixed(0), row.note]),
  ),
  '',
  over.length ? `**Over budget:** ${over.map((row) => row.name).join('; ')}` : `Every case stayed under ${BUDGET} ms.`,
  '',
].join('\n')
writeFileSync(args.out, markdown)
console.log(`\nworst five:\n${rows.slice(0, 5).map((row) => `  ${row.longest.toFixed(1)} ms  ${row.name}`).join('\n')}\nwrote ${path.relative(process.cwd(), args.out)}`)
process.exitCode = over.length ? 1 : 0
