// Regressions from the hostile review: host memory the guest cannot see,
// promises that must never be left pending, close() semantics.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { after, describe, test } from 'node:test'

import { binding } from './helpers.mjs'

const instances = []
after(async () => {
  for (const codeMode of instances) await codeMode.close()
})

function setup(config = {}, executeTool = async (call) => call.input) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 10000, ...config } })
  instances.push(codeMode)
  const run = codeMode.prepareRun({ runId: 'r', tools: [{ name: 'echo', description: '', source: 'openclaw' }], executeTool })
  return { codeMode, run }
}

describe('host memory stays bounded', () => {
  test('a console line of many large arguments stops at the output limit', async () => {
    const { run } = setup({ maxOutputBytes: 1024 })
    const result = await run.exec({ code: "const s = 'x'.repeat(1e6); console.log(s, s, s, s, s, s, s, s)" })
    assert.equal(result.code, 'output_limit_exceeded')
  })

  test('inputs of pending calls share one byte budget', async () => {
    const { run } = setup({ memoryLimitBytes: 4 * 1024 * 1024 }, () => new Promise(() => {}))
    const result = await run.exec({
      code: `
        const big = 'x'.repeat(600 * 1024)
        const errors = []
        for (let i = 0; i < 10; i++) tools.echo({ big }).catch((e) => errors.push(e.message))
        await null
        return errors`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.ok(result.value.length >= 6, `most calls over the 2 MiB budget are refused: ${result.value.length}`)
    assert.match(result.value[0], /^tool input is larger than the code mode bridge limit of 2097152 bytes/)
  })

  test('a yield reason is cut at 1 KiB, and yields count toward the queue bound', async () => {
    const { run } = setup()
    const waiting = await run.exec({ code: "return await yield_control('é'.repeat(1e6))" })
    assert.equal(waiting.status, 'waiting')
    assert.ok(waiting.snapshotBytes < 1024 * 1024, `a parked run holds ${waiting.snapshotBytes} bytes`)
    const done = await run.wait({ runId: waiting.runId })
    assert.equal(done.value.status, 'yielded')
    assert.equal(done.value.reason, 'é'.repeat(512) + '…', 'cut on a character boundary, marked')
    const flood = await run.exec({
      code: `
        const refused = []
        for (let i = 0; i < 1100; i++) yield_control('r').catch((e) => refused.push(e.message))
        await null
        return [refused.length, refused[0]]`,
    })
    assert.equal(flood.status, 'completed', flood.error)
    assert.deepEqual(flood.value, [1100 - 1024, 'too many queued code mode tool calls.'])
  })

  test('results waiting for a run share its bridge budget', async () => {
    const big = 'x'.repeat(6 * 1024 * 1024)
    const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 300 } })
    instances.push(codeMode)
    // Each result is written over many turns of the event loop; the test
    // waits until all four have reached the parked run (a finished event,
    // then the settlements' microtask), however loaded the machine.
    let finished = 0
    const run = codeMode.prepareRun({
      runId: 'r',
      tools: [{ name: 'echo', description: '', source: 'openclaw' }],
      executeTool: () => new Promise((resolve) => setTimeout(() => resolve(big), 600)),
      onEvent: (event) => {
        if (event.type === 'nested_call_finished') finished++
      },
    })
    const waiting = await run.exec({
      code: `
        const got = await Promise.all([1, 2, 3, 4].map((i) => tools.echo({ i }).then((r) => r.length, (e) => e.message)))
        return got`,
    })
    assert.equal(waiting.status, 'waiting')
    while (finished < 4) await new Promise((resolve) => setTimeout(resolve, 20))
    await new Promise((resolve) => setImmediate(resolve))
    const done = await run.wait({ runId: waiting.runId })
    assert.equal(done.status, 'completed', done.error)
    const json = JSON.stringify(big).length
    const refused = `tool result of ${json} bytes is larger than the code mode bridge limit of 16777216 bytes.`
    assert.deepEqual(done.value, [big.length, big.length, refused, refused])
  })

  test('the tool inputs of one exec share a budget of 64 MiB', async () => {
    let sent = 0
    const { run } = setup({ timeoutMs: 60000 }, (call) => {
      sent += call.input.s.length
      return 'ok'
    })
    const result = await run.exec({
      code: `
        const s = 'y'.repeat(4 * 1024 * 1024)
        for (let i = 0; i < 40; i++) {
          try { await tools.echo({ s }) } catch (e) { return [i, e.message] }
        }
        return 'never refused'`,
    })
    assert.deepEqual(result.value, [15, 'tool inputs of this exec or wait call passed the code mode budget of 67108864 bytes; return, or await yield_control() and continue after the next wait.'])
    assert.ok(sent <= 64 * 1024 * 1024, `${sent} bytes reached executeTool`)
  })

  test('a huge string value is never copied whole to the host', () => {
    // Escaped as JSON, a string of control characters grows six times; the
    // converter used to copy and escape all of it before checking the limit.
    const child = spawnSync(process.execPath, ['-e', `
      const b = require(${JSON.stringify(new URL('../index.js', import.meta.url).pathname)})
      const cm = b.createCodeMode({ config: { enabled: true, memoryLimitBytes: 256 * 1024 * 1024 }, workerThreads: 1 })
      const run = cm.prepareRun({ runId: 'r', tools: [{ name: 'echo', description: '', source: 'openclaw' }], executeTool: async () => null })
      ;(async () => {
        const before = process.resourceUsage().maxRSS
        const r = await run.exec({ code: "return '\\x01'.repeat(5e7)" })
        const grown = (process.resourceUsage().maxRSS - before) / 1024
        await cm.close()
        console.log(JSON.stringify([r.code, Math.round(grown)]))
      })()`], { encoding: 'utf8', timeout: 60000 })
    assert.equal(child.status, 0, child.stderr)
    const [code, grownMiB] = JSON.parse(child.stdout)
    assert.equal(code, 'output_limit_exceeded')
    assert.ok(grownMiB < 200, `peak RSS grew by ${grownMiB} MiB`)
  })

  test('an uncaught error with a huge message is cut', async () => {
    const { run } = setup()
    const result = await run.exec({ code: "throw new Error('x'.repeat(1e6))" })
    assert.equal(result.code, 'internal_error')
    assert.ok(result.error.length < 5000, `error length ${result.error.length}`)
    assert.match(result.error, /^Error: x+…/)
  })

  test('a tool result nested too deep fails the call instead of losing data', async () => {
    const deep = {}
    let node = deep
    for (let i = 0; i < 1100; i++) node = node.next = {}
    const { run } = setup({}, () => deep)
    const result = await run.exec({ code: 'try { await tools.echo({}) } catch (e) { return e.message }' })
    assert.equal(result.value, 'tool result nests deeper than 1000 levels')
  })
})

