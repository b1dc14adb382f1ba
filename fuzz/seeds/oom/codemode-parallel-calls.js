0 // Many nested calls at once: Promise.all over tools, MCP and the namespace, results arriving out of order, calls from timers and from async generators, a failing call among them
const started = []
const calls = []
for (let i = 0; i < 24; i++) {
  started.push(i)
  calls.push(i % 6 === 5 ? tools.fail({ message: 'failure ' + i }).catch((e) => e.message) : tools.echo({ text: 'call ' + i, ms: (i * 7) % 5 }))
}
calls.push(MCP.docs.searchDocs({ query: 'parallel', limit: 2 }), MCP.github.createIssue({ title: 't' }), Issues.list(), Issues.issue.update({ number: 3 }))
const results = await Promise.all(calls)
async function* stream() { for (let i = 0; i < 5; i++) yield tools.echo({ text: 's' + i, ms: 5 - i }) }
const streamed = []
for await (const r of stream()) streamed.push(r.text)
const fromTimers = await new Promise((resolve) => {
  const got = []
  for (let i = 0; i < 4; i++) setTimeout(async () => { got.push((await tools.echo({ text: 't' + i })).text); if (got.length === 4) resolve(got.sort()) }, i)
})
const raced = await Promise.race([tools.echo({ text: 'slow', ms: 20 }), tools.echo({ text: 'fast' })])
return { count: results.length, texts: results.slice(0, 6).map((r) => (typeof r === 'string' ? r : r.text)), streamed, fromTimers, raced: raced.text }
