0 // Async functions and generators: for await, return/throw on async generators, async iteration of sync iterables, await in loops
async function* ticker(n) {
  try {
    for (let i = 0; i < n; i++) {
      await new Promise((r) => setTimeout(r, 0))
      yield i
    }
  } finally {
    log.push('ticker closed')
  }
}
const log = []
for await (const t of ticker(3)) log.push(t)
for await (const v of [Promise.resolve('a'), 'b']) log.push(v)
const it = ticker(10)
log.push((await it.next()).value)
log.push(JSON.stringify(await it.return('early')))
const thrower = ticker(2)
await thrower.next()
try { await thrower.throw(new Error('into generator')) } catch (e) { log.push(e.message) }
const AsyncIteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(ticker.prototype))
log.push(AsyncIteratorPrototype[Symbol.asyncIterator].call(it) === it, typeof AsyncIteratorPrototype[Symbol.asyncDispose])
log.push(ticker.prototype[Symbol.toStringTag] ?? Object.getPrototypeOf(ticker.prototype)[Symbol.toStringTag])
const delays = await Promise.all([30, 10, 20].map(async (ms, i) => { await new Promise((r) => setTimeout(r, ms)); return i }))
const settled = []
await Promise.all([2, 1].map((ms) => new Promise((r) => setTimeout(() => { settled.push(ms); r() }, ms))))
async function retry(fn, times) { for (let i = 0; ; i++) { try { return await fn(i) } catch (e) { if (i >= times) throw e } } }
const retried = await retry(async (i) => { if (i < 2) throw new Error('again'); return 'ok after ' + i }, 3)
return { log, delays, settled, retried }
