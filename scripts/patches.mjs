// The patch series of the vendored crates: `vendor/<crate>/patches/NNNN-name.patch`,
// applied in order over the crate's pristine upstream sources.
//
// - rquickjs-sys: `vendor/rquickjs-sys/quickjs/` holds quickjs-ng's sources as
//   the published crate ships them, unchanged; the crate's build.rs applies the
//   series to a copy in OUT_DIR and compiles that (patch paths are relative to
//   `quickjs/`, as in quickjs-ng's repository).
// - swc_ecma_parser: Rust sources cannot be patched at build time, so the crate
//   holds the series applied; the series is the source of truth and this check
//   keeps the two in step (patch paths are relative to the crate).
//
// `patches/pristine.sha256` (sha256sum format) lists every upstream file and
// its digest, so the check is offline: the pristine sources are either in the
// tree (rquickjs-sys) or rebuilt by reverse-applying the series (swc).
//
// Each patch starts with a header: `Subject: ...`, `Upstream: yes|no, why`,
// a rationale, `---`, then a git-style unified diff. The applier is strict:
// every hunk's context must match exactly at the line it names (no fuzz, no
// offset), as in build.rs. Patches marked `Upstream: yes` come first, so that
// they apply to upstream without the local ones.
//
// Usage:
//   node scripts/patches.mjs check [crate]        series, headers, pristine digests
//   node scripts/patches.mjs apply <crate> <dir>  writes pristine + series to <dir>
//   node scripts/patches.mjs unpack <crate> <dir> [--onto <new crate dir>]
//       a git repository in <dir>: the pristine sources, then one commit per
//       patch (branch `series`). With --onto, the sources of a newer published
//       crate are committed on the pristine one (tag `pristine-new`) and the
//       series is rebased onto them: the version bump. Resolve conflicts as in
//       any rebase, then:
//   node scripts/patches.mjs pack <crate> <dir>
//       rewrites patches/ from the commits on top of the pristine (or
//       pristine-new) tag, with their messages as headers, and the vendored
//       sources and pristine.sha256 from the repository; then checks.
//   node scripts/patches.mjs upstream <crate> <dir>
//       the `Upstream: yes` patches as mails for `git am`, without the
//       `code-mode patch` markers and local notes, checked against pristine.
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))

/**
 * The vendored crates. `root`: the directory of the crate the patch paths are
 * relative to. `holds`: whether that directory holds the pristine sources
 * (patched at build time) or the series applied. `local`: paths under `root`
 * that are ours, not upstream's (never patched, never in the manifest).
 */
const CRATES = {
  'rquickjs-sys': {
    dir: 'vendor/rquickjs-sys',
    root: 'quickjs',
    holds: 'pristine',
    local: [],
    // The files taken from a newer published crate: those of the manifest.
    upstreamDir: 'quickjs',
  },
  swc_ecma_parser: {
    dir: 'vendor/swc_ecma_parser',
    root: '.',
    holds: 'applied',
    local: ['PATCHES.md', 'patches/', '.gitattributes'],
    // A newer crate's Cargo.toml, src/ and examples/ are taken.
    upstreamDir: '.',
    upstreamKeep: ['Cargo.toml', 'src/', 'examples/'],
  },
}

class PatchError extends Error {}

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex')
const crlf = (text) => text.replace(/\r\n/g, '\n')

// --- files -------------------------------------------------------------------

/** Every file under `dir` as a map of `/`-separated relative path to text. */
function readTree(dir, skip = []) {
  const out = new Map()
  const walk = (sub) => {
    for (const name of readdirSync(join(dir, sub)).sort()) {
      const rel = sub ? `${sub}/${name}` : name
      if (skip.some((s) => (s.endsWith('/') ? rel.startsWith(s) || `${rel}/` === s : rel === s))) continue
      const path = join(dir, rel)
      if (statSync(path).isDirectory()) walk(rel)
      else out.set(rel, crlf(readFileSync(path, 'utf8')))
    }
  }
  walk('')
  return out
}

