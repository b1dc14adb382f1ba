// The guest side of every workload: the same cell source runs in every
// contender. A cell is the body of an async function (top-level `await` and
// `return`), calling tools as `await tools.call(name, input)`, which is the
// product's own guest API and what each peer's guest wrapper provides.

export const B1 = { code: 'return 1 + 1', expect: 2 }

export const B2 = {
  code: `let sum = 0
for (let i = 0; i < 100; i++) {
  const r = await tools.call('echo', { n: i })
  sum += r.n
}
return sum`,
  expect: 4950,
}

export const B3 = {
  code: `const results = await Promise.all(Array.from({ length: 100 }, (_, i) => tools.call('echo', { n: i })))
return results.reduce((sum, r) => sum + r.n, 0)`,
  expect: 4950,
}

export const B4 = {
  code: `let s = 0
for (let i = 0; i < 1e6; i++) s += i * i
const items = []
for (let i = 0; i < 10000; i++) items.push({ id: i, name: 'item' + i, even: i % 2 === 0 })
return { s, length: JSON.stringify(items).length }`,
  expect: { s: 333332833333127550, length: 422781 },
}

/** Awaits the `slow` tool, which the harness settles when it chooses (B5, B6). */
export const SUSPEND = { code: "const r = await tools.call('slow', { n: 41 })\nreturn r.n + 1", expect: 42 }

/** Parks at once through `yield_control` (product only, B5). */
export const YIELD = { code: 'await yield_control()\nreturn 1', expect: 1 }

export const SPIN = 'for (;;) {}'

/** A cell that makes up to `maxCalls` awaited calls with `input` until `until` (epoch ms); inputs carry the `n` the tools' schema requires. */
export const flood = (inputExpr, maxCalls, until) => `const input = ${inputExpr}
let n = 0
while (n < ${maxCalls} && Date.now() < ${until}) { await tools.call('echo', input); n++ }
return n`

/** About 14 KB of JSON: 1,000 keys. */
export const SMALL_INPUT = "(() => { const o = { n: 0 }; for (let i = 0; i < 1000; i++) o['k' + i] = i; return o })()"
/** About 512 KiB of JSON: 4,300 rows of 100-character strings. */
export const LARGE_INPUT = "({ n: 0, rows: Array.from({ length: 4300 }, (_, i) => ({ id: i, text: 'x'.repeat(100) })) })"

/** CPU-bound cell for B11, `iterations` sized by calibration. */
export const heavy = (iterations) => `let s = 0
for (let i = 0; i < ${iterations}; i++) s = (s + i * 7) % 1000003
return s`

/** B8: a TypeScript cell of 50 lines with interfaces, generics and `as`. */
export const TS_CELL = {
  code: `interface Item {
  id: number
  name: string
  tags: string[]
  price?: number
}

interface Page<T> {
  items: T[]
  total: number
  next?: string
}

type Predicate<T> = (value: T) => boolean

function paginate<T>(all: T[], size: number, offset = 0): Page<T> {
  const items = all.slice(offset, offset + size)
  const next = offset + size < all.length ? String(offset + size) : undefined
  return { items, total: all.length, next }
}

function where<T extends object>(list: T[], ...predicates: Predicate<T>[]): T[] {
  return list.filter((value) => predicates.every((p) => p(value)))
}

class Inventory<K extends string | number, V extends { id: K }> {
  private readonly byId = new Map<K, V>()
  add(value: V): this {
    this.byId.set(value.id, value)
    return this
  }
  get(id: K): V | undefined {
    return this.byId.get(id)
  }
  get size(): number {
    return this.byId.size
  }
}

const raw: unknown = Array.from({ length: 50 }, (_, i) => ({ id: i, name: 'item ' + i, tags: i % 3 ? ['a'] : ['a', 'b'], price: i * 1.5 }))
const items = raw as Item[]
const inventory = new Inventory<number, Item>()
for (const item of items) inventory.add(item)
const cheap: Predicate<Item> = (item) => (item.price ?? 0) < 30
const tagged: Predicate<Item> = (item) => item.tags.includes('b')
const page = paginate(where(items, cheap, tagged), 5)
const first = inventory.get(page.items[0]!.id) as Item
const label = <const>['total', page.total]
// angle-bracket assertion above, \`as\` and non-null \`!\` before it
return { size: inventory.size, total: page.total, first: first.name, next: page.next ?? null, label: label[0] }`,
  expect: { size: 50, total: 7, first: 'item 0', next: '5', label: 'total' },
}
