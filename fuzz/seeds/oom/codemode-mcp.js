0 // MCP: MCP.$api(), MCP.docs.$api with a selector and with schemas, MCP.docs.searchDocs, MCP.docs.getPage, MCP.github.createIssue, refusals
const root = await MCP.$api()
const server = await MCP.docs.$api()
const withSchemas = await MCP.docs.$api(undefined, { schema: true })
const one = await MCP.docs.$api('searchDocs')
const byTool = await MCP.github.$api('create_issue', { schema: true })
const searched = await MCP.docs.searchDocs({ query: 'allocation', limit: 3 })
const page = await MCP.docs.getPage({ path: '/x' })
const created = await MCP.github.createIssue({ title: 'From a cell' })
const refusals = []
for (const attempt of [() => MCP.docs.searchDocs({}), () => MCP.docs.searchDocs('text'), () => MCP.docs.searchDocs({ query: 'a' }, undefined), () => MCP.docs.$api('nope')]) {
  try { await attempt() } catch (e) { refusals.push(e.message) }
}
return {
  root: [root.kind, root.scope, root.servers.map((s) => s.identifier), root.header.length > 0, typeof root.note],
  server: [server.scope, server.tools.map((t) => t.method), server.schemas === undefined],
  schemas: Object.keys(withSchemas.schemas), one: [one.scope, one.tools.length], byTool: [byTool.scope, byTool.schemas],
  searched, page, created, refusals, keys: Object.keys(MCP), docsKeys: Object.keys(MCP.docs), frozen: Object.isFrozen(MCP.docs),
}
