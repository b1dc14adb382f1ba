0 // Map and Set: every method, the set algebra, groupBy, getOrInsert and getOrInsertComputed
const m = new Map([['a', 1], ['b', 2]])
m.set('c', 3)
m.delete('a')
const out = {
  map: [m.get('b'), m.has('a'), m.size, [...m.keys()], [...m.values()], [...m.entries()], [...m[Symbol.iterator]()].length,
    m.getOrInsert('d', 4), m.getOrInsert('d', 5), m.getOrInsertComputed('e', (k) => k + '!'), m[Symbol.toStringTag]],
  groupBy: [...Map.groupBy(['apple', 'avocado', 'banana'], (w) => w[0]).entries()],
  species: [Map[Symbol.species] === Map, Set[Symbol.species] === Set],
}
let seen = 0
m.forEach((v, k) => { seen += typeof v === 'number' ? v : k.length })
m.clear()
out.cleared = [seen, m.size]
const s = new Set([1, 2, 3, 4])
const t = new Set([3, 4, 5])
s.add(6)
s.delete(1)
out.set = [s.has(2), s.size, [...s.values()], [...s.keys()], [...s.entries()][0], [...s[Symbol.iterator]()].length, s[Symbol.toStringTag]]
out.algebra = [[...s.union(t)], [...s.intersection(t)], [...s.difference(t)], [...s.symmetricDifference(t)],
  s.isSubsetOf(new Set([2, 3, 4, 6, 9])), s.isSupersetOf(new Set([2])), s.isDisjointFrom(new Set([7]))]
let count = 0
s.forEach(() => { count++ })
s.clear()
out.count = [count, s.size]
const keyed = new Map([[{}, 1], [NaN, 'nan'], [0, 'zero']])
out.sameValueZero = [keyed.get(NaN), keyed.get(-0)]
return out