/** Writes `files` under `dir`, leaving alone those that already hold the text (no rebuild). */
function writeTree(dir, files) {
  for (const [rel, text] of files) {
    const path = join(dir, ...rel.split('/'))
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, text)
  }
}

function crateRoot(crate) {
  return join(repo, CRATES[crate].dir, CRATES[crate].root)
}

function patchDir(crate) {
  return join(repo, CRATES[crate].dir, 'patches')
}

// --- parsing -----------------------------------------------------------------

/** Splits text into lines, each with its `\n` (the last may have none). */
function splitLines(text) {
  const lines = text.split('\n').map((line) => `${line}\n`)
  const last = lines.pop()
  if (last !== '\n') lines.push(last.slice(0, -1))
  return lines
}

function patchPath(field, name, lineNo) {
  const path = field.split('\t')[0]
  if (path === '/dev/null') return null
  if (!/^[ab]\//.test(path)) throw new PatchError(`${name}:${lineNo}: path without a/ or b/: ${path}`)
  const rel = path.slice(2)
  if (rel.startsWith('/') || rel.split('/').includes('..')) throw new PatchError(`${name}:${lineNo}: unsafe path ${rel}`)
  return rel
}

/**
 * Parses a patch file: its header (subject, upstream status) and the files it
 * changes, each with its hunks.
 */
function parsePatch(text, name) {
  const lines = crlf(text).split('\n')
  if (lines.at(-1) === '') lines.pop()
  let i = 0
  const isFileStart = (k) =>
    lines[k].startsWith('diff --git ') || (lines[k].startsWith('--- ') && lines[k + 1]?.startsWith('+++ '))
  while (i < lines.length && !isFileStart(i)) i++
  const header = lines.slice(0, i).join('\n')
  const subject = /^Subject: (.+)$/m.exec(header)?.[1]
  const upstream = /^Upstream: (yes|no)\b[,:;]?\s*(.*)$/m.exec(header)
  if (!subject) throw new PatchError(`${name}: no 'Subject:' line in the header`)
  if (!upstream) throw new PatchError(`${name}: no 'Upstream: yes|no' line in the header`)
  const files = []
  let file = null
  while (i < lines.length) {
    const line = lines[i]
    if (line.startsWith('diff --git ')) {
      file = null
      i++
    } else if (/^(index |new file mode |deleted file mode )/.test(line)) {
      i++
    } else if (line.startsWith('--- ')) {
      if (!lines[i + 1]?.startsWith('+++ ')) throw new PatchError(`${name}:${i + 1}: '---' without '+++'`)
      file = {
        oldPath: patchPath(line.slice(4), name, i + 1),
        newPath: patchPath(lines[i + 1].slice(4), name, i + 2),
        hunks: [],
      }
      if (file.oldPath === null && file.newPath === null) throw new PatchError(`${name}:${i + 1}: /dev/null on both sides`)
      files.push(file)
      i += 2
    } else if (line.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line)
      if (!m || !file) throw new PatchError(`${name}:${i + 1}: bad hunk header: ${line}`)
      const hunk = {
        header: line,
        oldStart: +m[1],
        oldCount: m[2] === undefined ? 1 : +m[2],
        newStart: +m[3],
        newCount: m[4] === undefined ? 1 : +m[4],
        lines: [],
      }
      i++
      let old = 0
      let neu = 0
      while (old < hunk.oldCount || neu < hunk.newCount || lines[i]?.startsWith('\\')) {
        const body = lines[i]
        if (body === undefined) throw new PatchError(`${name}: hunk ${hunk.header} ends early`)
        const op = body[0]
        if (op === '\\') {
          const prev = hunk.lines.at(-1)
          if (!prev) throw new PatchError(`${name}:${i + 1}: '\\' before any line`)
          prev.text = prev.text.replace(/\n$/, '')
        } else if (op === ' ' || op === '-' || op === '+') {
          hunk.lines.push({ op, text: `${body.slice(1)}\n` })
          if (op !== '+') old++
          if (op !== '-') neu++
          if (old > hunk.oldCount || neu > hunk.newCount) throw new PatchError(`${name}:${i + 1}: hunk ${hunk.header} is longer than its header says`)
        } else {
          throw new PatchError(`${name}:${i + 1}: expected ' ', '-', '+' or '\\' in hunk ${hunk.header}, found ${JSON.stringify(body)}`)
        }
        i++
      }
      file.hunks.push(hunk)
    } else if (line === '-- ') {
      break // a format-patch signature
    } else if (line === '') {
      i++
    } else {
      throw new PatchError(`${name}:${i + 1}: unexpected line ${JSON.stringify(line)}`)
    }
  }
  if (files.length === 0) throw new PatchError(`${name}: changes no file`)
  return { name, header, subject, upstream: upstream[1] === 'yes', why: upstream[2], files }
}

