// An MCP server (stdio) whose tool `die` makes it exit mid-call: the runner
// must report the crash and exit 4.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const server = new Server({ name: 'crashy', version: '0.0.1' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'die', description: 'Exits the server.', inputSchema: { type: 'object' } }],
}))
server.setRequestHandler(CallToolRequestSchema, async () => {
  process.stderr.write('crashy: exiting on purpose\n')
  process.exit(3)
})
await server.connect(new StdioServerTransport())
