// Shared by the plugin namespace tests: the Issues namespace of the feature
// page over two tools of a fake "github" plugin, and a run that records the
// calls and events it sees (docs/namespaces.md).
import { binding, codeModeFactory } from './helpers.mjs'

const { registerCodeModeNamespaceForPlugin: register, createCodeModeNamespaceTool: namespaceTool } = binding

/** Code-mode instances of the namespace tests; close them in `after`. */
export const codeModes = codeModeFactory()

export const PREFIX = 'code mode namespace Issues could not be prepared: '

export const GITHUB_TOOLS = [
  { name: 'github_list_issues', description: 'List issues', source: 'openclaw', sourceName: 'github' },
  { name: 'github_update_issue', description: 'Update an issue', source: 'openclaw', sourceName: 'github' },
  { name: 'read', description: 'Read a file', source: 'openclaw' },
]

/** The Issues namespace of the feature page, with `createScope` replaceable. */
export function registerIssues(createScope = issuesScope, extra = {}) {
  register('github', {
    id: 'github-issues',
    globalName: 'Issues',
    description: 'GitHub issue helpers for the current repository.',
    requiredToolNames: ['github_list_issues', 'github_update_issue'],
    prompt: 'Use Issues.list(params) and Issues.update(number, patch).',
    createScope,
    ...extra,
  })
}

export function issuesScope(ctx) {
  return {
    repository: ctx.config,
    list: namespaceTool('github_list_issues', ([params]) => params ?? {}),
    update: namespaceTool('github_update_issue', ([number, patch]) => ({ number, patch })),
  }
}

/** A run over `tools` whose executor records each call and answers with `answer(call)`. */
export function prepare({ tools = GITHUB_TOOLS, answer, config = {}, ctx = {} } = {}) {
  const codeMode = codeModes.enabled(config)
  const calls = []
  const events = []
  const executeTool = (call) => {
    calls.push(call)
    return answer ? answer(call) : { content: [{ type: 'text', text: 'ok' }], details: { tool: call.name, input: call.input } }
  }
  const run = codeMode.prepareRun({
    runId: 'agent-run-1',
    sessionId: 'session-1',
    sessionKey: 'key-1',
    agentId: 'agent-1',
    tools,
    executeTool,
    onEvent: (event) => events.push(event),
    scopeContext: { repo: 'openclaw/openclaw' },
    ...ctx,
  })
  const exec = (code, call) => run.exec(typeof code === 'string' ? { code } : code, call)
  return { codeMode, run, exec, calls, events }
}

