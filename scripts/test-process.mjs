// The JS suite again with every code mode the tests create running its
// cells in sandbox processes (CODE_MODE_ISOLATION=process: the isolation
// `createCodeMode` uses when it is not given one). `npm run test:process`.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const files = readdirSync(new URL('../__test__/', import.meta.url))
  .filter((name) => name.endsWith('.test.mjs'))
  .sort()
  .map((name) => `__test__/${name}`)
const ran = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-timeout=300000', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, CODE_MODE_ISOLATION: 'process' },
})
process.exit(ran.status ?? 1)
