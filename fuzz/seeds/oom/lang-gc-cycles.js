0 // Garbage the collector must find: cycles through objects, closures, maps, promises and generators, made in a loop so collections run mid-cell
const kept = []
for (let i = 0; i < 400; i++) {
  const a = { i }
  const b = { a }
  a.b = b
  const f = () => a
  a.f = f
  const m = new Map([[a, b]])
  b.m = m
  const g = (function* () { yield a })()
  a.g = g
  const p = Promise.resolve(a)
  a.p = p
  if (i % 50 === 0) kept.push(a)
}
const weak = new WeakMap(kept.map((k) => [k, k.b]))
const registry = new FinalizationRegistry(() => {})
for (let i = 0; i < 100; i++) registry.register({ i, self: null }, i)
let ring = null
for (let i = 0; i < 300; i++) { const node = { next: ring, prev: null }; if (ring) ring.prev = node; ring = node }
ring = null
const arrays = []
for (let i = 0; i < 100; i++) { const x = [i]; x.push(x); arrays.push(x) }
return { kept: kept.length, weak: kept.every((k) => weak.get(k) === k.b), arrays: arrays.length }
