import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { after, describe, test } from 'node:test'

import { surface } from './helpers.mjs'

const { codeMode, exec } = surface({ timeoutMs: 60000 })
after(() => codeMode.close())

describe('values and output', () => {
  test('return values, null and no return', async () => {
    assert.deepEqual((await exec('return {a: [1, "x", true, null]}')).value, { a: [1, 'x', true, null] })
    assert.equal((await exec('return null')).value, null)
    const none = await exec('const x = 1')
    assert.equal(none.status, 'completed')
    assert.equal(none.value, null)
    assert.equal((await exec('return await Promise.resolve(41) + 1')).value, 42)
  })

  test('result shape', async () => {
    const result = await exec('return 1')
    assert.deepEqual(result, {
      status: 'completed',
      value: 1,
      output: [],
      replaySafe: false,
      telemetry: { catalogSize: 1, sources: { openclaw: 1, mcp: 0, client: 0 }, searchCount: 0, describeCount: 0, callCount: 0, invalidInputCount: 0, visibleTools: ['exec', 'wait'] },
    })
  })

  test('output keeps call order across text, json and console', async () => {
    const result = await exec(`
      text('one'); json({two: 2}); console.log('three', 3, {x: 1}); text(4)
      console.info('i'); console.debug('d'); console.warn('w', 1); console.error('e')
      await null; text('after await')
      return 'done'`)
    assert.deepEqual(result.output, [
      { type: 'text', text: 'one' },
      { type: 'json', value: { two: 2 } },
      { type: 'text', text: 'three 3 {"x":1}' },
      { type: 'text', text: '4' },
      { type: 'text', text: 'i' },
      { type: 'text', text: 'd' },
      { type: 'text', text: 'warn: w 1' },
      { type: 'text', text: 'error: e' },
      { type: 'text', text: 'after await' },
    ])
  })

  test('every JSON-safe case', async () => {
    const result = await exec(`
      const cyclic = {name: 'c'}; cyclic.self = cyclic; cyclic.list = [cyclic]
      const shared = {s: 1}
      class Tagged { get [Symbol.toStringTag]() { return 'Tagged' } toJSON() { throw new Error('no') } }
      json(undefined); json(() => 1); json(Symbol('s'))
      return {
        date: new Date(Date.UTC(2020, 0, 2)), map: new Map([[1, 2]]), set: new Set([1]),
        fn() {}, undef: undefined, sym: Symbol('x'),
        array: [undefined, () => 1, Symbol('y'), NaN, Infinity, -Infinity, 1.5],
        big: 12345678901234567890n, nestedBig: [1n], error: new TypeError('bad'),
        cyclic, shared: [shared, shared], throwing: {toJSON() { throw 1 }}, tagged: new Tagged(),
        custom: {toJSON() { return {custom: true} }},
      }`)
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.output, [
      { type: 'json', value: null },
      { type: 'json', value: null },
      { type: 'json', value: null },
    ])
    assert.deepEqual(result.value, {
      date: '2020-01-02T00:00:00.000Z', map: {}, set: {},
      array: [null, null, null, null, null, null, 1.5],
      big: '12345678901234567890', nestedBig: ['1'], error: { name: 'TypeError', message: 'bad' },
      cyclic: { name: 'c', self: '[Circular]', list: ['[Circular]'] },
      shared: [{ s: 1 }, { s: 1 }], throwing: '[object Object]', tagged: '[object Tagged]',
      custom: { custom: true },
    })
    for (const code of ['return undefined', 'return () => 1', 'return Symbol("x")']) {
      assert.equal((await exec(code)).value, null, code)
    }
    assert.equal((await exec('return 2n ** 70n')).value, '1180591620717411303424')
  })

  test('numbers cross as JSON.parse would read them', async () => {
    const result = await exec('return [0.1 + 0.2, -0, 1e21, 2 ** 53 + 2, 5e-324, 123456789.125]')
    assert.deepEqual(result.value, [0.1 + 0.2, 0, 1e21, 2 ** 53 + 2, 5e-324, 123456789.125])
  })

  test('tampering with guest globals cannot change what the host receives', async () => {
    const result = await exec(`
      JSON.stringify = () => '"hacked"'; Object.keys = () => []; Array.isArray = () => false
      Object.prototype.toJSON = undefined; Array.prototype.map = null
      return {a: [1, 2], b: 'x'}`)
    assert.deepEqual(result.value, { a: [1, 2], b: 'x' })
  })
})

describe('module access', () => {
  const rejected = {
    import: "import fs from 'fs'\nreturn 1",
    export: 'export const x = 1',
    dynamicImport: "const m = await import('fs')",
    importMeta: 'return import.meta.url',
    require: "const fs = require('fs')",
  }
  for (const [form, code] of Object.entries(rejected)) {
    test(`${form} is rejected before evaluation`, async () => {
      const result = await exec(`text('ran'); ${code}`)
      assert.equal(result.status, 'failed')
      assert.equal(result.code, 'invalid_input')
      assert.equal(result.error, 'code mode module access is disabled.')
      assert.deepEqual(result.output, [])
    })
  }
  test('identifiers and strings that mention import pass', async () => {
    assert.equal((await exec('const important = 2; return important')).value, 2)
    assert.equal((await exec('return "import docs later"')).value, 'import docs later')
    assert.equal((await exec('const o = {import: 1, require: 2}; return o.import + o.require')).value, 3)
  })
  test('the host is not reachable', async () => {
    const result = await exec(
      'return [typeof require, typeof process, typeof module, typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly, typeof setImmediate]',
    )
    assert.deepEqual(result.value, Array(7).fill('undefined'))
  })
})

