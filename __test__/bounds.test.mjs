// Every named bound of docs/limits.md at its value N and at N + 1, where the
// other suites tested it only far past the bound (or not at all): moving a
// bound by one, or turning a `>` into a `>=`, fails a test here.
//
// Tested at N and N + 1 elsewhere: the source size, the opening units, the
// output budget and the final value, the queue's first check, yield reasons
// (adversarial-source.test.mjs, adversarial-limits.test.mjs); live timers
// (timers.test.mjs); parked runs (parking.test.mjs); rewritten TypeScript
// constructs (tests/source_bounds.rs). In the core's own tests: timer clamps
// and host bytes (sandbox/bound_tests.rs), the parse budget and same-name
// pairs (source/bound_tests.rs), the core's scope check
// (namespaces/bound_tests.rs), input pieces (tests/bounds.rs). The watchdog,
// the scheduler, input validation and MCP identifiers have suites of their
// own.
//
// maxSnapshotBytes is not tested to the byte: a parked run's size counts the
// allocator's usable sizes of the VM's blocks, which vary by a few bytes
// from one run of the same cell to the next.
import assert from 'node:assert/strict'
import { after, afterEach, describe, test } from 'node:test'

import { ATTEMPT, binding, codeModeFactory, unknownToolId } from './helpers.mjs'

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

const KiB = 1024
const MiB = 1024 * KiB

const TOOLS = [
  { name: 'echo', description: 'Answers its input', source: 'openclaw' },
  { name: 'reply', description: 'Answers what the test says', source: 'openclaw' },
  { name: 'hang', description: 'Never answers', source: 'openclaw' },
  { name: 'sink', description: 'Answers "ok"', source: 'openclaw' },
]

/**
 * A run surface whose `echo` answers its input, `reply` answers
 * `replies[input.key]` (or throws `input.throw`), and `hang` never answers.
 */
function setup(config = {}, replies = {}) {
  const codeMode = codeModes.enabled(config)
  const inputs = []
  const executeTool = (call) => {
    inputs.push(call.input)
    if (call.name === 'hang') return new Promise(() => {})
    if (call.name === 'sink') return 'ok'
    if (call.name === 'reply') {
      if (call.input.throw !== undefined) throw new Error(call.input.throw)
      return replies[call.input.key]
    }
    return call.input
  }
  const run = codeMode.prepareRun({ runId: 'bounds', sessionId: 'bounds', tools: TOOLS, executeTool })
  const exec = async (code, input = {}) => run.exec({ code: ATTEMPT + code, ...input })
  const value = async (code, input) => {
    const result = await exec(code, input)
    assert.equal(result.status, 'completed', `${result.code}: ${result.error}`)
    return result.value
  }
  return { codeMode, run, exec, value, inputs }
}

/** A chain of `levels` nested objects: {next: {next: ... {}}}. */
function chain(levels) {
  const root = {}
  let node = root
  for (let i = 1; i < levels; i++) node = node.next = {}
  return root
}

/** How many objects nest in `value` along `next`, and what the deepest holds. */
function depthOf(value) {
  let levels = 0
  let node = value
  while (node !== null && typeof node === 'object') {
    levels++
    node = node.next
  }
  return { levels, leaf: node }
}

const GUEST_CHAIN = 'const chain = (n) => { const root = {}; let node = root; for (let i = 1; i < n; i++) node = node.next = {}; return root }\n'

