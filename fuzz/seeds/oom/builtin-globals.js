0 // Global functions and values: URI coding, escape/unescape, parseInt/parseFloat, isNaN/isFinite, eval, globalThis, undefined, NaN, Infinity, queueMicrotask
const uri = 'https://ex.com/a b?q=ü&x=1#frag'
const out = {
  encodeURI: encodeURI(uri), encodeURIComponent: encodeURIComponent(uri),
  decodeURI: decodeURI('%E2%82%AC%20x'), decodeURIComponent: decodeURIComponent('a%2Fb%3D%C3%BC'),
  escape: escape('ä b+c'), unescape: unescape('%E4%20b%u20AC'),
  parse: [parseInt('08'), parseInt('z', 36), parseFloat('1e3'), parseFloat('-.5e-1x')],
  checks: [isNaN(undefined), isFinite(null), isNaN('12'), isFinite('Infinity')],
  values: [typeof undefined, undefined === void 0, NaN !== NaN, Infinity > 1e308, -Infinity < 0],
  eval: [eval('[1, 2].length'), globalThis.eval('typeof tools')],
  global: [globalThis === globalThis.globalThis, typeof globalThis.setTimeout, Object.keys(globalThis).length >= 0,
    globalThis[Symbol.toStringTag] ?? Object.prototype.toString.call(globalThis)],
}
try { decodeURIComponent('%E0%A4%A') } catch (e) { out.malformed = e.name }
try { encodeURI('\ud800') } catch (e) { out.lone = e.name }
out.order = await new Promise((resolve) => {
  const seen = []
  queueMicrotask(() => seen.push('micro 1'))
  Promise.resolve().then(() => seen.push('then'))
  queueMicrotask(() => { seen.push('micro 2'); resolve(seen) })
})
try { queueMicrotask('not a function') } catch (e) { out.badMicrotask = e.name }
globalThis.added = 1
out.added = typeof added
out.missing = [typeof require, typeof process, typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly, typeof performance]
return out
