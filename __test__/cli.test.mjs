// The command-line runner (`code-mode run`, docs/cli.md), driven as a
// subprocess: the built-in demo server, server-everything through a config,
// stdin and TypeScript, parking, and each failure with its exit code.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const runner = fileURLToPath(new URL('../cli/main.mjs', import.meta.url))
const fixtures = fileURLToPath(new URL('./cli-fixtures/', import.meta.url))
const work = mkdtempSync(path.join(tmpdir(), 'code-mode-cli-'))
after(() => rmSync(work, { recursive: true, force: true }))

const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json')
const everything = path.join(path.dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin['mcp-server-everything'])

let files = 0
function file(text, extension = '.js') {
  const name = path.join(work, `f${++files}${extension}`)
  writeFileSync(name, typeof text === 'string' ? text : JSON.stringify(text))
  return name
}

function run(args, { input, env } = {}) {
  const child = spawnSync(process.execPath, [runner, ...args], {
    encoding: 'utf8',
    input,
    timeout: 60000,
    env: { ...process.env, NO_COLOR: '', ...env },
  })
  assert.equal(child.error, undefined, String(child.error))
  return child
}

const config = (servers) => file({ mcpServers: servers }, '.json')

describe('code-mode run', () => {
  test('with no config, a cell runs against the built-in demo server; progress and the trace go to stderr', () => {
    const cell = file(`
      const sum = await MCP.demo.add({ a: 2, b: 40 })
      console.log('sum is', sum.content[0].text)
      const [echo, count] = await Promise.all([MCP.demo.echo({ message: 'hi' }), MCP.demo.wordCount({ text: 'one two three' })])
      return { sum: Number(sum.content[0].text), echo: echo.content[0].text, words: JSON.parse(count.content[0].text).words }`)
    const child = run(['run', cell])
    assert.equal(child.status, 0, child.stderr)
    assert.deepEqual(JSON.parse(child.stdout), { sum: 42, echo: 'hi', words: 3 })
    assert.match(child.stderr, /using the built-in demo server/)
    assert.match(child.stderr, /server demo \(pid \d+\): 4 tools, resources/)
    assert.match(child.stderr, /-> code_mode:exec_1:demo__add:1 mcp:demo:add \{"a":2,"b":40\}/)
    assert.match(child.stderr, /<- code_mode:exec_1:demo__add:1 [\d.]+ ms/)
    assert.match(child.stderr, /\| sum is 42/)
    assert.doesNotMatch(child.stderr, /\u001b\[/, 'no colour when stderr is not a terminal')
  })

  test('a cell calls two tools of server-everything through an mcpServers config', () => {
    const servers = config({ everything: { command: process.execPath, args: [everything, 'stdio'] } })
    const cell = file(`
      const echoed = await MCP.everything.echo({ message: 'from the runner' })
      const sum = await MCP.everything.getSum({ a: 19, b: 23 })
      return { echo: echoed.content[0].text, sum: sum.content[0].text }`)
    const child = run(['run', cell, '--mcp-config', servers, '--quiet'])
    assert.equal(child.status, 0, child.stderr)
    assert.deepEqual(JSON.parse(child.stdout), { echo: 'Echo: from the runner', sum: 'The sum of 19 and 23 is 42.' })
    assert.equal(child.stderr, '', '--quiet says nothing on stderr')
  })

  test('a TypeScript cell from stdin parks on a slow tool and is resumed with wait; --json prints the whole result', () => {
    const child = run(['run', '-', '--typescript', '--timeout-ms', '100', '--json'], {
      input: 'const r: { content: { text: string }[] } = await MCP.demo.sleep({ ms: 400 }); return r.content[0].text',
    })
    assert.equal(child.status, 0, child.stderr)
    const result = JSON.parse(child.stdout)
    assert.equal(result.status, 'completed')
    assert.equal(result.value, 'slept 400 ms')
    assert.match(child.stderr, /parked as cm_[\w-]+, waiting on mcp:demo:sleep; resuming with wait/)
  })

  test('a cell that fails exits 1 and prints the failure as JSON', () => {
    const child = run(['run', '-'], { input: 'throw new Error("boom")' })
    assert.equal(child.status, 1)
    assert.deepEqual(JSON.parse(child.stdout), { status: 'failed', code: 'internal_error', error: 'Error: boom at line 1:11' })
    assert.match(child.stderr, /code-mode: failed \(internal_error\): Error: boom/)
  })

  test('bad usage and bad configs exit 2 with a message naming what to fix', () => {
    const cases = [
      [['run', '-', '--nope'], /Unknown option '--nope'/],
      [['walk'], /unknown command "walk": the commands are run and serve/],
      [['serve', 'cell.js'], /serve takes no cell; unexpected "cell.js"/],
      [['serve', '--typescript'], /--typescript is an option of run, not serve/],
      [['run', '-', '--timeout-ms', 'soon'], /--timeout-ms: expected a whole number, got "soon"/],
      [['run', path.join(work, 'missing.js')], /cannot read the cell .*missing\.js: ENOENT/],
      [['run', '-', '--mcp-config', file('{ not json', '.json')], /is not JSON/],
      [['run', '-', '--mcp-config', config({ x: { args: [] } })], /mcpServers\.x\.command: expected a non-empty string/],
      [['run', '-', '--mcp-config', config({ 'bad name': { command: 'x' } })], /a server name is letters, digits/],
      [['run', '-', '--mcp-config', config({ web: { url: 'https://example.com/mcp' } })], /only stdio servers/],
      [['run', '-', '--mcp-config', file({ servers: {} }, '.json')], /expected an object with "mcpServers"/],
    ]
    for (const [args, message] of cases) {
      const child = run(args, { input: 'return 1' })
      assert.equal(child.status, 2, `${args.join(' ')}: ${child.stderr}`)
      assert.match(child.stderr, message)
      assert.equal(child.stdout, '')
    }
    const help = run(['--help'])
    assert.equal(help.status, 0)
    assert.match(help.stdout, /^Usage: code-mode run \[FILE \| -\] \[options\]\n {7}code-mode serve \[options\]/)
  })

  test('a server that fails to start, or never answers, exits 3', () => {
    const missing = run(['run', '-', '--mcp-config', config({ gone: { command: path.join(work, 'no-such-server') } })], { input: 'return 1' })
    assert.equal(missing.status, 3, missing.stderr)
    assert.match(missing.stderr, /MCP server "gone" failed to start: .*ENOENT/)
    const silent = run(['run', '-', '--server-timeout-ms', '500', '--mcp-config', config({ silent: { command: process.execPath, args: [path.join(fixtures, 'silent-server.mjs')] } })], {
      input: 'return 1',
    })
    assert.equal(silent.status, 3, silent.stderr)
    assert.match(silent.stderr, /MCP server "silent" did not answer within 500 ms/)
  })

  test('a server that exits during the run exits 4, after the cell saw the failed call', () => {
    const servers = config({ crashy: { command: process.execPath, args: [path.join(fixtures, 'crashy-server.mjs')] } })
    const child = run(['run', '-', '--mcp-config', servers], { input: 'try { await MCP.crashy.die({}) } catch (e) { return "caught: " + e.message }' })
    assert.equal(child.status, 4, child.stderr)
    assert.match(JSON.parse(child.stdout), /^caught: /)
    assert.match(child.stderr, /MCP server "crashy" exited during the run \(its stderr: crashy: exiting on purpose\)/)
  })

  test('Ctrl-C stops the run and shuts the servers down, exit 130', { skip: process.platform === 'win32' && 'POSIX signals' }, async () => {
    const child = spawn(process.execPath, [runner, 'run', '-', '--timeout-ms', '30000'], { env: { ...process.env, NO_COLOR: '' } })
    child.stdin.end('await MCP.demo.sleep({ ms: 10000 }); return 1')
    let stderr = ''
    const pid = await new Promise((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        stderr += chunk
        const started = stderr.match(/server demo \(pid (\d+)\)/)
        if (started && stderr.includes('-> ')) resolve(Number(started[1]))
      })
      child.on('exit', () => reject(new Error(`exited early: ${stderr}`)))
    })
    child.kill('SIGINT')
    const status = await new Promise((resolve) => child.on('exit', (code) => resolve(code)))
    assert.equal(status, 130, stderr)
    assert.match(stderr, /SIGINT: stopping the run and the servers/)
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the demo server is gone')
  })

  test('Ctrl-C while a server is still starting stops at once and leaves no server running', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    // A copy under a name of its own, to find its process.
    const script = path.join(work, `silent-${process.pid}.mjs`)
    copyFileSync(path.join(fixtures, 'silent-server.mjs'), script)
    const running = () =>
      readdirSync('/proc').filter((pid) => {
        try {
          return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(script)
        } catch {
          return false
        }
      })
    const servers = config({ silent: { command: process.execPath, args: [script] } })
    const child = spawn(process.execPath, [runner, 'run', '-', '--mcp-config', servers], { env: { ...process.env, NO_COLOR: '' } })
    child.stdin.end('return 1')
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    // Until the server process exists (the runner waits up to 15 s for it to answer).
    await new Promise((resolve, reject) => {
      const poll = setInterval(() => {
        if (stderr.includes('server silent: starting') && running().length > 0) {
          clearInterval(poll)
          resolve()
        }
      }, 20)
      child.on('exit', () => {
        clearInterval(poll)
        reject(new Error(`exited early: ${stderr}`))
      })
    })
    child.kill('SIGINT')
    const status = await new Promise((resolve) => child.on('exit', (code) => resolve(code)))
    assert.equal(status, 130, stderr)
    assert.deepEqual(running(), [], 'the server was shut down')
  })
})
