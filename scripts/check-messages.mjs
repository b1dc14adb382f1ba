// Fails when a text that reads like a message (a sentence of 4 or more
// words) is written outside `crates/code-mode-core/src/messages/`: every
// guest-, model- and gateway-visible text of ours is defined there (those
// src-js/ throws in `js_messages()`, which reach it as boundary.js's
// `messages`), so that docs/errors.md has one place to list them from and a
// changed byte shows in one diff (`npm run lint` runs it).
//
// It reads, with a small lexer each, every string literal of
//   crates/code-mode-core/src/**/*.rs   but messages/ and boundary/, files
//                                       named tests.rs or *_tests.rs, modules
//                                       declared under #[cfg(test)] (their
//                                       files too), and every item under
//                                       #[cfg(test)]
//   src/**/*.rs                         the same rules
//   src-js/*.js                         but boundary.js (written from
//                                       messages/); template literals with
//                                       each ${...} read as {}
// and reports each one with 4 or more words (pieces between spaces that
// hold a letter, one at least a lowercase one; `{}`-style holes and `\n`
// escapes left out) as `file:line: text` (a literal's first line), then
// exits 1. Comments are not read. A string that is code, not a message (a
// TypeScript type, an invariant's `expect` text), goes in ALLOWED, which
// must stay exact: an entry that no longer matches fails too.
//
// Usage: node scripts/check-messages.mjs [repo root]
// (MIN_WORDS=2 in the environment lists shorter texts too, for a review by
// eye: the rule and ALLOWED are for 4.)
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

import { lexRust } from './lib/rust-lex.mjs'

const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url))
const MIN_WORDS = Number(process.env.MIN_WORDS ?? 4)

/**
 * Strings that read like sentences but are not messages: file (from the
 * repo root) and how the literal's text starts, with why it may stay.
 */
const ALLOWED = [
  // TypeScript: types of napi functions' arguments and results
  // (`ts_args_type`, `ts_return_type`), which index.d.ts declares ...
  ['src/code_mode.rs', 'options?: { config?: unknown', 'napi ts_args_type'],
  ['src/hooks.rs', "{ toolKind: 'code_mode_exec'", 'napi ts_return_type'],
  ['src/namespaces.rs', 'pluginId: string, registration', 'napi ts_args_type'],
  ['src/namespaces.rs', 'toolName: string, inputMapper', 'napi ts_args_type'],
  ['src/namespaces.rs', '{ id: string; pluginId: string', 'napi ts_return_type'],
  ['src/surface.rs', 'input: unknown, call?:', 'napi ts_args_type (exec and wait)'],
  ['src/transcript.rs', 'events: CodeModeEvent[]', 'napi ts_args_type'],
  // ... and the code of the MCP declarations (their prose is in messages/).
  ['crates/code-mode-core/src/mcp/declarations/mod.rs', 'interface McpApiHeader {', 'declared types'],
  ['crates/code-mode-core/src/mcp/declarations/mod.rs', 'function $api(toolName?: string', 'a declared function'],
  ['crates/code-mode-core/src/mcp/declarations/mod.rs', '{ resources?: unknown[]', 'a result type'],
  ['crates/code-mode-core/src/mcp/declarations/mod.rs', '{ prompts?: unknown[]', 'a result type'],
  ['crates/code-mode-core/src/mcp/declarations/mod.rs', '{ description?: string;', 'a result type'],
  // The binding's module loader: JavaScript source, and the error of a
  // module missing from the binary (a build error; the tests load them all).
  ['src/js.rs', '(function () {', 'module loader source'],
  ['src/js.rs', '{}: function (module, exports, require)', 'module loader source'],
  ['src/js.rs', '}}\\nconst loaded = new Map()', 'module loader source'],
  ['src/js.rs', 'src-js/{name} is not in the binding', 'a build error'],
  // QuickJS's own message, matched to explain a call of a missing server
  // (the engine writes it; docs/errors.md: "Calls of tools that are not there").
  ['crates/code-mode-core/src/sandbox/callees/mod.rs', "cannot read property '{property}' of undefined", "QuickJS's"],
  // Never shown: an io::Error that stops measuring an answer, which becomes
  // ApiRefusal::TooLarge (the message is dropped).
  ['crates/code-mode-core/src/mcp/api.rs', 'the answer is larger than its bound', 'dropped'],
  // Invariants: texts of `expect`/`unreachable!` on what cannot happen.
  ['crates/code-mode-core/src/result.rs', 'a result always serializes', 'expect'],
  ['crates/code-mode-core/src/sandbox/json.rs', 'the writer only emits UTF-8', 'expect'],
  ['crates/code-mode-core/src/sandbox/json.rs', 'writing to a Vec cannot fail', 'expect'],
  ['crates/code-mode-core/src/sandbox/lazy/mod.rs', 'QuickJS passes a context', 'expect'],
  ['crates/code-mode-core/src/sandbox/prelude.rs', 'the converter emits valid JSON', 'expect'],
  ['crates/code-mode-core/src/sandbox/vm.rs', 'the converter emits valid JSON', 'expect'],
  ['crates/code-mode-core/src/source/decorators.rs', 'passes keep the program', 'expect'],
  ['crates/code-mode-core/src/source/decorators.rs', 'a lowered cell has no module syntax', 'expect'],
  ['crates/code-mode-core/src/source/screen.rs', 'parsed as a script', 'expect'],
]

