// What one sandbox process costs (issue 34): the time from spawning it to
// its `ready` line (the lockdown done), its first and second trivial cell,
// and its resident memory after them. Linux only. Builds the sandbox binary
// (`cargo build --profile ci -p code-mode-sandbox`) when it is missing.
//
//   node bench/sandbox.mjs [--runs N]
//
// The addon does not start sandboxes yet; this measures the binary alone,
// driven over the channel it will use (a Unix socket at descriptor 3).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const binary = `${root}target/ci/code-mode-sandbox`
const runsAt = process.argv.indexOf('--runs')
const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 20
if (process.platform !== 'linux') {
  console.log('bench/sandbox.mjs: sandbox processes are measured on Linux only so far')
  process.exit(0)
}
if (!existsSync(binary)) {
  const built = spawnSync('cargo', ['build', '--profile', 'ci', '-p', 'code-mode-sandbox'], { cwd: root, stdio: 'inherit' })
  if (built.status !== 0) process.exit(built.status ?? 1)
}

/** One sandbox: spawned, asked two cells, measured, closed. */
async function once() {
  const t0 = performance.now()
  // Node makes descriptor 3 a Unix socket pair ('pipe'); the environment is empty.
  const child = spawn(binary, ['--parent', String(process.pid)], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'], env: {} })
  const channel = child.stdio[3]
  const lines = createInterface({ input: channel })[Symbol.asyncIterator]()
  const next = async () => (await lines.next()).value
  const ready = await next()
  const t1 = performance.now()
  if (!ready?.startsWith('ready ')) throw new Error(`the sandbox did not start: ${ready}`)
  const cell = async () => {
    channel.write(`cell ${JSON.stringify({ code: 'return 1' })}\n`)
    const result = JSON.parse(await next())
    if (result.status !== 'completed') throw new Error(JSON.stringify(result))
    return performance.now()
  }
  const t2 = await cell()
  const t3 = await cell()
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
  const rssKiB = Number(status.match(/^VmRSS:\s+(\d+)/m)[1])
  channel.end()
  await new Promise((resolve) => child.once('exit', resolve))
  return { ready: t1 - t0, first: t2 - t1, second: t3 - t2, rss: rssKiB / 1024, lockdown: ready.slice(6) }
}

const samples = []
for (let i = 0; i < runs; i++) samples.push(await once())
const median = (key) => {
  const xs = samples.map((s) => s[key]).sort((a, b) => a - b)
  return xs[xs.length >> 1]
}
console.log(`sandbox process, ${runs} runs (medians): lockdown ${samples[0].lockdown}`)
console.log(`  spawn to ready:   ${median('ready').toFixed(2)} ms`)
console.log(`  first cell:       ${median('first').toFixed(2)} ms`)
console.log(`  second cell:      ${median('second').toFixed(2)} ms`)
console.log(`  resident memory:  ${median('rss').toFixed(1)} MiB`)
