// The guest-facing catalog: tools.search scoring and limits, tools.describe and
// lookup with its recovery messages, convenience functions
// (docs/catalog.md).
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { attemptValue as value, codeModeFactory, RECOVERY, tool, unknownToolId } from './helpers.mjs'

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

const ids = (entries) => entries.map((entry) => entry.id)

describe('tools.search (docs/catalog.md)', () => {
  // Scores for "mail", by docs/catalog.md: +20 name/id equals, +8 name contains,
  // +6 id contains, +4 label contains, +2 description contains.
  const SEARCH_TOOLS = [
    tool('x_desc', { description: 'Send mail' }), //               desc 2            = 2
    tool('x_label', { label: 'Mail sender' }), //                  label 4           = 4
    tool('mailer'), //                                             name 8 + id 6     = 14
    tool('zzz', { description: 'nothing here' }), //               0, dropped
    tool('x_both', { label: 'MAIL', description: 'Mail' }), //     label 4 + desc 2  = 6
    tool('mail'), //                                               20 + 8 + 6        = 34
    tool('x_owner', { source: 'client', sourceName: 'mail' }), //  id 6 (client:mail:x_owner) = 6
    tool('sender'), //                                             ("send": 8 + 6 = 14)
    tool('B_tool'),
    tool('a_tool'),
  ]
  const run = codeModes.enabled().prepareRun({ runId: 'r', tools: SEARCH_TOOLS, executeTool: () => null })
  const catalogIds = ids(run.catalog)

  test('scores add up; ties sort by id', async () => {
    const got = await value(run, `
      return {
        mail: (await tools.search('mail')).map((e) => e.id),
        upper: (await tools.search('MAIL')).map((e) => e.id),
      }`)
    const expected = [
      'openclaw:core:mail', // 34
      'openclaw:core:mailer', // 14
      'client:mail:x_owner', // 6 (tie, by id)
      'openclaw:core:x_both', // 6
      'openclaw:core:x_label', // 4
      'openclaw:core:x_desc', // 2
    ]
    assert.deepEqual(got.mail, expected)
    assert.deepEqual(got.upper, expected, 'the query is lower-cased')
  })

  test('several terms add their scores; separators split terms', async () => {
    const got = await value(run, `return (await tools.search('MAIL, send!', { limit: 50 })).map((e) => e.id)`)
    assert.deepEqual(got, [
      'openclaw:core:mail', // 34 + 0
      'openclaw:core:mailer', // 14 + 0 (tie with sender, by id)
      'openclaw:core:sender', // 0 + 14
      'openclaw:core:x_label', // 4 + 4
      'client:mail:x_owner', // 6 + 0
      'openclaw:core:x_both', // 6 + 0
      'openclaw:core:x_desc', // 2 + 2
    ])
  })

  test('a term equal to an id scores 20; ":" stays inside a term', async () => {
    const got = await value(run, `return (await tools.search('openclaw:core:mail')).map((e) => e.id)`)
    // mail: id equals 20 + id contains 6 = 26; mailer: id contains 6.
    assert.deepEqual(got, ['openclaw:core:mail', 'openclaw:core:mailer'])
  })

  test('ties sort by id in plain code-unit order (uppercase before lowercase)', async () => {
    const got = await value(run, `
      return {
        tool: (await tools.search('tool')).map((e) => e.id),
        exact: (await tools.search('b_tool')).map((e) => e.id),
      }`)
    assert.deepEqual(got.tool, ['openclaw:core:B_tool', 'openclaw:core:a_tool'])
    assert.deepEqual(got.exact, ['openclaw:core:B_tool'], 'names are compared lower-cased')
  })

  test('_ . / : - stay inside terms; other characters (non-ASCII letters too) split them', async () => {
    const tools = [tool('fs.read'), tool('read_fs'), tool('my-tool'), tool('tool_my'), tool('path/x'), tool('x_path'), tool('cafe_menu')]
    const small = codeModes.enabled().prepareRun({ runId: 'r', tools, executeTool: () => null })
    const got = await value(small, `
      const names = async (query) => (await tools.search(query)).map((e) => e.name)
      return [await names('fs.read'), await names('MY-TOOL'), await names('path/x'), await names('Café'), await names('read,fs')]`)
    assert.deepEqual(got, [
      ['fs.read'],
      ['my-tool'],
      ['path/x'],
      ['cafe_menu'], // "café" -> the term "caf"
      ['fs.read', 'read_fs'], // "read" and "fs": 8 + 6 each, for both names
    ])
  })

  test('no terms: every entry (score 1) by id, up to the default limit of 8', async () => {
    const byId = [...catalogIds].sort()
    assert.ok(byId.length > 8)
    const got = await value(run, `
      return {
        empty: (await tools.search('')).map((e) => e.id),
        separators: (await tools.search('  !!! ,, ???')).map((e) => e.id),
        all: (await tools.search('', { limit: 50 })).map((e) => e.id),
      }`)
    assert.deepEqual(got.empty, byId.slice(0, 8))
    assert.deepEqual(got.separators, byId.slice(0, 8))
    assert.deepEqual(got.all, byId)
  })

  test('search returns compact entries, equal to ALL_TOOLS entries', async () => {
    const got = await value(run, `
      const found = await tools.search('mail')
      return { found, same: found.every((e) => JSON.stringify(e) === JSON.stringify(ALL_TOOLS.find((a) => a.id === e.id))) }`)
    assert.equal(got.same, true)
    assert.deepEqual(got.found[0], { id: 'openclaw:core:mail', name: 'mail', description: '', source: 'openclaw' })
    assert.deepEqual(got.found.find((e) => e.name === 'x_both'), {
      id: 'openclaw:core:x_both', name: 'x_both', label: 'MAIL', description: 'Mail', source: 'openclaw',
    })
    for (const entry of got.found) assert.equal('parameters' in entry, false)
  })

  test('default limit is searchDefaultLimit; limits clamp to maxSearchLimit', async () => {
    const tools = Array.from({ length: 12 }, (_, i) => tool(`t${String(i).padStart(2, '0')}`))
    const names = tools.map((t) => t.name)
    const small = codeModes.enabled({ searchDefaultLimit: 3, maxSearchLimit: 5 }).prepareRun({ runId: 'r', tools, executeTool: () => null })
    const got = await value(small, `
      const names = async (...args) => (await tools.search(...args)).map((e) => e.name)
      return [await names(''), await names('', {}), await names('', { limit: 2 }), await names('', { limit: 5 }), await names('', { limit: 100 }), await names('t0')]`)
    assert.deepEqual(got, [
      names.slice(0, 3), names.slice(0, 3), names.slice(0, 2), names.slice(0, 5), names.slice(0, 5),
      names.slice(0, 3), // t00..t09 all score 8 + 6; cut to the default 3
    ])
    const clamped = codeModes.enabled({ searchDefaultLimit: 20, maxSearchLimit: 4 }).prepareRun({ runId: 'r', tools, executeTool: () => null })
    assert.deepEqual(await value(clamped, `return (await tools.search('')).map((e) => e.name)`), names.slice(0, 4))
  })

  test('a limit that is not a positive integer is a guest error', async () => {
    const got = await value(run, `
      const out = []
      for (const limit of [0, -1, 1.5, '3', NaN, Infinity, null, true, {}]) out.push(await attempt(() => tools.search('mail', { limit })))
      out.push(await attempt(async () => (await tools.search('mail', { limit: 1 })).length))
      return out`)
    const last = got.pop()
    assert.deepEqual(last, { ok: 1 })
    const labels = ['0', '-1', '1.5', "'3'", 'NaN', 'Infinity', 'null', 'true', '{}']
    got.forEach((outcome, i) => {
      // null may reasonably mean "absent" (as for exec fields, docs/surface.md); every other case must fail.
      if (labels[i] === 'null' && 'ok' in outcome) return
      assert.equal(outcome.error, 'limit must be a positive integer.', labels[i])
      assert.equal(outcome.isError, true, labels[i])
    })
  })
})

