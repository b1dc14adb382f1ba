0 // Object: every static function and every Object.prototype method, called
const proto = { greet() { return 'hi ' + this.name } }
const o = Object.create(proto, { name: { value: 'ada', enumerable: true, writable: true, configurable: true } })
Object.defineProperty(o, 'hidden', { value: 1, enumerable: false, configurable: true })
Object.defineProperties(o, { a: { value: 1, enumerable: true }, b: { get() { return 2 }, enumerable: true } })
const sym = Symbol('s')
o[sym] = 'symbol-valued'
const out = {
  proto: Object.getPrototypeOf(o) === proto,
  names: Object.getOwnPropertyNames(o),
  symbols: Object.getOwnPropertySymbols(o).map(String),
  keys: Object.keys(o), values: Object.values(o), entries: Object.entries(o),
  desc: Object.getOwnPropertyDescriptor(o, 'name'),
  descs: Object.keys(Object.getOwnPropertyDescriptors(o)),
  is: [Object.is(NaN, NaN), Object.is(0, -0)],
  assign: Object.assign({}, { x: 1 }, null, { y: 2 }),
  fromEntries: Object.fromEntries([['k', 1], ['l', 2]]),
  hasOwn: Object.hasOwn(o, 'name'),
  groupBy: Object.groupBy([1, 2, 3, 4, 5], (n) => (n % 2 ? 'odd' : 'even')),
}
const sealed = Object.seal({ s: 1 })
const frozen = Object.freeze({ f: 1 })
const closed = Object.preventExtensions({ p: 1 })
out.flags = [Object.isSealed(sealed), Object.isFrozen(frozen), Object.isExtensible(closed), Object.isExtensible(o)]
out.nullProto = Object.getPrototypeOf(Object.setPrototypeOf({ q: 1 }, null))
const p = Object.prototype
out.protoMethods = [
  p.toString.call([]), o.toLocaleString(), typeof o.valueOf(), o.hasOwnProperty('name'),
  proto.isPrototypeOf(o), o.propertyIsEnumerable('hidden'), ({}).__proto__ === p,
]
const legacy = {}
legacy.__defineGetter__('g', function () { return 42 })
legacy.__defineSetter__('g', function (v) { this._g = v })
legacy.g = 7
out.legacy = [legacy.g, legacy._g, typeof legacy.__lookupGetter__('g'), typeof legacy.__lookupSetter__('g')]
out.greet = o.greet()
return out
