0 // Typed arrays and buffers with species, subclasses, length-tracking views over resizable buffers, detached buffers, and conversions between kinds
class Bytes extends Uint8Array { sum() { return this.reduce((a, b) => a + b, 0) } }
const b = Bytes.from([1, 2, 3, 4])
const mapped = b.map((x) => x * 2)
const sliced = b.slice(1)
const rab = new ArrayBuffer(4, { maxByteLength: 32 })
const tracking = new Int16Array(rab)
rab.resize(16)
const afterGrow = tracking.length
rab.resize(2)
const afterShrink = tracking.length
const moved = new ArrayBuffer(8)
const view = new Float32Array(moved)
moved.transfer()
let detached
try { view.fill(1); detached = view.length } catch (e) { detached = e.name }
const conversions = [new Uint8ClampedArray([300, -5, 1.5]), new Int8Array(new Uint16Array([65535, 128])), new Float64Array(new BigInt64Array([5n]).map(() => 7n).length)]
const shared = new ArrayBuffer(16)
const a32 = new Uint32Array(shared)
const a8 = new Uint8Array(shared, 4, 4)
a32[1] = 0x01020304
const dv = new DataView(shared)
class Buf extends ArrayBuffer {}
const sub = new Buf(8).slice(0, 4)
return { sub: [b.sum(), mapped instanceof Bytes, sliced.constructor.name], track: [afterGrow, afterShrink], detached,
  conversions: conversions.map((c) => [...c].join()), aliasing: [...a8].join(), dv: dv.getUint32(4, true), buf: sub instanceof Buf,
  set: (() => { const t = new Uint8Array(8); t.set(new Uint16Array([1, 258]), 2); t.set([9, 9], 6); return [...t] })() }
