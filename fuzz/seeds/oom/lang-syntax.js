0 // Syntax: destructuring with defaults and rest, spread, optional chaining, nullish and logical assignment, labels, switch, tagged templates, getters, computed keys, comma, exponent, sloppy with/arguments
const { a = 1, b: { c, ...restB } = {}, ...rest } = { b: { c: 3, d: 4, e: 5 }, f: 6, g: 7 }
const [x, , y = 'default', ...others] = [10, 20, undefined, 40, 50]
const merged = { ...rest, ...restB, ...(null), ...'hi' }
const arr = [...others, ...new Set([1, 1, 2]), ...'ab']
const deep = { p: { q: null } }
let n = null
n ??= 'set'
let t = 1
t &&= 2
let f = 0
f ||= 3
const tag = (strings, ...values) => strings.raw.join('|') + values.join(',')
const key = 'dyn'
const obj = { [key + 'amic']: 1, get computed() { return 'got' }, set computed(v) { this.v = v }, method() { return 'm' }, 'quoted key': 2, 3: 'three' }
outer: for (let i = 0; i < 3; i++) {
  for (let j = 0; j < 3; j++) {
    if (j === 1) continue outer
    if (i === 2) break outer
  }
}
const kinds = [0, 'a', null, undefined, {}, 1n].map((v) => {
  switch (typeof v) {
    case 'number': return 'num'
    case 'string': return 'str'
    case 'object': return v === null ? 'null' : 'obj'
    default: return 'other'
  }
})
function sloppy() { arguments[0] = 'changed'; return [arguments.length, typeof arguments.callee] }
let withResult
with ({ inner: 'with scope' }) { withResult = inner }
const seq = (1, 2, 3)
const exp = 2 ** 3 ** 2
const optional = [deep?.p?.q?.r, deep.missing?.(), deep.p?.['q'], obj.method?.()]
let i = 0
do { i++ } while (i < 5)
const fnDefaults = ((p = 1, { q = 2 } = {}, [r = 3] = []) => p + q + r)()
const sum = (function () { let s = 0; for (const k in { u: 1, v: 2 }) s += k.length; for (const v of [1, 2]) s += v; return s })()
return { a, c, restB, rest, x, y, others, merged, arr, n, t, f, tagged: tag`one${1}two${2}\n`, obj: [obj.dynamic, obj.computed, obj.method(), obj['quoted key'], obj[3]],
  kinds, sloppy: sloppy(1), withResult, seq, exp, optional, i, fnDefaults, sum, void: void 0, typeofUndeclared: typeof notDeclared, in: 'p' in deep, delete: delete deep.p }
