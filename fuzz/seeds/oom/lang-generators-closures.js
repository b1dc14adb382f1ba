0 // Generators (delegation, return values, infinite sequences), closures in loops, recursion, getters on prototypes, memoisation
function* inner() { const got = yield 'inner 1'; yield 'inner got ' + got; return 'inner done' }
function* outer() { const r = yield* inner(); yield r; yield* [1, 2]; return 'outer done' }
const g = outer()
const steps = [g.next().value, g.next('sent').value, g.next().value, g.next().value, g.next().value, g.next()]
function* fib() { let [a, b] = [0, 1]; for (;;) { yield a; [a, b] = [b, a + b] } }
const fibs = []
for (const v of fib()) { if (v > 100) break; fibs.push(v) }
const closures = []
for (let i = 0; i < 3; i++) closures.push(() => i)
var vs = []
for (var j = 0; j < 3; j++) vs.push(() => j)
const memo = new Map()
const slowFib = (n) => (n < 2 ? n : memo.get(n) ?? (memo.set(n, slowFib(n - 1) + slowFib(n - 2)), memo.get(n)))
function counter() { let c = 0; return { inc: () => ++c, get value() { return c } } }
const ctr = counter()
ctr.inc(); ctr.inc()
const depth = (function down(n) { return n === 0 ? 0 : 1 + down(n - 1) })(500)
const entries = Object.entries({ a: 1, b: 2 }).map(([k, v]) => `${k}=${v}`)
const sorted = [{ n: 'b', v: 2 }, { n: 'a', v: 2 }, { n: 'c', v: 1 }].sort((p, q) => p.v - q.v || p.n.localeCompare(q.n)).map((o) => o.n)
const iterProtocol = { from: 1, to: 4, [Symbol.iterator]() { let c = this.from, t = this.to; return { next: () => (c <= t ? { value: c++, done: false } : { value: undefined, done: true }) } } }
return { steps, fibs, closures: closures.map((f) => f()), vs: vs.map((f) => f()), fib40: slowFib(40), counter: ctr.value, depth, entries, sorted, range: [...iterProtocol] }