describe('nesting depth: 1000 levels', () => {
  test('a tool result of 1000 levels arrives whole; one of 1001 fails its call', async () => {
    const { value } = setup({}, { at: chain(1000), past: chain(1001) })
    const got = await value(`
      const depth = (v) => { let n = 0; while (v !== null && typeof v === 'object') { n++; v = v.next } return n }
      const at = await attempt(() => tools.reply({ key: 'at' }))
      const past = await attempt(() => tools.reply({ key: 'past' }))
      return { at: depth(at.ok), past }`)
    assert.equal(got.at, 1000)
    assert.equal(got.past.error, 'tool result nests deeper than 1000 levels')
    assert.equal(got.past.plainError, true)
  })

  test('an array result nests by the same count', async () => {
    const nest = (levels) => {
      let v = []
      for (let i = 1; i < levels; i++) v = [v]
      return v
    }
    const { value } = setup({}, { at: nest(1000), past: nest(1001) })
    const got = await value(`
      const at = await attempt(() => tools.reply({ key: 'at' }))
      const past = await attempt(() => tools.reply({ key: 'past' }))
      let n = 0; for (let v = at.ok; Array.isArray(v); v = v[0]) n++
      return [n, past.error]`)
    assert.deepEqual(got, [1000, 'tool result nests deeper than 1000 levels'])
  })

  test('a tool input of 1000 levels is sent; 1001 is refused (both as the only argument and nested in it)', async () => {
    const { value, inputs } = setup()
    const got = await value(`${GUEST_CHAIN}
      const sent = async (input) => (await attempt(() => tools.sink(input))).error ?? 'sent'
      return [await sent(chain(1000)), await sent(chain(1001)), await sent([chain(999)]), await sent([chain(1000)])]`)
    assert.deepEqual(got, ['sent', 'tool input nests deeper than 1000 levels.', 'sent', 'tool input nests deeper than 1000 levels.'])
    assert.equal(inputs.length, 2)
    assert.equal(depthOf(inputs[0]).levels, 1000)
  })

  test('a final value and a json() item of 1000 levels are whole; at 1001 the 1001st becomes "[Too deep]"', async () => {
    const { exec } = setup()
    for (const [levels, expected] of [[1000, { levels: 1000, leaf: undefined }], [1001, { levels: 1000, leaf: '[Too deep]' }]]) {
      const result = await exec(`${GUEST_CHAIN} json(chain(${levels})); return chain(${levels})`)
      assert.equal(result.status, 'completed', result.error)
      assert.deepEqual(depthOf(result.value), expected, `final value of ${levels} levels`)
      assert.deepEqual(depthOf(result.output[0].value), expected, `json() item of ${levels} levels`)
    }
  })
})

describe('members of one object crossing the bridge: 65536 (MAX_OBJECT_MEMBERS)', () => {
  // An object of n members `k0`..`k{n-1}` (plus `skipped` members whose
  // values JSON leaves out, which do not count), nested `under` keys deep.
  const WIDE = `const wide = (n, skipped = 0) => {
    const o = {}
    for (let i = 0; i < n; i++) o['k' + i] = i
    for (let i = 0; i < skipped; i++) o['u' + i] = undefined
    return o
  }
  `
  const config = { memoryLimitBytes: 128 * MiB, maxOutputBytes: 4 * MiB }

  test('a tool input with an object of 65536 members is sent; 65537 are refused, at the root or nested', async () => {
    const { value, inputs } = setup(config)
    const got = await value(`${WIDE}
      const sent = async (input) => (await attempt(() => tools.sink(input))).error ?? 'sent'
      return [await sent(wide(65536, 10)), await sent(wide(65537)), await sent({ a: [1, { b: wide(65536) }] }), await sent({ a: [1, { b: wide(65537) }] })]`)
    const refused = 'tool input has an object with more than 65536 members.'
    assert.deepEqual(got, ['sent', refused, 'sent', refused])
    assert.equal(inputs.length, 2)
    assert.equal(Object.keys(inputs[0]).length, 65536)
    assert.equal(inputs[0].k65535, 65535)
    assert.equal(Object.keys(inputs[1].a[1].b).length, 65536)
  })

  test('a final value and a json() item with an object of 65536 members are whole; at 65537 that object becomes "[Too many members]"', async () => {
    const { exec } = setup(config)
    const at = await exec(`${WIDE} json({ w: wide(65536) }); return { w: wide(65536, 3), n: 1 }`)
    assert.equal(at.status, 'completed', at.error)
    assert.equal(Object.keys(at.value.w).length, 65536)
    assert.equal(at.value.w.k65535, 65535)
    assert.equal(at.value.n, 1)
    assert.equal(Object.keys(at.output[0].value.w).length, 65536)
    const past = await exec(`${WIDE} json({ w: wide(65537), n: 2 }); return { w: wide(65537), n: 1, after: [wide(2)] }`)
    assert.equal(past.status, 'completed', past.error)
    assert.deepEqual(past.value, { w: '[Too many members]', n: 1, after: [{ k0: 0, k1: 1 }] })
    assert.deepEqual(past.output[0].value, { w: '[Too many members]', n: 2 })
  })
})

