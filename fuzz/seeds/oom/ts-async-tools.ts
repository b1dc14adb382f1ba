0t// TypeScript with async generics over tools, MCP and the namespace: a typed pipeline with retries, timers and output
type Echo = { text: string }
async function call<T>(name: string, input: object): Promise<T> { return (await tools.call(name, input)) as T }
async function* pages<T>(fetchPage: (n: number) => Promise<T[]>): AsyncGenerator<T> {
  for (let n = 0; n < 3; n++) for (const item of await fetchPage(n)) yield item
}
const collected: string[] = []
for await (const item of pages<string>(async (n) => [(await call<Echo>('echo', { text: 'page ' + n })).text])) collected.push(item)
const docs = (await MCP.docs.searchDocs({ query: 'typed' })) as Record<string, unknown>
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
await sleep(1)
const result = await Promise.allSettled([call<Echo>('fail', { message: 'typed failure' }), call<Echo>('echo', { text: 'ok' })])
console.log('collected', collected.length)
json({ docs })
return { collected, docs, result: result.map((r) => r.status), issues: ((await Issues.list()) as { details: unknown[] }).details.length }
