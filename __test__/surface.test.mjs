// The model-visible surface, the catalog, the provider-payload guard, hook
// metadata and telemetry (docs/surface.md, docs/catalog.md).
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { ATTEMPT, RECOVERY, binding, codeModeFactory, tool } from './helpers.mjs'

const { codeModeHookMetadata } = binding

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

const echo = async (call) => ({ id: call.id, input: call.input })

const READ = tool('read', {
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
})
const COMPUTER = tool('computer', {
  description: 'Use the computer',
  directOnly: true,
  parameters: { type: 'object', properties: { action: { type: 'string' } } },
})
const LEGACY = ['tool_search_code', 'tool_search', 'tool_describe', 'tool_call']

/** A gateway-like tool list: every source, a direct-only tool, legacy controls and a shell exec. */
const MIXED = [
  READ,
  COMPUTER,
  tool('tool_search_code', { description: 'legacy' }),
  tool('tool_search', { description: 'legacy' }),
  tool('tool_describe', { description: 'legacy', directOnly: true }),
  tool('tool_call', { description: 'legacy', source: 'client' }),
  tool('select_file', { description: 'Select a file', source: 'client', sourceName: 'app' }),
  tool('gh_create_issue', { description: 'Create an issue', source: 'mcp', sourceName: 'github', mcp: { server: 'github', tool: 'create_issue' } }),
  tool('browser_request', { description: 'Browse', source: 'openclaw', sourceName: 'browser', label: 'Browser request' }),
  tool('exec', { description: 'Run a shell command' }),
]

describe('activation (docs/surface.md)', () => {
  test('disabled config: inactive, modelTools are the input tools unchanged, empty catalog', () => {
    const run = codeModes.create({}).prepareRun({ runId: 'r', tools: MIXED, executeTool: echo })
    assert.equal(run.active, false)
    assert.deepEqual(run.catalog, [])
    const defs = run.modelTools
    assert.deepEqual(defs.map((d) => d.name), MIXED.map((t) => t.name), 'same names, same order, nothing dropped')
    assert.deepEqual(defs.map((d) => d.description), MIXED.map((t) => t.description))
    assert.deepEqual(defs[0].parameters, READ.parameters)
    assert.deepEqual(defs[1].parameters, COMPUTER.parameters)
    for (const def of defs) {
      assert.equal(def.toolKind, undefined, def.name)
      assert.equal(typeof def.parameters, 'object', def.name)
    }
  })

  test(
    'tool schemas reach the model and tools.describe unchanged, numbers included',
    async () => {
      const schema = {
        type: 'object',
        properties: { x: { type: 'number', maximum: 0.15831127762795313, minimum: 0.023738465905189514, multipleOf: 0.9270711171627045 } },
      }
      const tools = [tool('t', { parameters: schema }), tool('d', { directOnly: true, parameters: schema })]
      const off = codeModes.create({}).prepareRun({ runId: 'r', tools, executeTool: echo })
      assert.deepEqual(off.modelTools.map((d) => d.parameters), [schema, schema])
      const on = codeModes.enabled().prepareRun({ runId: 'r', tools, executeTool: echo })
      assert.deepEqual(on.modelTools[2].parameters, schema)
      const described = await on.exec({ code: 'return (await tools.describe("t")).parameters' })
      assert.deepEqual(described.value, schema)
    },
  )

  test('an object config without enabled: true stays disabled', () => {
    for (const config of [{ timeoutMs: 500 }, { languages: ['typescript'], maxPendingToolCalls: 3 }, { enabled: 1 }, { enabled: 'true' }, false]) {
      const run = codeModes.create(config).prepareRun({ runId: 'r', tools: MIXED, executeTool: echo })
      assert.equal(run.active, false, JSON.stringify(config))
      assert.deepEqual(run.modelTools.map((d) => d.name), MIXED.map((t) => t.name), JSON.stringify(config))
    }
    assert.equal(codeModes.create(true).prepareRun({ runId: 'r', tools: MIXED, executeTool: echo }).active, true)
  })

  test('disableTools and an empty tool list: inactive with no model tools even when enabled', () => {
    const codeMode = codeModes.enabled()
    for (const ctx of [
      { runId: 'r', tools: [], executeTool: echo },
      { runId: 'r', tools: MIXED, disableTools: true, executeTool: echo },
    ]) {
      const run = codeMode.prepareRun(ctx)
      assert.equal(run.active, false)
      assert.deepEqual(run.modelTools, [])
      assert.deepEqual(run.catalog, [])
    }
  })
})

