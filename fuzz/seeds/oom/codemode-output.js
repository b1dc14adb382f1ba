0 // Output: text and json with every kind of value the converter handles, console.log/info/debug/warn/error
const cyclic = { name: 'c' }
cyclic.self = cyclic
const odd = { when: new Date(0), n: 10n ** 20n, err: new TypeError('bad'), m: new Map([[1, 2]]), s: new Set([1]), cyclic,
  fn() {}, sym: Symbol('x'), undef: undefined, nan: NaN, negZero: -0, arr: [undefined, () => 1, , 3],
  custom: { toJSON() { return 'custom' } }, broken: { toJSON() { throw new Error('no') } },
  get thrower() { throw new Error('getter') }, lone: 'a\ud800b', typed: new Uint8Array([1, 2]), proxy: new Proxy({ p: 1 }, {}) }
text('plain text')
text(odd)
text()
json(odd)
json([1, 'two', { three: 3 }])
console.log('log', 1, { a: [1, 2] }, null, undefined)
console.info('info', true)
console.debug('debug', 10n)
console.warn('warn', new Error('careful'))
console.error('error', Symbol('s'))
let deep = 'leaf'
for (let i = 0; i < 100; i++) deep = [deep]
json(deep)
const long = 'x'.repeat(5000)
text(long)
return { returned: odd, kinds: [typeof text, typeof json, typeof console.log, Object.isFrozen(console)] }
