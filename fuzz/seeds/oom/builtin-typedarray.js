0 // Typed arrays: every constructor, BYTES_PER_ELEMENT, and every %TypedArray% method, called
const kinds = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float16Array, Float32Array, Float64Array]
const sizes = kinds.map((K) => [K.name, K.BYTES_PER_ELEMENT, K.prototype.BYTES_PER_ELEMENT])
const big = [new BigInt64Array([1n, -2n]), new BigUint64Array([3n, 4n])]
sizes.push([BigInt64Array.BYTES_PER_ELEMENT, BigUint64Array.BYTES_PER_ELEMENT, BigInt64Array.prototype.BYTES_PER_ELEMENT,
  BigUint64Array.prototype.BYTES_PER_ELEMENT, String(big[0][1] + big[1][0])])
const TypedArray = Object.getPrototypeOf(Int8Array)
const t = Float64Array.from([5, 3, 9, 1], (x) => x * 2)
const u = TypedArray.of.call(Int16Array, 4, 2, 8)
const out = {
  sizes, species: TypedArray[Symbol.species] === TypedArray, tag: t[Symbol.toStringTag],
  at: t.at(-1), with: [...u.with(0, 7)], buffer: t.buffer.byteLength, byteLength: t.byteLength,
  byteOffset: new Uint8Array(new ArrayBuffer(8), 2).byteOffset,
  values: [...u.values()], keys: [...u.keys()], entries: [...u.entries()],
  every: u.every((x) => x % 2 === 0), some: u.some((x) => x > 7),
  map: [...u.map((x) => x * 3)], filter: [...u.filter((x) => x > 2)],
  reduce: u.reduce((s, x) => s + x), reduceRight: u.reduceRight((s, x) => s + '' + x, ''),
  find: u.find((x) => x > 3), findIndex: u.findIndex((x) => x > 3),
  findLast: u.findLast((x) => x > 3), findLastIndex: u.findLastIndex((x) => x > 3),
  toReversed: [...u.toReversed()], toSorted: [...u.toSorted()], slice: [...t.slice(1, 3)],
  subarray: [...t.subarray(2)], join: u.join('|'), toLocaleString: u.toLocaleString(), toString: u.toString(),
  indexOf: u.indexOf(2), lastIndexOf: u.lastIndexOf(8), includes: u.includes(4),
  iter: [...u[Symbol.iterator]()],
}
let sum = 0
u.forEach((x) => { sum += x })
out.sum = sum
const w = new Int32Array(8)
w.set([1, 2, 3], 1); w.fill(7, 5); w.copyWithin(0, 1, 3); w.reverse(); w.sort()
out.mutated = [...w]
out.each = kinds.map((K) => { const x = new K([1.5, 2, 300]); return [x[0], x.length, x.constructor === K] })
out.f16 = [...new Float16Array([65504, 1 / 3])]
return out
