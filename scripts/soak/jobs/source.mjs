// The classes about the source itself: ts (TypeScript cells, their error
// locations and transform errors) and syntax (JavaScript syntax errors,
// module access, uncaught throws with their exact text and location).
import { completed, failed, MODULES } from '../checks.mjs'

export function ts(rng) {
  const language = 'typescript'
  const variant = rng.pick(['interface', 'generics', 'enum', 'param-properties', 'error-location', 'syntax-error', 'tools', 'type-only'])
  const [a, b, n] = [rng.int(0, 1000), rng.int(0, 1000), rng.int(0, 1e6)]
  switch (variant) {
    case 'interface': {
      const points = Array.from({ length: rng.int(1, 10) }, () => ({ x: rng.int(-99, 99), y: rng.int(-99, 99) }))
      return {
        variant, language,
        code: `interface P { x: number; y: number }\nconst pts: P[] = ${JSON.stringify(points)}\nconst sum = (ps: P[]): number => ps.reduce((acc: number, p: P) => acc + p.x * p.y, 0)\nreturn sum(pts)`,
        expect: completed(points.reduce((acc, p) => acc + p.x * p.y, 0), []),
      }
    }
    case 'generics': {
      const word = rng.word()
      return {
        variant, language,
        code: `function id<T>(v: T): T { return v }\nconst s = id<string>('${word}')\nreturn (s as string).toUpperCase()`,
        expect: completed(word.toUpperCase(), []),
      }
    }
    case 'enum':
      return { variant, language, code: `enum Color { Red = ${a}, Green, Blue }\nreturn Color.Blue`, expect: completed(a + 2, []) }
    case 'param-properties':
      return {
        variant, language,
        code: `class Acc {\n  constructor(private total: number = 0) {}\n  add(n: number): this { this.total += n; return this }\n  get value(): number { return this.total }\n}\nreturn new Acc(${a}).add(${b}).add(1).value`,
        expect: completed(a + b + 1, []),
      }
    case 'error-location':
      // Strip-only mode keeps columns: the same place as in JavaScript.
      return { variant, language, code: `const n: number = ${a}\nthrow new Error('ts ${n}')`, expect: failed('internal_error', `Error: ts ${n} at line 2:11`) }
    case 'syntax-error':
      return { variant, language, code: `const x: = ${a}`, expect: failed('invalid_input', /^typescript transform failed: .+ at line 1:\d+$/) }
    case 'tools':
      return {
        variant, language,
        code: `const r = (await tools.add({ a: ${a}, b: ${b} })) as number\nreturn r * 2`,
        expect: completed((a + b) * 2, []),
      }
    case 'type-only':
      return {
        variant, language,
        code: `type Pair<T> = [T, T]\nconst p: Pair<number> = [${a}, ${b}]\nconst f = <T,>(x: T): T => x\nconst sum = f<number>(p[0]! + p[1]) satisfies number\nreturn sum`,
        expect: completed(a + b, []),
      }
  }
  throw new Error(variant)
}

export function syntax(rng) {
  const n = rng.int(0, 1e6)
  const syntaxError = failed('internal_error', /^SyntaxError: .+ at line \d+:\d+$/)
  return rng.pick([
    { variant: 'unclosed-paren', code: `return (${n}`, expect: syntaxError },
    { variant: 'const-without-name', code: `const = ${n}`, expect: syntaxError },
    { variant: 'redeclaration', code: `let x${n} = 1\nlet x${n} = 2`, expect: failed('internal_error', /^SyntaxError: invalid redefinition of lexical identifier at line 2:\d+$/) },
    { variant: 'closes-wrapper', code: `}\nreturn ${n}`, expect: syntaxError },
    { variant: 'types-in-js', code: `const x: number = ${n}`, expect: syntaxError },
    { variant: 'import', code: `import fs from 'fs'\nreturn ${n}`, expect: failed('invalid_input', MODULES) },
    { variant: 'dynamic-import', code: `const m = await import('m${n}')`, expect: failed('invalid_input', MODULES) },
    { variant: 'require', code: `require('fs')\nreturn ${n}`, expect: failed('invalid_input', MODULES) },
    { variant: 'throw', code: `throw new Error('boom ${n}')`, expect: failed('internal_error', `Error: boom ${n} at line 1:11`) },
    { variant: 'reference-error', code: `nope_${n}()`, expect: failed('internal_error', `ReferenceError: nope_${n} is not defined at line 1:1`) },
    { variant: 'throw-plain', code: `throw 'plain ${n}'`, expect: failed('internal_error', `Uncaught: plain ${n}`) },
  ])
}
