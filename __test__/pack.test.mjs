// The package as users get it: `npm pack` of the main package and of this
// platform's binary package (npm/<platform>/), both installed from their
// tarballs into an empty project, and a cell run from there, and the
// package's command, with no Rust toolchain on PATH.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const platform = process.platform === 'linux' && process.arch === 'x64' ? 'linux-x64-gnu' : null
const work = mkdtempSync(path.join(tmpdir(), 'code-mode-pack-'))
after(() => rmSync(work, { recursive: true, force: true }))

/** `npm pack` of `dir` into `work`; the tarball's path. */
function pack(dir) {
  const out = execFileSync('npm', ['pack', '--pack-destination', work, '--json'], { cwd: dir, encoding: 'utf8' })
  const [info] = JSON.parse(out)
  return { tarball: path.join(work, info.filename), files: info.files.map((f) => f.path).sort() }
}

/** PATH without the folders that hold cargo or rustc. */
function pathWithoutRust() {
  return process.env.PATH.split(path.delimiter)
    .filter((dir) => !existsSync(path.join(dir, 'cargo')) && !existsSync(path.join(dir, 'rustc')))
    .join(path.delimiter)
}

describe('the npm package', { skip: !platform && 'the binary package of this platform is built by the release workflow' }, () => {
  test('installs from its tarballs and runs a cell without Rust', () => {
    // This platform's binary package, as the release workflow fills it.
    const staged = path.join(work, platform)
    mkdirSync(staged)
    for (const name of readdirSync(path.join(root, 'npm', platform))) {
      copyFileSync(path.join(root, 'npm', platform, name), path.join(staged, name))
    }
    copyFileSync(path.join(root, `code-mode.${platform}.node`), path.join(staged, `code-mode.${platform}.node`))
    // On Linux, the sandbox process beside it (isolation: 'process').
    const linux = process.platform === 'linux'
    if (linux) copyFileSync(path.join(root, 'code-mode-sandbox'), path.join(staged, 'code-mode-sandbox'))
    const binary = pack(staged)
    const sandbox = linux ? ['code-mode-sandbox'] : []
    assert.deepEqual(binary.files, ['LICENSE', 'README.md', ...sandbox, `code-mode.${platform}.node`, 'package.json'])

    // The main package: the loader, the typings, and nothing built.
    const main = pack(root)
    assert.deepEqual(main.files, [
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'cli/config.mjs',
      'cli/demo-server.mjs',
      'cli/exit.mjs',
      'cli/main.mjs',
      'cli/serve.mjs',
      'cli/servers.mjs',
      'cli/trace.mjs',
      'index.d.ts',
      'index.js',
      'package.json',
    ])

    const app = path.join(work, 'app')
    mkdirSync(app)
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
    // The runner's one dependency (the MCP SDK) comes from npm's cache when it is there.
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', main.tarball, binary.tarball], { cwd: app, stdio: 'pipe' })
    writeFileSync(
      path.join(app, 'cell.mjs'),
      `
      import { createCodeMode } from '@openclaw/code-mode'
      const results = []
      for (const isolation of ${JSON.stringify(linux ? ['thread', 'process'] : ['thread'])}) {
        const codeMode = createCodeMode({ config: { enabled: true }, isolation })
        const run = codeMode.prepareRun({
          runId: 'packed',
          tools: [{ name: 'add', description: 'Adds a and b', source: 'openclaw', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }],
          executeTool: (call) => ({ sum: call.input.a + call.input.b }),
        })
        const result = await run.exec({ language: 'typescript', code: 'const r: { sum: number } = await tools.add({ a: 2, b: 40 }); return r.sum' })
        await codeMode.close()
        results.push([result.status, result.value])
      }
      console.log(JSON.stringify(results))
      `,
    )
    const ran = spawnSync(process.execPath, ['cell.mjs'], { cwd: app, encoding: 'utf8', env: { ...process.env, PATH: pathWithoutRust() } })
    assert.equal(ran.status, 0, ran.stderr)
    assert.deepEqual(JSON.parse(ran.stdout), linux ? [['completed', 42], ['completed', 42]] : [['completed', 42]])
    // The package's command, through npm's bin link, against its demo server.
    const cli = spawnSync(path.join(app, 'node_modules', '.bin', 'code-mode'), ['run', '-', '--quiet'], {
      cwd: app,
      encoding: 'utf8',
      input: 'return (await MCP.demo.add({ a: 20, b: 22 })).content[0].text',
      env: { ...process.env, PATH: pathWithoutRust() },
    })
    assert.equal(cli.status, 0, cli.stderr)
    assert.equal(JSON.parse(cli.stdout), '42')
    const cargo = spawnSync('cargo', ['--version'], { env: { ...process.env, PATH: pathWithoutRust() } })
    assert.ok(cargo.error, 'no cargo on the PATH the cell ran with')
  })
})
