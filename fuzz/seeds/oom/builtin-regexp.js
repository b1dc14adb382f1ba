0 // RegExp: every flag getter, named groups, indices, unicode sets, lookbehind, the Symbol.* protocol, escape and compile
const re = /(?<year>\d{4})-(?<month>\d{2})/dgu
const text = 'from 2024-03 to 2025-11'
const first = re.exec(text)
const out = {
  flags: [re.flags, re.source, re.global, re.ignoreCase, re.multiline, re.dotAll, re.unicode, re.unicodeSets, re.sticky, re.hasIndices],
  groups: { ...first.groups }, indices: first.indices.groups.year, last: re.lastIndex,
  all: [...text.matchAll(re)].map((m) => m.groups.month),
  test: [/^\p{Lu}/u.test('Émile'), /[\p{L}--[a-z]]/v.test('a'), /[\p{L}--[a-z]]/v.test('Z'), /[[a-z]&&[aeiou]]+/v.exec('xyzoua')[0]],
  sets: /^\p{RGI_Emoji}$/v.test('👍🏽'),
  look: 'price: $42, cost: €7'.match(/(?<=\$)\d+/)[0], lookNeg: 'a1b2'.replace(/(?<!a)\d/g, '#'),
  sticky: (() => { const y = /a/y; y.lastIndex = 1; return [y.test('ba'), y.lastIndex] })(),
  dotAll: /a.b/s.test('a\nb'), multi: 'x\ny'.match(/^y$/m)[0], ignore: /ABC/i.test('abc'),
  backref: /(?<q>['"]).*?\k<q>/.exec(`say "hi" now`)[0],
  replaceFn: text.replace(re, (m, y, mo, off, str, groups) => `${groups.month}/${y}`),
  replaceNamed: '2024-03'.replace(/(?<y>\d+)-(?<m>\d+)/, '$<m>.$<y>'),
  split: 'a1b22c'.split(/\d+/), search: 'abc'.search(/c/), toString: String(/x\/y/gi),
  escape: RegExp.escape('a.b*c?'), species: RegExp[Symbol.species] === RegExp,
  protocol: [
    RegExp.prototype[Symbol.match].call(/b/, 'abc')[0],
    [...RegExp.prototype[Symbol.matchAll].call(/b/g, 'bab')].length,
    RegExp.prototype[Symbol.replace].call(/b/, 'abc', 'B'),
    RegExp.prototype[Symbol.search].call(/c/, 'abc'),
    RegExp.prototype[Symbol.split].call(/,/, 'a,b'),
  ],
}
const old = /a/
old.compile('b+', 'g')
out.compiled = [old.source, old.flags, 'abbb'.match(old)[0]]
out.ctor = new RegExp('x', 'y').flags + new RegExp(/z/g, 'i').flags
try { new RegExp('(') } catch (e) { out.syntax = e.name }
return out
