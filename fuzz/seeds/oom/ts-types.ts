0t// TypeScript (strip-only): interfaces, generics, unions, type guards, satisfies, as const, abstract-free classes, overloads, tool calls typed
interface Issue { number: number; title: string; labels?: readonly string[] }
type Result<T> = { ok: true; value: T } | { ok: false; error: string }
type Keys = keyof Issue
function isOk<T>(r: Result<T>): r is { ok: true; value: T } { return r.ok }
function first<T, K extends keyof T>(items: T[], key: K): T[K] | undefined { return items[0]?.[key] }
function pad(v: string): string
function pad(v: number): string
function pad(v: string | number): string { return String(v).padStart(4, '0') }
const config = { retries: 3, mode: 'fast' } as const satisfies Record<string, unknown>
class Box<T> {
  private readonly items: T[] = []
  add(item: T): this { this.items.push(item); return this }
  map<U>(fn: (t: T) => U): Box<U> { const b = new Box<U>(); for (const i of this.items) b.add(fn(i)); return b }
  get all(): readonly T[] { return this.items }
}
const issues: Issue[] = [{ number: 1, title: 'One' }, { number: 2, title: 'Two', labels: ['x'] }]
const results: Result<number>[] = [{ ok: true, value: 1 }, { ok: false, error: 'no' }]
const echoed = (await tools.echo({ text: 'typed' })) as { text: string }
const listed = (await Issues.list()) as { details: Issue[] }
let maybe: string | undefined
const nonNull = (maybe ?? 'fallback')!
const key: Keys = 'title'
const tuple: [string, number, ...boolean[]] = ['a', 1, true, false]
const fn: <T>(x: T) => T = (x) => x
return {
  ok: results.filter(isOk).map((r) => r.value), first: first(issues, key), pad: [pad(7), pad('x')], config,
  box: new Box<number>().add(1).add(2).map((n) => n * 2).all, echoed: echoed.text, listed: listed.details.length,
  nonNull, tuple, fn: fn<string>('generic'), unknown: ((v: unknown) => typeof v === 'string' ? v.length : -1)('four'),
}
