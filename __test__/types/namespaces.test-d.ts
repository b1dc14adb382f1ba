// Type test of the plugin namespace typings: a plugin registering a
// namespace through the public API only (see index.test-d.ts for how these
// files are checked; nothing here runs).

import {
  clearCodeModeNamespacesForPlugin,
  clearCodeModeNamespacesForTest,
  createCodeModeNamespaceTool,
  listCodeModeNamespaces,
  registerCodeModeNamespaceForPlugin,
} from '../../index.js'
import type { NamespaceRegistration, NamespaceScopeContext, NamespaceToolMarker } from '../../index.js'

import { expectExact } from './expect.js'

const list = createCodeModeNamespaceTool('github_list_issues', ([params]) => params ?? {})
expectExact<typeof list, NamespaceToolMarker>()
expectExact<typeof list.toolName, string>()
const update = createCodeModeNamespaceTool('github_update_issue')

const registration: NamespaceRegistration = {
  id: 'github-issues',
  globalName: 'Issues',
  description: 'GitHub issue helpers.',
  requiredToolNames: ['github_list_issues', 'github_update_issue'],
  createScope: async (ctx: NamespaceScopeContext) => {
    expectExact<typeof ctx.signal, AbortSignal>()
    expectExact<typeof ctx.runId, string>()
    return { repository: ctx.config, list, nested: { update } }
  },
}
registerCodeModeNamespaceForPlugin('github', registration)

const listed = listCodeModeNamespaces()
expectExact<typeof listed, { id: string; pluginId: string; globalName: string }[]>()
clearCodeModeNamespacesForPlugin('github')
clearCodeModeNamespacesForTest()

// @ts-expect-error createScope is required
registerCodeModeNamespaceForPlugin('github', { id: 'x', globalName: 'X', requiredToolNames: ['t'] })
// @ts-expect-error requiredToolNames lists names
registerCodeModeNamespaceForPlugin('github', { ...registration, requiredToolNames: [1] })
// @ts-expect-error a mapper takes the argument list
createCodeModeNamespaceTool('t', (a: string) => a)
// @ts-expect-error a marker is read-only
list.toolName = 'other'