/** The same patch, undone. */
function reversed(patch) {
  return {
    ...patch,
    files: patch.files.map((file) => ({
      oldPath: file.newPath,
      newPath: file.oldPath,
      hunks: file.hunks.map((h) => ({
        header: `@@ -${h.newStart},${h.newCount} +${h.oldStart},${h.oldCount} @@`,
        oldStart: h.newStart,
        oldCount: h.newCount,
        newStart: h.oldStart,
        newCount: h.oldCount,
        lines: h.lines.map((l) => ({ op: l.op === '+' ? '-' : l.op === '-' ? '+' : ' ', text: l.text })),
      })),
    })),
  }
}

// --- applying ----------------------------------------------------------------

const show = (text) => JSON.stringify(text?.replace(/\n$/, '') ?? '<end of file>')

/**
 * Applies `patch` to `files` (a map, changed in place). Each hunk must match
 * exactly at the line it names; `offset` (unpack over new sources only) lets
 * it match at the nearest other place instead, and reports it.
 */
function applyPatch(files, patch, { offset = false, notes = [] } = {}) {
  for (const file of patch.files) {
    const path = file.newPath ?? file.oldPath
    const where = (hunk) => `patch ${patch.name}, file ${path}, hunk ${hunk.header}`
    if (file.oldPath === null) {
      if (files.has(path)) throw new PatchError(`${patch.name}: creates ${path}, which exists`)
      files.set(path, file.hunks.flatMap((h) => h.lines.map((l) => l.text)).join(''))
      continue
    }
    if (!files.has(file.oldPath)) throw new PatchError(`${patch.name}: ${file.oldPath} does not exist`)
    const src = splitLines(files.get(file.oldPath))
    const out = []
    let pos = 0
    for (const hunk of file.hunks) {
      const old = hunk.lines.filter((l) => l.op !== '+').map((l) => l.text)
      const expected = hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1
      const matches = (at) => at >= pos && at + old.length <= src.length && old.every((t, k) => src[at + k] === t)
      let at = expected
      if (!matches(at)) {
        const bad = old.findIndex((t, k) => src[at + k] !== t)
        const detail = `line ${at + bad + 1}: expected ${show(old[bad])}, found ${show(src[at + bad])}`
        let found = -1
        if (offset) {
          for (let d = 1; found < 0 && (expected - d >= pos || expected + d < src.length); d++) {
            if (matches(expected - d)) found = expected - d
            else if (matches(expected + d)) found = expected + d
          }
        }
        if (found < 0) throw new PatchError(`${where(hunk)} does not apply: ${detail}`)
        notes.push(`${where(hunk)}: applied at offset ${found - expected}`)
        at = found
      }
      out.push(...src.slice(pos, at), ...hunk.lines.filter((l) => l.op !== '-').map((l) => l.text))
      pos = at + old.length
    }
    out.push(...src.slice(pos))
    if (file.newPath === null) {
      if (out.length) throw new PatchError(`${patch.name}: deletes ${file.oldPath}, which has more lines`)
      files.delete(file.oldPath)
    } else {
      files.delete(file.oldPath)
      files.set(file.newPath, out.join(''))
    }
  }
}

