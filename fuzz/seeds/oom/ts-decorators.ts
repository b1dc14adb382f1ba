0t// TypeScript decorators (TC39): class, method, getter, setter, field and accessor decorators, addInitializer, auto-accessors
const log: string[] = []
function logged(value: any, context: ClassDecoratorContext) { log.push('class ' + String(context.name)); return value }
function traced(fn: any, context: ClassMethodDecoratorContext) {
  context.addInitializer(function () { log.push('init ' + String(context.name)) })
  return function (this: any, ...args: any[]) { log.push('call ' + String(context.name)); return fn.apply(this, args) }
}
function doubled(_: undefined, context: ClassFieldDecoratorContext) { return (v: number) => v * 2 }
function watch(target: any, context: ClassAccessorDecoratorContext) {
  return { get(this: any) { return target.get.call(this) }, set(this: any, v: number) { log.push('set ' + v); target.set.call(this, v) } }
}
function getterDec(fn: any, context: ClassGetterDecoratorContext) { return function (this: any) { return 'decorated ' + fn.call(this) } }
function setterDec(fn: any, context: ClassSetterDecoratorContext) { return function (this: any, v: string) { fn.call(this, v.toUpperCase()) } }
@logged
class Widget {
  @doubled size = 21
  @watch accessor level = 1
  accessor plain = 'auto'
  #label = 'w'
  @traced render(prefix: string) { return prefix + this.#label + this.size }
  @getterDec get label() { return this.#label }
  @setterDec set label(v: string) { this.#label = v }
  @traced static make() { return new Widget() }
}
const w = Widget.make()
w.level = 3
w.label = 'renamed'
return { log, render: w.render('>'), level: w.level, plain: w.plain, label: w.label, size: w.size }
