0 // Array: constructors and every Array.prototype method, called
const a = Array.from({ length: 6 }, (_, i) => i * 2)
const b = Array.of(5, 1, 4)
const out = {
  isArray: Array.isArray(a), at: a.at(-1), with: a.with(0, 99), concat: a.concat(b, [[7]]),
  every: a.every((x) => x % 2 === 0), some: a.some((x) => x > 8),
  map: a.map((x) => x + 1), filter: a.filter((x) => x > 4),
  reduce: a.reduce((s, x) => s + x, 0), reduceRight: a.reduceRight((s, x) => s + String(x), ''),
  fill: new Array(3).fill('z'), find: a.find((x) => x > 3), findIndex: a.findIndex((x) => x > 3),
  findLast: a.findLast((x) => x < 6), findLastIndex: a.findLastIndex((x) => x < 6),
  indexOf: a.indexOf(4), lastIndexOf: [1, 2, 1].lastIndexOf(1), includes: a.includes(10),
  join: a.join('-'), toString: b.toString(), toLocaleString: b.toLocaleString(),
  toReversed: b.toReversed(), toSorted: b.toSorted(), toSpliced: b.toSpliced(1, 1, 'x'),
  slice: a.slice(1, 3), flat: [1, [2, [3, [4]]]].flat(2), flatMap: b.flatMap((x) => [x, x]),
  keys: [...b.keys()], values: [...b.values()], entries: [...b.entries()],
  unscopables: Object.keys(Array.prototype[Symbol.unscopables]).length > 5,
}
let each = 0
a.forEach((x) => { each += x })
out.each = each
const m = [3, 1, 2]
m.push(9, 8); m.pop(); m.shift(); m.unshift(0); m.reverse(); m.sort((x, y) => x - y)
m.splice(1, 1, 'a', 'b'); m.copyWithin(0, 3)
out.mutated = m
out.iter = [...b[Symbol.iterator]()]
class Sub extends Array { static get [Symbol.species]() { return Array } }
out.species = new Sub(1, 2, 3).map((x) => x).constructor === Array
out.holes = [, 1, , 2].flat().length
out.spreadable = [1].concat({ length: 1, 0: 'o', [Symbol.isConcatSpreadable]: true })
return out