describe('the bridge budget: half of memoryLimitBytes, at most 16 MiB', () => {
  const refusedInput = (max) => `tool input is larger than the code mode bridge limit of ${max} bytes (inputs of pending calls included).`
  // A string input of n characters is n + 2 bytes of JSON.
  const oneInput = async (config, max) => {
    const { value, inputs } = setup(config)
    const got = await value(`
      const sent = async (n) => (await attempt(() => tools.sink('x'.repeat(n)))).error ?? 'sent'
      return [await sent(${max - 2}), await sent(${max - 1})]`)
    assert.deepEqual(got, ['sent', refusedInput(max)])
    assert.deepEqual(inputs.map((input) => input.length), [max - 2])
  }

  test('half of memoryLimitBytes: one input of exactly the budget is sent; one byte more is refused', async () => {
    await oneInput({ memoryLimitBytes: 16 * MiB }, 8 * MiB)
  })

  test('at most 16 MiB: the same at the cap', async () => {
    await oneInput({ memoryLimitBytes: 64 * MiB }, 16 * MiB)
    // Memory of 34 MiB would give 17 MiB: the cap holds.
    await oneInput({ memoryLimitBytes: 34 * MiB }, 16 * MiB)
  })

  test('pending inputs share it: two that fill it exactly leave no byte; one byte less leaves room for a third', async () => {
    const MAX = 2 * MiB
    const half = MAX / 2
    const { value } = setup({ memoryLimitBytes: 4 * MiB, timeoutMs: 60000 })
    const cell = (second) => `
      const pending = [tools.hang('a'.repeat(${half - 2})), tools.hang('b'.repeat(${second}))]
      const third = tools.hang(0).then(() => 'sent', (e) => e.message)
      await Promise.race([third, null])
      return await Promise.race([third, 'queued'])`
    // The third call (1 byte of JSON) is refused at once; the cell returns
    // while the others hang.
    assert.equal(await value(cell(half - 2)), refusedInput(MAX))
    assert.equal(await value(cell(half - 3)), 'queued')
  })

  test('a result of exactly the budget is delivered; one byte more fails its call', async () => {
    // A string result of n characters is n + 2 bytes of JSON.
    const MAX = 16 * MiB
    const { value } = setup({}, { at: 'r'.repeat(MAX - 2), past: 'r'.repeat(MAX - 1) })
    const got = await value(`
      const at = await attempt(() => tools.reply({ key: 'at' }))
      const past = await attempt(() => tools.reply({ key: 'past' }))
      return [at.ok?.length, past.error]`)
    assert.deepEqual(got, [MAX - 2, `tool result of ${MAX + 1} bytes is larger than the code mode bridge limit of ${MAX} bytes.`])
  })
})

describe('tool inputs per exec or wait: 64 MiB, and a fresh budget per wait', () => {
  const LEG = 64 * MiB
  const PIECE = 8 * MiB // 8 inputs of 8 MiB of JSON each: exactly the budget
  const refused = `tool inputs of this exec or wait call passed the code mode budget of ${LEG} bytes; return, or await yield_control() and continue after the next wait.`
  // Each leg sends 8 inputs of exactly 8 MiB, then a 1-byte input (`0`),
  // which the budget refuses; after the yield, the wait does the same again.
  const LEG_CELL = `
    const s = 'y'.repeat(${PIECE - 2})
    const leg = async () => {
      let sent = 0
      for (let i = 0; i < 8; i++) { await tools.echo(s); sent += ${PIECE} }
      return [sent, (await attempt(() => tools.echo(0))).error]
    }
    const first = await leg()
    await yield_control('next leg')
    const second = await leg()
    return [first, second]`

  test('inputs adding up to exactly 64 MiB are sent, one byte more is refused; the next wait may send 64 MiB again', async () => {
    const { run, inputs } = setup({ timeoutMs: 60000, memoryLimitBytes: 64 * MiB })
    let sentBytes = 0
    const waiting = await run.exec({ code: ATTEMPT + LEG_CELL })
    assert.equal(waiting.status, 'waiting', `${waiting.code}: ${waiting.error}`)
    assert.equal(waiting.reason, 'yield')
    const done = await run.wait({ runId: waiting.runId })
    assert.equal(done.status, 'completed', `${done.code}: ${done.error}`)
    assert.deepEqual(done.value, [[LEG, refused], [LEG, refused]])
    for (const input of inputs) sentBytes += JSON.stringify(input).length
    assert.equal(inputs.length, 16, 'the refused inputs never reached executeTool')
    assert.equal(sentBytes, 2 * LEG)
  })

  test('one byte less in a leg leaves room for the 1-byte input', async () => {
    const { value } = setup({ timeoutMs: 60000, memoryLimitBytes: 64 * MiB })
    const got = await value(`
      const s = 'y'.repeat(${PIECE - 2})
      for (let i = 0; i < 7; i++) await tools.echo(s)
      await tools.echo(s.slice(1))
      return (await attempt(() => tools.echo(0))).ok`)
    assert.equal(got, 0)
  })
})

