// Type test: an executor that answers synchronously. Checked with
// index.test-d.ts by `npm run typecheck`; never executed.

import { createCodeMode } from '../../index.js'
import type { CodeModeRunSurface, EffectiveTool } from '../../index.js'
import { expectExact } from './expect.js'

// ---------------------------------------------------------------------------
// An executor may answer synchronously (a plain value or a throw): the result
// is taken as `await` would take it.

export function syncExecutorRun(tools: EffectiveTool[]): CodeModeRunSurface {
  return createCodeMode().prepareRun({
    runId: 'run-sync',
    tools,
    executeTool: (call) => {
      expectExact<typeof call.source, 'openclaw' | 'mcp' | 'client'>()
      if (call.name === 'denied') throw new Error('denied by policy')
      return { ok: true, tool: call.id }
    },
  })
}
