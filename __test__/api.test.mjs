import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { test } from 'node:test'

import { TOOLS, binding } from './helpers.mjs'

const { createCodeMode, resolveCodeModeConfig } = binding

test('index.d.ts matches its snapshot (run with UPDATE_SNAPSHOTS=1 to accept a change)', () => {
  const current = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
  const snapshot = new URL('./snapshots/index.d.ts', import.meta.url)
  if (process.env.UPDATE_SNAPSHOTS) writeFileSync(snapshot, current)
  assert.equal(current, readFileSync(snapshot, 'utf8'))
})

test('resolveCodeModeConfig: defaults, shorthands, merge and clamps', () => {
  const defaults = resolveCodeModeConfig()
  assert.deepEqual(defaults, {
    enabled: false, timeoutMs: 10000, memoryLimitBytes: 67108864, maxOutputBytes: 65536,
    maxSnapshotBytes: 10485760, maxPendingToolCalls: 16, snapshotTtlSeconds: 900,
    searchDefaultLimit: 8, maxSearchLimit: 50, languages: ['javascript', 'typescript'], validateToolInputs: true,
  })
  assert.equal(resolveCodeModeConfig(true).enabled, true)
  assert.equal(resolveCodeModeConfig({ timeoutMs: 500 }).enabled, false)
  assert.equal(resolveCodeModeConfig({ enabled: true }, false).enabled, false)
  assert.equal(resolveCodeModeConfig({ validateToolInputs: false }).validateToolInputs, false)
  assert.equal(resolveCodeModeConfig({ validateToolInputs: false }, { validateToolInputs: true }).validateToolInputs, true, 'merged per agent')
  assert.equal(resolveCodeModeConfig({ validateToolInputs: 'no' }).validateToolInputs, true, 'only false turns it off')
  const merged = resolveCodeModeConfig({ enabled: true, timeoutMs: 500 }, { maxOutputBytes: 1 })
  assert.deepEqual([merged.enabled, merged.timeoutMs, merged.maxOutputBytes], [true, 500, 1024])
  assert.equal(resolveCodeModeConfig({ timeoutMs: -1 }).timeoutMs, 10000)
  assert.equal(resolveCodeModeConfig({ timeoutMs: 1e9 }).timeoutMs, 60000)
  assert.deepEqual(resolveCodeModeConfig({ languages: ['typescript', 'x'] }).languages, ['typescript'])
})

test('activation: disabled, disableTools and empty tool lists stay inactive', async () => {
  const executeTool = async () => null
  const off = createCodeMode({ config: { timeoutMs: 500 } })
  assert.equal(off.config.enabled, false)
  assert.equal(off.prepareRun({ runId: 'r', tools: TOOLS, executeTool }).active, false)
  const on = createCodeMode({ config: true, workerThreads: 1 })
  assert.equal(on.prepareRun({ runId: 'r', tools: TOOLS, executeTool }).active, true)
  assert.equal(on.prepareRun({ runId: 'r', tools: [], executeTool }).active, false)
  assert.equal(on.prepareRun({ runId: 'r', tools: TOOLS, disableTools: true, executeTool }).active, false)
  assert.equal(on.prepareRun({ runId: 'r', tools: TOOLS, agentConfig: false, executeTool }).active, false)
  assert.equal(off.prepareRun({ runId: 'r', tools: TOOLS, agentConfig: { enabled: true }, executeTool }).active, true)
  await Promise.all([off.close(), on.close()])
})

test('host programming errors throw', async () => {
  const codeMode = createCodeMode({ config: true, workerThreads: 1 })
  assert.throws(() => createCodeMode({ workerThreads: 0 }), /workerThreads must be a positive integer/)
  const missing = codeMode.prepareRun({ runId: 'r', tools: TOOLS })
  assert.throws(() => missing.exec({ code: 'return 1' }), /executeTool must be a function/)
  const inactive = codeMode.prepareRun({ runId: 'r', tools: [], executeTool: async () => null })
  assert.throws(() => inactive.exec({ code: 'return 1' }), /not active/)
  await codeMode.close()
})
