// quickjs-emscripten, sync variant (RELEASE_SYNC): one WASM module loaded
// once, a fresh runtime + context per cell (64 MiB memory limit, deadline
// interrupt handler), disposed after.
import { getQuickJS, shouldInterruptAfterDeadline } from 'quickjs-emscripten'

import { guestSource, makeHostCall } from '../lib/host.mjs'

const MEMORY_LIMIT = 64 * 1024 * 1024

export async function createQuickjsEmscripten() {
  const QuickJS = await getQuickJS()
  const call = makeHostCall()

  function context(timeoutMs, host) {
    const vm = QuickJS.newContext()
    vm.runtime.setMemoryLimit(MEMORY_LIMIT)
    vm.runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + timeoutMs))
    if (host) {
      vm.deferreds = new Set() // unsettled ones must be freed before the runtime is
      const fn = vm.newFunction('__call', (nameHandle, jsonHandle) => {
        const deferred = vm.newPromise()
        vm.deferreds.add(deferred)
        host(vm.getString(nameHandle), vm.getString(jsonHandle)).then((json) => {
          if (!vm.alive) return
          const value = vm.newString(json)
          deferred.resolve(value)
          vm.deferreds.delete(deferred)
          value.dispose()
          vm.runtime.executePendingJobs()
        })
        return deferred.handle // the library frees its handle after taking its own reference
      })
      vm.setProp(vm.global, '__call', fn)
      fn.dispose()
    }
    return vm
  }

  return {
    name: 'quickjs-emscripten',
    kind: 'peer',
    async cell(code, { timeoutMs = 60000 } = {}) {
      const vm = context(timeoutMs, call)
      try {
        const promise = vm.unwrapResult(vm.evalCode(guestSource(code)))
        const settled = vm.resolvePromise(promise)
        promise.dispose()
        vm.runtime.executePendingJobs()
        const result = vm.unwrapResult(await settled)
        const json = vm.getString(result)
        result.dispose()
        return JSON.parse(json)
      } finally {
        vm.dispose()
      }
    },

    /** B6: a live context whose cell awaits a call that never settles. */
    async hold(code) {
      const vm = context(60000, makeHostCall(() => new Promise(() => {})))
      vm.unwrapResult(vm.evalCode(guestSource(code))).dispose()
      vm.runtime.executePendingJobs()
      return () => {
        for (const deferred of vm.deferreds) deferred.dispose()
        vm.dispose()
      }
    },

    /** B7: two synchronous spins, each stopped by its interrupt handler; on the Node thread. */
    async spin(code, ms) {
      for (let i = 0; i < 2; i++) {
        const vm = context(ms)
        const result = vm.evalCode(code)
        if (!result.error) throw new Error('quickjs-emscripten: the spin ended')
        result.dispose()
        vm.dispose()
      }
      return 'timeout'
    },

    close() {},
  }
}
