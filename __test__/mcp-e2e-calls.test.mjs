// End to end with server-everything (mcp-e2e-fixtures.mjs): MCP calls reach
// the real server (tools, resources, prompts, schema validation, errors).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'

import { client, prepare, SERVER, serverPrompts, serverResources, startServer, stopServer, textOf, value } from './mcp-e2e-fixtures.mjs'
import { ATTEMPT, binding } from './helpers.mjs'

before(startServer)
after(stopServer)

describe('MCP calls reach the real server', () => {
  test('echo and get-sum answer through MCP.everything.<tool>; events name the parent exec', async () => {
    const { run, calls, events } = prepare()
    const result = await run.exec(
      {
        language: 'typescript',
        code: `
const echoed = await MCP.everything.echo({ message: 'hello from a cell' })
const sum = await MCP.everything.getSum({ a: 19, b: 23 })
const links = await MCP.everything.getResourceLinks({})
text((sum.content[0] as { text: string }).text)
return { echoed, sum, links: links.content.length }`,
      },
      { toolCallId: 'call_mcp' },
    )
    assert.equal(result.status, 'completed', JSON.stringify(result))
    // The server's real answers, as its own client gets them.
    const direct = {
      echoed: await client.callTool({ name: 'echo', arguments: { message: 'hello from a cell' } }),
      sum: await client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } }),
    }
    assert.deepEqual(result.value.echoed, direct.echoed)
    assert.deepEqual(result.value.sum, direct.sum)
    assert.equal(textOf(result.value.echoed), 'Echo: hello from a cell')
    assert.equal(textOf(result.value.sum), 'The sum of 19 and 23 is 42.')
    assert.deepEqual(result.output, [{ type: 'text', text: 'The sum of 19 and 23 is 42.' }])
    // get-resource-links: its schema's default (count 3) was filled in.
    assert.deepEqual(calls[2].input, { count: 3 })
    assert.ok(result.value.links >= 3)

    assert.deepEqual(
      calls.map((c) => ({ id: c.id, name: c.name, source: c.source, sourceName: c.sourceName, input: c.input, parent: c.parentToolCallId, signal: c.signal instanceof AbortSignal })),
      [
        { id: 'mcp:everything:echo', name: 'everything__echo', source: 'mcp', sourceName: SERVER, input: { message: 'hello from a cell' }, parent: 'call_mcp', signal: true },
        { id: 'mcp:everything:get-sum', name: 'everything__get-sum', source: 'mcp', sourceName: SERVER, input: { a: 19, b: 23 }, parent: 'call_mcp', signal: true },
        { id: 'mcp:everything:get-resource-links', name: 'everything__get-resource-links', source: 'mcp', sourceName: SERVER, input: { count: 3 }, parent: 'call_mcp', signal: true },
      ],
    )
    const ids = ['code_mode:call_mcp:everything__echo:1', 'code_mode:call_mcp:everything__get-sum:2', 'code_mode:call_mcp:everything__get-resource-links:3']
    assert.deepEqual(calls.map((c) => c.toolCallId), ids)
    assert.deepEqual(
      events.map((e) => [e.type, e.toolCallId, e.parentToolCallId, e.toolId, e.name, e.ok]),
      [
        ['nested_call_started', ids[0], 'call_mcp', 'mcp:everything:echo', 'everything__echo', undefined],
        ['nested_call_finished', ids[0], 'call_mcp', 'mcp:everything:echo', 'everything__echo', true],
        ['nested_call_started', ids[1], 'call_mcp', 'mcp:everything:get-sum', 'everything__get-sum', undefined],
        ['nested_call_finished', ids[1], 'call_mcp', 'mcp:everything:get-sum', 'everything__get-sum', true],
        ['nested_call_started', ids[2], 'call_mcp', 'mcp:everything:get-resource-links', 'everything__get-resource-links', undefined],
        ['nested_call_finished', ids[2], 'call_mcp', 'mcp:everything:get-resource-links', 'everything__get-resource-links', true],
      ],
    )
    const finished = events.filter((e) => e.type === 'nested_call_finished')
    assert.deepEqual(finished[0].result, direct.echoed)
    assert.ok(finished.every((e) => typeof e.durationMs === 'number' && e.durationMs >= 0))
    // The transcript projection puts them under the exec.
    const transcript = binding.nestedCallTranscript(events, 'call_mcp')
    assert.deepEqual(
      transcript.map((m) => (m.role === 'assistant' ? ['call', m.content[0].id, m.content[0].name, m.toolId] : ['result', m.toolCallId, m.isError])),
      [
        ['call', ids[0], 'everything__echo', 'mcp:everything:echo'],
        ['result', ids[0], false],
        ['call', ids[1], 'everything__get-sum', 'mcp:everything:get-sum'],
        ['result', ids[1], false],
        ['call', ids[2], 'everything__get-resource-links', 'mcp:everything:get-resource-links'],
        ['result', ids[2], false],
      ],
    )
    assert.ok(transcript.every((m) => m.parentToolCallId === 'call_mcp' && m.codeModeNested === true))
  })

  test('resources.list/read and prompts.list/get', async () => {
    const { run, calls } = prepare()
    const uri = serverResources[0].uri
    const result = await value(
      run,
      `const resources = await MCP.everything.resources.list({})
const read = await MCP.everything.resources.read({ uri: resources.resources[0].uri })
const prompts = await MCP.everything.prompts.list()
const prompt = await MCP.everything.prompts.get({ name: 'args-prompt', arguments: { city: 'Lisbon', state: 'Estremadura' } })
return { uris: resources.resources.map((r) => r.uri), read, prompts: prompts.prompts.map((p) => p.name), prompt }`,
    )
    assert.deepEqual(result.uris, serverResources.map((r) => r.uri))
    assert.deepEqual(result.prompts, serverPrompts.map((p) => p.name))
    assert.deepEqual(result.read, await client.readResource({ uri }))
    assert.equal(result.read.contents[0].uri, uri)
    assert.ok(result.read.contents[0].text.length > 0)
    assert.deepEqual(result.prompt, await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon', state: 'Estremadura' } }))
    assert.match(result.prompt.messages[0].content.text, /Lisbon/)
    assert.deepEqual(
      calls.map((c) => [c.id, c.input]),
      [
        ['mcp:everything:resources_list', {}],
        ['mcp:everything:resources_read', { uri }],
        ['mcp:everything:prompts_list', {}],
        ['mcp:everything:prompts_get', { name: 'args-prompt', arguments: { city: 'Lisbon', state: 'Estremadura' } }],
      ],
    )
  })

  test('an input the schema refuses never reaches the server; with validation off, its isError result resolves as sent', async () => {
    const checked = prepare()
    const refused = await value(checked.run, `${ATTEMPT}\nreturn await attempt(() => MCP.everything.getSum({ a: 'one', b: 1 }))`)
    assert.equal(
      refused.error,
      'Invalid input for MCP.everything.getSum: input.a: expected number, got "one". MCP.everything.$api("getSum", { schema: true }) shows its input schema.',
    )
    assert.equal(checked.calls.length, 0)
    const { run, calls } = prepare({ agentConfig: { validateToolInputs: false } })
    const result = await value(run, "return await MCP.everything.getSum({ a: 'one', b: 1 })")
    assert.deepEqual(result, await client.callTool({ name: 'get-sum', arguments: { a: 'one', b: 1 } }))
    assert.equal(result.isError, true)
    assert.match(textOf(result), /expected number/)
    assert.deepEqual(calls.map((c) => c.input), [{ a: 'one', b: 1 }])
  })

  test('an MCP error reaches the guest as a plain Error and the event says ok: false', async () => {
    const { run, events } = prepare()
    const result = await value(run, `${ATTEMPT}\nreturn await attempt(() => MCP.everything.resources.read({ uri: 'demo://no/such/resource' }))`, { toolCallId: 'call_err' })
    assert.equal(result.plainError, true)
    assert.equal(typeof result.error, 'string')
    assert.match(result.error, /no\/such\/resource|not found/i)
    const finished = events.find((e) => e.type === 'nested_call_finished')
    assert.equal(finished.ok, false)
    assert.equal(finished.error, result.error)
    assert.equal(finished.parentToolCallId, 'call_err')
  })
})
