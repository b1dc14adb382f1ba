// End to end with server-everything (mcp-e2e-fixtures.mjs): what the model
// sees, the catalog that hides MCP tools, and the argument checks of MCP
// namespace functions before any call.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'

import { camel, CATALOG_IDS, DENIED_MCP_TOOL, prepare, runToolName, serverTools, startServer, stopServer, TOOLS, value } from './mcp-e2e-fixtures.mjs'
import { ATTEMPT, binding } from './helpers.mjs'

before(startServer)
after(stopServer)

describe('the model-visible surface', () => {
  test('a disabled config leaves the tool list unchanged', async () => {
    for (const config of [{ enabled: false }, { timeoutMs: 500 }, false]) {
      const disabled = binding.createCodeMode({ config })
      try {
        const run = disabled.prepareRun({ runId: 'r', tools: TOOLS, executeTool: () => null })
        assert.equal(run.active, false)
        assert.deepEqual(run.modelTools.map((t) => t.name), TOOLS.map((t) => t.name))
        assert.deepEqual(run.catalog, [])
        run.assertProviderPayload(TOOLS.map((t) => t.name))
        assert.throws(() => run.assertProviderPayload(['exec', 'wait']))
      } finally {
        await disabled.close()
      }
    }
  })

  test('enabled: exec, wait and the direct-only tool; the catalog has no MCP tool', () => {
    const { run } = prepare()
    assert.equal(run.active, true)
    assert.deepEqual(run.modelTools.map((t) => t.name), ['exec', 'wait', 'computer'])
    assert.deepEqual(run.catalog.map((t) => t.id), CATALOG_IDS)
    assert.deepEqual(run.diagnostics, [])
    run.assertProviderPayload(['wait', 'exec', 'computer'])
    assert.throws(() => run.assertProviderPayload(['exec', 'wait', runToolName('echo')]), /everything__echo/)
    assert.throws(() => run.assertProviderPayload(['exec', 'wait', 'tool_search']), /tool_search/)
    const exec = run.modelTools[0].description
    assert.match(exec, /API\.list\(prefix\?\)/)
    assert.match(exec, /MCP\.<server>\.<tool>/)
    assert.match(exec, /MCP servers: everything/)
  })
})

