// Running out of memory at the worst moment. QuickJS builds some builtins
// (Array.fromAsync, Iterator.zip, Iterator.zipKeyed) from bytecode the first
// time a cell reads them; an allocation that failed there leaked what it had
// made, and freeing the VM then aborted the whole process (issue 32, finding
// 1). Every allocation of a cell's run failing in turn is swept by the cargo
// test `crates/code-mode-core/tests/oom.rs`; this file drives the original
// attack through the addon: a ballast just under the memory limit, then the
// first read of each builtin, the ballast stepped so that the limit falls at
// every point of the builtin's construction.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'

import { binding } from './helpers.mjs'

const MEMORY = 'code mode memory limit exceeded.'
const LIMIT = 1024 * 1024 // the smallest memoryLimitBytes
const STEP = 256 // bytes of ballast added from one cell to the next

const codeMode = binding.createCodeMode({ config: { enabled: true, memoryLimitBytes: LIMIT, timeoutMs: 30000 }, workerThreads: 1 })
after(() => codeMode.close())
const run = codeMode.prepareRun({ runId: 'oom', sessionId: 'oom', tools: [{ name: 'echo', description: 'Echo', source: 'openclaw' }], executeTool: async (call) => call.input })

/** A cell that holds `bytes` of ballast, then runs `touch`. */
const cell = (bytes, touch) => `
  const ballast = new Uint8Array(${bytes});
  ${touch};
  return ballast.length`

/** The largest ballast a cell can hold and still return. */
async function largestBallast() {
  let [fits, fails] = [0, LIMIT]
  while (fails - fits > STEP) {
    const middle = Math.floor((fits + fails) / 2)
    const result = await run.exec({ code: cell(middle, '') })
    if (result.status === 'completed') fits = middle
    else fails = middle
  }
  return fits
}

for (const touch of [
  'await Array.fromAsync([1])',
  '[...Iterator.zip([[1], [2]])]',
  '[...Iterator.zipKeyed({ a: [1] })]',
]) {
  test(`a cell that runs out of memory while QuickJS builds ${touch.match(/\w+\.\w+/)[0]} leaves the process and its VM whole`, async () => {
    const retiredBefore = binding.codeModeDiagnostics().retiredVms
    const top = await largestBallast()
    const outcomes = new Set()
    // From a ballast that leaves the builtin room to one that leaves none.
    for (let bytes = top - 96 * 1024; bytes <= top; bytes += STEP) {
      const result = await run.exec({ code: cell(bytes, touch) })
      if (result.status === 'completed') {
        assert.equal(result.value, bytes)
        outcomes.add('completed')
      } else {
        assert.deepEqual([result.status, result.code, result.error], ['failed', 'internal_error', MEMORY])
        outcomes.add('memory')
      }
    }
    // The sweep crossed the limit, and no VM had to be retired: the builtin
    // frees what it made when an allocation fails.
    assert.deepEqual([...outcomes].sort(), ['completed', 'memory'])
    assert.equal(binding.codeModeDiagnostics().retiredVms, retiredBefore)
    // The instance still serves.
    assert.equal((await run.exec({ code: 'return 1 + 1' })).value, 2)
  })
}