// --- the series --------------------------------------------------------------

/** The crate's patches, parsed, in order; checks their names and numbering. */
function series(crate) {
  const dir = patchDir(crate)
  const names = existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.patch')).sort() : []
  const patches = names.map((name, k) => {
    const m = /^(\d{4})-[a-z0-9][a-z0-9-]*\.patch$/.exec(name)
    if (!m) throw new PatchError(`${crate}: patch name ${name} is not NNNN-lowercase-words.patch`)
    if (+m[1] !== k + 1) throw new PatchError(`${crate}: ${name} is number ${+m[1]}, expected ${k + 1}`)
    return parsePatch(readFileSync(join(dir, name), 'utf8'), name)
  })
  const firstNo = patches.findIndex((p) => !p.upstream)
  const lateYes = firstNo < 0 ? undefined : patches.slice(firstNo).find((p) => p.upstream)
  if (lateYes) throw new PatchError(`${crate}: ${lateYes.name} is 'Upstream: yes' after ${patches[firstNo].name}, which is not: upstream patches come first`)
  return patches
}

function readManifest(crate) {
  const path = join(patchDir(crate), 'pristine.sha256')
  const out = new Map()
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue
    const m = /^([0-9a-f]{64}) {2}(\S.*)$/.exec(line)
    if (!m) throw new PatchError(`${crate}: bad line in pristine.sha256: ${line}`)
    out.set(m[2], m[1])
  }
  return out
}

function writeManifest(crate, files) {
  const text = [...files.keys()].sort().map((rel) => `${sha256(files.get(rel))}  ${rel}\n`).join('')
  writeFileSync(join(patchDir(crate), 'pristine.sha256'), text)
}

/** Differences between `files` and the manifest, as messages. */
function manifestDiff(files, manifest) {
  const problems = []
  for (const [rel, digest] of manifest) {
    if (!files.has(rel)) problems.push(`${rel}: missing`)
    else if (sha256(files.get(rel)) !== digest) problems.push(`${rel}: differs from the published crate`)
  }
  for (const rel of files.keys()) if (!manifest.has(rel)) problems.push(`${rel}: not in the published crate`)
  return problems
}

function treeDiff(got, want) {
  const problems = []
  for (const rel of new Set([...got.keys(), ...want.keys()])) {
    if (!got.has(rel)) problems.push(`${rel}: missing`)
    else if (!want.has(rel)) problems.push(`${rel}: extra`)
    else if (got.get(rel) !== want.get(rel)) problems.push(`${rel}: differs`)
  }
  return problems
}

/** The pristine sources, checked against the manifest. */
function pristine(crate, patches = series(crate)) {
  const spec = CRATES[crate]
  const tree = readTree(crateRoot(crate), spec.local)
  let files = tree
  if (spec.holds === 'applied') {
    files = new Map(tree)
    for (const patch of [...patches].reverse()) {
      try {
        applyPatch(files, reversed(patch))
      } catch (e) {
        throw new PatchError(`${crate}: the vendored tree is not the series applied: reversing ${e.message}`)
      }
    }
  }
  const problems = manifestDiff(files, readManifest(crate))
  if (problems.length) {
    const what = spec.holds === 'applied' ? 'the tree with the series reversed' : `${spec.dir}/${spec.root}`
    throw new PatchError(`${crate}: ${what} is not the published crate (pristine.sha256):\n  ${problems.join('\n  ')}`)
  }
  return { files, tree }
}

/** Pristine + series. */
function applied(crate, patches = series(crate)) {
  const { files, tree } = pristine(crate, patches)
  const out = new Map(files)
  for (const patch of patches) applyPatch(out, patch)
  if (CRATES[crate].holds === 'applied') {
    const problems = treeDiff(out, tree)
    if (problems.length) throw new PatchError(`${crate}: pristine + series is not the vendored tree:\n  ${problems.join('\n  ')}`)
  }
  return { pristine: files, out }
}

