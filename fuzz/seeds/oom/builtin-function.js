0 // Function: call/apply/bind/toString, the QuickJS position getters, Symbol.hasInstance, eval and the function constructors
function sloppy(a, b) { return [this === globalThis || this === undefined, a + b, arguments.length] }
const bound = sloppy.bind(null, 1)
const out = {
  call: sloppy.call(undefined, 1, 2), apply: sloppy.apply(null, [3, 4]), bound: bound(5),
  boundName: bound.name, length: sloppy.length, source: sloppy.toString().slice(0, 16),
  position: [typeof sloppy.fileName, typeof sloppy.lineNumber, typeof sloppy.columnNumber],
}
try { out.caller = typeof sloppy.caller } catch (e) { out.caller = e.name }
try { out.args = typeof sloppy.arguments } catch (e) { out.args = e.name }
class Even { static [Symbol.hasInstance](n) { return n % 2 === 0 } }
out.hasInstance = [2 instanceof Even, 3 instanceof Even, Function.prototype[Symbol.hasInstance].call(Object, {})]
out.eval = [eval('1 + 2'), (0, eval)('typeof globalThis'), eval('var evalDeclared = 9; evalDeclared')]
const add = new Function('a', 'b', 'return a + b')
out.ctor = add(2, 3)
const GeneratorFunction = Object.getPrototypeOf(function* () {}).constructor
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor
const AsyncGeneratorFunction = Object.getPrototypeOf(async function* () {}).constructor
const gen = new GeneratorFunction('n', 'yield n; yield n + 1')
out.gen = [...gen(4)]
out.async = await new AsyncFunction('x', 'return await x')(Promise.resolve(6))
const ag = new AsyncGeneratorFunction('yield 1; yield 2')()
out.asyncGen = [(await ag.next()).value, (await ag.next()).value, (await ag.next()).done]
out.tags = [GeneratorFunction.prototype[Symbol.toStringTag], AsyncFunction.prototype[Symbol.toStringTag],
  AsyncGeneratorFunction.prototype[Symbol.toStringTag], typeof GeneratorFunction.prototype.prototype]
out.arrow = ((...rest) => rest.length)(1, 2, 3)
return out
