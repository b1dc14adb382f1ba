// A minimal gateway integration: what a gateway does around one model turn.
// It prepares a run over its tools, checks the tool list it sends the
// provider, answers the model's exec and wait calls (a scripted "model"
// here, the way a test suite drives a gateway), keeps policy in its own
// executeTool, and projects the nested calls into the transcript.
//
//   node examples/gateway.mjs
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { codeModeHookMetadata, createCodeMode, nestedCallTranscript } = require('../index.js')

// The gateway's tools, after its policy, in its order.
const tools = [
  { name: 'read_file', description: 'Read a file of the workspace', source: 'openclaw', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'web_search', description: 'Search the web', source: 'openclaw', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
  { name: 'build', description: 'Run the build (slow)', source: 'openclaw', parameters: { type: 'object' } },
  { name: 'delete_repo', description: 'Delete the repository', source: 'openclaw' },
]
const files = { 'README.md': '# Demo\nA small project.\n', 'package.json': '{ "name": "demo", "version": "1.2.3" }' }

// Every nested call comes back here: the gateway's own executor, so policy
// (and approvals, hooks) apply to calls a cell makes exactly as to direct ones.
let finishBuild
async function executeTool(call) {
  if (call.name === 'delete_repo') throw new Error('denied by policy: delete_repo needs approval')
  if (call.name === 'read_file') {
    if (!(call.input.path in files)) throw new Error(`no such file: ${call.input.path}`)
    return { path: call.input.path, text: files[call.input.path] }
  }
  if (call.name === 'web_search') return { results: [{ title: `About ${call.input.query}`, url: 'https://example.com' }] }
  if (call.name === 'build') return new Promise((resolve) => (finishBuild = () => resolve({ ok: true, seconds: 42 })))
  throw new Error(`unknown tool ${call.name}`)
}

const events = []
const codeMode = createCodeMode({ config: { enabled: true, timeoutMs: 300 } })
const run = codeMode.prepareRun({ runId: 'turn-1', sessionId: 'session-1', agentId: 'main', tools, executeTool, onEvent: (e) => events.push(e) })

// What goes to the provider: exec and wait instead of every tool schema.
const payload = run.modelTools.map((t) => t.name)
run.assertProviderPayload(payload)
console.log('provider sees:', payload.join(', '))

// The model's turn, scripted: one exec whose cell reads, searches, is refused
// by policy, then starts a slow build (the run parks), and one wait.
const modelCalls = [
  {
    id: 'call_1',
    name: 'exec',
    input: {
      code: `
        const pkg = JSON.parse((await tools.read_file({ path: 'package.json' })).text)
        const found = await tools.web_search({ query: pkg.name + ' ' + pkg.version })
        let refused
        try { await tools.delete_repo({}) } catch (e) { refused = e.message }
        const built = await tools.build({})
        return { version: pkg.version, firstHit: found.results[0].title, refused, built }`,
    },
  },
]
const answers = []
while (modelCalls.length > 0) {
  const call = modelCalls.shift()
  if (call.name === 'exec') console.log(`hook metadata of ${call.id}:`, JSON.stringify(codeModeHookMetadata(call.input)))
  const result = call.name === 'exec' ? await run.exec(call.input, { toolCallId: call.id }) : await run.wait(call.input, { toolCallId: call.id })
  answers.push({ id: call.id, result })
  console.log(`${call.id} ${call.name} -> ${result.status}`)
  if (result.status === 'waiting') {
    // The model would call wait; here the slow tool finishes first.
    console.log(`  parked ${result.runId}, pending: ${result.pendingToolCalls.map((p) => p.toolId).join(', ')}`)
    finishBuild()
    modelCalls.push({ id: `call_${answers.length + 1}`, name: 'wait', input: { runId: result.runId } })
  }
}
console.log('value:', JSON.stringify(answers.at(-1).result.value))

// The transcript: each exec or wait result followed by its nested calls.
for (const { id } of answers) {
  for (const message of nestedCallTranscript(events, id)) {
    const part = message.content[0]
    console.log(`  transcript ${message.role}: ${part.type === 'toolCall' ? `${part.name} ${JSON.stringify(part.arguments)}` : part.text ?? JSON.stringify(part)}`)
  }
}
await codeMode.close()