// --- upstream export ---------------------------------------------------------

/** A line of an upstream patch: the `code-mode patch` markers taken out. */
function unmark(text) {
  return text.replace(/[ \t]*\/\* code-mode patch \*\//g, '').replace(/code-mode patch: /g, '')
}

/** The header without local notes: no `Upstream:` line, no `Code-mode:` paragraph. */
function upstreamBody(header) {
  const body = header
    .replace(/^Subject: .*\n?/m, '')
    .replace(/^Upstream: .*\n?/m, '')
    .replace(/^---$/m, '')
  const paragraphs = body.split(/\n{2,}/).map((p) => p.trim()).filter((p) => p !== '')
  return paragraphs
    .map((p) => p.split('\n').filter((_, k, lines) => !lines.slice(0, k + 1).some((l) => l.startsWith('Code-mode:'))).join('\n'))
    .filter((p) => p !== '')
    .join('\n\n')
}

/** Who sends the upstream patches: git's user in this repository. */
function author() {
  const get = (key) => {
    try {
      return execFileSync('git', ['-C', repo, 'config', key], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    } catch {
      return ''
    }
  }
  return `${get('user.name') || 'code mode'} <${get('user.email') || 'code-mode@localhost'}>`
}

function upstreamPatches(crate, patches, base) {
  const yes = patches.filter((p) => p.upstream)
  const from = author()
  const files = new Map(base)
  return yes.map((patch, k) => {
    const text = readFileSync(join(patchDir(crate), patch.name), 'utf8')
    const diff = crlf(text).slice(crlf(text).search(/^diff --git /m))
    const cleaned = diff
      .split('\n')
      .map((line) => (/^[ +-]/.test(line) && !/^(---|\+\+\+) /.test(line) ? line[0] + unmark(line.slice(1)) : line))
      .join('\n')
    const left = cleaned.split('\n').filter((l) => /^\+/.test(l) && /code-mode/.test(l))
    if (left.length) throw new PatchError(`${crate}: ${patch.name} still names code mode upstream:\n  ${left.join('\n  ')}`)
    const exported = parsePatch(`Subject: x\nUpstream: yes\n\n${cleaned}`, patch.name)
    applyPatch(files, exported)
    const mail =
      'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n' +
      `From: ${from}\n` +
      `Subject: [PATCH ${k + 1}/${yes.length}] ${patch.subject}\n\n` +
      `${upstreamBody(patch.header)}\n---\n${cleaned}`
    return { name: patch.name, mail }
  })
}

// --- commands ----------------------------------------------------------------

function check(crates) {
  for (const crate of crates) {
    const patches = series(crate)
    const { pristine: base, out } = applied(crate, patches)
    const exported = upstreamPatches(crate, patches, base)
    const changed = [...out.keys()].filter((rel) => base.get(rel) !== out.get(rel)).length
    const where = CRATES[crate].holds === 'applied' ? 'reproduce the vendored tree' : 'apply'
    console.log(
      `${crate}: ${patches.length} patches (${exported.length} upstream: yes) ${where} over the published ` +
        `crate's ${base.size} files (pristine.sha256), changing ${changed}`,
    )
  }
}

function git(dir, ...args) {
  const options = typeof args.at(-1) === 'object' ? args.pop() : {}
  return execFileSync('git', ['-C', dir, '-c', 'core.autocrlf=false', ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...options,
  })
}

/** The commit message of a patch: its header without `Subject: `, and its file name. */
function commitMessage(patch) {
  const header = patch.header.replace(/\n---\s*$/, '').trimEnd()
  const lines = header.split('\n')
  const subject = lines.findIndex((l) => l.startsWith('Subject: '))
  const rest = lines.filter((_, k) => k !== subject).join('\n').trim()
  return `${patch.subject}\n\n${rest}\n\nPatch-File: ${patch.name}\n`
}

function commit(dir, files, message) {
  for (const rel of git(dir, 'ls-files', '-z').split('\0').filter(Boolean)) {
    if (!files.has(rel)) rmSync(join(dir, ...rel.split('/')))
  }
  writeTree(dir, files)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '--allow-empty', '-F', '-', { input: message })
}

function unpack(crate, dir, onto) {
  if (existsSync(dir) && readdirSync(dir).length) throw new PatchError(`${dir} is not empty`)
  mkdirSync(dir, { recursive: true })
  const patches = series(crate)
  const { files } = pristine(crate, patches)
  git(dir, 'init', '-q', '-b', 'series')
  git(dir, 'config', 'user.name', 'patches.mjs')
  git(dir, 'config', 'user.email', 'patches.mjs@localhost')
  const run = (message) => commit(dir, current, message)
  const current = new Map(files)
  run(`pristine ${crate}\n`)
  git(dir, 'tag', 'pristine')
  for (const patch of patches) {
    applyPatch(current, patch)
    run(commitMessage(patch))
  }
  console.log(`${dir}: branch series, ${patches.length} commits on tag pristine`)
  if (!onto) return
  const spec = CRATES[crate]
  const from = join(onto, spec.upstreamDir)
  const newer = new Map()
  if (spec.upstreamKeep) {
    for (const [rel, text] of readTree(from)) if (spec.upstreamKeep.some((k) => rel === k || (k.endsWith('/') && rel.startsWith(k)))) newer.set(rel, text)
  } else {
    for (const rel of files.keys()) {
      const path = join(from, ...rel.split('/'))
      if (!existsSync(path)) throw new PatchError(`${onto}: no ${spec.upstreamDir}/${rel}`)
      newer.set(rel, crlf(readFileSync(path, 'utf8')))
    }
    const unused = [...readTree(from).keys()].filter((rel) => !files.has(rel))
    if (unused.length) console.log(`not taken from the new crate (add any its build.rs now needs to the pristine-new commit): ${unused.join(', ')}`)
  }
  git(dir, 'checkout', '-q', '--detach', 'pristine')
  current.clear()
  for (const [rel, text] of newer) current.set(rel, text)
  run(`pristine ${crate} (new version)\n`)
  git(dir, 'tag', 'pristine-new')
  git(dir, 'checkout', '-q', 'series')
  try {
    git(dir, 'rebase', '-q', '--onto', 'pristine-new', 'pristine', 'series')
    console.log(`rebased onto pristine-new without conflicts; now: node scripts/patches.mjs pack ${crate} ${dir}`)
  } catch {
    console.log(
      `the rebase onto pristine-new stopped at a conflict: resolve it in ${dir} (git status), ` +
        `git rebase --continue, and when it is done: node scripts/patches.mjs pack ${crate} ${dir}`,
    )
  }
}

function slug(subject) {
  return subject.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 48).replace(/-$/, '')
}

