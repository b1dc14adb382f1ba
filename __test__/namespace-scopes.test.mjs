// Plugin namespaces (docs/namespaces.md): what a scope may hold and how it
// is serialised, and the host's check of every call against it.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { afterEach, after, describe, test } from 'node:test'

import { binding } from './helpers.mjs'
import { PREFIX, codeModes, prepare, registerIssues } from './namespace-fixtures.mjs'

const {
  registerCodeModeNamespaceForPlugin: register,
  createCodeModeNamespaceTool: namespaceTool,
  clearCodeModeNamespacesForTest,
} = binding

after(() => codeModes.closeAll())
afterEach(() => clearCodeModeNamespacesForTest())

describe('scope serialisation', () => {
  async function refused(scope, problem) {
    clearCodeModeNamespacesForTest()
    registerIssues(() => scope)
    const { exec, calls } = prepare()
    const result = await exec('return 1')
    assert.deepEqual([result.status, result.code, result.error], ['failed', 'invalid_input', `${PREFIX}${problem}`])
    assert.equal(calls.length, 0)
  }

  test('raw functions, cycles, unsafe keys, deep trees, class instances and foreign tools are refused by path', async () => {
    const cyclic = { a: { b: {} } }
    cyclic.a.b.c = cyclic.a
    let deep = { leaf: 1 }
    for (let i = 0; i < 40; i++) deep = { d: deep }
    class Client {}
    const cases = [
      [{ list: async () => [] }, 'Issues.list is a function; a callable member must be a createCodeModeNamespaceTool(toolName) marker.'],
      [{ nested: { items: [1, () => 2] } }, 'Issues.nested.items[1] is a function; a callable member must be a createCodeModeNamespaceTool(toolName) marker.'],
      [cyclic, 'Issues.a.b.c is a circular reference.'],
      [JSON.parse('{"a": {"__proto__": 1}}'), 'Issues.a has the unsafe key "__proto__".'],
      [{ constructor: 1 }, 'Issues has the unsafe key "constructor".'],
      [{ prototype: 1 }, 'Issues has the unsafe key "prototype".'],
      [{ '': 1 }, 'Issues has the unsafe key "".'],
      [{ 'a.b': 1 }, 'Issues has the unsafe key "a.b".'],
      [deep, `Issues${'.d'.repeat(32)} nests deeper than 32 levels.`],
      [{ client: new Client() }, 'Issues.client is a Client; a scope holds only plain objects, arrays, JSON values and createCodeModeNamespaceTool markers.'],
      [{ cache: new Map() }, 'Issues.cache is a Map; a scope holds only plain objects, arrays, JSON values and createCodeModeNamespaceTool markers.'],
      [{ error: new Error('x') }, 'Issues.error is an Error; a scope holds only plain objects, arrays, JSON values and createCodeModeNamespaceTool markers.'],
      [{ p: new Proxy({}, { ownKeys() { throw new Error('trap') } }) }, 'reading Issues.p threw: trap'],
      [{ a: '\ud800', b: { '\ud800': 1, '\udbff': 2 } }, 'Issues.b has two keys that both read "\ufffd" once lone surrogates are replaced.'],
      [{ remove: namespaceTool('github_delete_repo') }, 'Issues.remove targets the tool "github_delete_repo", which is not in the namespace\'s requiredToolNames.'],
      [{ read: namespaceTool('read') }, 'Issues.read targets the tool "read", which is not in the namespace\'s requiredToolNames.'],
      [{ then: namespaceTool('github_list_issues') }, 'Issues.then is callable, which would make the object a thenable; use another name.'],
      [{ get boom() { throw new Error('nope') } }, 'reading Issues.boom threw: nope'],
      [[1, 2], 'createScope returned an array, not a plain object.'],
      [null, 'createScope returned null, not a plain object.'],
      [undefined, 'createScope returned undefined, not a plain object.'],
      [namespaceTool('github_list_issues'), 'createScope returned a createCodeModeNamespaceTool marker, not a plain object.'],
      [{ wide: Array.from({ length: 10001 }, (_, i) => i) }, 'the scope has more than 10000 values or 262144 bytes of JSON.'],
      [{ big: 'x'.repeat(300_000) }, 'the scope has more than 10000 values or 262144 bytes of JSON.'],
    ]
    for (const [scope, problem] of cases) await refused(scope, problem)
  })

  test('plain values, nested objects, shared references and JSON fallbacks serialise', async () => {
    const shared = { owner: 'openclaw', labels: ['bug'] }
    const list = namespaceTool('github_list_issues')
    registerIssues(() => ({
      a: shared,
      b: shared,
      views: { open: list, again: list, deep: { update: namespaceTool('github_update_issue') } },
      handlers: [list],
      when: new Date(0),
      big: 10n,
      missing: undefined,
      sparse: [undefined, NaN, Infinity],
      boxed: new String('s'),
      empty: Object.create(null),
    }))
    const { exec, calls } = prepare()
    const result = await exec(`
      const frozen = (v) => Object.isFrozen(v)
      await Issues.views.open({ state: 'open' })
      await Issues.views.again()
      await Issues.handlers[0]({ page: 2 })
      await Issues.views.deep.update(7, { state: 'closed' })
      return {
        a: Issues.a, sameCopy: Issues.a === Issues.b, b: Issues.b, when: Issues.when, big: Issues.big,
        hasMissing: 'missing' in Issues, sparse: Issues.sparse, boxed: Issues.boxed, empty: Issues.empty,
        frozen: [frozen(Issues), frozen(Issues.a), frozen(Issues.a.labels), frozen(Issues.views.deep), frozen(Issues.handlers), frozen(Issues.views.open)],
        same: namespaces.Issues === Issues, kinds: [typeof Issues.views.open, Issues.views.open.name],
      }`)
    assert.equal(result.status, 'completed', result.error)
    assert.deepEqual(result.value, {
      a: { owner: 'openclaw', labels: ['bug'] },
      sameCopy: false,
      b: { owner: 'openclaw', labels: ['bug'] },
      when: '1970-01-01T00:00:00.000Z',
      big: '10',
      hasMissing: false,
      sparse: [null, null, null],
      boxed: 's',
      empty: {},
      frozen: [true, true, true, true, true, true],
      same: true,
      kinds: ['function', 'open'],
    })
    assert.deepEqual(
      calls.map((call) => [call.name, call.input]),
      [
        ['github_list_issues', { state: 'open' }],
        ['github_list_issues', {}],
        ['github_list_issues', { page: 2 }],
        ['github_update_issue', 7],
      ],
    )
  })
})