describe('the queue of 1024 calls, checked again after the input is converted', () => {
  // A getter in an input runs guest code while the input is converted; a
  // call it makes takes a place in the queue before the outer call does.
  const QUEUE_FULL = 'too many queued code mode tool calls.'
  const cell = (queued) => `
    const refused = []
    for (let i = 0; i < ${queued}; i++) tools.hang({ i }).catch((e) => refused.push(e.message))
    let inner
    const outer = tools.hang({ get x() { inner = tools.hang({ inner: true }).then(() => 'sent', (e) => e.message); return 1 } })
      .then(() => 'sent', (e) => e.message)
    const settled = await Promise.race([outer, inner, null])
    return { refused, outer: await Promise.race([outer, 'queued']), inner: await Promise.race([inner, 'queued']) }`

  test('1022 queued: the getter\'s call is the 1023rd and the outer call the 1024th, both queued', async () => {
    const { value } = setup({ maxPendingToolCalls: 1 })
    assert.deepEqual(await value(cell(1022)), { refused: [], outer: 'queued', inner: 'queued' })
  })

  test('1023 queued: the getter\'s call takes the last place, and the outer call is refused', async () => {
    const { value } = setup({ maxPendingToolCalls: 1 })
    assert.deepEqual(await value(cell(1023)), { refused: [], outer: QUEUE_FULL, inner: 'queued' })
  })
})

describe('text cut at 4096 bytes', () => {
  test('an uncaught error\'s message and name: 4096 bytes whole, 4097 cut with …', async () => {
    const { run } = setup()
    const failed = async (code) => {
      const result = await run.exec({ code })
      assert.deepEqual([result.status, result.code], ['failed', 'internal_error'], result.error)
      return result.error
    }
    // Where each throw is reported does not depend on the length.
    const message = (n) => `throw new Error('m'.repeat(${n}))`
    const at = (await failed(message(1))).slice('Error: m'.length)
    assert.match(at, /^ at line 1:\d+$/)
    assert.equal(await failed(message(4096)), `Error: ${'m'.repeat(4096)}${at}`)
    assert.equal(await failed(message(4097)), `Error: ${'m'.repeat(4096)}…${at}`)
    const name = (n) => `const e = new Error('s'); e.name = 'N'.repeat(${n}); throw e`
    const nameAt = (await failed(name(1))).slice('N: s'.length)
    assert.equal(await failed(name(4096)), `${'N'.repeat(4096)}: s${nameAt}`)
    assert.equal(await failed(name(4097)), `${'N'.repeat(4096)}…: s${nameAt}`)
    assert.equal(await failed(`throw 'u'.repeat(4096)`), `Uncaught: ${'u'.repeat(4096)}`)
    assert.equal(await failed(`throw 'u'.repeat(4097)`), `Uncaught: ${'u'.repeat(4096)}…`)
  })

  test('the error text of a failed tool call: 4096 bytes whole, 4097 cut with …', async () => {
    const { value } = setup()
    const got = await value(`
      return [
        (await attempt(() => tools.reply({ throw: 'e'.repeat(4096) }))).error,
        (await attempt(() => tools.reply({ throw: 'e'.repeat(4097) }))).error,
      ]`)
    assert.deepEqual(got, ['e'.repeat(4096), 'e'.repeat(4096) + '…'])
  })

  test('a tool id is read up to 4096 bytes: the echo of a longer one is cut', async () => {
    const { value } = setup()
    const got = await value(`
      return [
        (await attempt(() => tools.call('z'.repeat(4096), {}))).error,
        (await attempt(() => tools.call('z'.repeat(4097), {}))).error,
      ]`)
    assert.deepEqual(got, [unknownToolId('z'.repeat(4096)), unknownToolId('z'.repeat(4096) + '…')])
  })
})