function pack(crate, dir) {
  const tags = git(dir, 'tag', '--list').split('\n')
  const base = tags.includes('pristine-new') ? 'pristine-new' : 'pristine'
  const rebasing = ['rebase-merge', 'rebase-apply'].some((d) => existsSync(join(dir, git(dir, 'rev-parse', '--git-path', d).trim())))
  if (rebasing || git(dir, 'status', '--porcelain').trim()) throw new PatchError(`${dir}: a rebase in progress or uncommitted changes`)
  const commits = git(dir, 'rev-list', '--reverse', '--no-merges', `${base}..HEAD`).split('\n').filter(Boolean)
  const out = commits.map((sha, k) => {
    const message = git(dir, 'log', '-1', '--format=%B', sha).trimEnd()
    const [subject, ...body] = message.split('\n')
    const file = /^Patch-File: \d{4}-(\S+)\.patch$/m.exec(message)?.[1] ?? slug(subject)
    const rest = body.filter((l) => !l.startsWith('Patch-File: ')).join('\n').trim()
    const upstream = /^Upstream: .*$/m.exec(rest)?.[0]
    if (!upstream) throw new PatchError(`${sha.slice(0, 10)} (${subject}): its message has no 'Upstream: yes|no' line`)
    const note = rest.replace(upstream, '').trim()
    const diff = git(
      dir,
      '-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'core.quotePath=false',
      'diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--diff-algorithm=histogram',
      '-U3', '--src-prefix=a/', '--dst-prefix=b/', `${sha}^`, sha,
    )
    const name = `${String(k + 1).padStart(4, '0')}-${file}.patch`
    return { name, text: `Subject: ${subject}\n${upstream}\n${note ? `\n${note}\n` : ''}\n---\n${diff}` }
  })
  const pdir = patchDir(crate)
  for (const name of readdirSync(pdir)) if (name.endsWith('.patch')) rmSync(join(pdir, name))
  for (const { name, text } of out) writeFileSync(join(pdir, name), text)
  // The vendored sources: the pristine or the patched tree of the repository.
  const spec = CRATES[crate]
  const treeOf = (rev) => {
    const files = new Map()
    for (const rel of git(dir, 'ls-tree', '-r', '-z', '--name-only', rev).split('\0').filter(Boolean)) {
      files.set(rel, git(dir, 'show', `${rev}:${rel}`))
    }
    return files
  }
  const basefiles = treeOf(base)
  writeManifest(crate, basefiles)
  const target = spec.holds === 'applied' ? treeOf('HEAD') : basefiles
  const root = crateRoot(crate)
  for (const rel of readTree(root, spec.local).keys()) if (!target.has(rel)) rmSync(join(root, ...rel.split('/')))
  writeTree(root, target)
  console.log(`${crate}: wrote ${out.length} patches, pristine.sha256 and ${spec.dir}/${spec.root === '.' ? '' : spec.root} from ${dir}`)
  check([crate])
}

