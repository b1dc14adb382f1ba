0 // API: list with and without a prefix, read every declaration file, and the refusals
const all = API.list()
const under = API.list('mcp/')
const none = API.list('mc')
const files = all.files.map((f) => API.read(f.path))
const awaited = await API.read('mcp/index.d.ts')
const refusals = []
for (const attempt of [() => API.read('../etc'), () => API.read('/mcp/index.d.ts'), () => API.read('mcp/nope.d.ts'), () => API.list(5), () => API.read(1)]) {
  try { attempt() } catch (e) { refusals.push(e.message) }
}
return {
  paths: all.files.map((f) => [f.path, f.bytes, f.description.length > 0]), under: under.files.length, none: none.files.length,
  contents: files.map((f) => [f.path, f.content.includes('declare'), f.bytes === f.content.length]),
  awaited: awaited.content.split('\n')[0], refusals, frozen: Object.isFrozen(API),
}
