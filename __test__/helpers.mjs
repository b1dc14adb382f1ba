// Helpers shared by the test files: the binding, tool fixtures, code-mode
// instances that close together, and guest snippets.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
export const binding = require('../index.js')

export const TOOLS = [{ name: 'read', description: 'Read a file', source: 'openclaw' }]

/** A run surface over a fresh code-mode instance; `close` it when done. */
export function surface(config = {}, options = {}) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, ...config }, ...options })
  const run = codeMode.prepareRun({ runId: 'run-1', tools: TOOLS, executeTool: async () => null })
  return { codeMode, run, exec: (input, call) => run.exec(typeof input === 'string' ? { code: input } : input, call) }
}

/** An EffectiveTool with an empty description unless given. */
export function tool(name, extra = {}) {
  return { name, description: '', source: 'openclaw', ...extra }
}

/** A promise with its resolve/reject exposed. */
export function deferred() {
  let resolve, reject
  const promise = new Promise((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Polls `predicate` every 5 ms until it holds; throws (the test fails rather
 * than hangs) when it still does not after `ms`. The bound is a hang guard,
 * generous for a loaded machine, never what a test measures.
 */
export async function until(predicate, what, ms = 20000) {
  const deadline = Date.now() + ms
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(5)
  }
}

/** Code-mode instances made through `codeModes`, closed together in `after`. */
export function codeModeFactory() {
  const made = []
  return {
    create(config = {}, options = { workerThreads: 1 }) {
      const codeMode = binding.createCodeMode({ config, ...options })
      made.push(codeMode)
      return codeMode
    },
    /** An enabled instance with a generous budget unless `config` says otherwise. */
    enabled(config = {}, options = { workerThreads: 1 }) {
      return this.create({ enabled: true, timeoutMs: 60000, ...config }, options)
    },
    closeAll: () => Promise.all(made.map((codeMode) => codeMode.close())),
  }
}

/** docs/catalog.md: the recovery sentence of an unknown tool id. */
export const RECOVERY =
  'Use tools.search to find a tool, tools.describe to inspect it, then tools.call with the exact id or name.'

/** docs/catalog.md: "Unknown tool id: X. [Did you mean: a, b? ]Use tools.search ..." */
export function unknownToolId(id, suggestions = []) {
  const hint = suggestions.length ? ` Did you mean: ${suggestions.join(', ')}?` : ''
  return `Unknown tool id: ${id}.${hint} ${RECOVERY}`
}

/**
 * Guest prelude: `attempt(fn)` resolves to `{ok: value}` or, for a thrown
 * value, to what the guest can see of it.
 */
export const ATTEMPT = `
const attempt = async (fn) => {
  try {
    return { ok: await fn() }
  } catch (e) {
    return {
      error: e && e.message,
      isError: e instanceof Error,
      plainError: Object.getPrototypeOf(e) === Error.prototype,
      name: e && e.name,
      own: Object.getOwnPropertyNames(e).sort(),
    }
  }
}
`

/** Runs `code` (with the ATTEMPT prelude) and returns the completed value. */
export async function attemptValue(run, code, call) {
  const result = await run.exec({ code: ATTEMPT + code }, call)
  assert.equal(result.status, 'completed', result.error)
  return result.value
}

/**
 * Watches a nested call's AbortSignal: `fired` resolves once its 'abort'
 * event has fired (with `signal.aborted` as seen from inside the listener).
 */
export function watchSignal(signal) {
  const watch = { isAbortSignal: signal instanceof AbortSignal, abortedAtStart: signal.aborted }
  watch.fired = new Promise((resolve) => {
    signal.addEventListener('abort', () => resolve({ fired: true, aborted: signal.aborted }), { once: true })
  })
  return watch
}

/** Resolves to the abort report of `watch`, or `{fired: false}` after `ms`. */
export function abortReport(watch, ms = 10000) {
  let timer
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ fired: false }), ms)
  })
  return Promise.race([watch.fired, timeout]).finally(() => clearTimeout(timer))
}
