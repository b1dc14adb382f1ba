0 // Proxy with every trap, Proxy.revocable, and every Reflect function
const log = []
const target = { a: 1, b: 2 }
const handler = {
  get(t, k, r) { log.push('get ' + String(k)); return Reflect.get(t, k, r) },
  set(t, k, v, r) { log.push('set ' + k); return Reflect.set(t, k, v, r) },
  has(t, k) { log.push('has ' + k); return Reflect.has(t, k) },
  deleteProperty(t, k) { log.push('delete ' + k); return Reflect.deleteProperty(t, k) },
  ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t) },
  getOwnPropertyDescriptor(t, k) { return Reflect.getOwnPropertyDescriptor(t, k) },
  defineProperty(t, k, d) { log.push('define ' + k); return Reflect.defineProperty(t, k, d) },
  getPrototypeOf(t) { log.push('getPrototypeOf'); return Reflect.getPrototypeOf(t) },
  setPrototypeOf(t, p) { log.push('setPrototypeOf'); return Reflect.setPrototypeOf(t, p) },
  isExtensible(t) { log.push('isExtensible'); return Reflect.isExtensible(t) },
  preventExtensions(t) { log.push('preventExtensions'); return Reflect.preventExtensions(t) },
}
const p = new Proxy(target, handler)
p.c = p.a + p.b
delete p.a
const keys = Object.keys(p)
const has = 'b' in p
Object.defineProperty(p, 'd', { value: 4, configurable: true })
Object.getPrototypeOf(p)
Object.setPrototypeOf(p, Object.prototype)
Object.isExtensible(p)
Object.preventExtensions(p)
const fn = new Proxy(function (x) { return x * 2 }, {
  apply(t, self, args) { return Reflect.apply(t, self, args) + 1 },
  construct(t, args, nt) { return { built: args[0], same: nt === fn } },
})
const { proxy, revoke } = Proxy.revocable({}, {})
revoke()
let revoked
try { proxy.x } catch (e) { revoked = e.name }
const out = {
  log, keys, has, call: fn(5), construct: new fn(7), revoked,
  reflect: [Reflect.apply(Math.max, null, [1, 3]), Reflect.construct(Date, [0]).getTime(), Reflect.defineProperty({}, 'x', { value: 1 }),
    Reflect.deleteProperty({ y: 1 }, 'y'), Reflect.get({ z: 3 }, 'z'), Reflect.getOwnPropertyDescriptor({ w: 1 }, 'w').value,
    Reflect.getPrototypeOf([]) === Array.prototype, Reflect.has({ v: 1 }, 'v'), Reflect.isExtensible({}),
    Reflect.ownKeys({ k: 1, [Symbol('s')]: 2 }).length, Reflect.preventExtensions({}), Reflect.set({}, 'q', 1),
    Reflect.setPrototypeOf({}, null), Reflect[Symbol.toStringTag]],
}
class Base { constructor() { this.kind = new.target.name } }
class Derived extends Base {}
out.newTarget = Reflect.construct(Base, [], Derived).kind
return out