describe('configuration ranges (docs/configuration.md): each end and one past it', () => {
  const { resolveCodeModeConfig: resolve } = binding
  const ranges = [
    ['timeoutMs', 100, 60000],
    ['memoryLimitBytes', MiB, 1024 * MiB],
    ['maxOutputBytes', KiB, 10 * MiB],
    ['maxSnapshotBytes', KiB, 256 * MiB],
    ['maxPendingToolCalls', 1, 128],
    ['snapshotTtlSeconds', 1, 86400],
    ['maxSearchLimit', 1, 50],
  ]
  for (const [field, min, max] of ranges) {
    test(`${field}: ${min} to ${max}`, () => {
      const at = (n) => resolve({ [field]: n })[field]
      if (min > 1) assert.equal(at(min - 1), min, `${min - 1} clamps up`)
      assert.equal(at(min), min)
      assert.equal(at(min + 1), min + 1)
      assert.equal(at(max - 1), max - 1)
      assert.equal(at(max), max)
      assert.equal(at(max + 1), max, `${max + 1} clamps down`)
    })
  }

  test('searchDefaultLimit: 1 to maxSearchLimit', () => {
    assert.equal(resolve({ maxSearchLimit: 20, searchDefaultLimit: 20 }).searchDefaultLimit, 20)
    assert.equal(resolve({ maxSearchLimit: 20, searchDefaultLimit: 21 }).searchDefaultLimit, 20)
    assert.equal(resolve({ searchDefaultLimit: 1 }).searchDefaultLimit, 1)
  })
})

describe('plugin namespaces', () => {
  const {
    registerCodeModeNamespaceForPlugin: register,
    createCodeModeNamespaceTool: namespaceTool,
    clearCodeModeNamespacesForTest,
  } = binding
  afterEach(() => clearCodeModeNamespacesForTest())
  const valid = (extra = {}) => ({ id: 'ns', globalName: 'Ns', requiredToolNames: ['t'], createScope: () => ({}), ...extra })
  const rule = (text) => ({ name: 'TypeError', message: `registerCodeModeNamespaceForPlugin: ${text}` })

  test('registration: description and prompt of 4096 characters, 256 requiredToolNames', () => {
    register('p', valid({ id: 'a', globalName: 'A', description: 'd'.repeat(4096), prompt: 'p'.repeat(4096) }))
    assert.throws(() => register('p', valid({ id: 'b', globalName: 'B', description: 'd'.repeat(4097) })), rule('description must be at most 4096 characters.'))
    assert.throws(() => register('p', valid({ id: 'c', globalName: 'C', prompt: 'p'.repeat(4097) })), rule('prompt must be at most 4096 characters.'))
    const names = (n) => Array.from({ length: n }, (_, i) => `t${i}`)
    register('p', valid({ id: 'd', globalName: 'D', requiredToolNames: names(256) }))
    assert.throws(() => register('p', valid({ id: 'e', globalName: 'E', requiredToolNames: names(257) })), rule('requiredToolNames must list at most 256 different tools.'))
  })

  const NS_TOOLS = [
    { name: 'github_list_issues', description: '', source: 'openclaw', sourceName: 'github' },
  ]
  const PREFIX = 'code mode namespace Issues could not be prepared: '

  /** Registers Issues with `scope`, runs `return 1`, and returns the result. */
  async function withScope(scope, answer = () => 'ok') {
    clearCodeModeNamespacesForTest()
    register('github', { id: 'issues', globalName: 'Issues', requiredToolNames: ['github_list_issues'], createScope: () => scope })
    const codeMode = codeModes.enabled()
    const run = codeMode.prepareRun({ runId: 'ns', sessionId: 'ns', tools: NS_TOOLS, executeTool: answer })
    return { run, result: await run.exec({ code: 'return 1' }) }
  }

  test('a scope nests 32 levels deep; 33 is refused', async () => {
    const nest = (levels) => {
      let tree = 1
      for (let i = 0; i < levels; i++) tree = { d: tree }
      return tree
    }
    assert.equal((await withScope(nest(32))).result.value, 1)
    const { result } = await withScope(nest(33))
    assert.deepEqual([result.code, result.error], ['invalid_input', `${PREFIX}Issues${'.d'.repeat(32)} nests deeper than 32 levels.`])
  })

  test('a scope holds 256 functions; 257 are refused', async () => {
    const list = namespaceTool('github_list_issues')
    const fns = (n) => ({ fns: Array.from({ length: n }, () => list) })
    assert.equal((await withScope(fns(256))).result.value, 1)
    const { result } = await withScope(fns(257))
    assert.deepEqual([result.code, result.error], ['invalid_input', `${PREFIX}the scope has more than 256 functions.`])
  })

  test('a scope of 10000 values is kept; 10001 are refused', async () => {
    // The root object counts as one value, and the array as another.
    const wide = (values) => ({ wide: Array.from({ length: values - 2 }, () => 0) })
    assert.equal((await withScope(wide(10000))).result.value, 1)
    const { result } = await withScope(wide(10001))
    assert.deepEqual([result.code, result.error], ['invalid_input', `${PREFIX}the scope has more than 10000 values or 262144 bytes of JSON.`])
  })

  test('a scope of 262144 bytes of JSON is kept; 262145 are refused', async () => {
    // {"big":"…"} is 10 bytes around the string.
    const big = (bytes) => ({ big: 'x'.repeat(bytes - 10) })
    assert.equal((await withScope(big(262144))).result.value, 1)
    const { result } = await withScope(big(262145))
    assert.deepEqual([result.code, result.error], ['invalid_input', `${PREFIX}the scope has more than 10000 values or 262144 bytes of JSON.`])
  })

  test('call arguments of 1048576 bytes of JSON are sent; 1048577 are refused', async () => {
    clearCodeModeNamespacesForTest()
    const inputs = []
    register('github', {
      id: 'issues', globalName: 'Issues', requiredToolNames: ['github_list_issues'],
      createScope: () => ({ list: namespaceTool('github_list_issues', ([s]) => ({ n: s.length })) }),
    })
    const run = codeModes.enabled().prepareRun({
      runId: 'ns', sessionId: 'ns', tools: NS_TOOLS,
      executeTool: (call) => (inputs.push(call.input), { details: call.input }),
    })
    // ["x…x"]: 4 bytes around the string.
    const result = await run.exec({ code: `${ATTEMPT}
      return [
        (await attempt(() => Issues.list('x'.repeat(${MiB - 4})))).ok,
        (await attempt(() => Issues.list('x'.repeat(${MiB - 3})))).error,
      ]` })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, [{ n: MiB - 4 }, 'plugin namespace call arguments are larger than 1048576 bytes of JSON.'])
    assert.deepEqual(inputs, [{ n: MiB - 4 }])
  })
})

