#!/usr/bin/env node
// The runner's built-in demo MCP server (stdio, the official SDK): used when
// no --mcp-config is given, so that `npx @openclaw/code-mode run` works out
// of the box. A few small tools and one resource, enough to show calls,
// parallel calls, schemas and parking.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'

const number = { type: 'number' }
const TOOLS = [
  { name: 'add', description: 'Adds two numbers.', inputSchema: { type: 'object', properties: { a: number, b: number }, required: ['a', 'b'] } },
  { name: 'echo', description: 'Returns the message it is given.', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
  {
    name: 'word_count',
    description: 'Counts the words and characters of a text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  {
    name: 'sleep',
    description: 'Waits ms milliseconds (at most 10000), then answers: a slow tool, to see a run park and resume.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0, maximum: 10000 } }, required: ['ms'] },
  },
]
const README = 'This is the code-mode demo server.\nIts tools: add, echo, word_count, sleep.\n'

const text = (value) => ({ content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }] })

const server = new Server({ name: 'demo', version: '0.1.0' }, { capabilities: { tools: {}, resources: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }))
server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
  const input = params.arguments ?? {}
  switch (params.name) {
    case 'add':
      return text(Number(input.a) + Number(input.b))
    case 'echo':
      return text(String(input.message))
    case 'word_count': {
      const words = String(input.text).split(/\s+/).filter(Boolean).length
      return text({ words, characters: String(input.text).length })
    }
    case 'sleep': {
      const ms = Math.max(0, Math.min(10000, Number(input.ms) || 0))
      await new Promise((resolve) => setTimeout(resolve, ms))
      return text(`slept ${ms} ms`)
    }
  }
  return { isError: true, content: [{ type: 'text', text: `unknown tool ${params.name}` }] }
})
server.setRequestHandler(ListResourcesRequestSchema, async () => ({
  resources: [{ uri: 'demo://readme', name: 'readme', mimeType: 'text/plain', description: 'What this server offers' }],
}))
server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
  if (params.uri !== 'demo://readme') throw new Error(`unknown resource ${params.uri}`)
  return { contents: [{ uri: params.uri, mimeType: 'text/plain', text: README }] }
})
await server.connect(new StdioServerTransport())