describe('deeply nested sources', () => {
  // Each of these once overflowed the parser's stack and killed the process.
  const nested = {
    parens: 'return ' + '('.repeat(100000) + '1' + ')'.repeat(100000),
    brackets: 'return ' + '['.repeat(400000),
    nots: 'return ' + '!'.repeat(1000000) + '1',
    braces: '{'.repeat(500000),
    objects: 'return ' + '{a:'.repeat(150000) + '1' + '}'.repeat(150000),
    templates: 'return ' + '`${'.repeat(100000) + '1' + '}`'.repeat(100000),
    arrows: 'return ' + '()=>'.repeat(150000) + '1',
  }

  for (const language of ['javascript', 'typescript']) {
    test(`${language}: refused as invalid_input before any parser runs, and the process keeps serving`, async () => {
      const { run } = setup()
      for (const [name, code] of Object.entries(nested)) {
        for (const variant of [code, code + '\n)syntax error(']) {
          const result = await run.exec({ code: variant, language })
          assert.equal(result.status, 'failed', name)
          assert.equal(result.code, 'invalid_input', `${name}: ${result.error}`)
          assert.match(result.error, /^code nests too deeply to parse safely: it has more than 25000 brackets, operators and keywords \(the limit is passed at line 1:\d+\)\. Split the work/, name)
        }
      }
      assert.equal((await run.exec({ code: 'return 6 * 7', language })).value, 42)
    })
  }

  test('nesting within the limit still runs, and QuickJS bounds its own recursion', async () => {
    const { run } = setup()
    const fine = await run.exec({ code: 'return ' + '('.repeat(500) + '1' + ')'.repeat(500) })
    assert.equal(fine.value, 1)
    const deeper = await run.exec({ code: 'return ' + '('.repeat(20000) + '1' + ')'.repeat(20000) })
    assert.equal(deeper.status, 'failed')
    assert.equal(deeper.code, 'internal_error', 'QuickJS refuses it with its own stack check')
    assert.match(deeper.error, /^RangeError: Maximum call stack size exceeded/)
  })
})

