import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
export const binding = require('../index.js')

export const TOOLS = [{ name: 'read', description: 'Read a file', source: 'openclaw' }]

/** A run surface over a fresh code-mode instance; `close` it when done. */
export function surface(config = {}, options = {}) {
  const codeMode = binding.createCodeMode({ config: { enabled: true, ...config }, ...options })
  const run = codeMode.prepareRun({ runId: 'run-1', tools: TOOLS, executeTool: async () => null })
  return { codeMode, run, exec: (input, call) => run.exec(typeof input === 'string' ? { code: input } : input, call) }
}
