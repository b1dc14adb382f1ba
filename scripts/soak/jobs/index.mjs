// THE MIX, and what each class asserts (messages as in docs/errors.md):
//
//   normal   42%  arithmetic, floats, bigints, string work, JSON, console and
//                 text/json output, caught errors, deep recursion (RangeError),
//                 restartSafe cells: `completed` with the exact value and
//                 output items computed by this script; replaySafe as asked.
//   tools    20%  nested calls into a real async executeTool: sequential
//                 awaits, Promise.all of up to 40 calls (more than
//                 maxPendingToolCalls, so the queue is used) where some answer
//                 late (50-250 ms), echo of structured data, a failing tool
//                 (sync throw and rejection) caught as a plain Error with the
//                 message, unknown ids, describe/search/ALL_TOOLS, a call left
//                 in flight when the cell returns (it must be aborted):
//                 `completed` with the exact value.
//   ts        8%  TypeScript: interfaces, generics, satisfies, enums and
//                 parameter properties (transform mode), nested calls; an
//                 uncaught error at the line:column of the TS source; a TS
//                 syntax error is invalid_input `typescript transform failed:
//                 ... at line L:C`.
//   syntax    8%  JavaScript syntax errors (internal_error `SyntaxError: ...
//                 at line L:C`), module access (invalid_input `code mode module
//                 access is disabled.`), uncaught throws and ReferenceErrors
//                 with their exact text and location, `Uncaught: <value>`.
//   resume    6%  a run parks (timeoutMs 100; tools answering after 150-400
//                 ms, yield_control, restartSafe cells that park at every
//                 await) and is resumed with `wait` until `completed`, half of
//                 the time from a second surface of the same agent run with a
//                 2 s budget. Every intermediate result is `waiting` with
//                 pending calls, the outputs of all results add up to the
//                 expected items, the value is exact, and the last runId is
//                 gone afterwards (`code mode run is unavailable or expired.`).
//                 A 100 ms wait may be starved like an exec (see below): its
//                 guest computing at the deadline ends the run with `timeout`
//                 and no output; the run must then be gone.
//   abort     5%  abort while a tool call is pending, a signal aborted before
//                 exec, abort of a busy loop, a wait with an aborted signal,
//                 abort during a wait (all `aborted`, `code mode run was
//                 aborted.`, and the run gone afterwards); aborting an exec's
//                 signal after it returned `waiting` has no effect (the run
//                 still completes).
//   timeout   4%  infinite loops (also after an await, inside try/catch,
//                 around caught recursion) with timeoutMs 100-200: `timeout`,
//                 `code mode timeout exceeded.`
//   memory    4%  memory bombs with memoryLimitBytes 4-16 MiB (one catches the
//                 error): internal_error `code mode memory limit exceeded.`
//   expire    2%  a run parked (timeoutMs 100, snapshotTtlSeconds 1) and never
//                 resumed, its tool never answering or answering after expiry,
//                 or a yield: its nested call's signal fires about 1 s after
//                 the park and `wait` then says `code mode run is unavailable
//                 or expired.` At most 60 - concurrency of these are parked at
//                 once, so the cap of 64 parked runs is never what a cell meets.
//   stuck     1%  builtins that did not poll the interrupt handler, timeoutMs
//                 100-200: Array.prototype.reverse.call({length: 2**53-1}),
//                 new Uint8Array(2**24).sort() (may also complete in time),
//                 [].fill.call({length: 2**40}, 0), a quadratic replaceAll and
//                 a quadratic indexOf: `timeout`. The fill may also end at
//                 the memory limit first (internal_error `code mode memory
//                 limit exceeded.`), and the sort may complete in time: both
//                 are accepted for those cells only. With builds that leave a
//                 worker thread computing after the timeout (reverse for
//                 ever, replaceAll for about 40 s), the thread check fails.
//
// Each class's cells are generated in a file of this folder: normal.mjs,
// tools.mjs, source.mjs (ts, syntax), runs.mjs (resume, abort, expire) and
// limits.mjs (timeout, memory, stuck); how a class is run is in runners.mjs.
import { completed, failed, MEMORY } from '../checks.mjs'
import { jobRng } from '../prng.mjs'
import { memory, stuck as stuckBuiltins, timeout } from './limits.mjs'
import { normal } from './normal.mjs'
import { abort, expire, resume } from './runs.mjs'
import { syntax, ts } from './source.mjs'
import { tools } from './tools.mjs'

export const CLASSES = [
  ['normal', 420], ['tools', 200], ['ts', 80], ['syntax', 80], ['resume', 60],
  ['abort', 50], ['timeout', 40], ['memory', 40], ['expire', 20], ['stuck', 10],
]

const GENERATORS = { normal, tools, ts, syntax, resume, abort, timeout, memory, expire, stuck: stuckBuiltins }

function pickClass(rng, stuck, only) {
  const classes = CLASSES.filter(([name]) => (stuck || name !== 'stuck') && (!only || only.includes(name)))
  if (classes.length === 0) return 'normal' // the warm-up of --only stuck
  const total = classes.reduce((sum, [, weight]) => sum + weight, 0)
  let roll = rng.random() * total
  for (const [name, weight] of classes) {
    if ((roll -= weight) < 0) return name
  }
  return classes[0][0]
}

/** Job `i`: its class, cell, configuration and expected outcome. */
export function makeJob(seed, i, stuck, only) {
  const rng = jobRng(seed, i)
  // Draw the class with all classes first, so that --no-stuck changes only
  // the jobs that were stuck ones (they are redrawn from the others).
  let cls = pickClass(rng, true, only)
  if ((cls === 'stuck' && !stuck) || (only && !only.includes(cls))) cls = pickClass(rng, stuck, only)
  const job = { i, cls, language: 'javascript', config: {}, ...GENERATORS[cls](rng, i) }
  return job
}

const WARMUP = 200

/** The warm-up: WARMUP execs of the mix (stuck builtins excluded), then the high-water cells. */
export function makeWarmupJobs(seed, only) {
  const warmupJobs = Array.from({ length: WARMUP }, (_, i) => ({ ...makeJob((seed ^ 0x5bd1e995) >>> 0, i, false, only), warmup: true }))
  // Then cells that take the allocator of every worker to the high-water mark
  // the soak reaches (VMs at the default 64 MiB limit, a 16 MiB typed array):
  // glibc keeps such memory in its per-thread arenas after the VM is freed.
  for (let k = 0; k < 4; k++) {
    const base = { i: WARMUP + k, cls: 'high-water', language: 'javascript', warmup: true }
    warmupJobs.push(
      { ...base, variant: 'bomb-64MiB', config: {}, code: "const a = []\nfor (;;) a.push('x'.repeat(1e5) + a.length)", expect: failed('internal_error', MEMORY) },
      { ...base, variant: 'sort-16MiB', config: {}, code: 'return new Uint8Array(2 ** 24).sort().length', expect: completed(2 ** 24, []) },
    )
  }
  return warmupJobs
}
