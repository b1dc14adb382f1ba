0 // Iterator: from, concat, zip, zipKeyed and every helper (map, filter, take, drop, flatMap, chunks, windows, reduce, toArray, ...)
function* naturals() { let n = 0; while (true) yield n++ }
const out = {
  helpers: naturals().drop(2).filter((n) => n % 2).map((n) => n * 10).take(4).toArray(),
  flatMap: [1, 2].values().flatMap((n) => [n, -n]).toArray(),
  chunks: [...[1, 2, 3, 4, 5].values().chunks(2)], windows: [...[1, 2, 3, 4].values().windows(3)],
  every: [1, 2].values().every((n) => n > 0), some: [1, 2].values().some((n) => n > 1), find: naturals().find((n) => n > 5),
  includes: naturals().take(10).includes(7), join: [1, 2, 3].values().join('+'), reduce: [1, 2, 3].values().reduce((a, b) => a + b),
  from: Iterator.from({ next() { return this.i < 3 ? { value: this.i++, done: false } : { done: true } }, i: 0 }).toArray(),
  concat: Iterator.concat([1], new Set([2]), 'ab'.split('')).toArray(),
  zip: Iterator.zip([[1, 2, 3], ['a', 'b']], { mode: 'longest', padding: [0, '-'] }).toArray(),
  zipKeyed: Iterator.zipKeyed({ x: [1, 2], y: [3, 4] }).toArray(),
  proto: [typeof Iterator.prototype[Symbol.iterator], Iterator.prototype[Symbol.toStringTag], typeof Iterator.prototype[Symbol.dispose]],
}
let each = 0
;[4, 5].values().forEach((n) => { each += n })
out.each = each
const helper = naturals().map((n) => n)
helper.next()
out.helperReturn = helper.return()
const gen = naturals()
gen.next()
out.generator = [gen.return(9), gen.next()]
function* guarded() { try { yield 1 } catch (e) { yield 'caught ' + e } }
const g = guarded()
g.next()
out.generatorThrow = g.throw('x').value
const wrapped = Iterator.from({ next: () => ({ done: true }), return: () => ({ done: true, value: 'closed' }) })
out.wrap = [wrapped.next().done, wrapped.return().value]
class Counter extends Iterator { #n = 0; next() { return this.#n < 2 ? { value: this.#n++, done: false } : { done: true } } }
out.subclass = new Counter().map((x) => x + 1).toArray()
out.stringIter = ''[Symbol.iterator]().next().done
out.regexpIter = /a/g[Symbol.matchAll]('aa').next().value[0]
out.mapIter = new Map([[1, 2]])[Symbol.iterator]().next().value
out.setIter = new Set([1])[Symbol.iterator]().next().value
return out
