// Every example in examples/ runs, as a subprocess, and says what its
// comments promise (the plugin-namespace example is run by
// namespaces.test.mjs).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

function node(args) {
  const child = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 60000, env: { ...process.env, NO_COLOR: '' } })
  assert.equal(child.error, undefined, String(child.error))
  assert.equal(child.status, 0, child.stderr)
  return child
}

describe('examples', () => {
  test('gateway.mjs: provider payload, hook metadata, exec that parks, wait, transcript', () => {
    const lines = node(['examples/gateway.mjs']).stdout.trim().split('\n')
    assert.equal(lines[0], 'provider sees: exec, wait')
    assert.equal(lines[1], 'hook metadata of call_1: {"toolKind":"code_mode_exec","toolInputKind":"javascript"}')
    assert.equal(lines[2], 'call_1 exec -> waiting')
    assert.match(lines[3], /^ {2}parked cm_[\w-]+, pending: openclaw:core:build$/)
    assert.equal(lines[4], 'call_2 wait -> completed')
    assert.deepEqual(JSON.parse(lines[5].slice('value: '.length)), {
      version: '1.2.3',
      firstHit: 'About demo 1.2.3',
      refused: 'denied by policy: delete_repo needs approval',
      built: { ok: true, seconds: 42 },
    })
    const transcript = lines.slice(6)
    assert.equal(transcript.length, 8, 'a call and a result for each of the four nested calls')
    assert.equal(transcript[0], '  transcript assistant: read_file {"path":"package.json"}')
    assert.equal(transcript[5], '  transcript toolResult: denied by policy: delete_repo needs approval')
    assert.equal(transcript[7], '  transcript toolResult: {"ok":true,"seconds":42}')
  })

  test('mcp.mjs: a TypeScript cell against server-everything through MCP', () => {
    const out = node(['examples/mcp.mjs']).stdout
    assert.match(out, /declaration files: mcp\/index\.d\.ts/)
    assert.match(out, /completed: \{\n {2}"echo": "Echo: hello from code mode",\n {2}"sum": "The sum of 19 and 23 is 42\."\n\}/)
  })

  test('runner/: the runner with a config and a TypeScript cell', () => {
    const child = node(['cli/main.mjs', 'run', 'examples/runner/cell.ts', '--mcp-config', 'examples/runner/servers.json'])
    assert.deepEqual(JSON.parse(child.stdout), {
      echo: 'Echo: hello from the runner',
      sums: ['The sum of 1 and 2 is 3.', 'The sum of 1000 and 2000 is 3000.'],
    })
    assert.match(child.stderr, /\| everything declares \d+ tools/)
  })

  test('demo.mjs: npm run demo runs its cells and one of your own', () => {
    const own = node(['examples/demo.mjs', 'return 6 * 7']).stdout
    assert.match(own, /^model-visible tools: exec, wait, screenshot$/m)
    assert.match(own, /== your cell \([\d.]+ ms\)\n\{\n {2}"status": "completed",\n {2}"value": 42,/)
    // The built-in cells: two that complete, three that show errors a model gets.
    const builtIn = node(['examples/demo.mjs']).stdout
    assert.equal(builtIn.match(/"status": "completed"/g).length, 2)
    assert.match(builtIn, /Unknown tool id: openclaw:core:rm\. Did you mean: delete_file/)
    assert.match(builtIn, /"error": "code mode module access is disabled\."/)
    assert.match(builtIn, /== an infinite loop after await times out [^\n]*\n\{\n {2}"status": "failed",\n {2}"error": "code mode timeout exceeded\."/)
  })
})
