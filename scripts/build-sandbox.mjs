// Builds the sandbox process (`crates/code-mode-sandbox`) and puts it beside
// the addon's `.node` file, where `isolation: 'process'` looks for it:
// `node scripts/build-sandbox.mjs [--release]` (the `ci` profile unless
// --release). It also puts `code-mode-sandbox-probes` there: the same
// executable with its test hooks (a cell `//probe:abort` aborts it), which
// only the tests use; published packages never carry it.
import { execFileSync } from 'node:child_process'
import { copyFileSync, chmodSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

const root = fileURLToPath(new URL('..', import.meta.url))
const release = process.argv.includes('--release')
const profile = release ? 'release' : 'ci'
const exe = process.platform === 'win32' ? '.exe' : ''
const built = join(root, 'target', profile, `code-mode-sandbox${exe}`)
const cargo = (...args) => execFileSync('cargo', ['build', '--profile', profile, '-p', 'code-mode-sandbox', ...args], { cwd: root, stdio: 'inherit' })
const place = (name) => {
  const target = join(root, name)
  copyFileSync(built, target)
  chmodSync(target, 0o755)
}

if (!release) {
  cargo('--features', 'test-hooks')
  place(`code-mode-sandbox-probes${exe}`)
}
cargo()
place(`code-mode-sandbox${exe}`)
