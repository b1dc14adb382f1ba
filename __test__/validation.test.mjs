// Nested-call inputs checked against their tool's schema before the executor
// sees them (docs/nested-calls.md, "Input validation").
import assert from 'node:assert/strict'
import { after, afterEach, describe, test } from 'node:test'

import { ATTEMPT, binding, codeModeFactory } from './helpers.mjs'

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())
afterEach(() => binding.clearCodeModeNamespacesForTest())

const FILE_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'The file to read' },
    mode: { enum: ['text', 'binary'] },
    ranges: {
      type: 'array',
      items: { type: 'object', properties: { from: { type: 'integer', minimum: 1 }, to: { type: 'integer' } }, required: ['from'] },
    },
    target: { oneOf: [{ type: 'string' }, { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] }] },
    any: { anyOf: [{ type: 'string' }, { type: 'number' }] },
  },
  required: ['path'],
  additionalProperties: false,
}

const TOOLS = [
  { name: 'read_file', description: 'Read a file', source: 'openclaw', parameters: FILE_SCHEMA },
  { name: 'broken', description: 'A tool whose schema does not compile', source: 'openclaw', parameters: { type: 'object', properties: { a: { $ref: 'https://example.invalid/a.json' } } } },
  { name: 'loose', description: 'No schema', source: 'openclaw' },
  { name: 'docs__search', description: 'Search docs', source: 'mcp', sourceName: 'docs', mcp: { server: 'docs', tool: 'search' }, parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', maximum: 20 } }, required: ['query'] } },
  { name: 'github_update_issue', description: 'Update an issue', source: 'openclaw', sourceName: 'github', parameters: { type: 'object', properties: { number: { type: 'integer' }, title: { type: 'string' } }, required: ['number'], additionalProperties: false } },
]

function prepare(config = {}) {
  const calls = []
  const events = []
  const run = codeModes.enabled(config).prepareRun({
    runId: 'r',
    tools: TOOLS,
    executeTool: (call) => {
      calls.push(call)
      return { ok: call.input }
    },
    onEvent: (event) => events.push(event),
  })
  const exec = async (code, call) => {
    const result = await run.exec({ code: `${ATTEMPT}\n${code}` }, call)
    assert.equal(result.status, 'completed', result.error)
    return result
  }
  return { run, exec, calls, events }
}

const HINT = 'tools.describe("openclaw:core:read_file") shows its input schema.'
const refused = (callee, problems, hint = HINT) => `Invalid input for ${callee}: ${problems}. ${hint}`

describe('input validation', () => {
  test('each problem names its place in the input, what was expected and what was given', async () => {
    const { exec, calls } = prepare()
    const { value } = await exec(`return [
      await attempt(() => tools.read_file({ path: 42 })),
      await attempt(() => tools.call('read_file', { path: 'a', ranges: [{ from: 1 }, { from: 2 }, { from: 0, to: 'x' }] })),
      await attempt(() => tools.call('openclaw:core:read_file', { path: 'a', mode: 'txt' })),
      await attempt(() => tools.read_file({ path: 'a', ranges: [{ to: 3 }] })),
    ]`)
    assert.deepEqual(value.map((r) => r.error), [
      refused('tools.read_file', 'input.path: expected string, got 42'),
      refused('tools.call("read_file")', 'input.ranges[2].from: expected at least 1, got 0; input.ranges[2].to: expected integer, got "x"'),
      refused('tools.call("openclaw:core:read_file")', 'input.mode: expected one of "text", "binary", got "txt" (did you mean "text"?)'),
      refused('tools.read_file', 'input.ranges[0]: missing required property "from"'),
    ])
    assert.ok(value.every((r) => r.plainError && r.own.join() === 'message'), 'plain Errors')
    assert.equal(calls.length, 0, 'the executor never saw them')
  })

  test('unknown and missing keys get a near miss; oneOf and anyOf say which rule failed', async () => {
    const { exec } = prepare()
    const { value } = await exec(`return [
      await attempt(() => tools.read_file({ Path: 'a' })),
      await attempt(() => tools.read_file({ path: 'a', mod: 'text' })),
      await attempt(() => tools.read_file({ path: 'a', target: { name: 'x' } })),
      await attempt(() => tools.read_file({ path: 'a', any: true })),
    ]`)
    assert.deepEqual(value.map((r) => r.error), [
      refused('tools.read_file', 'input: unknown property "Path" (did you mean "path"?); input: missing required property "path" (the input has "Path": did you mean "path"?)'),
      refused('tools.read_file', 'input: unknown property "mod" (did you mean "mode"?)'),
      refused('tools.read_file', 'input.target: expected a value matching exactly one of the oneOf alternatives, got an object with 1 key (it matches none)'),
      refused('tools.read_file', 'input.any: expected a value matching at least one of the anyOf alternatives, got true'),
    ])
  })

  test('at most three problems are listed, then counted', async () => {
    const { exec } = prepare()
    const { value } = await exec("return await attempt(() => tools.read_file({ path: 1, mode: 2, ranges: [{}, {}], extra: 1 }))")
    assert.equal(
      value.error,
      refused('tools.read_file', 'input.path: expected string, got 1; input.mode: expected one of "text", "binary", got 2; input.ranges[0]: missing required property "from"; and 2 more'),
    )
  })

  test('a Promise.all with some invalid inputs: the others still run', async () => {
    const { exec, calls } = prepare()
    const { value } = await exec(`
      const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map((i) => tools.read_file(i % 2 ? { path: 'f' + i } : { path: i })))
      return results.map((r) => r.status)`)
    assert.deepEqual(value, ['rejected', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'])
    assert.deepEqual(calls.map((call) => call.input.path), ['f1', 'f3', 'f5'])
  })

  test('a rejected call is a failed nested call in events and the transcript, and counted in telemetry', async () => {
    const { exec, events } = prepare()
    const result = await exec("return await attempt(() => tools.read_file({ path: 7 }))", { toolCallId: 'call_1' })
    assert.equal(result.telemetry.invalidInputCount, 1)
    assert.equal(result.telemetry.callCount, 1)
    const [started, finished] = events
    assert.deepEqual(
      [started.type, started.toolCallId, started.input],
      ['nested_call_started', 'code_mode:call_1:read_file:1', { path: 7 }],
    )
    assert.deepEqual([finished.type, finished.ok, finished.error], ['nested_call_finished', false, result.value.error])
    const transcript = binding.nestedCallTranscript(events, 'call_1')
    assert.equal(transcript[1].isError, true)
    assert.equal(transcript[1].content[0].text, result.value.error)
  })

  test('a schema that does not compile turns validation off for that tool only, with a diagnostic', async () => {
    const { exec, calls } = prepare()
    const { value } = await exec(`return [
      await attempt(() => tools.broken({ a: 'anything' })),
      await attempt(() => tools.loose([1, 2])),
      await attempt(() => tools.read_file({ path: 1 })),
    ]`)
    assert.deepEqual(value[0], { ok: { ok: { a: 'anything' } } })
    assert.deepEqual(value[1], { ok: { ok: [1, 2] } })
    assert.match(value[2].error, /^Invalid input for tools\.read_file/)
    assert.deepEqual(calls.map((call) => call.name), ['broken', 'loose'])
    const problems = binding.codeModeDiagnostics().schemaProblems
    assert.ok(
      problems.some((p) => p.startsWith('tool broken (openclaw:core:broken): its input schema does not compile') && p.endsWith('its inputs are not validated.')),
      problems.join('\n'),
    )
  })

  test('validateToolInputs: false sends every input as it is, merged per agent', async () => {
    const { exec, calls } = prepare({ validateToolInputs: false })
    const { value, telemetry } = await exec("return await attempt(() => tools.read_file({ path: 42, nope: true }))")
    assert.deepEqual(value, { ok: { ok: { path: 42, nope: true } } })
    assert.equal(telemetry.invalidInputCount, 0)
    assert.equal(calls.length, 1)
    const codeMode = codeModes.create({ enabled: true, validateToolInputs: false })
    const agentOn = codeMode.prepareRun({ runId: 'r', tools: TOOLS, agentConfig: { validateToolInputs: true }, executeTool: () => null })
    const checked = await agentOn.exec({ code: `${ATTEMPT} return await attempt(() => tools.read_file({ path: 42 }))` })
    assert.match(checked.value.error, /^Invalid input for tools\.read_file/)
  })

  test('an MCP tool is checked after its defaults, and names its $api', async () => {
    const { exec, calls } = prepare()
    const { value } = await exec("return [await attempt(() => MCP.docs.search({ query: 'q', limit: 50 })), await attempt(() => MCP.docs.search({ query: 'q', limit: 5 }))]")
    assert.equal(
      value[0].error,
      refused('MCP.docs.search', 'input.limit: expected at most 20, got 50', 'MCP.docs.$api("search", { schema: true }) shows its input schema.'),
    )
    assert.deepEqual(value[1], { ok: { ok: { query: 'q', limit: 5 } } })
    assert.equal(calls.length, 1)
  })

  test('a namespace call is checked after its input mapper', async () => {
    binding.registerCodeModeNamespaceForPlugin('github', {
      id: 'github-issues',
      globalName: 'Issues',
      requiredToolNames: ['github_update_issue'],
      createScope: () => ({ update: binding.createCodeModeNamespaceTool('github_update_issue', ([number, patch]) => ({ number, ...patch })) }),
    })
    const { exec, calls, events } = prepare()
    const { value, telemetry } = await exec("return [await attempt(() => Issues.update('7', { titel: 'x' })), await attempt(() => Issues.update(7, { title: 'x' }))]")
    assert.equal(
      value[0].error,
      'Invalid input for Issues.update: input.number: expected integer, got "7"; input: unknown property "titel" (did you mean "title"?). tools.describe("openclaw:github:github_update_issue") shows its input schema.',
    )
    assert.deepEqual(value[1], { ok: { ok: { number: 7, title: 'x' } } })
    assert.equal(telemetry.invalidInputCount, 1)
    assert.deepEqual(calls.map((call) => call.input), [{ number: 7, title: 'x' }])
    const failed = events.find((event) => event.type === 'nested_call_finished' && !event.ok)
    assert.equal(failed.error, value[0].error)
  })
})

/** `levels` definitions, each made by `link` from a `$ref` to the next: 2^levels checks for `{a: 1, b: 1}`. */
function chain(levels, link) {
  const $defs = { [`d${levels}`]: { type: 'object' } }
  for (let level = levels - 1; level >= 0; level--) $defs[`d${level}`] = link({ $ref: `#/$defs/d${level + 1}` })
  return { $defs, $ref: '#/$defs/d0' }
}

describe('what a cell can make validation cost', () => {
  test('namespace calls against schemas whose checks would multiply, or that would take seconds to compile, are answered; the schemas are reported not checked', async () => {
    const hostile = {
      dependent_schemas: chain(40, (next) => ({ dependentSchemas: { a: next, b: next } })),
      dependencies: { $schema: 'http://json-schema.org/draft-07/schema#', ...chain(40, (next) => ({ dependencies: { a: next, b: next } })) },
      patterns: {
        type: 'object',
        patternProperties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`^\\p{L}+${i}$`, { type: 'string' }])),
      },
    }
    const tools = Object.entries(hostile).map(([name, parameters]) => ({ name: `hostile_${name}`, description: name, source: 'openclaw', sourceName: 'hostile', parameters }))
    binding.registerCodeModeNamespaceForPlugin('hostile', {
      id: 'hostile-tools',
      globalName: 'Hostile',
      requiredToolNames: tools.map((tool) => tool.name),
      createScope: () => Object.fromEntries(Object.keys(hostile).map((name) => [name, binding.createCodeModeNamespaceTool(`hostile_${name}`, ([input]) => input)])),
    })
    const calls = []
    const run = codeModes.enabled().prepareRun({
      runId: 'r',
      tools,
      executeTool: (call) => {
        calls.push(call.name)
        return { ok: true }
      },
    })
    const result = await run.exec({
      code: "return [await Hostile.dependent_schemas({ a: 1, b: 1 }), await Hostile.dependencies({ a: 1, b: 1 }), await Hostile.patterns({ Ж1: 1 })]",
    })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, [{ ok: true }, { ok: true }, { ok: true }])
    assert.deepEqual(calls, ['hostile_dependent_schemas', 'hostile_dependencies', 'hostile_patterns'])
    const problems = binding.codeModeDiagnostics().schemaProblems
    for (const [name, reason] of [
      ['dependent_schemas', 'its alternatives multiply past what one check may cost'],
      ['dependencies', 'its alternatives multiply past what one check may cost'],
      ['patterns', 'its patterns cost more than 8192 units to compile together'],
    ]) {
      const expected = `tool hostile_${name} (openclaw:hostile:hostile_${name}): its input schema is not checked: ${reason}; its inputs are not validated.`
      assert.ok(problems.includes(expected), `${expected}\n${problems.join('\n')}`)
    }
  })

  test("a namespace call's mapped input is checked by the same rule and budgets as a tools.call input, short or long", async () => {
    // 2045 required names and `type`: 2048 units per input value
    // (docs/nested-calls.md). Checking costs that per value, up to 2^24
    // units (8192 values); finding where an input is wrong twice that, up to
    // 2^22 (1024 values). An array of n zeros is n + 1 values.
    const names = Array.from({ length: 2045 }, (_, i) => `n${i}`)
    const tools = [{ name: 'priced_tool', description: 'priced', source: 'openclaw', sourceName: 'priced', parameters: { type: 'object', required: names } }]
    binding.registerCodeModeNamespaceForPlugin('priced', {
      id: 'priced-tools',
      globalName: 'Priced',
      requiredToolNames: ['priced_tool'],
      createScope: () => ({ call: binding.createCodeModeNamespaceTool('priced_tool', ([input]) => input) }),
    })
    const run = codeModes.enabled().prepareRun({ runId: 'r', tools, executeTool: () => ({ ok: true }) })
    const sizes = [0, 1023, 1024, 8191, 8192, 100000]
    const { value } = await run.exec({
      code: `${ATTEMPT}
        const sizes = ${JSON.stringify(sizes)}
        const answer = (r) => r.error ?? r.ok
        const out = { namespace: [], call: [] }
        for (const n of sizes) {
          out.namespace.push(answer(await attempt(() => Priced.call(new Array(n).fill(0)))))
          out.call.push(answer(await attempt(() => tools.call('openclaw:priced:priced_tool', new Array(n).fill(0)))))
        }
        return out`,
    })
    const hint = 'tools.describe("openclaw:priced:priced_tool") shows its input schema.'
    const unlocated = `input: does not match the schema (finding where would cost more than one check may). ${hint}`
    assert.deepEqual(value.namespace, [
      `Invalid input for Priced.call: input: expected object, got an empty array. ${hint}`,
      `Invalid input for Priced.call: input: expected object, got an array of 1023 items. ${hint}`,
      `Invalid input for Priced.call: ${unlocated}`,
      `Invalid input for Priced.call: ${unlocated}`,
      { ok: true },
      { ok: true },
    ])
    assert.deepEqual(
      value.call,
      value.namespace.map((answer) => (typeof answer === 'string' ? answer.replace('Priced.call', 'tools.call("openclaw:priced:priced_tool")') : answer)),
    )
  })

  test('a namespace call whose mapped input is past what the Node thread checks at once (4 KiB) is checked whole, and arrives whole', async () => {
    binding.registerCodeModeNamespaceForPlugin('github', {
      id: 'github-issues',
      globalName: 'Issues',
      requiredToolNames: ['github_update_issue'],
      createScope: () => ({ update: binding.createCodeModeNamespaceTool('github_update_issue', ([number, patch]) => ({ number, ...patch })) }),
    })
    const { exec, calls, events } = prepare()
    // 1 MiB of title: once checked only up to 256 KiB on the Node thread.
    const { value } = await exec(`
      const title = 'x'.repeat(1000000)
      const refused = await attempt(() => Issues.update('7', { title }))
      const passed = await attempt(() => Issues.update(7, { title: title + 'é' }))
      return [refused, passed.ok.ok.title.length]`)
    assert.equal(
      value[0].error,
      // Past 8 KiB only the first problem is looked for, as for any call.
      'Invalid input for Issues.update: input.number: expected integer, got "7"; and maybe more (the input is too large to list them all). tools.describe("openclaw:github:github_update_issue") shows its input schema.',
    )
    assert.equal(value[1], 1000001)
    assert.deepEqual(calls.map((call) => [call.input.number, call.input.title.length, call.input.title.at(-1)]), [[7, 1000001, 'é']])
    const failed = events.find((event) => event.type === 'nested_call_finished' && !event.ok)
    assert.equal(failed.error, value[0].error)
  })
})

