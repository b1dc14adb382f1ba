0 // tools: search, describe, call and the tools.<name> shortcuts (echo, fail, list_issues, update_issue), misses with suggestions
const found = await tools.search('echo')
const limited = await tools.search('issue', 1)
const described = await tools.describe(found[0].id)
const byName = await tools.describe('list_issues')
const called = await tools.call(found[0].id, { text: 'hi', nested: { list: [1, 2, 3] } })
const shortcut = await tools.echo({ text: 'shortcut' })
const issues = await tools.list_issues({})
const updated = await tools.update_issue({ number: 1, state: 'closed' })
let failed
try { await tools.fail({ message: 'tool said no' }) } catch (e) { failed = [e.name, e.message] }
let missing
try { await tools.describe('nonexistent_tool') } catch (e) { missing = e.message }
let unknown
try { await tools.call('openclaw:core:ech', {}) } catch (e) { unknown = e.message }
const parallel = await Promise.all([1, 2, 3].map((i) => tools.echo({ text: 'p' + i, ms: 3 - i })))
return {
  found: found.map((t) => t.id), limited: limited.length, described: [described.id, Object.keys(described.parameters), typeof described.declaration],
  byName: byName.name, called, shortcut, issues, updated, failed, missing, unknown, parallel: parallel.map((r) => r.text),
  frozen: Object.isFrozen(tools), members: Object.getOwnPropertyNames(tools), kinds: [typeof tools.search, typeof tools.describe, typeof tools.call],
}
