// quickjs-wasi: QuickJS-NG compiled to WASM, with snapshot/restore of the
// whole VM (what OpenClaw's code mode runs on). The WASM module is compiled
// once and every cell instantiates a fresh VM from it, as a real user would.
// Each VM gets a 64 MiB memory limit and a deadline interrupt handler.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'

import { QuickJS } from 'quickjs-wasi'

import { guestSource, makeHostCall } from '../lib/host.mjs'

const require = createRequire(import.meta.url)
const MEMORY_LIMIT = 64 * 1024 * 1024

/**
 * B5's guest wrapper: a snapshot keeps the guest heap but no host handle, so
 * the guest keeps its own resolvers (`__pending`) and the host settles a call
 * by id through the guest global `__settle`, after a restore too. The host
 * function `__start(id, name, inputJson)` is re-registered by name on restore.
 */
const snapshotSource = (code) => `const __pending = new Map(); let __next = 0
globalThis.__settle = (id, json) => { const resolve = __pending.get(id); __pending.delete(id); resolve(JSON.parse(json)) }
const tools = {
  call: (name, input) => new Promise((resolve) => { const id = ++__next; __pending.set(id, resolve); __start(id, name, JSON.stringify(input)) }),
};
(async () => {
${code}
})().then((value) => { globalThis.__done = JSON.stringify(value === undefined ? null : value) })`

export async function createQuickjsWasi() {
  const module = await WebAssembly.compile(await readFile(require.resolve('quickjs-wasi/quickjs.wasm')))
  const call = makeHostCall()

  const options = (timeoutMs) => {
    const deadline = Date.now() + timeoutMs
    return { wasm: module, memoryLimit: MEMORY_LIMIT, interruptHandler: () => Date.now() > deadline }
  }

  /** Installs `__call`: each call returns a guest promise settled from the host's. */
  function installCall(vm, host) {
    const fn = vm.newFunction('__call', (nameHandle, jsonHandle) => {
      const deferred = vm.newPromise()
      host(nameHandle.toString(), jsonHandle.toString()).then((json) => {
        if (vm.disposed) return
        const value = vm.newString(json)
        deferred.resolve(value)
        value.dispose()
        deferred.handle.dispose()
        vm.executePendingJobs()
      })
      return deferred.handle // the VM takes its own reference
    })
    vm.setProp(vm.global, '__call', fn)
    fn.dispose()
  }

  async function cell(code, { timeoutMs = 60000 } = {}) {
    const vm = await QuickJS.create(options(timeoutMs))
    try {
      installCall(vm, call)
      const promise = vm.evalCode(guestSource(code))
      vm.executePendingJobs()
      const settled = await vm.resolvePromise(promise)
      promise.dispose()
      if (settled.error) throw new Error(`quickjs-wasi: ${settled.error.consume((e) => e.toString())}`)
      return JSON.parse(settled.value.consume((v) => v.toString()))
    } finally {
      vm.dispose()
    }
  }

  return {
    name: 'quickjs-wasi',
    kind: 'peer',
    cell,

    /**
     * B5: run the cell until it awaits `slow`, snapshot the VM and drop it
     * ("park"); then restore it, settle the call and run it to completion
     * ("resume"). The snapshot is held in memory, not serialized.
     */
    async suspend(code) {
      const started = []
      const start = (vm) => (idHandle, nameHandle, jsonHandle) => {
        started.push({ id: idHandle.toNumber(), input: JSON.parse(jsonHandle.toString()) })
        return vm.undefined
      }
      const vm = await QuickJS.create(options(60000))
      vm.setProp(vm.global, '__start', vm.newFunction('__start', start(vm)))
      vm.evalCode(snapshotSource(code)).dispose()
      vm.executePendingJobs()
      if (started.length !== 1) throw new Error('quickjs-wasi: the cell did not call slow')

      const t0 = performance.now()
      const snapshot = vm.snapshot()
      vm.dispose()
      const t1 = performance.now()

      const t2 = performance.now()
      const restored = await QuickJS.restore(snapshot, options(60000))
      try {
        restored.registerHostCallback('__start', start(restored))
        const [{ id, input }] = started
        const settle = restored.global.getProp('__settle')
        const idHandle = restored.newNumber(id)
        const json = restored.newString(JSON.stringify({ ok: true, n: input.n }))
        restored.callFunction(settle, restored.undefined, idHandle, json).dispose()
        settle.dispose()
        idHandle.dispose()
        json.dispose()
        restored.executePendingJobs()
        const value = JSON.parse(restored.global.getProp('__done').consume((h) => h.toString()))
        const t3 = performance.now()
        return { park: t1 - t0, resume: t3 - t2, bytes: snapshot.memory.byteLength, value }
      } finally {
        restored.dispose()
      }
    },

    /** B6: a live VM whose cell awaits a call that never settles. */
    async hold(code) {
      const vm = await QuickJS.create(options(60000))
      installCall(vm, makeHostCall(() => new Promise(() => {})))
      vm.evalCode(guestSource(code)).dispose()
      vm.executePendingJobs()
      return () => vm.dispose()
    },

    /** B7: two synchronous spins, each stopped by its interrupt handler; on the Node thread. */
    async spin(code, ms) {
      for (let i = 0; i < 2; i++) {
        const vm = await QuickJS.create(options(ms))
        try {
          vm.evalCode(code).dispose()
        } catch (error) {
          if (!/interrupted/.test(error.message)) throw error
        } finally {
          vm.dispose()
        }
      }
      return 'timeout'
    },

    close() {},
  }
}
