// Every code block of README.md is run here, as written, with what it leaves
// to the reader (a gateway's tools and executor) supplied around it. A new
// block without a runner below fails the first test.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
// Resolves '@openclaw/code-mode' to this package, as an installed one would.
const requireHere = createRequire(path.join(root, 'package.json'))
const AsyncFunction = (async () => {}).constructor

const blocks = [...readFileSync(path.join(root, 'README.md'), 'utf8').matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], code: m[2] }))
const find = (start) => {
  const block = blocks.find((b) => b.code.startsWith(start))
  assert.ok(block, `README has a block starting with ${start}`)
  return block
}

const work = mkdtempSync(path.join(tmpdir(), 'code-mode-readme-'))
after(() => rmSync(work, { recursive: true, force: true }))

/** Runs a README block of host code with `scope` (name -> value) around it; `tail` runs after it. */
function host(code, scope, tail = '') {
  const names = Object.keys(scope)
  return new AsyncFunction('require', ...names, `${code}\n${tail}`)(requireHere, ...names.map((n) => scope[n]))
}

const STARTS = {
  install: 'npm install @openclaw/code-mode',
  npx: "echo 'return (await MCP.demo.add",
  source: 'npm run demo',
  example: "const { createCodeMode } = require('@openclaw/code-mode')",
  mcpCell: "const { content } = API.read('mcp/github.d.ts')",
  namespaces: 'const { registerCodeModeNamespaceForPlugin',
}

describe('README code blocks', () => {
  test('every block has a runner here', () => {
    for (const block of blocks) {
      assert.ok(Object.values(STARTS).some((start) => block.code.startsWith(start)), `no runner for the README block:\n${block.code}`)
    }
    assert.equal(blocks.length, Object.keys(STARTS).length)
  })

  test('install and from-source commands: run by other tests', () => {
    // `npm install @openclaw/code-mode`: pack.test.mjs installs the packed
    // package the same way (from its tarballs, as the registry would serve them).
    assert.equal(find(STARTS.install).code, 'npm install @openclaw/code-mode\n')
    // `npm run demo` is examples.test.mjs's demo test; `npm test` runs this file.
    assert.match(find(STARTS.source).code, /^npm run demo .*\nnpm test .*\n$/)
  })

  test('the npx lines, with the package command run from this checkout', () => {
    copyFileSync(path.join(root, 'examples/runner/cell.ts'), path.join(work, 'cell.ts'))
    copyFileSync(path.join(root, 'examples/runner/servers.json'), path.join(work, 'servers.json'))
    const lines = find(STARTS.npx).code.trim().split('\n')
    assert.equal(lines.length, 3)
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(root, 'cli/main.mjs'))}`
    // Each line as written (its comment cut), with a longer wait for the MCP
    // servers than the CLI's default 15 s: `npx -y` starts server-everything
    // in seconds on a quiet machine, but past 15 s while the rest of the
    // suite loads both cores.
    const sh = (line) => {
      const run = `${line.replace(/\s+#.*$/, '').replaceAll('npx @openclaw/code-mode', command)} --server-timeout-ms 50000`
      return spawnSync('sh', ['-c', run], { cwd: work, encoding: 'utf8', input: '', timeout: 60000 })
    }
    const demo = sh(lines[0])
    assert.equal(demo.status, 0, demo.stderr)
    assert.equal(JSON.parse(demo.stdout), '42')
    const cell = sh(lines[1])
    assert.equal(cell.status, 0, cell.stderr)
    assert.equal(JSON.parse(cell.stdout).echo, 'Echo: hello from the runner')
    // serve with stdin closed at once: starts the servers, serves, stops cleanly.
    const served = sh(lines[2])
    assert.equal(served.status, 0, served.stderr)
    assert.match(served.stderr, /serving exec and wait over stdio/)
  })

  test('the example: a gateway runs a cell that searches and calls a tool', async () => {
    const trajectory = []
    const gateway = { executeTool: (call) => ({ path: call.input.path, text: `contents of ${call.input.path}` }) }
    const tools = [
      { name: 'read_file', description: 'Read a file from the workspace', source: 'openclaw' },
      { name: 'web_search', description: 'Search the web', source: 'openclaw' },
    ]
    const result = await host(find(STARTS.example).code, { tools, gateway, trajectory, signal: new AbortController().signal }, 'return result')
    assert.equal(result.status, 'completed')
    assert.equal(result.value, 'contents of README.md'.length)
    assert.deepEqual(trajectory.map((e) => `${e.type} ${e.toolId}`), ['nested_call_started openclaw:core:read_file', 'nested_call_finished openclaw:core:read_file'])
  })

  test('the MCP cell: declarations, a tool and a resource', async () => {
    const { createCodeMode } = requireHere('@openclaw/code-mode')
    const codeMode = createCodeMode({ config: { enabled: true } })
    const calls = []
    const run = codeMode.prepareRun({
      runId: 'readme-mcp',
      tools: [
        {
          name: 'github__create_issue',
          description: 'Create an issue',
          source: 'mcp',
          sourceName: 'github',
          mcp: { server: 'github', tool: 'create_issue' },
          parameters: { type: 'object', properties: { owner: { type: 'string' }, repo: { type: 'string' }, title: { type: 'string' } } },
        },
        { name: 'docs__resources_read', description: 'Read a resource', source: 'mcp', sourceName: 'docs', mcp: { server: 'docs', tool: 'resources_read', operation: 'resources_read' }, parameters: { type: 'object', properties: { uri: { type: 'string' } } } },
      ],
      executeTool: (call) => {
        calls.push(call.id)
        return call.id === 'mcp:github:create_issue' ? { number: 7, title: call.input.title } : { contents: [{ uri: call.input.uri, text: 'one' }] }
      },
    })
    const result = await run.exec({ code: `${find(STARTS.mcpCell).code}\nreturn { declares: content.includes('createIssue'), issue, doc }` })
    await codeMode.close()
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, { declares: true, issue: { number: 7, title: 'Logs' }, doc: { contents: [{ uri: 'memo://one', text: 'one' }] } })
    assert.deepEqual(calls, ['mcp:github:create_issue', 'mcp:docs:resources_read'])
  })

  test('the plugin namespace: registered as written, then Issues.list from a cell', async () => {
    const { createCodeMode, clearCodeModeNamespacesForPlugin } = requireHere('@openclaw/code-mode')
    await host(find(STARTS.namespaces).code, {})
    try {
      const codeMode = createCodeMode({ config: { enabled: true } })
      const run = codeMode.prepareRun({
        runId: 'readme-ns',
        scopeContext: { owner: 'openclaw' },
        tools: ['github_list_issues', 'github_update_issue'].map((name) => ({ name, description: name, source: 'openclaw', sourceName: 'github' })),
        executeTool: (call) => ({ details: { tool: call.name, input: call.input } }),
      })
      const result = await run.exec({ code: "const open = await Issues.list({ state: 'open' })\nreturn open" })
      await codeMode.close()
      assert.equal(result.status, 'completed', result.error)
      assert.deepEqual(result.value, { tool: 'github_list_issues', input: { state: 'open' } })
    } finally {
      clearCodeModeNamespacesForPlugin('github')
    }
  })
})
