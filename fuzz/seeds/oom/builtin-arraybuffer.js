0 // ArrayBuffer (resizable, transfer, immutable) and DataView: every getter and setter
const rab = new ArrayBuffer(8, { maxByteLength: 64 })
const view = new Uint8Array(rab)
rab.resize(32)
const out = {
  sizes: [rab.byteLength, rab.maxByteLength, rab.resizable, view.length, rab.detached],
  isView: [ArrayBuffer.isView(view), ArrayBuffer.isView(rab)], species: ArrayBuffer[Symbol.species] === ArrayBuffer,
  tag: rab[Symbol.toStringTag],
}
const sliced = rab.slice(0, 4)
const moved = rab.transfer(16)
out.transfer = [rab.detached, moved.byteLength, sliced.byteLength, moved.resizable]
const fixed = moved.transferToFixedLength()
out.fixed = [fixed.resizable, fixed.byteLength, moved.detached]
const frozen = fixed.sliceToImmutable(0, 8)
out.immutable = [frozen.immutable, fixed.immutable, frozen.byteLength]
try { new Uint8Array(frozen)[0] = 1; out.write = new Uint8Array(frozen)[0] } catch (e) { out.write = e.name }
const sealed = fixed.transferToImmutable()
out.sealed = [sealed.immutable, fixed.detached]
const dv = new DataView(new ArrayBuffer(64), 0, 64)
dv.setInt8(0, -1); dv.setUint8(1, 255); dv.setInt16(2, -2, true); dv.setUint16(4, 65535)
dv.setInt32(6, -3, true); dv.setUint32(10, 4e9); dv.setBigInt64(14, -5n, true); dv.setBigUint64(22, 6n)
dv.setFloat16(30, 1.5); dv.setFloat32(32, 2.5, true); dv.setFloat64(36, Math.PI)
out.dataView = [dv.getInt8(0), dv.getUint8(1), dv.getInt16(2, true), dv.getUint16(4), dv.getInt32(6, true),
  dv.getUint32(10), String(dv.getBigInt64(14, true)), String(dv.getBigUint64(22)), dv.getFloat16(30),
  dv.getFloat32(32, true), dv.getFloat64(36), dv.buffer.byteLength, dv.byteLength, dv.byteOffset, dv[Symbol.toStringTag]]
const growing = new ArrayBuffer(4, { maxByteLength: 16 })
const tracking = new DataView(growing)
growing.resize(12)
out.tracking = tracking.byteLength
return out
