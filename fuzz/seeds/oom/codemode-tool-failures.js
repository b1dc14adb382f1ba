0 // Tool failures: the fail tool rejects (caught, rethrown, in Promise.allSettled), bad inputs, unknown tools, errors inside callbacks
const outcomes = []
try { await tools.fail({ message: 'first failure' }) } catch (e) { outcomes.push(['caught', e.name, e.message]) }
const settled = await Promise.allSettled([tools.fail({ message: 'a' }), tools.echo({ text: 'ok' }), tools.call('openclaw:core:fail', {})])
outcomes.push(settled.map((s) => s.status + ':' + (s.reason ? s.reason.message : JSON.stringify(s.value))))
try {
  try { await tools.fail({ message: 'inner' }) } catch (e) { throw new Error('wrapped', { cause: e }) }
} catch (e) { outcomes.push([e.message, e.cause.message]) }
const badInputs = [undefined, null, 5, 'str', [1], { f() {} }, { big: 1n }, { text: 5 }]
for (const input of badInputs) {
  try { const r = await tools.echo(input); outcomes.push(['accepted', JSON.stringify(r)]) } catch (e) { outcomes.push(['refused', e.message.slice(0, 80)]) }
}
const circular = {}
circular.self = circular
try { await tools.echo(circular) } catch (e) { outcomes.push(['circular', e.message.slice(0, 60)]) }
let deep = {}
for (let i = 0; i < 1001; i++) deep = { deep }
try { await tools.echo(deep) } catch (e) { outcomes.push(['deep', e.message.slice(0, 60)]) }
try { await tools.call('no_such_tool', {}) } catch (e) { outcomes.push(['unknown', e.message.slice(0, 60)]) }
try { await tools.call() } catch (e) { outcomes.push(['no id', e.message.slice(0, 60)]) }
try { await tools.search(42) } catch (e) { outcomes.push(['search', e.message.slice(0, 60)]) }
try { await tools.search('x', -1) } catch (e) { outcomes.push(['limit', e.message.slice(0, 60)]) }
const racing = await Promise.race([tools.fail({ message: 'race loser', ms: 20 }).catch((e) => e.message), tools.echo({ text: 'race winner' })])
return { outcomes, racing }
