0 // Direct and indirect eval, closures over loop variables, arguments objects (mapped and strict), var hoisting, TDZ errors, nested functions created at run time
function outer(a, b) {
  var hoisted = typeof later
  var later = 1
  const inner = eval('(x) => a + b + x + later')
  arguments[0] = 10
  return [hoisted, inner(1), a, arguments.length, eval('var fromEval = 5; fromEval + a')]
}
function strict(a) { 'use strict'; arguments[0] = 9; return [a, arguments[0]] }
const made = []
for (let i = 0; i < 20; i++) made.push(new Function('x', `return x * ${i}`))
const closures = []
for (let i = 0; i < 20; i++) { let captured = i; closures.push(() => captured++) }
closures.forEach((f) => f())
let tdz
try { (() => { use; const use = 1 })() } catch (e) { tdz = e.name }
const indirect = (0, eval)('var globalFromEval = 7; globalFromEval')
const code = Array.from({ length: 30 }, (_, i) => `function f${i}(n) { return n + ${i} }`).join('\n') + '\nf29(1)'
const compiled = eval(code)
let syntax
try { eval('function (') } catch (e) { syntax = e.name }
const nested = eval('(function make(n) { return n === 0 ? () => "bottom" : make(n - 1) })(20)')()
return { outer: outer(1, 2), strict: strict(1), made: made.map((f) => f(2)).slice(-3), closures: closures.map((f) => f()).slice(0, 3), tdz, indirect, compiled, syntax, nested }