/** Every file under `dir` whose name ends with `ext`. */
function files(dir, ext) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? files(path, ext) : name.endsWith(ext) ? [path] : []
    })
}

/** 1-based line of offset `at` in `text`. */
function lineAt(text, at) {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++
  return line
}

const ident = (c) => c !== undefined && /[A-Za-z0-9_]/.test(c)

/**
 * The string literals of a Rust file as {at, text} (text as written, between
 * its quotes), leaving out comments and every item under `#[cfg(test)]`;
 * also the names of the modules it declares under `#[cfg(test)]`.
 */
function rustStrings(text) {
  const testModules = []
  // Code only: comments and literals blanked to spaces, for finding items.
  const { code, strings } = lexRust(text)
  // The items under `#[cfg(test)]`: from the attribute to the `;` or `,`
  // that ends the item (a statement, a field), to the brace that closes its
  // first block (a module, a function, a block), or to the end of the block
  // around it.
  const skipped = []
  for (const attribute of code.matchAll(/#\[cfg\(test\)\]/g)) {
    let at = attribute.index + attribute[0].length
    let depth = 0
    for (; at < code.length; at++) {
      const ch = code[at]
      if (ch === '{' || ch === '(' || ch === '[') depth++
      else if (ch === '}' || ch === ')' || ch === ']') {
        if (--depth < 0 || (depth === 0 && ch === '}')) break
      } else if ((ch === ';' || ch === ',') && depth === 0) break
    }
    const item = code.slice(attribute.index, at + 1)
    const declared = item.match(/^#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;$/)
    if (declared) testModules.push(declared[1])
    skipped.push([attribute.index, at + 1])
  }
  return {
    strings: strings.filter(({ at }) => !skipped.some(([from, to]) => at >= from && at < to)),
    testModules,
  }
}

/**
 * The string and template literals of a JavaScript file as {at, text}, a
 * template's `${...}` read as `{}`; comments and regular expressions left out.
 */
function jsStrings(text) {
  const strings = []
  const n = text.length
  let i = 0
  // The last significant character outside literals: a `/` after one of
  // these (or a keyword) starts a regular expression, else it divides.
  let last = ''
  let lastWord = ''
  const regexAfter = /[(,=:[!&|?{};+\-*%<>~^]/
  const regexKeywords = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await'])

  /** Reads a template from `i` (at its backtick); returns its text. */
  function template() {
    let out = ''
    i++
    while (i < n && text[i] !== '`') {
      if (text[i] === '\\') {
        out += text.slice(i, i + 2)
        i += 2
      } else if (text[i] === '$' && text[i + 1] === '{') {
        i += 2
        skipCode('}')
        i++
        out += '{}'
      } else out += text[i++]
    }
    i++
    return out
  }

  /** Skips code up to the unbalanced `close`, recording literals inside. */
  function skipCode(close) {
    let depth = 0
    while (i < n) {
      const c = text[i]
      if (depth === 0 && c === close) return
      if (!step()) {
        if (c === '{' || c === '(' || c === '[') depth++
        else if (c === '}' || c === ')' || c === ']') depth--
        i++
      }
    }
  }

  /** Reads a comment or literal at `i`; false when there is none. */
  function step() {
    const c = text[i]
    const next = text[i + 1]
    const start = i
    if (c === '/' && next === '/') {
      while (i < n && text[i] !== '\n') i++
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end < 0 ? n : end + 2
    } else if (c === '"' || c === "'") {
      i++
      while (i < n && text[i] !== c && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1
      i++
      strings.push({ at: start, text: text.slice(start + 1, i - 1) })
      last = 'x'
    } else if (c === '`') {
      const body = template()
      strings.push({ at: start, text: body })
      last = 'x'
    } else if (c === '/' && (last === '' || regexAfter.test(last) || regexKeywords.has(lastWord))) {
      let inClass = false
      i++
      while (i < n && text[i] !== '\n' && (inClass || text[i] !== '/')) {
        if (text[i] === '\\') i++
        else if (text[i] === '[') inClass = true
        else if (text[i] === ']') inClass = false
        i++
      }
      i++
      while (ident(text[i])) i++
      last = 'x'
    } else {
      if (!/\s/.test(c)) {
        last = c
        if (ident(c)) {
          const word = text.slice(i).match(/^[A-Za-z0-9_$]+/)[0]
          lastWord = word
          i += word.length
          return true
        }
        lastWord = ''
      }
      return false
    }
    lastWord = ''
    return true
  }

  while (i < n) {
    if (!step()) i++
  }
  return strings
}

/**
 * Whether a literal's text reads like a sentence: 4 or more words (tokens
 * between spaces with a letter in them, `{}`-style holes and escapes left
 * out), one at least with a lowercase letter.
 */
function sentence(text) {
  const words = text
    .replace(/\\[nrt]/g, ' ')
    .replace(/\{[^{}\s]*\}/g, ' ')
    .split(/\s+/)
    .filter((word) => /[A-Za-z]/.test(word))
  return words.length >= MIN_WORDS && words.some((word) => /[a-z]/.test(word))
}

const rel = (path) => relative(root, path).split(sep).join('/')
const offenders = []
const used = new Set()

function report(file, text, strings) {
  for (const { at, text: literal } of strings) {
    if (!sentence(literal)) continue
    // A literal's start as the list writes it: without a leading line
    // continuation (`"\\` and a line break) or indentation.
    const head = literal.replace(/^(?:\\\n|\s)+/, '')
    const allowed = ALLOWED.find(([f, start]) => f === file && head.startsWith(start))
    if (allowed) {
      used.add(allowed)
      continue
    }
    const [first, ...more] = head.split('\n')
    offenders.push(`${file}:${lineAt(text, at)}: ${first}${more.length > 0 ? ' …' : ''}`)
  }
}

function checkRust(dir) {
  const all = files(join(root, dir), '.rs')
  const read = new Map(all.map((path) => [path, rustStrings(readFileSync(path, 'utf8'))]))
  // Files of modules declared under #[cfg(test)]: `a/b.rs` or `a/b/mod.rs`
  // beside (or, from a mod.rs, under) the file that declares them.
  const testOnly = new Set()
  for (const [path, { testModules }] of read) {
    const name = basename(path)
    const base = name === 'mod.rs' || name === 'lib.rs' || name === 'main.rs' ? dirname(path) : path.replace(/\.rs$/, '')
    for (const module of testModules) {
      testOnly.add(join(base, `${module}.rs`))
      testOnly.add(join(base, module))
    }
  }
  for (const [path, { strings }] of read) {
    const file = rel(path)
    if (/(^|\/)(messages|boundary)\//.test(relative(join(root, dir), path).split(sep).join('/'))) continue
    if (/(^|_)tests\.rs$/.test(basename(path))) continue
    if ([...testOnly].some((t) => path === t || path.startsWith(t + sep))) continue
    report(file, readFileSync(path, 'utf8'), strings)
  }
}

checkRust('crates/code-mode-core/src')
checkRust('src')
for (const path of files(join(root, 'src-js'), '.js')) {
  if (basename(path) === 'boundary.js') continue
  const text = readFileSync(path, 'utf8')
  report(rel(path), text, jsStrings(text))
}

const stale = ALLOWED.filter((entry) => !used.has(entry)).map(
  ([file, start]) => `${file}: ALLOWED lists ${JSON.stringify(start)}, which is not there any more: remove it`,
)
if (offenders.length > 0) {
  console.error(offenders.join('\n'))
  console.error(
    `\n${offenders.length} text(s) read like messages outside crates/code-mode-core/src/messages/: define them there (js_messages() for src-js/), or, if one is not a message, add it to ALLOWED in scripts/check-messages.mjs with the reason.`,
  )
}
if (stale.length > 0) console.error(stale.join('\n'))
if (offenders.length > 0 || stale.length > 0) process.exit(1)