describe('the enabled model surface (docs/surface.md)', () => {
  const codeMode = codeModes.enabled()
  const run = codeMode.prepareRun({ runId: 'r', tools: MIXED, executeTool: echo })

  test('modelTools: exec, wait, then the direct-only tools; toolKind values', () => {
    assert.equal(run.active, true)
    const defs = run.modelTools
    assert.deepEqual(defs.map((d) => d.name), ['exec', 'wait', 'computer'])
    assert.deepEqual(defs.map((d) => d.toolKind), ['code_mode_exec', 'code_mode_wait', undefined])
    assert.equal('toolKind' in defs[2], false)
    assert.deepEqual(defs[2], { name: 'computer', description: COMPUTER.description, parameters: COMPUTER.parameters })
  })

  test('direct-only tools keep input order after exec and wait', () => {
    const tools = [tool('b_direct', { directOnly: true }), READ, tool('a_direct', { directOnly: true })]
    const surface = codeMode.prepareRun({ runId: 'r', tools, executeTool: echo })
    assert.deepEqual(surface.modelTools.map((d) => d.name), ['exec', 'wait', 'b_direct', 'a_direct'])
  })

  test('exec schema: optional code/command/language/restartSafe, language a flat string enum', () => {
    const exec = run.modelTools[0]
    const schema = exec.parameters
    assert.equal(schema.type, 'object')
    assert.deepEqual(Object.keys(schema.properties).sort(), ['code', 'command', 'language', 'restartSafe'])
    assert.equal(schema.properties.code.type, 'string')
    assert.equal(schema.properties.command.type, 'string')
    assert.equal(schema.properties.restartSafe.type, 'boolean')
    assert.equal(schema.properties.language.type, 'string')
    assert.deepEqual(schema.properties.language.enum, ['javascript', 'typescript'])
    assert.ok(!(schema.required ?? []).includes('code'), 'code is optional (command is an alias)')
    const text = JSON.stringify(schema)
    assert.ok(!text.includes('oneOf') && !text.includes('anyOf'), text)
  })

  test('exec schema lists only the enabled languages, in config order', () => {
    const languageOf = (languages) =>
      codeModes
        .enabled({ languages })
        .prepareRun({ runId: 'r', tools: [READ], executeTool: echo })
        .modelTools[0].parameters.properties.language
    assert.equal(languageOf(['typescript']).type, 'string')
    assert.deepEqual(languageOf(['typescript']).enum, ['typescript'])
    assert.deepEqual(languageOf(['javascript']).enum, ['javascript'])
    assert.deepEqual(languageOf(['typescript', 'javascript']).enum, ['typescript', 'javascript'])
    assert.deepEqual(languageOf(['cobol']).enum, ['javascript', 'typescript'], 'nothing valid left -> both')
    for (const languages of [['typescript'], ['javascript', 'typescript']]) {
      const schema = languageOf(languages)
      assert.equal(schema.oneOf, undefined)
      assert.equal(schema.anyOf, undefined)
    }
  })

  test('exec property descriptions teach the model what is true for this run', () => {
    const props = (config, tools = [READ]) => codeModes.enabled(config).prepareRun({ runId: 'r', tools, executeTool: echo }).modelTools[0].parameters.properties
    // What OpenClaw's own tests ask of them.
    const plain = props({})
    assert.match(plain.code.description, /`tools\.search`, `tools\.describe`, `tools\.call`/)
    assert.match(plain.code.description, /`ALL_TOOLS` lists them/)
    assert.match(plain.code.description, /Modules are unavailable \(no `require`\/`import`\)/)
    assert.match(plain.code.description, /`setTimeout`\/`setInterval` work\./)
    assert.match(plain.language.description, /`javascript`.*`typescript`/)
    // MCP and API only with MCP tools; namespaces only when visible.
    assert.doesNotMatch(plain.code.description, /MCP|API|namespace/)
    const mcp = tool('gh__create_issue', { source: 'mcp', sourceName: 'gh', mcp: { server: 'gh', tool: 'create_issue' }, parameters: { type: 'object' } })
    assert.match(props({}, [READ, mcp]).code.description, / MCP tools: `MCP\.<server>\.<tool>\(input\)`; declarations via `API\.read`\.$/)
    // One language: the text says so.
    assert.match(props({ languages: ['javascript'] }).code.description, /^JavaScript program: /)
    assert.equal(props({ languages: ['javascript'] }).language.description, 'Only `javascript`.')
    assert.equal(props({ languages: ['typescript'] }).language.description, 'Only `typescript` (types stripped, not checked); pass it on every call.')
  })

  test('wait schema requires runId', () => {
    const wait = run.modelTools[1]
    assert.equal(wait.name, 'wait')
    assert.equal(wait.parameters.type, 'object')
    assert.equal(wait.parameters.properties.runId.type, 'string')
    assert.deepEqual(wait.parameters.required, ['runId'])
    assert.match(wait.description, /runId/)
    assert.match(wait.description, /waiting/)
  })

  test('legacy tool-search controls are dropped everywhere, even when direct-only', () => {
    const names = run.modelTools.map((d) => d.name)
    for (const legacy of LEGACY) {
      assert.ok(!names.includes(legacy), legacy)
      assert.ok(!run.catalog.some((entry) => entry.name === legacy), legacy)
      assert.throws(() => run.assertProviderPayload(['exec', 'wait', legacy]), new RegExp(legacy))
    }
  })

  test('exec description: return/null, no require/import, tools.search/describe/call, language — in that order', () => {
    const description = run.modelTools[0].description
    const at = (needle) => {
      const index = description.indexOf(needle)
      assert.ok(index >= 0, `description mentions ${needle}: ${description}`)
      return index
    }
    const order = [
      at('return'),
      at('null'),
      at('require'),
      at('import'),
      at('tools.search('),
      at('tools.describe('),
      at('tools.call('),
      at('`language`'),
    ]
    assert.deepEqual([...order].sort((a, b) => a - b), order)
    assert.match(description, /`language` accepts only "javascript" or "typescript"/)
  })
})

