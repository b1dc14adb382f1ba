0t// TypeScript: mapped and conditional types, template literal types, declaration merging, abstract members, index signatures, generics with defaults, namespaces merged with functions, enums reverse-mapped, private and readonly parameter properties
type Getters<T> = { [K in keyof T as `get${Capitalize<string & K>}`]: () => T[K] }
type Unwrap<T> = T extends Promise<infer U> ? U : T
type Event = `on${'Click' | 'Hover'}`
interface Point { x: number }
interface Point { y: number }
function label(p: Point): string { return `${p.x},${p.y}` }
namespace label { export const prefix = 'pt' }
enum Direction { Up = 1, Down, Left, Right }
abstract class Repo<T extends { id: number }, K = number> {
  protected items = new Map<K, T>()
  constructor(private readonly name: string, public readonly limit: number = 10) {}
  abstract key(t: T): K
  add(t: T): this { if (this.items.size < this.limit) this.items.set(this.key(t), t); return this }
  get size(): number { return this.items.size }
  describe(): string { return `${this.name}:${this.size}` }
}
class IssueRepo extends Repo<{ id: number; title: string }> { key(t: { id: number }) { return t.id } }
const repo = new IssueRepo('issues', 3).add({ id: 1, title: 'a' }).add({ id: 2, title: 'b' }).add({ id: 1, title: 'c' })
function makeGetters<T extends object>(o: T): Getters<T> {
  const out: Record<string, () => unknown> = {}
  for (const [k, v] of Object.entries(o)) out['get' + k[0].toUpperCase() + k.slice(1)] = () => v
  return out as Getters<T>
}
const g = makeGetters({ name: 'x', count: 2 })
const dict: { [key: string]: number } = { a: 1 }
const unwrapped: Unwrap<Promise<number>> = await Promise.resolve(5)
const ev: Event = 'onClick'
let definite!: string
definite = 'assigned'
const tuple = [1, 'a'] as const
const fn = <T,>(x: T): [T, T] => [x, x]
return { label: label({ x: 1, y: 2 }), prefix: label.prefix, dir: [Direction.Down, Direction[4]], repo: repo.describe(), getters: [g.getName(), g.getCount()],
  dict, unwrapped, ev, definite, tuple, fn: fn('t'), issues: (await tools.list_issues({})) as unknown as object }