function upstream(crate, dir) {
  const patches = series(crate)
  const { files } = pristine(crate, patches)
  const exported = upstreamPatches(crate, patches, files)
  mkdirSync(dir, { recursive: true })
  for (const { name, mail } of exported) writeFileSync(join(dir, name), mail)
  const directory = crate === 'swc_ecma_parser' ? ' (in swc: git am --directory=crates/swc_ecma_parser)' : ''
  console.log(`${crate}: ${exported.length} patches in ${dir}, for git am over the pristine sources${directory}`)
}

function main(argv) {
  const [command, crate, dir, ...rest] = argv
  const known = (name) => {
    if (!CRATES[name]) throw new PatchError(`unknown crate ${name}; one of ${Object.keys(CRATES).join(', ')}`)
    return name
  }
  switch (command) {
    case 'check':
      return check(crate ? [known(crate)] : Object.keys(CRATES))
    case 'apply': {
      if (!dir) break
      writeTree(dir, applied(known(crate)).out)
      return console.log(`${crate}: pristine + series written to ${dir}`)
    }
    case 'unpack': {
      if (!dir) break
      const onto = rest[0] === '--onto' ? rest[1] : undefined
      if (rest.length && !onto) break
      return unpack(known(crate), dir, onto)
    }
    case 'pack':
      if (!dir) break
      return pack(known(crate), dir)
    case 'upstream':
      if (!dir) break
      return upstream(known(crate), dir)
  }
  console.error(
    'usage: node scripts/patches.mjs check [crate] | apply <crate> <dir> | ' +
      'unpack <crate> <dir> [--onto <new crate dir>] | pack <crate> <dir> | upstream <crate> <dir>',
  )
  process.exitCode = 2
}

try {
  main(process.argv.slice(2))
} catch (e) {
  if (!(e instanceof PatchError)) throw e
  console.error(`patches: ${e.message}`)
  process.exitCode = 1
}
