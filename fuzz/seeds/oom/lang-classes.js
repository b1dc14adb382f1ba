0 // Classes: private fields and methods, static blocks, accessors, inheritance from builtins, super, new.target, #x in obj
class Account {
  static #count = 0
  static registry = new Map()
  static { Account.ready = 'static block ran' }
  #balance = 0
  #history = []
  owner
  constructor(owner) { this.owner = owner; Account.#count++; Account.registry.set(owner, this) }
  get balance() { return this.#balance }
  set balance(v) { throw new Error('read only') }
  #log(kind, amount) { this.#history.push(kind + amount) }
  deposit(n) { this.#balance += n; this.#log('+', n); return this }
  static count() { return Account.#count }
  static isAccount(o) { return #balance in o }
  get history() { return [...this.#history] }
  static get #secret() { return 'private static getter' }
  static reveal() { return Account.#secret }
  toString() { return `${this.owner}: ${this.#balance}` }
}
class Savings extends Account {
  rate = 0.05
  constructor(owner) { super(owner); this.kind = new.target.name }
  deposit(n) { return super.deposit(n * (1 + this.rate)) }
  accessor = 1
}
const s = new Savings('ada').deposit(100).deposit(10)
class Stack extends Array { peek() { return this[this.length - 1] } }
const st = Stack.from([1, 2, 3])
class Failing extends Error { constructor() { super('failing'); this.name = 'Failing' } }
const Anonymous = class { static name2 = this.name }
const mixin = (Base) => class extends Base { mixed() { return 'mixed' } }
class Mixed extends mixin(Object) {}
let setterError
try { s.balance = 1 } catch (e) { setterError = e.message }
return {
  balance: s.balance, history: s.history, count: Account.count(), isAccount: [Account.isAccount(s), Account.isAccount({})],
  ready: Account.ready, reveal: Account.reveal(), string: String(s), kind: s.kind, peek: st.peek(), stackIsArray: Array.isArray(st),
  failing: new Failing() instanceof Error, anon: Anonymous.name2, mixed: new Mixed().mixed(), setterError,
  registry: [...Account.registry.keys()], proto: Object.getOwnPropertyNames(Account.prototype),
}