describe('builtins that never poll the interrupt handler', () => {
  // A quadratic indexOf over a megabyte used to run for minutes inside QuickJS
  // with no interrupt check, until the watchdog answered the call and replaced
  // the worker. The vendored QuickJS now charges the search by its cost, so it
  // stops at the deadline (builtins.test.mjs covers each builtin; the engine's
  // watchdog.rs covers a worker that is really stuck). These cases keep the
  // outcomes other sessions see.
  const QUADRATIC = "const h = 'a'.repeat(1e6); const n = 'a'.repeat(4e4) + 'b'; return h.indexOf(n)"

  // The test's timeout is the hang guard: unpatched, the search runs for
  // tens of seconds; it is answered at its deadline (200 ms), or by the
  // watchdog 500 ms later. How late is measured by bench/probe/timings.mjs.
  test('the call still ends as a timeout, and other cells keep running', { timeout: 30000 }, async () => {
    const { run } = setup({ timeoutMs: 200 })
    const stuck = await run.exec({ code: QUADRATIC })
    assert.equal(stuck.status, 'failed')
    assert.equal(stuck.code, 'timeout')
    const next = await Promise.all([1, 2, 3].map((n) => run.exec({ code: `return ${n}` })))
    assert.deepEqual(next.map((r) => r.value), [1, 2, 3])
  })

  test('a builtin that finishes past the deadline is a timeout, not a late result', async () => {
    // One builtin call that does linear work over tens of megabytes reads the
    // deadline only when it returns: past the 300 ms deadline, and usually
    // inside the watchdog's grace.
    const { run } = setup({ timeoutMs: 300 })
    const late = await run.exec({ code: "const a = new Array(1 << 20).fill(1); let n = 0; const until = Date.now() + 280; while (Date.now() < until) n++; for (const b of [a.slice(), a.slice(), a.slice()]) n += b.length; return 'late'" })
    assert.equal(late.status, 'failed')
    assert.equal(late.code, 'timeout')
  })

  test('runs awaiting tools on a worker that gets stuck move to another worker and finish', async () => {
    const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 10000 }, workerThreads: 1 })
    instances.push(codeMode)
    const tools = [{ name: 'slow', description: '', source: 'openclaw' }]
    const innocent = codeMode.prepareRun({
      runId: 'innocent', sessionId: 'a', tools,
      executeTool: () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 1500)),
    })
    const attacker = codeMode.prepareRun({ runId: 'attacker', sessionId: 'b', tools, agentConfig: { timeoutMs: 100 }, executeTool: async () => null })
    const waiting = innocent.exec({ code: 'const r = await tools.slow({}); return r.done' })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const stuck = await attacker.exec({ code: QUADRATIC })
    assert.equal(stuck.code, 'timeout')
    const result = await waiting
    assert.equal(result.status, 'completed', `${result.code}: ${result.error}`)
    assert.equal(result.value, true)
  })

  // The hang guard is the test's timeout, well under the cell's 60 s budget.
  test('close() does not wait for a stuck worker', { timeout: 30000 }, async () => {
    const { codeMode, run } = setup({ timeoutMs: 60000 })
    const stuck = run.exec({ code: QUADRATIC })
    await new Promise((resolve) => setTimeout(resolve, 50))
    await codeMode.close()
    assert.equal((await stuck).code, 'runtime_unavailable')
  })
})

describe('promises and close()', () => {
  test('exec right after close() (not awaited) is refused', async () => {
    const { codeMode, run } = setup()
    const closing = codeMode.close()
    const results = await Promise.all([run.exec({ code: 'return 1' }), run.exec({}), run.wait({})])
    for (const result of results) {
      assert.equal(result.code, 'runtime_unavailable')
      assert.equal(result.error, 'code mode is closed.')
    }
    await closing
  })

  test('the abort listener is removed when the call settles', async () => {
    const { run } = setup()
    const controller = new AbortController()
    const { signal } = controller
    let added = 0
    let removed = 0
    const add = signal.addEventListener.bind(signal)
    const remove = signal.removeEventListener.bind(signal)
    signal.addEventListener = (...args) => (added++, add(...args))
    signal.removeEventListener = (...args) => (removed++, remove(...args))
    for (let i = 0; i < 5; i++) await run.exec({ code: 'return 1' }, { signal })
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(added, 5)
    assert.equal(removed, 5)
  })

  test('a throwing input getter throws from exec and leaves nothing that holds the process', () => {
    const script = `
      const b = require(${JSON.stringify(new URL('../index.js', import.meta.url).pathname)})
      const cm = b.createCodeMode({ config: { enabled: true } })
      const run = cm.prepareRun({ runId: 'r', tools: [{ name: 'echo', description: '', source: 'openclaw' }], executeTool: async () => 1 })
      const hostile = { get code() { throw new Error('getter') } }
      const signal = { get aborted() { throw new Error('signal getter') } }
      let thrown = 0
      try { run.exec(hostile) } catch { thrown++ }
      try { run.exec({ code: 'return 1' }, { signal }) } catch { thrown++ }
      try { run.wait({ get runId() { throw new Error('x') } }) } catch { thrown++ }
      console.log(thrown)`
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 })
    assert.equal(child.signal, null, 'the process exited on its own')
    assert.equal(child.status, 0, child.stderr)
    assert.equal(child.stdout.trim(), '3')
  })
})

