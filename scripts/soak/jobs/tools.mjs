// The tools class: nested calls into the gateway's executeTool (sequential,
// Promise.all past maxPendingToolCalls with late answers, echo, failures,
// unknown ids, describe/search, a call left in flight), each expected to
// complete with the exact value.
import { completed, text } from '../checks.mjs'
import { TOOLS } from '../gateway.mjs'

export function tools(rng) {
  const variant = rng.pick(['sequential', 'promise-all', 'echo', 'fail-caught', 'unknown-tool', 'fire-and-forget',
    'describe', 'loop-output'])
  switch (variant) {
    case 'sequential': {
      const values = Array.from({ length: rng.int(1, 10) }, () => rng.int(-1000, 1000))
      return {
        variant,
        code: `let s = 0\nfor (const v of ${JSON.stringify(values)}) s = await tools.add({ a: s, b: v })\nreturn s`,
        expect: completed(values.reduce((a, b) => a + b, 0), []),
      }
    }
    case 'promise-all': {
      // Some answer late: 15% take 50-250 ms, well inside the 10 s budget.
      const items = Array.from({ length: rng.int(2, 40) }, () => ({ ms: rng.chance(0.15) ? rng.int(50, 250) : rng.int(0, 5), v: rng.int(0, 1000) }))
      return {
        variant,
        code: `const items = ${JSON.stringify(items)}\nconst got = await Promise.all(items.map((x) => tools.slow(x)))\nreturn got.reduce((a, b) => a + b, 0)`,
        expect: completed(items.reduce((a, x) => a + x.v, 0), []),
      }
    }
    case 'echo': {
      const o = rng.object(3)
      return { variant, code: `return await tools.call('echo', ${JSON.stringify(o)})`, expect: completed(o, []) }
    }
    case 'fail-caught': {
      const [n, sync] = [rng.int(0, 1e6), rng.chance(0.5)]
      return {
        variant,
        code: `try { await tools.fail({ msg: 'nope ${n}', sync: ${sync} }); return 'no' } catch (e) { return [e.message, Object.getPrototypeOf(e) === Error.prototype] }`,
        expect: completed([`nope ${n}`, true], []),
      }
    }
    case 'unknown-tool': {
      const n = rng.int(0, 1e6)
      return {
        variant,
        code: `try { await tools.call('nope_${n}', {}) } catch (e) { return e.message.startsWith('Unknown tool id: nope_${n}.') }`,
        expect: completed(true, []),
      }
    }
    case 'fire-and-forget': {
      // The slow call is still in flight when the cell returns: it must be
      // aborted (checked for every job), and its late answer is ignored.
      const [ms, n] = [rng.int(50, 300), rng.int(0, 1e6)]
      return {
        variant,
        code: `tools.slow({ ms: ${ms}, v: 1, ignoreAbort: true })\nreturn await tools.echo({ v: ${n} })`,
        expect: completed({ v: n }, []),
      }
    }
    case 'describe':
      return {
        variant,
        code: "const d = await tools.describe('add')\nconst hits = await tools.search('add')\nreturn [d.id, ALL_TOOLS.length, hits.some((h) => h.id === d.id)]",
        expect: completed(['openclaw:core:add', TOOLS.length, true], []),
      }
    case 'loop-output': {
      const [n, k] = [rng.int(1, 8), rng.int(0, 100)]
      return {
        variant,
        code: `for (let i = 0; i < ${n}; i++) text(String(await tools.add({ a: i, b: ${k} })))\nreturn ${n}`,
        expect: completed(n, Array.from({ length: n }, (_, j) => text(String(j + k)))),
      }
    }
  }
  throw new Error(variant)
}
