#!/usr/bin/env node
// Mutation testing of the core's bounds and ownership with cargo-mutants
// (docs/testing.md). Not part of `npm test` or CI: it rebuilds the core and
// runs its tests once per mutant.
//
//   npm run mutants                                  # every file of .cargo/mutants.toml
//   npm run mutants -- --list                        # the mutants, nothing built
//   npm run mutants -- --re runs/store.rs            # one module (-f would add one)
//   npm run mutants -- --in-place --baseline skip --timeout 240 --re runs/store.rs
//
// The files, the profile, the test targets and the timeouts are in
// .cargo/mutants.toml; any option here goes to `cargo mutants` as it is.
// Mutants of code-mode-core run one at a time, in file order, in a copy of
// the tree unless `--in-place` is given (faster when target/ is warm;
// cargo-mutants puts the source back after each mutant, and on Ctrl-C, so
// edit nothing in the tree meanwhile). Results go to mutants.out/ (ignored
// by git); this script then prints per file what was caught, missed
// (survived), unviable (did not build) and timed out, and each survivor.
// Exits nonzero when a mutant survived or timed out, or cargo-mutants failed.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
// `--summary [DIR]`: only print the summary of an earlier run's mutants.out/.
if (args[0] === '--summary') process.exit(summarise(args[1] ?? `${root}/mutants.out`, 0))

const version = spawnSync('cargo', ['mutants', '--version'], { cwd: root, encoding: 'utf8' })
if (version.status !== 0) {
  console.error('cargo-mutants is not installed: cargo install cargo-mutants --locked (27.1 or later)')
  process.exit(2)
}
console.log(version.stdout.trim())

const listing = args.some((arg) => arg === '--list' || arg === '--list-files')
const run = spawnSync('cargo', ['mutants', '--package', 'code-mode-core', '--no-shuffle', ...args], {
  cwd: root,
  stdio: 'inherit',
})
if (listing) process.exit(run.status ?? 1)

process.exit(summarise(`${root}/mutants.out`, run.status))

/** Prints the counts per file and the survivors; returns the exit status. */
function summarise(dir, status) {
  const outcomesFile = `${dir}/outcomes.json`
  if (!existsSync(outcomesFile)) {
    console.error(`mutants: no ${outcomesFile}; see the output above`)
    return status || 1
  }
  const { outcomes, cargo_mutants_version: version, end_time: ended } = JSON.parse(readFileSync(outcomesFile, 'utf8'))
  const kinds = { CaughtMutant: 'caught', MissedMutant: 'missed', Unviable: 'unviable', Timeout: 'timeout' }
  const files = new Map()
  const survivors = []
  for (const outcome of outcomes) {
    if (outcome.scenario === 'Baseline') continue
    const mutant = outcome.scenario.Mutant
    const counts = files.get(mutant.file) ?? { caught: 0, missed: 0, unviable: 0, timeout: 0, other: 0 }
    const kind = kinds[outcome.summary] ?? 'other'
    counts[kind] += 1
    files.set(mutant.file, counts)
    if (kind === 'missed' || kind === 'timeout') survivors.push(`${kind}: ${mutant.name}`)
  }
  const total = { caught: 0, missed: 0, unviable: 0, timeout: 0, other: 0 }
  const row = (name, counts) =>
    `${name.padEnd(50)} ${String(counts.caught).padStart(6)} ${String(counts.missed).padStart(6)} ${String(counts.unviable).padStart(8)} ${String(counts.timeout).padStart(7)}`
  console.log(`\ncargo-mutants ${version}, ${ended ? `ended ${ended}` : 'interrupted'}`)
  console.log(`${'file'.padEnd(50)} caught missed unviable timeout`)
  for (const [file, counts] of files) {
    for (const key of Object.keys(total)) total[key] += counts[key]
    console.log(row(file, counts))
  }
  console.log(row('total', total))
  if (survivors.length > 0) console.log(`\n${survivors.join('\n')}`)
  return status === 0 && survivors.length === 0 ? 0 : 1
}