describe('the catalog hides MCP tools', () => {
  test('ALL_TOOLS holds every non-MCP catalog tool and tools.* never find MCP tools', async () => {
    const { run, calls, events } = prepare()
    const probes = serverTools.map((t) => t.name)
    const result = await value(
      run,
      `${ATTEMPT}
const probes = ${JSON.stringify(probes)}
const found = []
for (const query of ['everything', 'mcp', 'echo', 'sum', 'resources', 'prompts', ...probes]) {
  for (const entry of await tools.search(query, { limit: 50 })) found.push(entry.id)
}
const everything = (await tools.search('', { limit: 50 })).map((e) => e.id)
return {
  all: ALL_TOOLS.map((t) => t.id),
  frozen: Object.isFrozen(ALL_TOOLS),
  everything,
  mcpFound: found.filter((id) => !id.startsWith('openclaw:') && !id.startsWith('client:')),
  describeById: await attempt(() => tools.describe('mcp:everything:echo')),
  describeByName: await attempt(() => tools.describe('everything__echo')),
  callById: await attempt(() => tools.call('mcp:everything:get-sum', { a: 1, b: 2 })),
  callByName: await attempt(() => tools.call('everything__get-sum', { a: 1, b: 2 })),
  convenience: typeof tools.everything__echo,
}`,
    )
    assert.deepEqual(result.all, CATALOG_IDS)
    assert.equal(result.frozen, true)
    assert.deepEqual([...result.everything].sort(), [...CATALOG_IDS].sort())
    assert.deepEqual(result.mcpFound, [])
    assert.match(result.describeById.error, /^Unknown tool id: mcp:everything:echo\./)
    assert.match(result.describeByName.error, /^Unknown tool id: everything__echo\./)
    assert.match(result.callById.error, /^Unknown tool id: mcp:everything:get-sum\./)
    assert.match(result.callByName.error, /^Unknown tool id: everything__get-sum\./)
    assert.equal(result.convenience, 'undefined')
    assert.deepEqual(calls, [])
    assert.deepEqual(events, [])
  })

  test('search, describe and call reach the core, plugin and client tools; denied tools stay uncallable', async () => {
    const { run, calls } = prepare()
    const result = await value(
      run,
      `${ATTEMPT}
const [reader] = await tools.search('read file')
const described = await tools.describe('openclaw:issues-plugin:issues_list')
return {
  reader: reader.id,
  required: (await tools.describe(reader.id)).parameters.required,
  described: { id: described.id, label: described.label, sourceName: described.sourceName, parameters: described.parameters },
  read: await tools.read({ path: 'README.md' }),
  issues: await tools.call('openclaw:issues-plugin:issues_list', { repo: 'openclaw/code-mode' }),
  selected: await tools.call('select_file', {}),
  directOnly: await attempt(() => tools.call('computer', {})),
  legacy: await attempt(() => tools.call('tool_search', {})),
  deniedCore: await attempt(() => tools.call('openclaw:core:delete_file', {})),
  deniedMcp: await attempt(() => tools.call('mcp:everything:${DENIED_MCP_TOOL}', {})),
  deniedMcpFunction: typeof MCP.everything.${camel(DENIED_MCP_TOOL)},
}`,
    )
    assert.equal(result.reader, 'openclaw:core:read')
    assert.deepEqual(result.required, ['path'])
    assert.deepEqual(result.described, { id: 'openclaw:issues-plugin:issues_list', label: 'List issues', sourceName: 'issues-plugin', parameters: {} })
    assert.deepEqual(result.read, { path: 'README.md', text: 'contents of README.md' })
    assert.deepEqual(result.issues, { repo: 'openclaw/code-mode', issues: [{ number: 7, title: 'MCP e2e' }] })
    assert.deepEqual(result.selected, { selected: 'notes.txt' })
    for (const [key, id] of [['directOnly', 'computer'], ['legacy', 'tool_search'], ['deniedCore', 'openclaw:core:delete_file'], ['deniedMcp', `mcp:everything:${DENIED_MCP_TOOL}`]]) {
      assert.equal(result[key].plainError, true, key)
      assert.ok(result[key].error.startsWith(`Unknown tool id: ${id}.`), `${key}: ${result[key].error}`)
    }
    assert.equal(result.deniedMcpFunction, 'undefined')
    assert.deepEqual(calls.map((c) => c.id), ['openclaw:core:read', 'openclaw:issues-plugin:issues_list', 'client:app:select_file'])
    assert.deepEqual(calls.map((c) => [c.source, c.sourceName]), [['openclaw', undefined], ['openclaw', 'issues-plugin'], ['client', 'app']])
  })
})

describe('the one-object rule and required keys', () => {
  test('bad arguments are refused inside the cell, before any tool call', async () => {
    const { run, calls, events } = prepare()
    const result = await value(
      run,
      `${ATTEMPT}
return {
  string: await attempt(() => MCP.everything.echo('hello')),
  two: await attempt(() => MCP.everything.echo({ message: 'a' }, { message: 'b' })),
  nullArg: await attempt(() => MCP.everything.echo(null)),
  array: await attempt(() => MCP.everything.getSum([1, 2])),
  none: await attempt(() => MCP.everything.echo()),
  oneMissing: await attempt(() => MCP.everything.getSum({ a: 1 })),
  twoMissing: await attempt(() => MCP.everything.getSum({})),
  uri: await attempt(() => MCP.everything.resources.read({})),
}`,
    )
    const one = 'MCP namespace tools accept one object argument.'
    for (const key of ['string', 'two', 'nullArg', 'array']) {
      assert.equal(result[key].error, one, key)
      assert.equal(result[key].plainError, true, key)
    }
    assert.equal(result.none.error, 'Missing required MCP namespace argument: message')
    assert.equal(result.oneMissing.error, 'Missing required MCP namespace argument: b')
    assert.equal(result.twoMissing.error, 'Missing required MCP namespace arguments: a, b')
    assert.equal(result.uri.error, 'Missing required MCP namespace argument: uri')
    assert.equal(result.uri.plainError, true)
    assert.deepEqual(calls, [])
    assert.deepEqual(events, [])
  })

  test('a restart-safe exec that calls an MCP tool fails invalid_input before the call', async () => {
    const { run, calls } = prepare()
    const result = await run.exec({ code: "return await MCP.everything.echo({ message: 'replayed?' })", restartSafe: true })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'invalid_input')
    assert.equal(result.error, 'restart-safe code mode cannot call side-effecting tools.')
    assert.equal(result.replaySafe, true)
    assert.deepEqual(calls, [])
  })
})
