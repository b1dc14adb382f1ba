0 // WeakMap, WeakSet, WeakRef and FinalizationRegistry: every method, with symbols as weak keys
const key = {}
const sym = Symbol('weak')
const wm = new WeakMap([[key, 1]])
wm.set(sym, 2)
const ws = new WeakSet([key])
ws.add(sym)
const out = {
  weakMap: [wm.get(key), wm.has(sym), wm.delete(sym), wm.has(sym), wm.getOrInsert({}, 3), wm.getOrInsertComputed(key, () => 9),
    wm.getOrInsertComputed(sym, () => 'computed'), wm[Symbol.toStringTag]],
  weakSet: [ws.has(key), ws.delete(key), ws.has(key), ws[Symbol.toStringTag]],
}
const ref = new WeakRef(key)
out.ref = [ref.deref() === key, ref[Symbol.toStringTag]]
const finalized = []
const registry = new FinalizationRegistry((held) => finalized.push(held))
const token = {}
for (let i = 0; i < 20; i++) registry.register({ i }, 'held ' + i)
registry.register(key, 'kept', token)
out.unregister = [registry.unregister(token), registry.unregister({}), registry[Symbol.toStringTag]]
try { wm.set(1, 1) } catch (e) { out.primitive = e.name }
try { new WeakRef(Symbol.for('registered')) } catch (e) { out.registered = e.name }
await new Promise((resolve) => setTimeout(resolve, 0))
out.finalizedIsArray = Array.isArray(finalized)
return out
