0 // Strings built piecewise: concatenation ropes, joins, templates, repeat, slices of long strings, surrogate pairs, code points
let s = ''
for (let i = 0; i < 300; i++) s += String.fromCharCode(97 + (i % 26))
let wide = ''
for (let i = 0; i < 100; i++) wide += i % 2 ? '𝒳' : 'é'
const parts = []
for (let i = 0; i < 200; i++) parts.push(`item-${i}:${i * i}`)
const joined = parts.join(';')
const rebuilt = joined.split(';').map((p) => p.split(':')[1]).reduce((a, b) => a + Number(b), 0)
const big = 'ab'.repeat(2000)
const words = 'the quick brown fox jumps over the lazy dog'.split(' ')
const counts = {}
for (const w of words.concat(words)) counts[w] = (counts[w] || 0) + 1
const codepoints = [...wide].slice(0, 4).map((c) => c.codePointAt(0))
const replaced = big.replace(/ab/g, (m, off) => (off % 1000 === 0 ? 'X' : m)).length
const escaped = JSON.stringify(s + wide).length
const padded = parts.slice(0, 20).map((p) => p.padEnd(16, '.')).join('')
const upper = wide.toUpperCase().length + s.toUpperCase().length
return { len: [s.length, wide.length, joined.length, big.length], rebuilt, counts, codepoints, replaced, escaped, padded: padded.length, upper,
  compare: [s < wide, s.localeCompare(wide)], at: [s.at(-1), wide.at(-2)], index: big.indexOf('ba', 1000), last: big.lastIndexOf('ab') }
