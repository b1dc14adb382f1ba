// The MCP namespace through the public API, against an in-process executor
// (docs/mcp.md). The end-to-end tests with a real MCP server are
// mcp-e2e-*.test.mjs.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { binding } from './helpers.mjs'

const instances = []
after(async () => {
  for (const codeMode of instances) await codeMode.close()
})

const issueSchema = {
  type: 'object',
  properties: {
    owner: { type: 'string', description: 'Repository owner' },
    title: { type: 'string' },
    state: { type: 'string', enum: ['open', 'closed'], default: 'open' },
    labels: { type: 'array', items: { type: 'string' }, default: [] },
  },
  required: ['owner', 'title'],
}

function mcpTool(server, tool, extra = {}) {
  return {
    name: `${server}__${tool}`,
    description: `${tool} on ${server}`,
    source: 'mcp',
    sourceName: server,
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    mcp: { server, tool },
    ...extra,
  }
}

const tools = [
  { name: 'read', description: 'Read a file', source: 'openclaw' },
  mcpTool('github', 'create_issue', { parameters: issueSchema }),
  mcpTool('github', 'list_issues'),
  mcpTool('github', 'resources/read', {
    parameters: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
    mcp: { server: 'github', tool: 'resources/read', operation: 'resources_read' },
  }),
  mcpTool('github', 'prompts/get', { mcp: { server: 'github', tool: 'prompts/get', operation: 'prompts_get' } }),
  mcpTool('chrome-devtools', 'take_snapshot'),
]

function setup({ config = {}, executeTool, onEvent, runTools = tools } = {}) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, ...config } })
  instances.push(codeMode)
  const calls = []
  const run = codeMode.prepareRun({
    runId: 'agent-run',
    tools: runTools,
    executeTool: executeTool ?? ((call) => (calls.push(call), { content: [{ type: 'text', text: call.id }], input: call.input })),
    onEvent,
  })
  return { codeMode, run, calls }
}