describe('the catalog (docs/catalog.md)', () => {
  const codeMode = codeModes.enabled()

  test('ids per source and owner; compact entries; MCP and direct-only excluded', () => {
    const run = codeMode.prepareRun({ runId: 'r', tools: MIXED, executeTool: echo })
    assert.deepEqual(run.catalog, [
      { id: 'openclaw:core:read', name: 'read', description: 'Read a file', source: 'openclaw' },
      { id: 'openclaw:core:exec', name: 'exec', description: 'Run a shell command', source: 'openclaw' },
      {
        id: 'openclaw:browser:browser_request', name: 'browser_request', label: 'Browser request',
        description: 'Browse', source: 'openclaw', sourceName: 'browser',
      },
      { id: 'client:app:select_file', name: 'select_file', description: 'Select a file', source: 'client', sourceName: 'app' },
    ])
  })

  test('a client tool without sourceName is owned by "client"', () => {
    const run = codeMode.prepareRun({ runId: 'r', tools: [tool('pick', { source: 'client' })], executeTool: echo })
    assert.deepEqual(run.catalog, [{ id: 'client:client:pick', name: 'pick', description: '', source: 'client' }])
  })

  test('group order: core, plugin (input order), client (input order); deterministic', () => {
    const tools = [
      tool('c1', { source: 'client' }),
      tool('p1', { sourceName: 'zeta' }),
      tool('k1'),
      tool('m1', { source: 'mcp', sourceName: 'srv', mcp: { server: 'srv', tool: 'm1' } }),
      tool('c2', { source: 'client', sourceName: 'app' }),
      tool('p2', { sourceName: 'alpha' }),
      tool('k2'),
    ]
    const ids = codeMode.prepareRun({ runId: 'r', tools, executeTool: echo }).catalog.map((e) => e.id)
    assert.deepEqual(ids, [
      'openclaw:core:k1', 'openclaw:core:k2', 'openclaw:zeta:p1', 'openclaw:alpha:p2', 'client:client:c1', 'client:app:c2',
    ])
    const again = codeModes.enabled().prepareRun({ runId: 'other', tools, executeTool: echo }).catalog.map((e) => e.id)
    assert.deepEqual(again, ids)
  })

  test('ALL_TOOLS is the frozen guest view of run.catalog; MCP and direct-only are unreachable', async () => {
    const calls = []
    const run = codeMode.prepareRun({ runId: 'r', tools: MIXED, executeTool: (call) => { calls.push(call.id); return 'ran' } })
    const result = await run.exec({
      code: ATTEMPT + `
        return {
          all: ALL_TOOLS,
          frozen: Object.isFrozen(ALL_TOOLS) && ALL_TOOLS.every(Object.isFrozen),
          search: (await tools.search('create_issue github computer gh_create_issue', { limit: 50 })).map((e) => e.id),
          mcpById: await attempt(() => tools.call('mcp:github:create_issue', {})),
          mcpByName: await attempt(() => tools.describe('gh_create_issue')),
          direct: await attempt(() => tools.call('computer', {})),
          convenience: [typeof tools.gh_create_issue, typeof tools.computer, typeof tools.read],
        }`,
    })
    assert.equal(result.status, 'completed', result.error)
    const { value } = result
    assert.deepEqual(value.all, run.catalog)
    assert.equal(value.frozen, true)
    assert.deepEqual(value.search, [], 'search never returns MCP or direct-only entries')
    assert.ok(value.mcpById.error.startsWith('Unknown tool id: mcp:github:create_issue.'), value.mcpById.error)
    assert.ok(value.mcpById.error.endsWith(RECOVERY), value.mcpById.error)
    assert.ok(value.mcpByName.error.startsWith('Unknown tool id: gh_create_issue.'), value.mcpByName.error)
    assert.ok(value.direct.error.startsWith('Unknown tool id: computer.'), value.direct.error)
    assert.deepEqual(value.convenience, ['undefined', 'undefined', 'function'])
    assert.deepEqual(calls, [])
  })

  test('a shell tool named exec is openclaw:core:exec and callable; the code-mode exec/wait are not', async () => {
    const calls = []
    const run = codeMode.prepareRun({
      runId: 'r',
      tools: MIXED,
      executeTool: (call) => {
        calls.push({ id: call.id, name: call.name, input: call.input })
        return `shell:${call.input.cmd}`
      },
    })
    const result = await run.exec({
      code: ATTEMPT + `
        return {
          byId: await tools.call('openclaw:core:exec', { cmd: 'ls' }),
          convenience: await tools.exec({ cmd: 'pwd' }),
          byName: await tools.call('exec', { cmd: 'id' }),
          wait: await attempt(() => tools.call('wait', {})),
          waitFn: typeof tools.wait,
        }`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value.byId, 'shell:ls')
    assert.deepEqual(result.value.convenience, 'shell:pwd')
    assert.deepEqual(result.value.byName, 'shell:id')
    assert.ok(result.value.wait.error.startsWith('Unknown tool id: wait.'), result.value.wait.error)
    assert.equal(result.value.waitFn, 'undefined')
    assert.deepEqual(calls, [
      { id: 'openclaw:core:exec', name: 'exec', input: { cmd: 'ls' } },
      { id: 'openclaw:core:exec', name: 'exec', input: { cmd: 'pwd' } },
      { id: 'openclaw:core:exec', name: 'exec', input: { cmd: 'id' } },
    ])
    assert.deepEqual(run.modelTools.filter((d) => d.name === 'exec').map((d) => d.toolKind), ['code_mode_exec'])
  })

  test('without a shell tool, exec and wait are unknown to the guest', async () => {
    const calls = []
    const run = codeMode.prepareRun({ runId: 'r', tools: [READ], executeTool: (call) => calls.push(call.id) })
    const result = await run.exec({
      code: ATTEMPT + `
        return {
          exec: await attempt(() => tools.call('exec', { code: 'return 1' })),
          wait: await attempt(() => tools.call('wait', { runId: 'x' })),
          types: [typeof tools.exec, typeof tools.wait, typeof exec, typeof wait],
          inCatalog: ALL_TOOLS.filter((e) => e.name === 'exec' || e.name === 'wait').length,
        }`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.ok(result.value.exec.error.startsWith('Unknown tool id: exec.'), result.value.exec.error)
    assert.ok(result.value.wait.error.startsWith('Unknown tool id: wait.'), result.value.wait.error)
    assert.deepEqual(result.value.types, ['undefined', 'undefined', 'undefined', 'undefined'])
    assert.equal(result.value.inCatalog, 0)
    assert.deepEqual(calls, [])
  })
})

describe('assertProviderPayload (docs/surface.md)', () => {
  const codeMode = codeModes.enabled()
  const tools = [READ, COMPUTER, tool('screenshot', { directOnly: true }), tool('tool_search', { directOnly: true })]
  const run = codeMode.prepareRun({ runId: 'r', tools, executeTool: echo })

  test('valid sets: exec and wait once each, direct-only optional, any order', () => {
    for (const names of [
      ['exec', 'wait'],
      ['wait', 'exec'],
      ['exec', 'wait', 'computer'],
      ['screenshot', 'wait', 'computer', 'exec'],
      run.modelTools.map((d) => d.name),
    ]) {
      assert.doesNotThrow(() => run.assertProviderPayload(names), JSON.stringify(names))
    }
  })

  test('throws naming the offenders', () => {
    const cases = [
      [['exec', 'wait', 'read'], ['read']],
      [['exec', 'wait', 'computer', 'bash', 'read'], ['bash', 'read']],
      [['exec', 'wait', 'tool_search'], ['tool_search']],
      [['exec', 'exec', 'wait'], ['exec']],
      [['exec', 'wait', 'wait'], ['wait']],
      [['exec', 'wait', 'computer', 'computer'], ['computer']],
      [['exec'], ['wait']],
      [['wait'], ['exec']],
      [['exec', 'read'], ['read', 'wait']],
      [[], ['exec', 'wait']],
    ]
    for (const [names, offenders] of cases) {
      let error
      assert.throws(() => run.assertProviderPayload(names), (e) => {
        error = e
        return e instanceof Error
      }, JSON.stringify(names))
      for (const offender of offenders) {
        assert.ok(error.message.includes(offender), `${JSON.stringify(names)}: ${error.message} names ${offender}`)
      }
    }
  })

  test('inactive surfaces accept only their unchanged tool names', () => {
    const off = codeModes.create({}).prepareRun({ runId: 'r', tools: MIXED, executeTool: echo })
    const names = MIXED.map((t) => t.name)
    assert.doesNotThrow(() => off.assertProviderPayload(names))
    assert.doesNotThrow(() => off.assertProviderPayload([...names].reverse()))
    assert.throws(() => off.assertProviderPayload([...names, 'bash']), /bash/)
    assert.throws(() => off.assertProviderPayload([...names, 'read']), /read/)
    const withoutShell = codeModes.create({}).prepareRun({ runId: 'r', tools: [READ, COMPUTER], executeTool: echo })
    assert.throws(() => withoutShell.assertProviderPayload(['exec', 'wait']), /exec/)
    const toolless = codeModes.enabled().prepareRun({ runId: 'r', tools: [READ], disableTools: true, executeTool: echo })
    assert.doesNotThrow(() => toolless.assertProviderPayload([]))
    assert.throws(() => toolless.assertProviderPayload(['exec', 'wait']), /exec/)
    assert.throws(() => toolless.assertProviderPayload(['read']), /read/)
  })
})

describe('codeModeHookMetadata (docs/surface.md)', () => {
  test('language to toolInputKind', () => {
    assert.deepEqual(codeModeHookMetadata({ code: 'return 1' }), { toolKind: 'code_mode_exec', toolInputKind: 'javascript' })
    assert.deepEqual(codeModeHookMetadata({}), { toolKind: 'code_mode_exec', toolInputKind: 'javascript' })
    assert.deepEqual(codeModeHookMetadata({ code: 'x', language: null }), { toolKind: 'code_mode_exec', toolInputKind: 'javascript' })
    assert.deepEqual(codeModeHookMetadata({ language: 'javascript' }), { toolKind: 'code_mode_exec', toolInputKind: 'javascript' })
    assert.deepEqual(codeModeHookMetadata({ code: 'x', language: 'typescript' }), { toolKind: 'code_mode_exec', toolInputKind: 'typescript' })
    for (const language of ['python', 'TypeScript', '', 5]) {
      const metadata = codeModeHookMetadata({ code: 'x', language })
      assert.deepEqual(metadata, { toolKind: 'code_mode_exec' }, JSON.stringify(language))
      assert.equal('toolInputKind' in metadata, false)
    }
  })
})

describe('telemetry (docs/catalog.md)', () => {
  test('catalog size, sources, visible tools and cumulative counters across execs', async () => {
    const codeMode = codeModes.enabled()
    const tools = [
      READ,
      tool('write'),
      COMPUTER,
      tool('tool_search'),
      tool('browser_request', { sourceName: 'browser' }),
      tool('gh_issue', { source: 'mcp', sourceName: 'github', mcp: { server: 'github', tool: 'create_issue' } }),
      tool('gh_pr', { source: 'mcp', sourceName: 'github', mcp: { server: 'github', tool: 'create_pr' } }),
      tool('pick', { source: 'client' }),
    ]
    const executed = []
    const run = codeMode.prepareRun({ runId: 'r', tools, executeTool: (call) => { executed.push(call.name); return 'ok' } })
    const first = await run.exec({
      code: `
        await tools.search('read')
        await tools.search('')
        await tools.describe('read')
        await tools.call('openclaw:core:write', {})
        await tools.read({ path: 'a.txt' })
        try { await tools.read({}) } catch {}
        return 1`,
    })
    assert.equal(first.status, 'completed', first.error)
    const base = {
      catalogSize: 6,
      sources: { openclaw: 3, mcp: 2, client: 1 },
      invalidInputCount: 0,
      visibleTools: ['exec', 'wait', 'computer'],
    }
    assert.deepEqual(first.telemetry, { ...base, searchCount: 2, describeCount: 1, callCount: 3, invalidInputCount: 1, visibleTools: base.visibleTools })
    assert.deepEqual(first.telemetry.visibleTools, run.modelTools.map((d) => d.name))
    const second = await run.exec({ code: "await tools.describe('openclaw:core:write'); await tools.call('pick', {}); return 2" })
    assert.equal(second.status, 'completed', second.error)
    assert.deepEqual(second.telemetry, { ...base, searchCount: 2, describeCount: 2, callCount: 4, invalidInputCount: 1, visibleTools: base.visibleTools })
    assert.deepEqual(executed, ['write', 'read', 'pick'], 'search and describe never reach the executor')
    const failed = await run.exec({ code: 'throw new Error("x")' })
    assert.equal(failed.status, 'failed')
    assert.deepEqual(failed.telemetry, second.telemetry, 'a failed result carries the telemetry too')
    const fresh = codeMode.prepareRun({ runId: 'r2', tools, executeTool: () => 'ok' })
    const other = await fresh.exec({ code: 'return 3' })
    assert.deepEqual(other.telemetry, { ...base, searchCount: 0, describeCount: 0, callCount: 0, visibleTools: base.visibleTools }, 'counters are per run surface')
  })
})
