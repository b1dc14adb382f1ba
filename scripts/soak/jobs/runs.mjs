// The classes about a run's life: resume (parks, then waits until completed),
// abort (in every phase) and expire (parked and never resumed). Their
// protocols are in runners.mjs.
import { ABORTED, completed, failed, text } from '../checks.mjs'

export function resume(rng) {
  // exec on a 100 ms surface parks; the waits run on a surface of the same
  // agent run and session with 100 ms (more parking) or 2 s (completes).
  const waitTimeoutMs = rng.pick([100, 2000])
  const variant = rng.pick(['sequential-slow', 'all-mixed', 'yield', 'restart-safe'])
  const [a, b, n] = [rng.int(0, 1000), rng.int(0, 1000), rng.int(0, 1e6)]
  const base = { config: { timeoutMs: 100 }, waitTimeoutMs }
  switch (variant) {
    case 'sequential-slow': {
      const [ms1, ms2] = [rng.int(150, 400), rng.int(150, 400)]
      return {
        ...base, variant, reason: 'pending_tools',
        code: `text('start ${n}')\nconst a = await tools.slow({ ms: ${ms1}, v: ${a} })\ntext('mid ' + a)\nconst b = await tools.slow({ ms: ${ms2}, v: ${b} })\nreturn a + b`,
        expect: completed(a + b, [text(`start ${n}`), text(`mid ${a}`)]),
      }
    }
    case 'all-mixed': {
      const items = Array.from({ length: rng.int(2, 20) }, () => ({ ms: rng.int(0, 5), v: rng.int(0, 1000) }))
      items[rng.int(0, items.length - 1)].ms = rng.int(150, 400)
      return {
        ...base, variant, reason: 'pending_tools',
        code: `const got = await Promise.all(${JSON.stringify(items)}.map((x) => tools.slow(x)))\nreturn got.reduce((a, b) => a + b, 0)`,
        expect: completed(items.reduce((acc, x) => acc + x.v, 0), []),
      }
    }
    case 'yield':
      return {
        ...base, variant, reason: 'yield',
        code: `text('a${n}')\nconst r = await yield_control('r${n}')\ntext('b')\nreturn r`,
        expect: completed({ status: 'yielded', reason: `r${n}` }, [text(`a${n}`), text('b')]),
      }
    case 'restart-safe':
      // No inline drain: every await on a call parks, so at least two waits.
      return {
        ...base, variant, reason: 'pending_tools', restartSafe: true,
        code: `const a = await tools.lookup({ v: ${a} })\nconst b = await tools.lookup({ v: ${b} })\nreturn a + b`,
        expect: completed(a + b, []),
      }
  }
  throw new Error(variant)
}

export function abort(rng) {
  const variant = rng.pick(['during-tool', 'pre-aborted', 'busy-loop', 'aborted-wait', 'abort-during-wait', 'abort-after-waiting'])
  const n = rng.int(0, 1e6)
  switch (variant) {
    case 'during-tool':
      return { variant, code: `text('x${n}')\nawait tools.hang({})\nreturn 1`, expect: failed('aborted', ABORTED) }
    case 'pre-aborted':
      return { variant, code: `return ${n}`, expect: failed('aborted', ABORTED) }
    case 'busy-loop':
      return { variant, code: 'for (;;) {}', abortAfterMs: rng.int(5, 40), expect: failed('aborted', ABORTED) }
    case 'aborted-wait':
    case 'abort-during-wait':
      return { variant, config: { timeoutMs: 100 }, code: `await tools.hang({ n: ${n} })\nreturn 1`, abortAfterMs: rng.int(10, 50), expect: failed('aborted', ABORTED) }
    case 'abort-after-waiting':
      return {
        variant, config: { timeoutMs: 100 },
        code: `const v = await tools.slow({ ms: ${rng.int(150, 300)}, v: ${n} })\nreturn v`,
        expect: completed(n, []),
      }
  }
  throw new Error(variant)
}

export function expire(rng) {
  const n = rng.int(0, 1e6)
  return {
    config: { timeoutMs: 100, snapshotTtlSeconds: 1 },
    ...rng.pick([
      { variant: 'never-answers', code: `text('parked ${n}')\nawait tools.hang({})\nreturn 1` },
      // Answers 2-3 s later, after the run expired: the answer is ignored.
      { variant: 'answers-after-expiry', code: `await tools.slow({ ms: ${rng.int(2000, 3000)}, v: ${n}, ignoreAbort: true })\nreturn 1` },
      { variant: 'yielded', code: `await yield_control('r${n}')\nreturn 1` },
    ]),
  }
}
