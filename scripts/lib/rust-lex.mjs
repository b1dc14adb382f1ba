// A small Rust lexer for the lint scripts (check-module-cycles.mjs,
// check-messages.mjs): it tells code from comments and literals, which is
// all they need. Comments nest as Rust's do; raw strings (`r#"…"#`, `br"…"`,
// `cr"…"`), byte and C strings, char literals and lifetimes are told apart.

const ident = (c) => c !== undefined && /[A-Za-z0-9_]/.test(c)

/**
 * The file's code with every comment and string or char literal blanked to
 * spaces (line breaks kept, so offsets and line numbers stay as they are;
 * lifetimes kept), and its string literals as {at, text}: `at` where the
 * literal starts, `text` as written between its quotes.
 * @param {string} text
 * @returns {{ code: string, strings: { at: number, text: string }[] }}
 */
export function lexRust(text) {
  const strings = []
  const n = text.length
  let code = ''
  let i = 0
  const blank = (from, to) => {
    code += text.slice(from, to).replace(/[^\n]/g, ' ')
  }
  while (i < n) {
    const c = text[i]
    const next = text[i + 1]
    const start = i
    if (c === '/' && next === '/') {
      while (i < n && text[i] !== '\n') i++
      blank(start, i)
    } else if (c === '/' && next === '*') {
      let depth = 0
      do {
        if (text[i] === '/' && text[i + 1] === '*') {
          depth++
          i += 2
        } else if (text[i] === '*' && text[i + 1] === '/') {
          depth--
          i += 2
        } else i++
      } while (i < n && depth > 0)
      blank(start, i)
    } else if (/[rbc]/.test(c) && !ident(text[i - 1]) && /^(?:[bc]?r)(#*)"/.test(text.slice(i, i + 260))) {
      const [open, hashes] = text.slice(i).match(/^[bc]?r(#*)"/)
      const end = text.indexOf('"' + hashes, i + open.length)
      i = end < 0 ? n : end + 1 + hashes.length
      strings.push({ at: start, text: text.slice(start + open.length, end < 0 ? n : end) })
      blank(start, i)
    } else if (c === '"' || (/[bc]/.test(c) && next === '"' && !ident(text[i - 1]))) {
      i += c === '"' ? 1 : 2
      const from = i
      while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
      strings.push({ at: start, text: text.slice(from, i) })
      i++
      blank(start, i)
    } else if (c === "'" || (c === 'b' && next === "'" && !ident(text[i - 1]))) {
      // A char literal ('x', '\n', '\u{1F600}', b'"'), else a lifetime ('a).
      const from = c === 'b' ? i + 1 : i
      const literal = text.slice(from).match(/^'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^'\\\n])'/)
      i = literal ? from + literal[0].length : i + 1
      if (literal) blank(start, i)
      else code += text.slice(start, i)
    } else {
      code += c
      i++
    }
  }
  return { code, strings }
}
