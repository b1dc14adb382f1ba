0 // String: statics and every String.prototype method, the annex B HTML methods included
const s = '  Code Mode, café ☕ 𝒳  '
const t = s.trim()
const out = {
  statics: [String.fromCharCode(72, 105), String.fromCodePoint(0x1f600), String.raw`a\n${1}b`],
  at: t.at(-1), charAt: t.charAt(1), charCodeAt: t.charCodeAt(0), codePointAt: t.codePointAt(t.length - 2),
  concat: 'a'.concat('b', 1), wellFormed: ['ok'.isWellFormed(), '\ud800x'.isWellFormed(), '\ud800x'.toWellFormed()],
  indexOf: t.indexOf('Mode'), lastIndexOf: t.lastIndexOf('e'), includes: t.includes('café'),
  endsWith: t.endsWith('𝒳'), startsWith: t.startsWith('Code'), search: t.search(/mode/i),
  match: t.match(/o(.)/).slice(), matchAll: [...'a1b2c3'.matchAll(/\d/g)].map((m) => m[0]),
  split: t.split(/,\s*/), substring: t.substring(5, 9), substr: t.substr(-3, 2), slice: t.slice(0, 4),
  repeat: 'ab'.repeat(3), replace: t.replace('Mode', 'Run'), replaceAll: 'a.b.c'.replaceAll('.', '/'),
  pad: ['7'.padStart(3, '0'), '7'.padEnd(3, '.')],
  trims: [s.trimEnd().length, s.trimStart().length, s.trimRight().length, s.trimLeft().length],
  toString: new String('boxed').toString(), valueOf: new String('v').valueOf(),
  compare: ['a'.localeCompare('b'), 'ä'.localeCompare('a')],
  normalize: ['e\u0301'.normalize('NFC').length, 'é'.normalize('NFD').length, 'ﬁ'.normalize('NFKC'), 'ﬁ'.normalize('NFKD')],
  cases: [t.toLowerCase(), t.toUpperCase(), 'İ'.toLocaleLowerCase().length, 'ß'.toLocaleUpperCase()],
  html: ['x'.anchor('n'), 'x'.big(), 'x'.blink(), 'x'.bold(), 'x'.fixed(), 'x'.fontcolor('red'), 'x'.fontsize(3),
    'x'.italics(), 'x'.link('u'), 'x'.small(), 'x'.strike(), 'x'.sub(), 'x'.sup()],
  iterate: [...'a𝒳b'[Symbol.iterator]()].length,
  template: `${t.length}:${typeof t}`,
}
return out
