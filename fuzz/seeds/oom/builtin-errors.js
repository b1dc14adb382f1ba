0 // Errors: every constructor, cause, stack, Error.isError, captureStackTrace, stackTraceLimit, prepareStackTrace, and engine-thrown errors caught
const kinds = [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, InternalError]
const made = kinds.map((K) => { const e = new K('m', { cause: 1 }); return [e.name, e.message, e.cause, e instanceof Error, K.prototype.message, typeof e.stack] })
const caught = []
const attempts = [
  () => undefinedVariable, () => null.x, () => new Array(-1), () => decodeURI('%'), () => eval('let let'),
  () => { const f = () => f(); f() }, () => (1).toFixed(200), () => Symbol() + '', () => ({}).x.y,
  () => { 'use strict'; undeclared = 1 }, () => JSON.parse('['), () => structuredCloneMissing(),
]
for (const attempt of attempts) {
  try { attempt() } catch (e) { caught.push(e.constructor.name + ': ' + (e.message.length > 0)) }
}
const isError = [Error.isError(new TypeError()), Error.isError({ name: 'Error', message: '' }), Error.isError(Object.create(Error.prototype))]
const holder = {}
Error.captureStackTrace(holder)
const limit = Error.stackTraceLimit
Error.stackTraceLimit = 1
const short = new Error('short').stack
Error.stackTraceLimit = limit
const previous = Error.prepareStackTrace
Error.prepareStackTrace = (error, frames) => 'prepared ' + frames.length
const prepared = new Error('p').stack
Error.prepareStackTrace = previous
class AppError extends Error {
  constructor(message, code) { super(message); this.name = 'AppError'; this.code = code }
}
let custom
try { throw new AppError('app failed', 42) } catch (e) { custom = [e.name, e.code, e instanceof AppError, Error.prototype.toString.call(e)] }
let nonError
try { throw { plain: true } } catch (e) { nonError = e.plain }
let finallyRan = false
const fromFinally = (() => { try { return 'try' } finally { finallyRan = true } })()
const messages = [String(new RangeError()), new Error(undefined).message, Error('no new').message]
return { made, caught, isError, captured: typeof holder.stack, short: typeof short, prepared, custom, nonError, fromFinally, finallyRan, messages }
