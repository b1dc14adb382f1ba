0 // JSON: parse with a reviver (and its context), stringify with replacers, indentation, toJSON, rawJSON and isRawJSON
const text = '{"a":[1,2,{"b":null}],"big":12345678901234567890,"s":"\\u00e9\\ud83d\\ude00","t":true}'
const revived = JSON.parse(text, function (key, value, context) {
  if (key === 'big') return context && context.source ? context.source : String(value)
  return Array.isArray(value) ? value.length : value
})
const raw = JSON.rawJSON('12345678901234567890')
const out = {
  revived, tag: JSON[Symbol.toStringTag],
  raw: [JSON.isRawJSON(raw), JSON.isRawJSON({}), JSON.stringify({ raw, list: [raw] })],
  pretty: JSON.stringify({ a: [1, { b: 2 }], c: 'x' }, null, 2),
  tab: JSON.stringify([1, [2]], null, '\t'),
  filter: JSON.stringify({ keep: 1, drop: 2, nested: { keep: 3 } }, ['keep', 'nested']),
  replacer: JSON.stringify({ n: 1, m: new Map([[1, 2]]) }, (k, v) => (v instanceof Map ? Object.fromEntries(v) : v)),
  toJSON: JSON.stringify({ d: new Date(0), custom: { toJSON(key) { return 'key:' + key } } }),
  odd: [JSON.stringify(undefined), JSON.stringify([undefined, () => 1, Symbol('x'), NaN]), JSON.stringify('\u2028\ud800')],
}
try { JSON.parse('{bad') } catch (e) { out.bad = e.name }
const cyclic = {}
cyclic.self = cyclic
try { JSON.stringify(cyclic) } catch (e) { out.cycle = e.name }
out.deep = JSON.parse(JSON.stringify(Array.from({ length: 50 }).reduce((acc) => [acc], 0))).flat(Infinity)
return out