describe('errors that explain a call of a tool that is not there', () => {
  // docs/errors.md: 64 call sites per cell are remembered, names of at most
  // 128 characters; an uncaught TypeError at another site stays QuickJS's own.
  const explained = (name, line, column) =>
    `TypeError: tools.${name} is not a function. Unknown tool id: ${name}. Use tools.search to find a tool, tools.describe to inspect it, then tools.call with the exact id or name. at line ${line}:${column}`

  test('a name of 128 characters is explained; one of 129 is not', async () => {
    const { run } = setup()
    for (const [length, explain] of [[128, true], [129, false]]) {
      const name = 'n'.repeat(length)
      const result = await run.exec({ code: `await tools.${name}()` })
      assert.equal(result.code, 'internal_error')
      assert.equal(result.error, explain ? explained(name, 1, 13) : 'TypeError: not a function at line 1:13', `${length} characters`)
    }
  })

  test('the 64th call site of a cell is explained; the 65th is not', async () => {
    // Ten lines apart from the others: an error is matched with a site at
    // most 8 lines above it (a call whose arguments span lines).
    const { run } = setup()
    for (const [before, explain] of [[63, true], [64, false]]) {
      const unused = Array.from({ length: before }, (_, i) => `if (false) tools.unused${i}()`).join('\n')
      const line = before + 10
      const result = await run.exec({ code: `${unused}${'\n'.repeat(10)}await tools.missing()` })
      assert.equal(result.code, 'internal_error')
      assert.equal(result.error, explain ? explained('missing', line, 13) : `TypeError: not a function at line ${line}:13`, `${before} sites before it`)
    }
  })

  test('an unknown id gets at most 3 suggestions', async () => {
    const codeMode = codeModes.enabled()
    const names = ['read_a', 'read_b', 'read_c', 'read_d']
    const surface = (count) =>
      codeMode.prepareRun({ runId: 'near', tools: names.slice(0, count).map((name) => ({ name, description: '', source: 'openclaw' })), executeTool: () => null })
    for (const [count, shown] of [[3, ['read_a', 'read_b', 'read_c']], [4, ['read_a', 'read_b', 'read_c']]]) {
      const result = await surface(count).exec({ code: "try { await tools.call('read_x', {}) } catch (e) { return e.message }" })
      assert.equal(result.value, unknownToolId('read_x', shown), `${count} names one edit away`)
    }
  })
})