describe('tools.describe and lookup (docs/catalog.md)', () => {
  const READ_SCHEMA = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
  const LOOKUP_TOOLS = [
    tool('record'),
    tool('read', { description: 'Read a file', label: 'Read', parameters: READ_SCHEMA }),
    tool('rename'),
    tool('reboot'),
    tool('dup', { description: 'core dup' }),
    tool('dup', { description: 'client dup', source: 'client' }),
    tool('client:client:zz', { description: 'a name that looks like an id' }),
    tool('zz', { description: 'the real id client:client:zz', source: 'client' }),
    tool('widget', { description: 'Will frobnicate things' }),
  ]
  const calls = []
  const run = codeModes.enabled().prepareRun({ runId: 'r', tools: LOOKUP_TOOLS, executeTool: (call) => { calls.push(call.id); return call.id } })

  test('describe adds parameters ({} when absent)', async () => {
    const got = await value(run, `return [await tools.describe('openclaw:core:read'), await tools.describe('reboot')]`)
    const { declaration, ...entry } = got[0]
    assert.deepEqual(entry, {
      id: 'openclaw:core:read', name: 'read', label: 'Read', description: 'Read a file', source: 'openclaw', parameters: READ_SCHEMA,
    })
    assert.equal(typeof declaration, 'string')
    assert.deepEqual(got[1], {
      id: 'openclaw:core:reboot', name: 'reboot', description: '', source: 'openclaw', parameters: {},
      declaration: 'reboot(input?: Record<string, unknown>): Promise<unknown>;\n',
    })
  })

  test('describe adds declaration: the TypeScript signature of the input, with its notes', async () => {
    assert.equal(
      await value(run, `return (await tools.describe('openclaw:core:read')).declaration`),
      '/** Read a file */\nread(input: {\n  path: string;\n}): Promise<unknown>;\n',
    )
    const schema = {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file to read' },
        encoding: { enum: ['utf8', 'base64'], default: 'utf8' },
        lines: { type: 'array', items: { type: 'integer', minimum: 1 } },
      },
      required: ['path'],
    }
    const rich = codeModes.enabled().prepareRun({
      runId: 'r',
      tools: [tool('read_file', { description: 'Read a file from the workspace.', parameters: schema }), tool('my-tool', { parameters: { type: 'array' } })],
      executeTool: () => null,
    })
    const [declaration, odd] = await value(rich, "return [(await tools.describe('read_file')).declaration, (await tools.describe('my-tool')).declaration]")
    assert.equal(declaration, [
      '/**',
      ' * Read a file from the workspace.',
      ' *',
      ' * Not expressed in these types (its parameters have the whole schema):',
      ' * - lines[]: integer, minimum 1',
      ' *',
      ' * @param path The file to read',
      ' * @param encoding Default: "utf8"',
      ' */',
      'read_file(input: {',
      '  path: string;',
      '  encoding?: "utf8" | "base64";',
      '  lines?: number[];',
      '}): Promise<unknown>;',
      '',
    ].join('\n'))
    assert.equal(odd, '/** The input schema does not describe an object; its parameters have it. */\n"my-tool"(input?: unknown): Promise<unknown>;\n')
  })

  test('exact id first, then a unique name; the same for call', async () => {
    const got = await value(run, `
      return {
        byId: (await tools.describe('client:client:zz')).description,
        namedLikeId: (await tools.describe('openclaw:core:client:client:zz')).name,
        nameOnly: (await tools.describe('zz')).id,
        dupById: (await tools.describe('client:client:dup')).description,
        call: await tools.call('client:client:zz', {}),
        callByName: await tools.call('reboot', {}),
      }`)
    assert.equal(got.byId, 'the real id client:client:zz', 'the exact id wins over a tool named like it')
    assert.equal(got.namedLikeId, 'client:client:zz')
    assert.equal(got.nameOnly, 'client:client:zz')
    assert.equal(got.dupById, 'client dup')
    assert.equal(got.call, 'client:client:zz')
    assert.equal(got.callByName, 'openclaw:core:reboot')
  })

  test('an ambiguous name is an error for describe and call', async () => {
    const before = calls.length
    const got = await value(run, `return [await attempt(() => tools.describe('dup')), await attempt(() => tools.call('dup', {}))]`)
    for (const outcome of got) {
      assert.equal(outcome.error, 'Ambiguous tool name: dup; use an exact tool id.')
      assert.equal(outcome.isError, true)
    }
    assert.equal(calls.length, before, 'nothing reached the executor')
  })

  test('unknown ids: suggestions (at most 3, ties by id, ids for ambiguous names) and the recovery sentence', async () => {
    const before = calls.length
    const got = await value(run, `
      return [
        await attempt(() => tools.describe('openclaw:core:re')),
        await attempt(() => tools.call('openclaw:core:re', {})),
        await attempt(() => tools.describe('dupx')),
        await attempt(() => tools.describe('qqq')),
        await attempt(() => tools.call('qqq', {})),
        await attempt(() => tools.describe('frobnicate')),
      ]`)
    // "openclaw:core:re": the ids of read/reboot/record/rename contain it (+40)
    // and share the tokens openclaw and core (+24): the best 3 by id.
    assert.equal(got[0].error, unknownToolId('openclaw:core:re', ['read', 'reboot', 'record']))
    assert.equal(got[1].error, got[0].error)
    // "dupx" contains the name dup of two entries: shown by id.
    assert.equal(got[2].error, unknownToolId('dupx', ['client:client:dup', 'openclaw:core:dup']))
    assert.equal(got[3].error, `Unknown tool id: qqq. ${RECOVERY}`)
    assert.equal(got[4].error, got[3].error)
    assert.equal(
      got[3].error,
      'Unknown tool id: qqq. Use tools.search to find a tool, tools.describe to inspect it, then tools.call with the exact id or name.',
    )
    // "frobnicate" only occurs in widget's description (+8).
    assert.equal(got[5].error, unknownToolId('frobnicate', ['widget']))
    for (const outcome of got) assert.equal(outcome.isError, true)
    assert.equal(calls.length, before)
  })
})