describe('the host check', () => {
  // namespaces.js is the registry the binding compiles; run here on its own,
  // its per-run `input` is the check every namespace call passes on the host.
  const factory = createRequire(import.meta.url)('../src-js/namespaces.js')
  const registry = factory()

  test('ids and paths this run did not serialise are refused before any mapper runs', async () => {
    let mapped = 0
    registry.register('github', {
      id: 'github-issues',
      globalName: 'Issues',
      requiredToolNames: ['list'],
      createScope: () => ({ list: registry.tool('list', (args) => ++mapped && args[0]) }),
    })
    const { records } = registry.snapshot()
    const run = registry.bind(records, { runId: 'r' })
    const refusal = (id, path) => `code mode namespace call refused: "${id}" has no function at "${path}" in this run.`
    assert.throws(() => run.input('github-issues', 'list', []), { message: refusal('github-issues', 'list') }, 'nothing is serialised before the first exec')
    // The core accepts what it is given here: `done` answers true.
    const outcome = await new Promise((resolve) => run.scopes(1000, undefined, (kind, payload) => (resolve([kind, payload]), true)))
    assert.equal(outcome[0], 'ready')
    assert.deepEqual(JSON.parse(outcome[1]), [{ tree: { list: null }, callables: [{ path: ['list'], tool: 'list' }] }])
    assert.deepEqual(run.input('github-issues', 'list', [{ a: 1 }]), { a: 1 })
    assert.throws(() => run.input('forged-id', 'list', []), { message: refusal('forged-id', 'list') })
    assert.throws(() => run.input('github-issues', 'delete', []), { message: refusal('github-issues', 'delete') })
    assert.throws(() => run.input('github-issues', '__proto__', []), { message: refusal('github-issues', '__proto__') })
    assert.throws(() => run.input('github-issues', 'list', 'not an array'), { message: refusal('github-issues', 'list') })
    const other = registry.bind(records, { runId: 'other' })
    assert.throws(() => other.input('github-issues', 'list', []), { message: refusal('github-issues', 'list') }, 'another run has its own table')
    assert.equal(mapped, 1)
  })
})

