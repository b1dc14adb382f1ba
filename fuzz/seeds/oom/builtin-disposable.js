0 // Explicit resource management: using and await using, DisposableStack, AsyncDisposableStack, SuppressedError
const log = []
function resource(name) { return { name, [Symbol.dispose]() { log.push('dispose ' + name) } } }
{
  using a = resource('a')
  using b = resource('b')
  log.push('body ' + a.name + b.name)
}
{
  await using c = { async [Symbol.asyncDispose]() { await null; log.push('async dispose c') } }
  log.push('async body')
}
const stack = new DisposableStack()
stack.use(resource('used'))
stack.adopt('adopted', (v) => log.push('adopt ' + v))
stack.defer(() => log.push('deferred'))
const moved = stack.move()
log.push('moved ' + stack.disposed)
moved[Symbol.dispose]()
moved.dispose()
const astack = new AsyncDisposableStack()
astack.use({ [Symbol.asyncDispose]: async () => log.push('async used') })
astack.adopt(1, async (v) => log.push('async adopt ' + v))
astack.defer(async () => log.push('async deferred'))
const amoved = astack.move()
await amoved.disposeAsync()
await amoved[Symbol.asyncDispose]()
log.push(amoved.disposed, stack[Symbol.toStringTag], astack[Symbol.toStringTag])
let suppressed
try {
  using x = { [Symbol.dispose]() { throw new Error('in dispose') } }
  throw new Error('in body')
} catch (e) {
  suppressed = [e instanceof SuppressedError, e.error.message, e.suppressed.message, e.name]
}
const made = new SuppressedError(new Error('e'), new Error('s'), 'both')
return { log, suppressed, made: [made.message, made.error.message, SuppressedError.prototype.message] }
