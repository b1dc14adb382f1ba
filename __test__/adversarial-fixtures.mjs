// The adversarial corpus, shared setup: guest code is hostile (SECURITY.md).
// One test per attack class, in __test__/adversarial-*.test.mjs (bridge,
// limits, source, abort); each asserts the exact documented outcome (status,
// code and the byte-exact message of docs/errors.md, or the exact value), then
// that the same code-mode instance still serves. Behaviour that contradicts the
// docs is kept as a `todo` test written to the docs.
import assert from 'node:assert/strict'

import { binding } from './helpers.mjs'

// docs/errors.md, byte-exact.
export const TIMEOUT = 'code mode timeout exceeded.'
export const MEMORY = 'code mode memory limit exceeded.'
export const OUTPUT = 'code mode output limit exceeded.'
export const MODULE = 'code mode module access is disabled.'
export const CLOSED = 'code mode is closed.'
export const ABORTED = 'code mode run was aborted.'
export const EXPIRED = 'code mode run is unavailable or expired.'
export const QUEUE_FULL = 'too many queued code mode tool calls.'
export const TOO_LARGE = 'code must be at most 1048576 bytes.'
export const INPUT_TOO_DEEP = 'tool input nests deeper than 1000 levels.'
export const bridgeLimit = (max) => `tool input is larger than the code mode bridge limit of ${max} bytes (inputs of pending calls included).`
export const nestsTooDeeply = (line, column) =>
  `code nests too deeply to parse safely: it has more than 25000 brackets, operators and keywords (the limit is passed at line ${line}:${column}). Split the work into smaller statements, functions or cells.`

const TOOLS = [
  { name: 'echo', description: 'Echo', source: 'openclaw' },
  { name: 'slow', description: 'Never settles', source: 'openclaw' },
]

const instances = []
/** Closes every instance `instance` made: each test file's `after` hook. */
export const closeInstances = () => Promise.all(instances.map((codeMode) => codeMode.close()))

/** A code-mode instance (closed in `after`) and one run surface over it. */
export function instance(config = {}, executeTool = async (call) => call.input, options = { workerThreads: 1 }) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, timeoutMs: 60000, ...config }, ...options })
  instances.push(codeMode)
  const run = codeMode.prepareRun({ runId: 'adversary', sessionId: 'hostile', tools: TOOLS, executeTool })
  const exec = (input, call) => run.exec(typeof input === 'string' ? { code: input } : input, call)
  return { codeMode, run, exec }
}

/** After an attack: the same instance still runs `return 1` to completion. */
export async function assertServes(codeMode) {
  const run = codeMode.prepareRun({ runId: 'bystander', sessionId: 'other', tools: TOOLS, executeTool: async () => null })
  const result = await run.exec({ code: 'return 1' })
  assert.equal(result.status, 'completed', `the instance still serves: ${result.code}: ${result.error}`)
  assert.equal(result.value, 1)
}

export function assertFailed(result, code, error, label = '') {
  assert.deepEqual([result.status, result.code, result.error], ['failed', code, error], label)
}

export function assertCompleted(result, value, label = '') {
  assert.equal(result.status, 'completed', `${label}: ${result.code}: ${result.error}`)
  assert.deepEqual(result.value, value, label)
}
