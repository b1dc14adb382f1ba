// isolated-vm: a fresh V8 isolate per cell (64 MiB heap limit), disposed
// after. Cells run on isolated-vm's own threads. The host function is an
// `ivm.Reference` the guest applies with `result: { promise: true }`, so the
// guest's `await __call(...)` waits for the Node-side promise (an
// `ivm.Callback` cannot hand back a promise).
import ivm from 'isolated-vm'

import { guestSource as hostGuestSource, makeHostCall } from '../lib/host.mjs'

const PRELUDE =
  'const __call = (name, json) => __callRef.apply(undefined, [name, json], { result: { promise: true } });\n'
const guestSource = (code) => PRELUDE + hostGuestSource(code)

export async function createIsolatedVm() {
  const call = makeHostCall()

  function isolate(host) {
    const isolate = new ivm.Isolate({ memoryLimit: 64 })
    const context = isolate.createContextSync()
    context.global.setSync('__callRef', new ivm.Reference(host))
    return { isolate, context }
  }

  return {
    name: 'isolated-vm',
    kind: 'peer',
    async cell(code, { timeoutMs } = {}) {
      const { isolate: iso, context } = isolate(call)
      try {
        // No `timeout` unless asked: its watchdog costs about 0.4 ms a cell
        // here, and it bounds the synchronous part only anyway (a loop after
        // an await is not stopped).
        const json = await context.eval(guestSource(code), { promise: true, ...(timeoutMs ? { timeout: timeoutMs } : {}) })
        return JSON.parse(json)
      } finally {
        iso.dispose()
      }
    },

    /** B6: an isolate whose cell awaits a call that never settles. */
    async hold(code) {
      let started
      const ready = new Promise((resolve) => (started = resolve))
      const { isolate: iso, context } = isolate(
        makeHostCall(() => {
          started()
          return new Promise(() => {})
        }),
      )
      context.eval(guestSource(code), { promise: true }).catch(() => {}) // rejects at dispose
      await ready
      return () => iso.dispose()
    },

    /** B7: two synchronous spins with isolated-vm's own timeout, on its threads. */
    async spin(code, ms) {
      await Promise.all(
        [0, 1].map(async () => {
          const iso = new ivm.Isolate({ memoryLimit: 64 })
          try {
            const context = iso.createContextSync()
            await context.eval(code, { timeout: ms }).catch((error) => {
              if (!/timed out/.test(error.message)) throw error
            })
          } finally {
            iso.dispose()
          }
        }),
      )
      return 'timeout'
    },

    close() {},
  }
}