describe('shell-shaped cells', () => {
  test('a cell that does not parse and reads like a shell command gets a hint; a program never does', async () => {
    const run = codeModes.enabled().prepareRun({ runId: 'r', tools: TOOLS, executeTool: () => null })
    const hint = (command) =>
      `exec runs JavaScript or TypeScript, not shell commands. To run ${JSON.stringify(command)}, find a shell tool and call it: const [shell] = await tools.search("shell command"); return await tools.call(shell.id, { command: ${JSON.stringify(command)} })`
    const js = await run.exec({ code: 'ls -la src' })
    assert.equal(js.error, `SyntaxError: Expected ';', '}' or <eof> at line 1:8\n${hint('ls -la src')}`)
    const ts = await run.exec({ code: 'cat a.txt | grep x', language: 'typescript' })
    assert.deepEqual([ts.code, ts.error], ['invalid_input', `typescript transform failed: Expected ';', '}' or <eof> at line 1:5\n${hint('cat a.txt | grep x')}`])
    const broken = await run.exec({ code: 'cat = (1' })
    assert.ok(!broken.error.includes('shell'), broken.error)
    const program = await run.exec({ code: 'const ls = [1, 2]; let cat = ls.length; return cat' })
    assert.deepEqual([program.status, program.value], ['completed', 2])
  })
})