describe('the event loop under a flood of large tool inputs', () => {
  test('two cells sending large inputs in a loop: each input is assembled over many turns of the event loop', () => {
    // The Node thread starts calls for at most 0.5 ms of measured time per
    // turn (TURN_WORK_MICROS), and a 50000-member input arrives in pieces of
    // at most 256 members, so assembling one takes many turns. Inputs used to
    // be parsed as fast as the workers sent them, all in one turn (the loop
    // stalled for the whole flood, 3 s).
    //
    // Measured against a real clock, that is a stall in milliseconds, which
    // bench/probe/timings.mjs reports (and B11 of npm run bench). Here the
    // clock host.js reads is a counter that advances 0.125 ms at every read,
    // before the binding is loaded, so a turn's budget admits at most 4
    // pieces whatever the machine's speed. Each input then needs at least
    // 196 / 4 = 49 turns before its executeTool call; unbudgeted, one.
    const child = spawnSync(process.execPath, ['-e', `
      let clock = 0
      performance.now = () => (clock += 0.125)
      const b = require(${JSON.stringify(new URL('../index.js', import.meta.url).pathname)})
      const cm = b.createCodeMode({ config: { enabled: true, timeoutMs: 60000 }, workerThreads: 2 })
      let turns = 0
      let live = true
      const turn = () => { if (live) { turns++; setImmediate(turn) } }
      setImmediate(turn)
      const at = []
      const run = cm.prepareRun({
        runId: 'flood', tools: [{ name: 'echo', description: '', source: 'openclaw' }],
        executeTool: (call) => { at.push([turns, Object.keys(call.input).length]); return at.length },
      })
      const code = "const o = {}; for (let i = 0; i < 50000; i++) o['k' + i] = i; for (let n = 0; n < 6; n++) await tools.echo(o); return 'done'"
      Promise.all([run.exec({ code }), run.exec({ code })]).then(async (results) => {
        live = false
        await cm.close()
        const gaps = at.slice(1).map(([t], i) => t - at[i][0])
        console.log(JSON.stringify({ results: results.map((r) => r.value ?? r.error), calls: at.length, members: [...new Set(at.map(([, n]) => n))], first: at[0][0], gaps }))
      })`], { encoding: 'utf8', timeout: 120000 })
    assert.equal(child.status, 0, child.stderr)
    const { results, calls, members, first, gaps } = JSON.parse(child.stdout)
    assert.deepEqual(results, ['done', 'done'])
    assert.equal(calls, 12)
    assert.deepEqual(members, [50000], 'every input arrived whole')
    // Calls start in order, one input at a time: the next is assembled only
    // once the one before it started.
    for (const [i, gap] of [first, ...gaps].entries()) assert.ok(gap >= 49, `input ${i + 1} was assembled in ${gap} turns`)
  })

  test('a large input is assembled from pieces over several turns and arrives whole', async () => {
    const received = []
    const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000, memoryLimitBytes: 128 << 20 }, workerThreads: 1 })
    instances.push(codeMode)
    const run = codeMode.prepareRun({
      runId: 'pieces', tools: [{ name: 'echo', description: '', source: 'openclaw' }],
      executeTool: ({ input }) => (received.push(input), Object.keys(input).length),
    })
    // Wider and deeper than one piece (16 KiB), with the keys JSON makes
    // awkward: __proto__, quotes, numbers, empty containers, a long leaf.
    const build = `
      const o = JSON.parse('{"__proto__": {"polluted": true}}')
      for (let i = 0; i < 20000; i++) o['k' + i] = i % 3 ? i : { i, s: 'v"' + i }
      o.nested = { rows: Array.from({ length: 5000 }, (_, i) => ({ i, tags: ['a', 'b'], deep: [[i]] })), empty: {}, none: [] }
      o.long = 'x'.repeat(100000)
      o[7] = 'seven'
      return o`
    const expected = new Function(build)()
    const result = await run.exec({ code: `const o = (() => { ${build} })(); const n = await tools.echo(o); await tools.echo([o.nested, o.long]); return n` })
    assert.equal(result.status, 'completed', result.error)
    assert.equal(result.value, Object.keys(expected).length)
    assert.deepEqual(received[0], expected)
    assert.deepEqual(Object.keys(received[0]), Object.keys(expected), 'key order kept')
    assert.equal(Object.getPrototypeOf(received[0]), Object.prototype, 'a __proto__ key is data')
    assert.deepEqual(received[1], [expected.nested, expected.long])
    assert.equal({}.polluted, undefined)
  })
})

