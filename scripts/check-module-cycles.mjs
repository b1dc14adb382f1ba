// Fails when modules of a Rust crate import each other in a cycle (`npm run
// lint` runs it on the core), so that layers point one way.
//
// Each file is a module. Every path it names that resolves into another module
// of the crate (`use crate::..`, `super::..`, `self::..`, a child module, or an
// inline `crate::a::b`) is an edge to the module that defines the item: the
// deepest module on the path, and when the item is a name that module itself
// imports (`pub use calls::CallKey`, or a plain `use`), the module it comes
// from. Comments, strings and char literals are skipped with a small Rust
// lexer, and inline `#[cfg(test)]` modules are left out.
//
// Edges between a module and its own ancestors or descendants are left out:
// a module and its children form one unit seen from outside, and a child
// using an item its parent defines (or a parent using its children) is how
// Rust modules are built. Every other edge is lifted to the two sibling
// modules under the lowest common ancestor of its ends (`runs::run::end ->
// runs::store::x` becomes `runs::run -> runs::store`). Under every module, its
// children must then form an acyclic graph; cycles are reported as strongly
// connected components. This is stricter than "no two files import each
// other" and looser than `cargo modules dependencies --acyclic`, which also
// counts parent/child edges.
//
// Usage: node scripts/check-module-cycles.mjs [crate src dir]
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

import { lexRust } from './lib/rust-lex.mjs'

const root = process.argv[2] ?? fileURLToPath(new URL('../crates/code-mode-core/src', import.meta.url))

/** Every `.rs` file under `dir`. */
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.rs') ? [path] : []
  })
}

/** `a/b/mod.rs` -> `a::b`; `a/b.rs` -> `a::b`; `lib.rs` -> `` (the crate root). */
function moduleOf(file) {
  const parts = relative(root, file).replace(/\.rs$/, '').split(sep)
  if (parts.at(-1) === 'mod' || parts.at(-1) === 'lib') parts.pop()
  return parts.join('::')
}

const sources = new Map(files(root).map((file) => [moduleOf(file), readFileSync(file, 'utf8')]))
const modules = new Set(sources.keys())

/**
 * The code of a Rust file with comments, string and char literals blanked
 * (lifetimes kept), visibility paths (`pub(in crate::x)`) reduced to `pub`,
 * and inline `#[cfg(test)]` modules removed, so that only real paths remain.
 */
function code(text) {
  const out = lexRust(text).code
  let body = out.replace(/\bpub\s*\([^)]*\)/g, 'pub')
  for (let at; (at = body.search(/#\[cfg\(test\)\]\s*mod\s+\w+\s*\{/)) >= 0; ) {
    let depth = 0
    let end = body.indexOf('{', at)
    for (; end < body.length; end++) {
      if (body[end] === '{') depth++
      if (body[end] === '}' && --depth === 0) break
    }
    body = body.slice(0, at) + body.slice(end + 1)
  }
  return body
}

/** `a::{b, c::{d as e}}` -> [`a::b`, `a::c::d@e`] (`@` marks an alias). */
function expand(tree) {
  return expandCompact(tree.replace(/\s+as\s+/g, '@').replace(/\s+/g, ''))
}

function expandCompact(tree) {
  const open = tree.indexOf('{')
  if (open < 0) return tree.split(',').filter(Boolean)
  const prefix = tree.slice(0, open)
  let depth = 0
  let close = open
  for (; close < tree.length; close++) {
    if (tree[close] === '{') depth++
    if (tree[close] === '}' && --depth === 0) break
  }
  const inner = tree.slice(open + 1, close)
  const parts = []
  let start = 0
  depth = 0
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i]
    if (c === '{') depth++
    if (c === '}') depth--
    if ((c === ',' && depth === 0) || i === inner.length) {
      if (i > start) parts.push(inner.slice(start, i))
      start = i + 1
    }
  }
  const rest = tree.slice(close + 1).replace(/^,/, '')
  return [...parts.flatMap((part) => expandCompact(prefix + part)), ...(rest ? expandCompact(rest) : [])]
}

const bodies = new Map([...sources].map(([module, text]) => [module, code(text)]))

