// What a job expects and how a result is checked against it: the messages of
// docs/errors.md, byte-exact; `completed`/`failed` outcomes (an error may be a
// RegExp); a Mismatch is an unexpected outcome, anything else thrown is an
// exception.
import { isDeepStrictEqual } from 'node:util'

export const TIMEOUT = 'code mode timeout exceeded.'
export const ABORTED = 'code mode run was aborted.'
export const GONE = 'code mode run is unavailable or expired.'
export const MODULES = 'code mode module access is disabled.'
export const MEMORY = 'code mode memory limit exceeded.'

export const completed = (value, output) => ({ status: 'completed', value, output })
export const failed = (code, error) => ({ status: 'failed', code, error })
export const text = (t) => ({ type: 'text', text: t })

export class Mismatch extends Error {}

export function describeResult(r) {
  if (!r || typeof r !== 'object') return String(r)
  const { telemetry, ...rest } = r
  const s = JSON.stringify(rest)
  return s.length > 600 ? s.slice(0, 600) + '…' : s
}

/** Throws a Mismatch unless `r` is what `expected` describes. */
export function expectResult(r, expected, what) {
  const ok = matches(r, expected)
  if (!ok) throw new Mismatch(`${what}: expected ${describeExpected(expected)}, got ${describeResult(r)}`)
}

export function matches(r, expected) {
  if (!r || r.status !== expected.status) return false
  if (expected.status === 'completed') {
    return isDeepStrictEqual(r.value, expected.value) && (expected.output === undefined || isDeepStrictEqual(r.output, expected.output))
  }
  if (expected.status === 'failed') {
    if (r.code !== expected.code) return false
    return expected.error instanceof RegExp ? expected.error.test(r.error) : r.error === expected.error
  }
  return true
}

function describeExpected(e) {
  if (e.status === 'completed') return `completed ${JSON.stringify(e.value)}${e.output ? ' output ' + JSON.stringify(e.output) : ''}`
  if (e.status === 'failed') return `failed ${e.code} ${e.error instanceof RegExp ? e.error : JSON.stringify(e.error)}`
  return e.status
}