describe('data crosses whole', () => {
  test('a __proto__ key in a tool result arrives as data', async () => {
    const { run } = setup({}, () => JSON.parse('{"__proto__": {"x": 1}, "a": 2}'))
    const result = await run.exec({
      code: 'const r = await tools.echo({}); return [Object.keys(r), r.a, Object.getPrototypeOf(r) === Object.prototype, r.x]',
    })
    assert.deepEqual(result.value, [['__proto__', 'a'], 2, true, null])
  })

  test('a lone surrogate becomes one U+FFFD', async () => {
    const { run } = setup()
    const result = await run.exec({ code: "text('a\\ud800b'); return '\\udc00'" })
    assert.equal(result.value, '\uFFFD')
    assert.deepEqual(result.output, [{ type: 'text', text: 'a\uFFFDb' }])
  })
})

describe('defects found by the structure review', () => {
  test('an argument whose toString throws rejects the call with the guest\'s own exception', async () => {
    const { run } = setup()
    const result = await run.exec({
      code: `
        const out = {}
        const attempts = {
          search: (v) => tools.search(v),
          describe: (v) => tools.describe(v),
          call: (v) => tools.call(v, {}),
          yield: (v) => yield_control(v),
        }
        for (const [name, attempt] of Object.entries(attempts)) {
          const mine = new Error('mine: ' + name)
          let promise
          try {
            promise = attempt({ toString() { throw mine } })
          } catch (e) {
            out[name] = 'thrown synchronously'
            continue
          }
          out[name] = await promise.then(() => 'resolved', (e) => (e === mine ? e.message : 'another error: ' + e))
        }
        return out`,
    })
    assert.deepEqual(result.value, { search: 'mine: search', describe: 'mine: describe', call: 'mine: call', yield: 'mine: yield' })
  })

  test('a thrown symbol is described with its description', async () => {
    const { run } = setup()
    const result = await run.exec({ code: "throw Symbol('odd')" })
    assert.equal(result.code, 'internal_error')
    assert.equal(result.error, 'Uncaught: Symbol(odd)')
  })

  test('a tool input nested deeper than 1000 levels is refused and never dispatched', async () => {
    const inputs = []
    const { run } = setup({}, (call) => {
      inputs.push(call.input)
      return 'ran'
    })
    const result = await run.exec({
      code: `
        const chain = (objects) => { const root = {}; let node = root; for (let i = 1; i < objects; i++) node = node.next = {}; return root }
        const refused = await tools.echo(chain(1001)).then(() => 'sent', (e) => [e instanceof Error, Object.getPrototypeOf(e) === Error.prototype, e.message])
        const ok = await tools.echo(chain(1000))
        json(chain(1001))
        return { refused, ok, deep: chain(1001) }`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value.refused, [true, true, 'tool input nests deeper than 1000 levels.'])
    assert.equal(result.value.ok, 'ran')
    assert.equal(inputs.length, 1, 'only the input within the limit reached executeTool')
    assert.ok(!JSON.stringify(inputs[0]).includes('[Too deep]'), 'and it arrived unaltered')
    assert.ok(JSON.stringify(result.output[0].value).includes('"[Too deep]"'), 'json() items keep the marker')
    assert.ok(JSON.stringify(result.value.deep).includes('"[Too deep]"'), 'and so does the final value')
  })

  test('every error the bridge creates looks like new Error(message)', async () => {
    const { run } = setup({}, () => {
      throw {
        get message() {
          throw new Error('getter')
        },
      }
    })
    const result = await run.exec({
      code: `
        const seen = []
        const look = (e) => seen.push({
          keys: Object.keys(e),
          plain: Object.getPrototypeOf(e) === Error.prototype,
          enumerable: Object.getOwnPropertyDescriptor(e, 'message').enumerable,
          message: e.message,
        })
        try { await tools.echo({}) } catch (e) { look(e) }
        try { await tools.call('nope', {}) } catch (e) { look(e) }
        try { await tools.search('x', { limit: 0 }) } catch (e) { look(e) }
        return seen`,
    })
    assert.equal(result.value.length, 3)
    for (const seen of result.value) {
      assert.deepEqual(seen.keys, [], seen.message)
      assert.equal(seen.plain, true, seen.message)
      assert.equal(seen.enumerable, false, seen.message)
    }
    assert.equal(result.value[0].message, 'tool call failed')
  })

})
