0 // ALL_TOOLS (made on first read): entries 0 to 3 with id, name, description, source, sourceName; frozen; enumerated
const first = ALL_TOOLS[0]
const entries = [ALL_TOOLS[0], ALL_TOOLS[1], ALL_TOOLS[2], ALL_TOOLS[3]].map((t) => [t.id, t.name, t.description.length > 0, t.source, t.sourceName])
return {
  count: ALL_TOOLS.length, entries, frozen: [Object.isFrozen(ALL_TOOLS), Object.isFrozen(first)],
  keys: Object.keys(first), names: Object.getOwnPropertyNames(globalThis).includes('ALL_TOOLS'),
  descriptor: Object.getOwnPropertyDescriptor(globalThis, 'ALL_TOOLS').writable,
  mapped: ALL_TOOLS.map((t) => t.name).sort(), json: JSON.stringify(ALL_TOOLS).length > 100,
  same: ALL_TOOLS === globalThis.ALL_TOOLS,
}