describe('MCP.<server>.<tool>(input)', () => {
  test('dispatches by exact catalog id with defaults filled in, and resolves to the full value', async () => {
    const { run, calls } = setup()
    const result = await run.exec({
      code: "return await MCP.github.createIssue({ owner: 'openclaw', title: 'Logs' })",
    })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, {
      content: [{ type: 'text', text: 'mcp:github:create_issue' }],
      input: { owner: 'openclaw', title: 'Logs', state: 'open', labels: [] },
    })
    assert.equal(calls.length, 1)
    assert.equal(calls[0].id, 'mcp:github:create_issue')
    assert.equal(calls[0].name, 'github__create_issue')
    assert.equal(calls[0].source, 'mcp')
    assert.equal(calls[0].sourceName, 'github')
    assert.match(calls[0].toolCallId, /^code_mode:exec:github__create_issue:\d+$/)
  })

  test('one object argument: none is {}, anything else rejects before the executor runs', async () => {
    const { run, calls } = setup()
    const result = await run.exec({
      code: `
        const errors = []
        for (const args of [[1], ['x'], [null], [[1]], [() => 1], [{}, {}], [new Date(0)]]) {
          try { await MCP.github.listIssues(...args); errors.push('called') } catch (e) { errors.push(e.message) }
        }
        const none = await MCP.github.listIssues()
        const explicit = await MCP.github.listIssues(undefined)
        return { errors, none: none.input, explicit: explicit.input }`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value.errors, Array(7).fill('MCP namespace tools accept one object argument.'))
    assert.deepEqual(result.value.none, {})
    assert.deepEqual(result.value.explicit, {})
    assert.equal(calls.length, 2)
  })

  test('missing required keys are named, after defaults, and the executor is not called', async () => {
    const { run, calls } = setup()
    const result = await run.exec({
      code: `
        const messages = []
        for (const input of [{}, { owner: 'o' }, { owner: 'o', title: undefined }, { title: null }]) {
          try { await MCP.github.createIssue(input); messages.push('called') } catch (e) { messages.push(e.message) }
        }
        return messages`,
    })
    assert.deepEqual(result.value, [
      'Missing required MCP namespace arguments: owner, title',
      'Missing required MCP namespace argument: title',
      'Missing required MCP namespace argument: title',
      'Missing required MCP namespace argument: owner',
    ])
    assert.equal(calls.length, 0)
  })

  test('resource and prompt operations live in their groups', async () => {
    const { run, calls } = setup()
    const result = await run.exec({
      code: `
        const read = await MCP.github.resources.read({ uri: 'memo://one' })
        const prompt = await MCP.github.prompts.get({ name: 'brief' })
        return [Object.keys(MCP.github.resources), Object.keys(MCP.github.prompts), read.input, prompt.input]`,
    })
    assert.deepEqual(result.value, [['read'], ['get'], { uri: 'memo://one' }, { name: 'brief' }])
    assert.deepEqual(calls.map((call) => call.id), ['mcp:github:resources/read', 'mcp:github:prompts/get'])
  })

  test('the namespace is frozen, enumerable and named by camel-cased identifiers', async () => {
    const { run } = setup()
    const result = await run.exec({
      code: `
        'use strict'
        const attempts = []
        for (const write of [() => { MCP.github = 1 }, () => { MCP.github.createIssue = 1 }, () => { MCP.x = 1 }, () => { delete MCP.github }]) {
          try { write(); attempts.push('written') } catch (e) { attempts.push(e.name) }
        }
        return {
          root: Object.keys(MCP),
          github: Object.keys(MCP.github),
          name: MCP.github.createIssue.name,
          frozen: Object.isFrozen(MCP) && Object.isFrozen(MCP.github) && Object.isFrozen(MCP.github.resources),
          attempts,
          inTools: ['createIssue', 'create_issue', 'github__create_issue'].some((name) => name in tools),
        }`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, {
      root: ['$api', 'chromeDevtools', 'github'],
      github: ['$api', 'createIssue', 'listIssues', 'prompts', 'resources'],
      name: 'createIssue',
      frozen: true,
      attempts: ['TypeError', 'TypeError', 'TypeError', 'TypeError'],
      inTools: false,
    })
  })

  test('inputs nested deeper than 1000 levels are refused like every tool input', async () => {
    const { run, calls } = setup()
    const result = await run.exec({
      code: `
        let deep = {}
        for (let i = 0; i < 1001; i++) deep = { d: deep }
        try { await MCP.github.listIssues({ deep }); return 'called' } catch (e) { return e.message }`,
    })
    assert.equal(result.value, 'tool input nests deeper than 1000 levels.')
    assert.equal(calls.length, 0)
  })

  test('nested-call events and the executor see MCP calls like every other call', async () => {
    const events = []
    const { run } = setup({ onEvent: (event) => events.push(event) })
    const result = await run.exec({ code: "await MCP.chromeDevtools.takeSnapshot({ q: 'a' }); return 1" }, { toolCallId: 'call-1' })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(
      events.map(({ type, toolId, name, parentToolCallId, ok }) => ({ type, toolId, name, parentToolCallId, ok })),
      [
        { type: 'nested_call_started', toolId: 'mcp:chrome-devtools:take_snapshot', name: 'chrome-devtools__take_snapshot', parentToolCallId: 'call-1', ok: undefined },
        { type: 'nested_call_finished', toolId: 'mcp:chrome-devtools:take_snapshot', name: 'chrome-devtools__take_snapshot', parentToolCallId: 'call-1', ok: true },
      ],
    )
    assert.equal(events[0].toolCallId, 'code_mode:call-1:chrome-devtools__take_snapshot:1')
    assert.equal(result.telemetry.callCount, 1)
    assert.equal(result.telemetry.catalogSize, 6)
    assert.deepEqual(result.telemetry.sources, { openclaw: 1, mcp: 5, client: 0 })
  })

  test('the concurrency cap and FIFO queue hold, and a run parks with method "mcp"', async () => {
    let inFlight = 0
    let most = 0
    const started = []
    const resolvers = []
    const { run } = setup({
      config: { maxPendingToolCalls: 2, timeoutMs: 300 },
      executeTool: (call) => {
        started.push(call.input.q)
        inFlight++
        most = Math.max(most, inFlight)
        return new Promise((resolve) => resolvers.push(() => (inFlight--, resolve(call.input.q))))
      },
    })
    const exec = await run.exec({
      code: "return await Promise.all(['a', 'b', 'c', 'd'].map((q) => MCP.github.listIssues({ q })))",
    })
    assert.equal(exec.status, 'waiting')
    // Two in flight, two queued behind them: all four are pending.
    assert.deepEqual(
      exec.pendingToolCalls.map(({ method, toolId }) => ({ method, toolId })),
      Array(4).fill({ method: 'mcp', toolId: 'mcp:github:list_issues' }),
    )
    assert.deepEqual(started, ['a', 'b'])
    let result = exec
    let waits = 0
    while (result.status === 'waiting') {
      assert.ok(++waits <= 20, 'the run never completed')
      for (const resolve of resolvers.splice(0)) resolve()
      result = await run.wait({ runId: result.runId })
    }
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, ['a', 'b', 'c', 'd'])
    assert.deepEqual(started, ['a', 'b', 'c', 'd'])
    assert.equal(most, 2)
  })

  test('aborting the exec aborts the in-flight MCP call', async () => {
    let signal
    let called
    const inFlight = new Promise((resolve) => (called = resolve))
    const { run } = setup({
      executeTool: (call) => {
        signal = call.signal
        called()
        return new Promise(() => {})
      },
    })
    const controller = new AbortController()
    const pending = run.exec({ code: 'return await MCP.github.listIssues({})' }, { signal: controller.signal })
    // The call is in flight, or the exec has ended without making it (then
    // the assertions below fail instead of a poll that never ends).
    await Promise.race([inFlight, pending])
    controller.abort()
    const result = await pending
    assert.equal(result.code, 'aborted')
    assert.equal(signal.aborted, true)
  })

  test('a restartSafe cell cannot call MCP tools', async () => {
    const { run, calls } = setup()
    const result = await run.exec({ code: 'await MCP.github.listIssues({}); return 1', restartSafe: true })
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'invalid_input')
    assert.equal(result.error, 'restart-safe code mode cannot call side-effecting tools.')
    assert.equal(calls.length, 0)
  })
})

