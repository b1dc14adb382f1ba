0 // Symbol: the registry, descriptions, and every well-known symbol used for what it does
const s = Symbol('desc')
const reg = Symbol.for('app.key')
const out = {
  registry: [Symbol.keyFor(reg), Symbol.keyFor(s), Symbol.for('app.key') === reg],
  describe: [s.description, s.toString(), typeof s.valueOf(), Object(s)[Symbol.toPrimitive]('default') === s, Symbol.prototype[Symbol.toStringTag]],
}
const money = { amount: 5, [Symbol.toPrimitive](hint) { return hint === 'number' ? this.amount : '$' + this.amount } }
out.toPrimitive = [+money, `${money}`, money + '']
const spread = { length: 2, 0: 'x', 1: 'y', [Symbol.isConcatSpreadable]: true }
out.spreadable = [].concat(spread)
class Tagged { get [Symbol.toStringTag]() { return 'Tagged' } }
out.tag = Object.prototype.toString.call(new Tagged())
const scope = { hidden: 'from with', shown: 'visible', [Symbol.unscopables]: { hidden: true } }
var hidden = 'outer'
with (scope) { out.unscopables = [hidden, shown] }
class MyArray extends Array { static get [Symbol.species]() { return Array } }
out.species = new MyArray(1, 2).filter(Boolean) instanceof MyArray
const matcher = { flags: 'g', [Symbol.match]: (s) => ['matched ' + s], [Symbol.matchAll]: function* (s) { yield s },
  [Symbol.replace]: (s, r) => s + r, [Symbol.search]: () => 42, [Symbol.split]: (s) => s.split('') }
out.protocols = ['ab'.match(matcher)[0], [...'ab'.matchAll(matcher)], 'ab'.replace(matcher, '!'), 'ab'.search(matcher), 'ab'.split(matcher)]
const iterable = { *[Symbol.iterator]() { yield 1; yield 2 } }
const asyncIterable = { async *[Symbol.asyncIterator]() { yield 3 } }
out.iterators = [...iterable]
for await (const v of asyncIterable) out.iterators.push(v)
out.disposers = [typeof Symbol.dispose, typeof Symbol.asyncDispose, typeof Symbol.hasInstance]
out.keys = Reflect.ownKeys({ [s]: 1, a: 2 }).length
return out
