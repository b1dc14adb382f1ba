// Installs the benchmark's peers (bench/package.json: quickjs-wasi,
// quickjs-emscripten, isolated-vm, typescript 5) into bench/node_modules
// when any of them is missing. They are the benchmark's devDependencies
// only: the root `npm install`, `npm test` and CI never install them
// (isolated-vm compiles C++ with node-gyp, about 90 s).
//
//   node bench/ensure-peers.mjs
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const manifest = JSON.parse(readFileSync(path.join(here, 'package.json'), 'utf8'))
const wanted = Object.keys(manifest.devDependencies)
const require = createRequire(path.join(here, 'package.json'))

/** A peer is there when its package resolves at the pinned version (and isolated-vm's addon was built). */
function missing() {
  return wanted.filter((name) => {
    try {
      const pkg = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8'))
      if (pkg.version !== manifest.devDependencies[name]) return true
      if (name === 'isolated-vm') require('isolated-vm')
      return false
    } catch {
      return true
    }
  })
}

const absent = missing()
if (absent.length === 0) process.exit(0)

const lock = existsSync(path.join(here, 'package-lock.json'))
const args = lock ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund']
console.error(`bench: installing ${absent.join(', ')} with npm ${args[0]} in bench/ (isolated-vm compiles for about 90 s)...`)
const result = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd: here, stdio: 'inherit' })
if (result.status !== 0) {
  console.error(`bench: npm ${args[0]} failed (exit ${result.status}); the benchmark leaves out the peers that do not load.`)
  process.exit(result.status ?? 1)
}
const still = missing()
if (still.length) {
  console.error(`bench: still missing after npm ${args[0]}: ${still.join(', ')}`)
  process.exit(1)
}
