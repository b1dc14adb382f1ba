// Runs real code-mode cells end to end: `npm run demo` runs the built-in cells,
// `npm run demo -- '<code>'` runs your own JavaScript cell.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createCodeMode } = require('../index.js')

const codeMode = createCodeMode({ config: { enabled: true, timeoutMs: 1000 } })
const run = codeMode.prepareRun({
  runId: 'demo-run',
  tools: [{ name: 'read', description: 'Read a file', source: 'openclaw' }],
  executeTool: async (call) => {
    throw new Error(`tool ${call.name} is not wired in this demo`)
  },
})

const cells = process.argv[2]
  ? [{ title: 'your cell', input: { code: process.argv[2] } }]
  : [
      {
        title: 'TypeScript cell with output',
        input: {
          language: 'typescript',
          code: `
interface Point { x: number; y: number }
const points: Point[] = Array.from({ length: 5 }, (_, i) => ({ x: i, y: i * i }))
console.log('points', points.length)
json(points.at(-1))
return points.reduce((sum, p) => sum + p.y, 0)`,
        },
      },
      { title: 'module access is refused', input: { code: "const fs = require('fs')" } },
      { title: 'an infinite loop after await times out', input: { code: 'await null; for (;;) {}' } },
      { title: 'an uncaught error', input: { code: 'const a = 1\nmissing(a)' } },
    ]

let ticks = 0
const ticker = setInterval(() => ticks++, 10)
for (const { title, input } of cells) {
  const started = performance.now()
  const result = await run.exec(input)
  const ms = (performance.now() - started).toFixed(2)
  console.log(`\n== ${title} (${ms} ms)`)
  console.log(JSON.stringify({ ...result, telemetry: undefined }, null, 2))
}
clearInterval(ticker)
console.log(`\nthe Node event loop ticked ${ticks} times while the cells ran`)
await codeMode.close()
