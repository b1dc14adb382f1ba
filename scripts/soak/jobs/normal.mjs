// The normal class: plain cells (arithmetic, floats, bigints, strings, JSON,
// console and output, caught errors, deep recursion, restartSafe), each
// expected to complete with the value and output computed here.
import { completed, text } from '../checks.mjs'

export function normal(rng, i) {
  const variant = rng.pick(['arith', 'float', 'bigint', 'words', 'string-ops', 'json', 'console', 'caught',
    'recursion', 'restart-safe', 'no-return', 'sort'])
  switch (variant) {
    case 'arith': {
      const [n, k, m] = [rng.int(1000, 20000), rng.int(1, 1000), rng.int(1000, 1e6)]
      let s = 0
      for (let j = 1; j <= n; j++) s = (s + j * k) % m
      return { variant, code: `let s = 0\nfor (let i = 1; i <= ${n}; i++) s = (s + i * ${k}) % ${m}\nreturn s`, expect: completed(s, []) }
    }
    case 'float': {
      const [a, b] = [rng.int(1, 1e6), rng.int(1, 1000)]
      return { variant, code: `return Math.round(Math.sqrt(${a}) * 1e6) / 1e6 + ${b} / 7`, expect: completed(Math.round(Math.sqrt(a) * 1e6) / 1e6 + b / 7, []) }
    }
    case 'bigint': {
      const [p, k] = [rng.int(60, 200), rng.int(0, 1e9)]
      return { variant, code: `return 3n ** ${p}n + BigInt(${k})`, expect: completed(String(3n ** BigInt(p) + BigInt(k)), []) }
    }
    case 'words': {
      const words = Array.from({ length: rng.int(1, 30) }, () => rng.word())
      return {
        variant,
        code: `const words = ${JSON.stringify(words)}\ntext(words.join(' '))\nreturn words.map((w) => w.toUpperCase()).sort().join(',')`,
        expect: completed(words.map((w) => w.toUpperCase()).sort().join(','), [text(words.join(' '))]),
      }
    }
    case 'string-ops': {
      const [base, r] = [rng.word(2, 6) + 'ab', rng.int(1, 2000)]
      const s = base.repeat(r)
      return {
        variant,
        code: `const s = ${JSON.stringify(base)}.repeat(${r})\nreturn [s.length, s.replace(/a/g, '').length, s.split('b').length, s.indexOf('ab'), s.slice(-5).padStart(8, '*')]`,
        expect: completed([s.length, s.replace(/a/g, '').length, s.split('b').length, s.indexOf('ab'), s.slice(-5).padStart(8, '*')], []),
      }
    }
    case 'json': {
      const o = rng.object(2)
      const withKeys = { ...o, keys: Object.keys(o).length }
      return {
        variant,
        code: `const o = JSON.parse(${JSON.stringify(JSON.stringify(o))})\no.keys = Object.keys(o).length\njson(o)\nreturn JSON.stringify(o).length`,
        expect: completed(JSON.stringify(withKeys).length, [{ type: 'json', value: withKeys }]),
      }
    }
    case 'console': {
      const n = rng.int(0, 1e6)
      return {
        variant,
        code: `console.log('n', ${n}, { a: ${n} }, [${n}, 'x'])\nconsole.warn('w${n}')\nconsole.error(${n})`,
        expect: completed(null, [text(`n ${n} {"a":${n}} [${n},"x"]`), text(`warn: w${n}`), text(`error: ${n}`)]),
      }
    }
    case 'caught': {
      const n = rng.int(0, 1e6)
      return { variant, code: `try { null.x } catch (e) { return [e instanceof TypeError, ${n}] }`, expect: completed([true, n], []) }
    }
    case 'recursion': {
      const n = rng.int(0, 1e6)
      return { variant, code: `function f(n) { return f(n + 1) + 1 }\ntry { f(0) } catch (e) { return e.name + ${n} }`, expect: completed(`RangeError${n}`, []) }
    }
    case 'restart-safe': {
      const [a, b] = [rng.int(0, 1e6), rng.int(0, 1e6)]
      return { variant, restartSafe: true, code: `return ${a} * ${b}`, expect: completed(a * b, []) }
    }
    case 'no-return':
      return { variant, code: `let x = ${rng.int(0, 99)}`, expect: completed(null, []) }
    case 'sort': {
      const numbers = Array.from({ length: 200 }, () => rng.int(-1e6, 1e6))
      return {
        variant,
        code: `return ${JSON.stringify(numbers)}.sort((a, b) => a - b).filter((x, i) => i % 20 === 0)`,
        expect: completed([...numbers].sort((a, b) => a - b).filter((x, j) => j % 20 === 0), []),
      }
    }
  }
  throw new Error(variant)
}
