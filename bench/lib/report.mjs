// Markdown formatting of the results: numbers, tables, the results file.

/** Milliseconds with three significant figures (µs below 0.1 ms). */
export function ms(value) {
  if (!Number.isFinite(value)) return '–'
  if (value === 0) return '0 ms'
  if (Math.abs(value) < 0.1) return `${(value * 1000).toPrecision(3)} µs`
  if (Math.abs(value) >= 1000) return `${(value / 1000).toPrecision(3)} s`
  return `${value.toPrecision(3)} ms`
}

export const us = (valueMs) => (Number.isFinite(valueMs) ? `${(valueMs * 1000).toPrecision(3)} µs` : '–')

export function bytes(value) {
  if (!Number.isFinite(value)) return '–'
  const abs = Math.abs(value)
  if (abs >= 2 ** 20) return `${(value / 2 ** 20).toPrecision(3)} MiB`
  if (abs >= 1024) return `${(value / 1024).toPrecision(3)} KiB`
  return `${Math.round(value)} B`
}

/** A rate, rounded, with thousands separators. */
export const rate = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–')

export const num = (value, digits = 3) => (Number.isFinite(value) ? value.toPrecision(digits) : '–')

/** "7.6×": how many times the product is faster (or lighter) than the other. */
export const times = (ratio) => (Number.isFinite(ratio) ? `${ratio >= 100 ? Math.round(ratio) : ratio.toPrecision(2)}×` : '–')

/**
 * A markdown table. `columns` is a list of `[header, align]` (align 'l',
 * 'r' or 'c'); `rows` are arrays of cell strings.
 */
export function table(columns, rows) {
  const rule = { l: '---', r: '---:', c: ':-:' }
  const line = (cells) => `| ${cells.join(' | ')} |`
  return [line(columns.map(([h]) => h)), line(columns.map(([, a]) => rule[a ?? 'l'])), ...rows.map(line)].join('\n')
}

/** One workload's section: title, tables, then its footnotes. */
export function section(result) {
  const parts = [`## ${result.id}: ${result.title}`]
  if (result.method) parts.push(result.method)
  for (const t of result.tables) {
    if (t.caption) parts.push(t.caption)
    parts.push(t.markdown)
  }
  if (result.notes?.length) parts.push(result.notes.map((n, i) => `${'¹²³⁴⁵⁶⁷⁸⁹'[i] ?? `(${i + 1})`} ${n}`).join('  \n'))
  return parts.join('\n\n')
}

/** Superscript marker of the i-th note of a section, for use in a table cell. */
export const mark = (i) => '¹²³⁴⁵⁶⁷⁸⁹'[i] ?? `(${i + 1})`
