// A plugin namespace, the way a plugin author writes one: the plugin
// "github" owns two tools, `github_list_issues` and `github_update_issue`,
// and registers an `Issues` namespace over them, so that a cell can write
// `Issues.list({ state: "open" })` instead of looking tools up. The tools here
// are an in-memory fake; every call still goes through the gateway's
// `executeTool`, where policy, approvals and hooks apply.
//
//   node examples/issues-plugin.mjs      (after `npm run build`)
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const {
  createCodeMode,
  registerCodeModeNamespaceForPlugin,
  createCodeModeNamespaceTool,
  clearCodeModeNamespacesForPlugin,
} = require('../index.js')

// 1. The plugin registers its namespace when it loads. Only markers made by
//    createCodeModeNamespaceTool become functions in the guest; the mapper
//    turns the guest's arguments into the tool's input, on the host.
const pluginId = 'github'
registerCodeModeNamespaceForPlugin(pluginId, {
  id: 'github-issues',
  globalName: 'Issues',
  description: 'GitHub issue helpers for the current repository.',
  prompt: 'Use Issues.list({ state }) and Issues.update(number, patch); Issues.repository names the repository.',
  requiredToolNames: ['github_list_issues', 'github_update_issue'],
  createScope: async (ctx) => ({
    repository: ctx.config.repository,
    list: createCodeModeNamespaceTool('github_list_issues', ([params]) => params ?? {}),
    update: createCodeModeNamespaceTool('github_update_issue', ([number, patch]) => ({ number, patch })),
  }),
})

// 2. The plugin's tools, as the gateway lists them for a run: they belong to
//    the plugin (`sourceName`), which is what makes `Issues` visible.
const issues = [
  { number: 1, title: 'Crash on start', state: 'open', labels: ['bug'] },
  { number: 2, title: 'Docs typo', state: 'closed', labels: ['docs'] },
  { number: 3, title: 'Slow search', state: 'open', labels: [] },
]
const tools = [
  { name: 'github_list_issues', description: 'List issues by state.', source: 'openclaw', sourceName: pluginId },
  { name: 'github_update_issue', description: 'Update an issue.', source: 'openclaw', sourceName: pluginId },
]
function executeTool(call) {
  console.error(`  executeTool ${call.name} ${JSON.stringify(call.input)}`)
  if (call.name === 'github_list_issues') {
    const found = issues.filter((issue) => !call.input.state || issue.state === call.input.state)
    return { content: [{ type: 'text', text: `${found.length} issues` }], details: found }
  }
  const issue = issues.find((candidate) => candidate.number === call.input.number)
  if (!issue) throw new Error(`no issue #${call.input.number}`)
  Object.assign(issue, call.input.patch)
  return { content: [{ type: 'text', text: `updated #${issue.number}` }], details: issue }
}

// 3. The gateway prepares a run; the exec description now teaches `Issues`.
const codeMode = createCodeMode({ config: { enabled: true } })
const run = codeMode.prepareRun({
  runId: 'example-run',
  tools,
  executeTool,
  scopeContext: { repository: 'openclaw/openclaw' },
})
console.error('The model reads, at the end of the exec description:')
console.error(run.modelTools[0].description.split('\n\n').pop().replace(/^/gm, '  '))

// 4. A cell the model might write: namespace calls resolve to the tools'
//    `details`, and a failed call is an Error the cell can catch.
const code = `
const open = await Issues.list({ state: 'open' })
const unlabelled = open.filter((issue) => issue.labels.length === 0)
for (const issue of unlabelled) await Issues.update(issue.number, { labels: ['triage'] })
let missing
try { await Issues.update(99, {}) } catch (error) { missing = error.message }
return { repository: Issues.repository, open: open.length, labelled: unlabelled.map((i) => i.number), missing }
`
console.error('\nexec:')
const result = await run.exec({ code })
console.log(JSON.stringify({ status: result.status, value: result.value, error: result.error }, null, 2))

// 5. On uninstall or rollback the plugin clears what it registered.
clearCodeModeNamespacesForPlugin(pluginId)
await codeMode.close()
if (result.status !== 'completed') process.exitCode = 1
