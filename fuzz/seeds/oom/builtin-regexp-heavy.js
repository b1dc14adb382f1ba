0 // RegExp engine paths: case-insensitive unicode and sets, backtracking with lookahead, lastIndex loops, replace callbacks with groups, split limits, many captures, regexps built at run time
const text = 'Straße STRASSE strasse Ǆemal ǅ ǆ KELVIN K k'.repeat(3)
const results = {
  ci: text.match(/strasse/giu).length, ciSet: /[\p{Lu}&&[A-Z]]/vi.test('k'), kelvin: 'K'.match(/k/iu)?.[0],
  sigma: 'ΣΑΣ'.replace(/σ/giu, 's'), foldV: /[\q{ss}a]/vi.test('SS'),
}
const words = []
const re = /(?<w>\w+)(?=\s|$)/gu
let m
while ((m = re.exec('one two three four five')) !== null) words.push(m.groups.w + '@' + m.index)
results.words = words
results.captures = /(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)(l)/.exec('abcdefghijkl').slice(1).join('')
results.back = /^(a+)+b/.test('a'.repeat(18) + 'b')
results.replaced = '2024-01-05, 2023-12-31'.replace(/(?<y>\d{4})-(?<m>\d\d)-(?<d>\d\d)/g, (...args) => { const g = args.at(-1); return `${g.d}/${g.m}/${g.y}` })
results.split = 'a1b2c3d4'.split(/\d/, 3)
results.dynamic = ['a.b', 'x+y', '(z)'].map((s) => new RegExp('^' + RegExp.escape(s) + '$').test(s))
results.built = Array.from({ length: 20 }, (_, i) => new RegExp(`item${i}\\b`, 'g')).filter((r) => r.test('item7 item12')).length
results.indices = [.../(?<x>b+)/dg[Symbol.matchAll]('abbcbbb')].map((m) => m.indices.groups.x)
results.sticky = (() => { const y = /\d+/y; const out = []; let s = '12,34'; y.lastIndex = 0; out.push(y.exec(s)?.[0]); y.lastIndex = 3; out.push(y.exec(s)?.[0]); return out })()
results.multiline = 'a\nb\nc'.replace(/^/gm, '> ')
results.unicodeEscape = /\u{1F600}/u.test('😀') && /\p{Script=Greek}+/u.exec('abc αβγ')[0]
return results
