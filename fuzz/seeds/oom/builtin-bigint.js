0 // BigInt: arithmetic past 64 bits, asIntN, asUintN, conversions and mixing errors
const big = 2n ** 200n - 1n
const out = {
  ops: [String(big % 1000007n), String(big / 3n ** 50n), String(-big >> 190n), String(big & 0xffffn), String(big ^ 1n),
    String(~5n), String(-(7n) % 3n), String(big * big).length],
  asIntN: [String(BigInt.asIntN(8, 255n)), String(BigInt.asUintN(8, -1n)), String(BigInt.asIntN(64, 2n ** 63n)), String(BigInt.asUintN(128, -1n))],
  convert: [String(BigInt('0x' + 'f'.repeat(30))), String(BigInt(Number.MAX_SAFE_INTEGER) + 2n), Number(2n ** 60n),
    (123n).toString(2), (255n).toString(36), String(Object(5n).valueOf()), typeof BigInt(1)],
  compare: [10n > 9, 10n == 10, 10n === 10, [3n, 1n, 2n].sort().join()],
  tag: BigInt.prototype[Symbol.toStringTag],
}
try { 1n + 1 } catch (e) { out.mixed = e.name }
try { BigInt(1.5) } catch (e) { out.fraction = e.name }
try { 1n / 0n } catch (e) { out.divide = e.name }
out.json = JSON.stringify({ n: 5n }, (k, v) => (typeof v === 'bigint' ? v.toString() + 'n' : v))
return out
