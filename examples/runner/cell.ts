// A cell for the runner: `npx code-mode run examples/runner/cell.ts
// --mcp-config examples/runner/servers.json` (from the repository:
// `node cli/main.mjs run ...`). It reads the server's declarations, then
// calls two of its tools, one after the other and then both at once.
const declarations: string = API.read('mcp/everything.d.ts').content
console.log('everything declares', (declarations.match(/\(input/g) ?? []).length, 'tools')

const echoed = await MCP.everything.echo({ message: 'hello from the runner' })
const [small, large] = await Promise.all([
  MCP.everything.getSum({ a: 1, b: 2 }),
  MCP.everything.getSum({ a: 1000, b: 2000 }),
])
return {
  echo: echoed.content[0].text,
  sums: [small.content[0].text, large.content[0].text],
}
