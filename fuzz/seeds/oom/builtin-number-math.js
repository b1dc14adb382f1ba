0 // Number and Math: every constant and function, called
const N = Number
const out = {
  parse: [N.parseInt('ff', 16), N.parseFloat('3.5e2x'), parseInt('0x1A'), parseFloat('.5')],
  checks: [N.isNaN(NaN), N.isFinite(1 / 0), N.isInteger(5.0), N.isSafeInteger(2 ** 53), isNaN('x'), isFinite('1')],
  consts: [N.MAX_VALUE > 1e308, N.MIN_VALUE > 0, N.EPSILON < 1e-15, N.MAX_SAFE_INTEGER, N.MIN_SAFE_INTEGER,
    String(N.NaN), N.NEGATIVE_INFINITY, N.POSITIVE_INFINITY, String(Infinity), String(NaN)],
  format: [(1234.5678).toFixed(2), (1234.5678).toExponential(3), (1234.5678).toPrecision(6), (255).toString(16),
    (1e21).toLocaleString(), new Number(5).valueOf(), (0.000001234).toString(), (-0).toFixed(1)],
  math: [Math.min(3, 1, 2), Math.max(3, 1, 2), Math.abs(-4), Math.floor(-1.5), Math.ceil(1.2), Math.round(2.5),
    Math.sqrt(16), Math.acos(1), Math.asin(0), Math.atan(0), Math.atan2(1, 1), Math.cos(0), Math.exp(0),
    Math.log(Math.E), Math.pow(2, 10), Math.sin(0), Math.tan(0), Math.trunc(-4.7), Math.sign(-3),
    Math.cosh(0), Math.sinh(0), Math.tanh(0), Math.acosh(1), Math.asinh(0), Math.atanh(0), Math.expm1(0),
    Math.log1p(0), Math.log2(8), Math.log10(1000), Math.cbrt(27), Math.hypot(3, 4), Math.f16round(1.337),
    Math.fround(5.5), Math.imul(3, 4), Math.clz32(1), Math.sumPrecise([1e20, 0.1, -1e20])],
  mathConsts: [Math.E, Math.LN10, Math.LN2, Math.LOG2E, Math.LOG10E, Math.PI, Math.SQRT1_2, Math.SQRT2, Math[Symbol.toStringTag]],
  random: (() => { const r = Math.random(); return r >= 0 && r < 1 })(),
  ops: [2 ** -1, 7 % -3, -7 >>> 28, 1 << 31, ~5, 0.1 + 0.2 === 0.3],
}
return out