/** Per module, the names its `use` declarations bring in: name -> path. */
const imports = new Map()
for (const [module, body] of bodies) {
  const names = new Map()
  for (const [, tree] of body.matchAll(/\buse\s+([^;]+);/g)) {
    for (const entry of expand(tree)) {
      const [path, alias] = entry.split('@')
      const last = path.split('::').filter((s) => s && s !== 'self').at(-1)
      if (last && last !== '*') names.set(alias ?? last, path.replace(/::self$/, ''))
    }
  }
  imports.set(module, names)
}

/**
 * The module that defines what a path names from `from`, or null outside
 * the crate. A name a module imports (`pub use calls::CallKey`, or a plain
 * `use`) is followed to the module it comes from.
 */
function resolve(from, path, hops = 0) {
  let segments = path.split('::').filter((s) => s && s !== '*' && s !== 'self')
  let base
  if (path.startsWith('crate::')) {
    base = []
    segments = segments.slice(1)
  } else if (/^(self|super)(::|$)/.test(path)) {
    base = from ? from.split('::') : []
    for (const s of path.split('::')) {
      if (s === 'super') base = base.slice(0, -1)
      else if (s !== 'self') break
    }
    segments = path.split('::').filter((s) => s !== 'super' && s !== 'self' && s !== '*' && s)
  } else {
    base = from ? from.split('::') : []
    if (!modules.has([...base, segments[0]].join('::'))) return null
  }
  let found = base.join('::')
  let used = 0
  for (let i = 1; i <= segments.length; i++) {
    const candidate = [...base, ...segments.slice(0, i)].join('::')
    if (modules.has(candidate)) {
      found = candidate
      used = i
    }
  }
  const item = segments[used]
  const imported = item === undefined ? undefined : imports.get(found)?.get(item)
  if (imported !== undefined && hops < 8 && !(found === from && imported === path)) {
    return resolve(found, imported, hops + 1) ?? found
  }
  return found
}

const segments = (m) => (m ? m.split('::') : [])

/** `a -> b` lifted to the siblings under their lowest common ancestor; null
 * when one is an ancestor of the other. */
function lift(a, b) {
  const [x, y] = [segments(a), segments(b)]
  let common = 0
  while (common < x.length && common < y.length && x[common] === y[common]) common++
  if (common === x.length || common === y.length) return null
  return [x.slice(0, common + 1).join('::'), y.slice(0, common + 1).join('::')]
}

const edges = new Map([...modules].map((m) => [m, new Set()]))
const why = new Map()
for (const [from, body] of bodies) {
  const paths = []
  for (const [, tree] of body.matchAll(/\buse\s+([^;]+);/g)) paths.push(...expand(tree).map((p) => p.split('@')[0]))
  for (const [path] of body.matchAll(/\b(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+/g)) paths.push(path)
  for (const path of paths) {
    const to = resolve(from, path)
    const lifted = to === null ? null : lift(from, to)
    if (lifted === null) continue
    const [a, b] = lifted
    edges.get(a).add(b)
    if (!why.has(`${a}>${b}`)) why.set(`${a}>${b}`, `${from} uses ${path}`)
  }
}

// Tarjan's strongly connected components.
let index = 0
const stack = []
const state = new Map()
const cycles = []
function connect(v) {
  state.set(v, { index, low: index, onStack: true })
  index++
  stack.push(v)
  for (const w of edges.get(v)) {
    if (!state.has(w)) {
      connect(w)
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low)
    } else if (state.get(w).onStack) {
      state.get(v).low = Math.min(state.get(v).low, state.get(w).index)
    }
  }
  if (state.get(v).low === state.get(v).index) {
    const component = []
    let w
    do {
      w = stack.pop()
      state.get(w).onStack = false
      component.push(w)
    } while (w !== v)
    if (component.length > 1) cycles.push(component)
  }
}
for (const v of modules) if (!state.has(v)) connect(v)

const name = (m) => m || '(crate root)'
const edgeCount = [...edges.values()].reduce((n, set) => n + set.size, 0)
if (cycles.length) {
  for (const cycle of cycles) {
    console.error(`module cycle: ${cycle.map(name).join(', ')}`)
    for (const m of cycle) {
      for (const to of [...edges.get(m)].filter((to) => cycle.includes(to))) {
        console.error(`  ${name(m)} -> ${name(to)} (${why.get(`${m}>${to}`)})`)
      }
    }
  }
  process.exit(1)
}
console.log(`no module cycles: ${modules.size} modules, ${edgeCount} edges (${relative(process.cwd(), root) || '.'})`)