describe('convenience functions (docs/catalog.md)', () => {
  const tools = [
    tool('alpha'),
    tool('my-tool'),
    tool('2fast'),
    tool('search'),
    tool('describe'),
    tool('call'),
    tool('dup'),
    tool('dup', { source: 'client' }),
    tool('$ok_name'),
    tool('direct_only', { directOnly: true }),
  ]
  const calls = []
  const run = codeModes.enabled().prepareRun({ runId: 'r', tools, executeTool: (call) => { calls.push(call.id); return `ran ${call.name}` } })

  test('exist only for unique identifier names that are not search/describe/call', async () => {
    const got = await value(run, `
      const kinds = {}
      for (const name of ['alpha', '$ok_name', 'my-tool', '2fast', 'dup', 'direct_only']) kinds[name] = typeof tools[name]
      return {
        kinds,
        alpha: await tools.alpha({}),
        dollar: await tools.$ok_name({}),
        helpers: {
          search: (await tools.search('alpha')).map((e) => e.id),
          describe: (await tools.describe('alpha')).id,
          call: await tools.call('alpha', {}),
        },
        viaCall: [
          await tools.call('my-tool', {}), await tools.call('2fast', {}), await tools.call('search', {}),
          await tools.call('openclaw:core:describe', {}), await tools.call('call', {}), await tools.call('client:client:dup', {}),
        ],
      }`)
    assert.deepEqual(got.kinds, {
      alpha: 'function', $ok_name: 'function', 'my-tool': 'undefined', '2fast': 'undefined', dup: 'undefined', direct_only: 'undefined',
    })
    assert.equal(got.alpha, 'ran alpha')
    assert.equal(got.dollar, 'ran $ok_name')
    assert.deepEqual(got.helpers, { search: ['openclaw:core:alpha'], describe: 'openclaw:core:alpha', call: 'ran alpha' })
    assert.deepEqual(got.viaCall, ['ran my-tool', 'ran 2fast', 'ran search', 'ran describe', 'ran call', 'ran dup'])
    assert.deepEqual(calls, [
      'openclaw:core:alpha', 'openclaw:core:$ok_name', 'openclaw:core:alpha', 'openclaw:core:my-tool', 'openclaw:core:2fast',
      'openclaw:core:search', 'openclaw:core:describe', 'openclaw:core:call', 'client:client:dup',
    ])
  })
})
