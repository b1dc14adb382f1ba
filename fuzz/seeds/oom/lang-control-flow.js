0 // Control flow the compiler rewrites: try/catch/finally with returns and breaks, labeled blocks, switch fallthrough, do/while/for-in/for-of with continue, optional catch binding, exceptions through generators and async code
function f(n) {
  const log = []
  outer: for (let i = 0; i < n; i++) {
    try {
      if (i === 1) continue
      if (i === 3) break outer
      try { if (i === 2) throw new Error('two') } finally { log.push('inner finally ' + i) }
    } catch (e) {
      log.push('caught ' + e.message)
    } finally {
      log.push('finally ' + i)
    }
  }
  block: { log.push('in block'); if (n) break block; log.push('never') }
  switch (n) { case 5: log.push('five'); case 6: log.push('six (fallthrough)'); break; default: log.push('default') }
  let k = 0
  do { k++; if (k === 2) continue } while (k < 4)
  for (const key in { a: 1, b: 2, [Symbol('s')]: 3 }) log.push('key ' + key)
  try { JSON.parse('{') } catch { log.push('optional catch binding') }
  return [log, k]
}
function* gen() { try { yield 1; yield 2 } finally { yield 'cleanup' } }
const g = gen()
const genLog = [g.next().value, g.return('early').value, g.next().done]
async function thrower() { await null; throw new RangeError('async throw') }
let asyncCaught
try { await thrower() } catch (e) { asyncCaught = e.name }
const finallyWins = (() => { try { return 'try' } finally { return 'finally' } })()
let count = 0
while (true) { if (++count > 5) break }
const ternaries = [0, 1, 2].map((x) => (x === 0 ? 'zero' : x === 1 ? 'one' : 'many'))
const shortCircuit = [null ?? 'a', 0 || 'b', 1 && 'c', undefined?.x ?? 'd']
return { f: f(5), genLog, asyncCaught, finallyWins, count, ternaries, shortCircuit }
