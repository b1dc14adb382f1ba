// node:vm: a fresh context per cell, on the Node thread, with no isolation
// to speak of (it shares the process heap and the event loop). The speed floor.
// It also hosts B8's TypeScript peer: `typescript.transpileModule`, then node:vm.
import { createRequire } from 'node:module'
import vm from 'node:vm'

import { guestSource, makeHostCall } from '../lib/host.mjs'

const require = createRequire(import.meta.url)

export async function createNodeVm() {
  const call = makeHostCall()
  let ts = null

  async function run(source, timeoutMs, host = call) {
    const context = vm.createContext({ __call: host })
    // No `timeout` unless asked: it starts a watchdog thread that costs about
    // 0.3 ms a cell, and it bounds only the synchronous part anyway (a loop
    // after an `await` would block the Node thread for good; B7 runs only
    // synchronous spins here).
    const json = await vm.runInContext(source, context, timeoutMs ? { timeout: timeoutMs } : {})
    return JSON.parse(json)
  }

  return {
    name: 'node:vm',
    kind: 'peer',
    cell: (code, { timeoutMs } = {}) => run(guestSource(code), timeoutMs),

    /** B8: the TypeScript package strips the types, node:vm runs the result. */
    async typescriptCell(code) {
      ts ??= require('typescript')
      const { outputText } = ts.transpileModule(guestSource(code), {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
        reportDiagnostics: false,
      })
      return run(outputText)
    },

    /** B6: a context whose cell awaits a call that never settles. */
    async hold(code) {
      let started
      const ready = new Promise((resolve) => (started = resolve))
      const host = makeHostCall(() => {
        started()
        return new Promise(() => {})
      })
      let context = vm.createContext({ __call: host })
      vm.runInContext(guestSource(code), context)
      await ready
      return () => {
        context = null
      }
    },

    /** B7: a synchronous spin with node:vm's own timeout; it blocks the Node thread meanwhile. */
    async spin(code, ms) {
      for (let i = 0; i < 2; i++) {
        try {
          vm.runInContext(code, vm.createContext({}), { timeout: ms })
        } catch (error) {
          if (!/timed out/.test(error.message)) throw error
        }
      }
      return 'timeout'
    },

    close() {},
  }
}