describe('MCP entries stay out of the catalog views', () => {
  test('ALL_TOOLS, search, describe, call and convenience functions never see them', async () => {
    const { run, calls } = setup()
    const result = await run.exec({
      code: `
        const seen = []
        seen.push(ALL_TOOLS.map((t) => t.id))
        seen.push((await tools.search('issue')).length)
        for (const id of ['mcp:github:create_issue', 'github__create_issue', 'create_issue']) {
          try { await tools.describe(id); seen.push('described') } catch (e) { seen.push(e.message.split('.')[0]) }
          try { await tools.call(id, {}); seen.push('called') } catch (e) { seen.push(e.message.split('.')[0]) }
        }
        return seen`,
    })
    assert.deepEqual(result.value, [
      ['openclaw:core:read'],
      0,
      ...Array(6).fill(null).map((_, i) => `Unknown tool id: ${['mcp:github:create_issue', 'github__create_issue', 'create_issue'][i >> 1]}`),
    ])
    assert.equal(calls.length, 0)
    assert.deepEqual(run.catalog.map((entry) => entry.id), ['openclaw:core:read'])
  })
})

describe('API files and $api', () => {
  test('API.list and API.read are synchronous and serve one file per server', async () => {
    const { run, calls } = setup()
    const result = await run.exec({
      code: `
        const listed = API.list('mcp/')
        const same = JSON.stringify(API.list('mcp')) === JSON.stringify(listed) && JSON.stringify(API.list()) === JSON.stringify(listed)
        const file = API.read('mcp/github.d.ts')
        const awaited = await API.read('mcp/index.d.ts')
        const errors = []
        for (const read of [() => API.read('mcp/../x'), () => API.read('mcp/nope.d.ts'), () => API.read(1), () => API.list(2)]) {
          try { read(); errors.push('read') } catch (e) { errors.push(e.message) }
        }
        return { listed, same, file: { path: file.path, bytes: file.bytes, content: file.content }, index: awaited.path, errors }`,
    })
    assert.equal(result.status, 'completed', result.error)
    const { listed, same, file, index, errors } = result.value
    assert.deepEqual(listed.files.map((f) => f.path), ['mcp/index.d.ts', 'mcp/chromeDevtools.d.ts', 'mcp/github.d.ts'])
    for (const entry of listed.files) {
      assert.equal(typeof entry.description, 'string')
      assert.ok(entry.bytes > 0)
    }
    assert.equal(same, true)
    assert.equal(file.path, 'mcp/github.d.ts')
    assert.equal(file.bytes, Buffer.byteLength(file.content, 'utf8'))
    assert.match(file.content, /MCP\.github/)
    assert.equal(index, 'mcp/index.d.ts')
    assert.deepEqual(errors, [
      'API path mcp/../x is not allowed: use a path as API.list() gives it, such as mcp/index.d.ts, without . or .. segments.',
      'Unknown API file: mcp/nope.d.ts. API.list() lists the files.',
      'API.read path must be a string.',
      'API.list prefix must be a string.',
    ])
    assert.equal(calls.length, 0, 'no tool call')
  })

  test('$api answers on the host without a tool call', async () => {
    const { run, calls } = setup()
    const result = await run.exec({
      code: `
        const root = await MCP.$api()
        const server = await MCP.github.$api()
        const one = await MCP.github.$api('create_issue', { schema: true })
        let unknown
        try { await MCP.github.$api('nope') } catch (e) { unknown = e.message }
        return { root, server: { scope: server.scope, methods: server.tools.map((t) => t.method), schemas: 'schemas' in server }, one, unknown }`,
    })
    assert.equal(result.status, 'completed', result.error)
    const { root, server, one, unknown } = result.value
    assert.equal(root.kind, 'mcp_api')
    assert.equal(root.scope, 'root')
    assert.equal(typeof root.header, 'string')
    assert.deepEqual(root.servers, [
      { identifier: 'chromeDevtools', serverName: 'chrome-devtools', toolCount: 1 },
      { identifier: 'github', serverName: 'github', toolCount: 4 },
    ])
    assert.deepEqual(server, { scope: 'server', methods: ['createIssue', 'listIssues', 'prompts.get', 'resources.read'], schemas: false })
    assert.equal(one.kind, 'mcp_api')
    assert.equal(one.scope, 'tool')
    assert.deepEqual(one.tools, [{ method: 'createIssue', path: ['createIssue'], mcpTool: 'create_issue', operation: 'tool', description: 'create_issue on github' }])
    assert.deepEqual(one.schemas, { createIssue: issueSchema })
    assert.match(one.header, /createIssue/)
    assert.equal(unknown, 'MCP.github has no method nope; its methods: createIssue, listIssues, prompts.get, resources.read. Call MCP.github.$api() for the whole header.')
    assert.equal(calls.length, 0)
  })

  test('an answer longer than the memory limit ends the cell as running out of memory does; one that fits is read', async () => {
    // 60 tools with schemas of about 100 KB: 6 MB of schemas, a 4 MiB VM.
    const big = Array.from({ length: 60 }, (_, i) =>
      mcpTool('big', `t${i}`, {
        parameters: {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: 1000 }, (_, k) => [`f${k}`, { type: 'string', description: 'd'.repeat(60) }])),
        },
      }),
    )
    const { run, calls } = setup({ config: { memoryLimitBytes: 4 * 1024 * 1024 }, runTools: big })
    const whole = await run.exec({
      code: `
        let caught = 'nothing'
        try { await MCP.big.$api(undefined, { schema: true }) } catch (e) { caught = e.message }
        return caught`,
    })
    // A catch cannot keep the cell going: the VM is out of memory for good.
    assert.equal(whole.status, 'failed')
    assert.equal(whole.code, 'internal_error')
    assert.equal(whole.error, 'code mode memory limit exceeded.')
    // One schema fits, on the same run.
    const one = await run.exec({ code: `const a = await MCP.big.$api('t7', { schema: true }); return [a.scope, Object.keys(a.schemas), Object.keys(a.schemas.t7.properties).length]` })
    assert.equal(one.status, 'completed', one.error)
    assert.deepEqual(one.value, ['tool', ['t7'], 1000])
    assert.equal(calls.length, 0)
  })

  test('a run without MCP tools still has empty MCP and API globals', async () => {
    const { run } = setup({ runTools: [tools[0]] })
    const result = await run.exec({ code: 'return [Object.keys(MCP), API.list(), (await MCP.$api()).servers]' })
    assert.deepEqual(result.value, [['$api'], { files: [] }, []])
    assert.doesNotMatch(run.modelTools[0].description, /MCP|API\./)
    assert.deepEqual(run.diagnostics, [])
  })
})

