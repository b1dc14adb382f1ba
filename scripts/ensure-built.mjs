// Makes a fresh clone runnable: installs the npm dev dependencies when they are
// missing, then builds the addon with the fast no-LTO `ci` profile (a no-op
// rebuild takes about a second).
import { execSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const run = (command) => execSync(command, { cwd: root, stdio: 'inherit' })

// Every dependency: the MCP SDK (the runner's client), the build tools,
// TypeScript, and the MCP server the examples and tests use.
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const needed = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]
const installed = needed.every((name) => existsSync(new URL(`../node_modules/${name}`, import.meta.url)))
if (!installed) {
  run(existsSync(new URL('../package-lock.json', import.meta.url)) ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund')
}
run('npm run --silent build')
