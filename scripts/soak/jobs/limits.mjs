// The classes that end at a limit: timeout (infinite loops), memory (memory
// bombs) and stuck (builtins that did not poll the interrupt handler).
import { completed, failed, MEMORY, TIMEOUT } from '../checks.mjs'
import { MiB } from '../measure.mjs'

export function timeout(rng) {
  const config = { timeoutMs: rng.pick([100, 150, 200]) }
  return {
    config,
    expect: failed('timeout', TIMEOUT),
    ...rng.pick([
      { variant: 'for', code: 'for (;;) {}' },
      { variant: 'while', code: 'let i = 0\nwhile (true) { i++ }' },
      { variant: 'after-await', code: 'await tools.echo({})\nfor (;;) {}' },
      { variant: 'try-catch', code: 'for (;;) { try { for (;;) {} } catch (e) {} }' },
      { variant: 'caught-recursion', code: 'const f = () => { try { return f() } catch (e) { return 0 } }\nfor (;;) f()' },
      { variant: 'strings', code: "let s = ''\nfor (;;) { s = String(Math.random()) }" },
    ]),
  }
}

export function memory(rng) {
  const config = { memoryLimitBytes: rng.pick([4, 8, 16]) * MiB }
  return {
    config,
    expect: failed('internal_error', MEMORY),
    ...rng.pick([
      { variant: 'push-strings', code: "const a = []\nfor (;;) a.push('x'.repeat(1e5) + a.length)" },
      { variant: 'caught-arraybuffer', code: 'try { new ArrayBuffer(1e9) } catch (e) {}\nreturn 2' },
      { variant: 'map', code: "const m = new Map()\nfor (let i = 0; ; i++) m.set(i, { i, s: 'v' + i })" },
      { variant: 'caught-arrays', code: "try { const a = []; for (;;) a.push(new Array(1e4).fill(1)) } catch (e) { return 'caught' }" },
      { variant: 'typed-arrays', code: 'const keep = []\nfor (;;) keep.push(new Float64Array(65536))' },
    ]),
  }
}

export function stuck(rng) {
  const config = { timeoutMs: rng.pick([100, 150, 200]) }
  const timeout = failed('timeout', TIMEOUT)
  return {
    config,
    ...rng.pick([
      { variant: 'reverse', code: 'return Array.prototype.reverse.call({ length: 2 ** 53 - 1 })', expect: timeout },
      // Sorting 16 Mi zeros may finish within the budget on a fast machine.
      { variant: 'uint8-sort', code: 'return new Uint8Array(2 ** 24).sort().length', expect: timeout, alsoOk: completed(2 ** 24, []) },
      // Each index filled is a new property of an ordinary object: the VM
      // grows by tens of MiB a second, so the memory limit (64 MiB) may come
      // before a 100-200 ms budget ends (1 to 6 of the 40 or so fill cells
      // of a 20000-exec soak, on 2 cores). Either end is correct; any other
      // code or message is not.
      { variant: 'fill', code: 'return [].fill.call({ length: 2 ** 40 }, 0)', expect: timeout, alsoOk: failed('internal_error', MEMORY) },
      { variant: 'replaceAll', code: "return 'a'.repeat(2e5).replaceAll('a'.repeat(1e5) + 'b', '').length", expect: timeout },
      { variant: 'indexOf', code: "const h = 'a'.repeat(1e6); const n = 'a'.repeat(4e4) + 'b'; return h.indexOf(n)", expect: timeout },
    ]),
  }
}
