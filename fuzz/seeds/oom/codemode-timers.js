0 // Timers: setTimeout with arguments, setInterval, clearTimeout/clearInterval (either id kind), ordering, promise sleeps
const order = []
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const a = setTimeout((x, y) => order.push('timeout ' + x + y), 2, 'a', 'b')
const cancelled = setTimeout(() => order.push('never'), 1)
clearTimeout(cancelled)
setTimeout(() => order.push('zero'), 0)
Promise.resolve().then(() => order.push('micro'))
let ticks = 0
const done = new Promise((resolve) => {
  const id = setInterval(() => {
    ticks++
    if (ticks === 3) { clearInterval(id); resolve(ticks) }
  }, 10)
})
const other = setInterval(() => order.push('never interval'), 10)
clearTimeout(other)
clearInterval('not an id')
clearTimeout(undefined)
await sleep(5)
const counted = await done
const ids = [a, cancelled, other].every((id) => Number.isInteger(id) && id > 0)
let refused
try { setTimeout('code string', 1) } catch (e) { refused = e.message }
const timeoutInTimeout = await new Promise((r) => setTimeout(() => setTimeout(() => r('nested'), 1), 1))
const asyncCallback = await new Promise((r) => setTimeout(async () => { await sleep(1); r(await tools.echo({ text: 'from timer' })) }, 1))
return { order, counted, ids, refused, timeoutInTimeout, asyncCallback }
