0 // Arrays off the fast path: holes, sparse indices, length writes, defineProperty on elements, frozen arrays, array-likes, very long arrays, sort of mixed values
const sparse = []
sparse[5] = 'five'
sparse[1000] = 'thousand'
const holes = [1, , 3, , 5]
const long = Array.from({ length: 3000 }, (_, i) => i)
long.length = 10
const defined = [1, 2, 3]
Object.defineProperty(defined, 1, { get() { return 'getter' }, enumerable: true })
const frozen = Object.freeze([1, 2])
let frozenPush
try { frozen.push(3) } catch (e) { frozenPush = e.name }
const arrayLike = { length: 3, 0: 'a', 1: 'b', 2: 'c' }
const fromLike = Array.prototype.map.call(arrayLike, (x) => x.toUpperCase())
const mixed = [3, 'b', null, undefined, 1, 'a', { t: 1 }, 2n, -0, NaN]
const sorted = mixed.slice().sort((x, y) => String(x).localeCompare(String(y)))
const nonWritableLength = [1, 2, 3]
Object.defineProperty(nonWritableLength, 'length', { writable: false })
let lengthWrite
try { 'use strict'; nonWritableLength.push(4) } catch (e) { lengthWrite = e.name }
const big = new Array(50000)
big[49999] = 1
const deleted = [1, 2, 3]
delete deleted[1]
const grown = []
for (let i = 0; i < 2000; i++) grown.push({ i })
grown.splice(10, 1500)
const negative = []
negative[-1] = 'neg'
negative['1.5'] = 'frac'
return { sparse: [sparse.length, Object.keys(sparse), sparse.indexOf('thousand')], holes: [holes.length, holes.filter(() => true).length, 1 in holes],
  long: long.length, defined: defined.join(), frozenPush, fromLike, sorted: sorted.map(String), lengthWrite, big: [big.length, big.findLast((x) => x)],
  deleted: [deleted.length, 1 in deleted], grown: grown.length, negative: [negative.length, Object.keys(negative)], flat: [[1, [2, [3]]], [[4]]].flat(Infinity) }
