0 // Promise: every combinator, then/catch/finally, withResolvers, try, AggregateError, queueMicrotask ordering
const order = []
queueMicrotask(() => order.push('microtask'))
const { promise, resolve, reject } = Promise.withResolvers()
setTimeout(() => resolve('resolved later'), 0)
const results = {
  resolve: await Promise.resolve(1), withResolvers: await promise,
  all: await Promise.all([1, Promise.resolve(2), new Promise((r) => setTimeout(() => r(3), 1))]),
  allSettled: (await Promise.allSettled([Promise.reject(new Error('no')), 4])).map((r) => r.status),
  any: await Promise.any([Promise.reject(1), Promise.resolve('any')]),
  race: await Promise.race([new Promise((r) => setTimeout(() => r('slow'), 5)), 'fast']),
  try: await Promise.try((a) => a * 2, 21),
  species: Promise[Symbol.species] === Promise, tag: Promise.prototype[Symbol.toStringTag],
}
try { await Promise.any([Promise.reject(new TypeError('a')), Promise.reject(new RangeError('b'))]) } catch (e) {
  results.aggregate = [e instanceof AggregateError, e.errors.map((x) => x.name), e.message, AggregateError.prototype.message]
}
results.chain = await Promise.reject(new Error('boom'))
  .then(() => 'not here')
  .catch((e) => e.message)
  .finally(() => order.push('finally'))
results.thenable = await { then(ok) { ok('thenable') } }
try { await Promise.try(() => { throw new SyntaxError('sync throw') }) } catch (e) { results.tryThrow = e.name }
const built = new AggregateError([new Error('x')], 'many', { cause: 'c' })
results.built = [built.errors.length, built.message, built.cause]
reject; results.order = order
return results