describe('TypeScript', () => {
  test('interfaces, generics and as are stripped', async () => {
    const result = await exec({
      language: 'typescript',
      code: `
        interface Item<T> { id: number; value: T }
        type Pick2<T> = { [K in keyof T]?: T[K] }
        function first<T>(items: Array<Item<T>>): T | undefined { return items[0]?.value }
        const raw: unknown = [{ id: 1, value: 'a' }]
        const items = raw as Item<string>[]
        const partial: Pick2<Item<string>> = {}
        enum Color { Red = 'red' }
        return { first: first<string>(items), partial, color: Color.Red }`,
    })
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, { first: 'a', partial: {}, color: 'red' })
  })
  test('a JavaScript-only process never initialises TypeScript', () => {
    const script = `
      const b = require(${JSON.stringify(new URL('../index.js', import.meta.url).pathname)})
      const cm = b.createCodeMode({ config: { enabled: true } })
      const run = cm.prepareRun({ runId: 'r', tools: [{ name: 'read', description: '', source: 'openclaw' }], executeTool: async () => null })
      ;(async () => {
        const js = await run.exec({ code: 'const x: number = 1; return typeof x' })
        const plain = await run.exec({ code: 'return 40 + 2', language: 'javascript' })
        const before = b.codeModeDiagnostics().typescriptInitialized
        const ts = await run.exec({ code: 'const x: number = 1; return x', language: 'typescript' })
        console.log(JSON.stringify({ js: js.status, plain: plain.value, before, ts: ts.value, after: b.codeModeDiagnostics().typescriptInitialized }))
        await cm.close()
      })()`
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
    assert.equal(child.status, 0, child.stderr)
    assert.deepEqual(JSON.parse(child.stdout), { js: 'failed', plain: 42, before: false, ts: 1, after: true })
  })

  test('a TypeScript syntax error is invalid_input with its location', async () => {
    const result = await exec({ language: 'typescript', code: 'const a: number = 1\nconst b = (' })
    assert.equal(result.code, 'invalid_input')
    assert.match(result.error, /^typescript transform failed: .+ at line 2:\d+$/)
  })
  test('runtime errors point into the TypeScript source', async () => {
    const result = await exec({ language: 'typescript', code: 'const a: string = "x"\n\n    missing(a)' })
    assert.equal(result.error, 'ReferenceError: missing is not defined at line 3:5')
  })
})

describe('guest errors', () => {
  test('a JavaScript syntax error is reported with its location', async () => {
    const result = await exec('const a = 1\nconst b = ;')
    assert.equal(result.status, 'failed')
    assert.equal(result.code, 'internal_error')
    assert.match(result.error, /^SyntaxError: .+ at line 2:11$/)
  })
  test('ReferenceError text names the identifier and the user line', async () => {
    const result = await exec('const a = 1\n  nope(a)')
    assert.equal(result.code, 'internal_error')
    assert.equal(result.error, 'ReferenceError: nope is not defined at line 2:3')
  })
  test('thrown values keep their name and message, with no host frames', async () => {
    const result = await exec('function f() { throw new RangeError("too far") }\nawait null\nf()')
    assert.equal(result.error, 'RangeError: too far at line 1:26')
    assert.equal((await exec('throw "plain"')).error, 'Uncaught: plain')
  })
  test('throw new Error("interrupted") is not a timeout', async () => {
    const result = await exec('throw new Error("interrupted")')
    assert.equal(result.code, 'internal_error')
    assert.match(result.error, /^Error: interrupted/)
  })
  test('a cell cannot close its wrapper', async () => {
    const result = await exec('return 1\n})(), (async () => {')
    assert.equal(result.code, 'internal_error')
    assert.match(result.error, /^SyntaxError: /)
  })
})

describe('input validation', () => {
  const cases = [
    [{ code: 'return 1', command: 'return 2' }, 'code and command must match when both are provided.'],
    [{}, 'code or command must be a non-empty string.'],
    [{ code: '   ' }, 'code or command must be a non-empty string.'],
    [{ code: 5 }, 'code or command must be a non-empty string.'],
    [{ code: 'return 1', language: 'python' }, 'language must be javascript or typescript.'],
    [{ code: 'return 1', restartSafe: 'yes' }, 'restartSafe must be a boolean.'],
  ]
  for (const [input, message] of cases) {
    test(`${JSON.stringify(input)} -> ${message}`, async () => {
      const result = await exec(input)
      assert.equal(result.status, 'failed')
      assert.equal(result.code, 'invalid_input')
      assert.equal(result.error, message)
    })
  }
  test('command is an alias, nulls are absent, restartSafe is echoed', async () => {
    assert.equal((await exec({ command: 'return 3', code: null, language: null })).value, 3)
    assert.equal((await exec({ code: 'return 4', command: ' return 4 ' })).value, 4)
    assert.equal((await exec({ code: 'return 5', restartSafe: true })).replaySafe, true)
  })
  test('a disabled language is refused', async () => {
    const js = surface({ languages: ['javascript'] })
    const result = await js.exec({ code: 'return 1', language: 'typescript' })
    assert.equal(result.error, 'code mode typescript input is disabled.')
    await js.codeMode.close()
  })
})