describe('descriptions and diagnostics', () => {
  test('the exec description mentions API and lists MCP servers only when the run has MCP tools', () => {
    const { run } = setup()
    const description = run.modelTools[0].description
    assert.match(description, /API\.list\(prefix\?\)/)
    assert.match(description, /MCP\.<server>\.<tool>/)
    assert.match(description, /\n\nMCP servers: chromeDevtools, github$/)
  })

  test('odd MCP tools are reported, named, and never disable the other servers', async () => {
    const odd = [
      mcpTool('files', 'read_file', { parameters: undefined }),
      mcpTool('files', 'bad', { parameters: { type: 'array' } }),
      mcpTool('files', 'watch', { mcp: { server: 'files', tool: 'watch', operation: 'resources_subscribe' } }),
      mcpTool('files', 'read-file'),
      mcpTool('github', 'list_issues'),
    ]
    const { run, calls } = setup({ runTools: odd })
    assert.equal(run.diagnostics.length, 4, run.diagnostics.join('\n'))
    for (const [index, pattern] of [
      [0, /^MCP tool "bad" \(mcp:files:bad\) has an input schema that does not describe an object;/],
      [1, /^MCP tool "read_file" \(mcp:files:read_file\) is MCP\.files\.readFile2:/],
      [2, /^MCP tool "read_file" \(mcp:files:read_file\) has no input schema;/],
      [3, /^MCP tool "watch" \(mcp:files:watch\) has mcp\.operation "resources_subscribe", which code mode does not support;/],
    ]) {
      assert.ok(run.diagnostics.some((line) => pattern.test(line)), `${pattern} in\n${run.diagnostics.join('\n')}`)
      void index
    }
    const result = await run.exec({
      code: `
        const out = [await MCP.github.listIssues({}), await MCP.files.readFile2({ any: 1 }), await MCP.files.bad({})]
        try { await MCP.files.watch({}) } catch (e) { out.push(e.message) }
        return out.map((r) => r.input ?? r)`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value.slice(0, 3), [{}, { any: 1 }, {}])
    assert.match(result.value[3], /^MCP\.files\.watch cannot be called: the gateway gave its MCP tool \(mcp:files:watch\) the operation "resources_subscribe"/)
    assert.deepEqual(calls.map((call) => call.id), ['mcp:github:list_issues', 'mcp:files:read_file', 'mcp:files:bad'])
  })
})
