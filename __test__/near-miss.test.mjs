// Tool names a model nearly got right (docs/catalog.md, suggestions;
// docs/errors.md): unknown ids get close names by edit distance, and calling
// a convenience function or MCP tool that is not there says which name was
// not found instead of QuickJS's bare "not a function".
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { codeModeFactory, RECOVERY, tool } from './helpers.mjs'

const codeModes = codeModeFactory()
after(() => codeModes.closeAll())

// Fifty tools, as a gateway with a few plugins and servers would have.
const NAMES = [
  'read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'grep', 'web_search', 'web_fetch', 'bash', 'process_list',
  'process_kill', 'git_status', 'git_diff', 'git_commit', 'git_log', 'git_push', 'git_pull', 'git_branch', 'github_create_issue', 'github_list_issues',
  'github_get_pr', 'github_merge_pr', 'slack_send_message', 'slack_list_channels', 'email_send', 'email_search', 'calendar_list_events', 'calendar_create_event', 'memory_search', 'memory_store',
  'image_generate', 'image_describe', 'pdf_read', 'sql_query', 'http_request', 'docker_ps', 'docker_run', 'k8s_get_pods', 'jira_create_ticket', 'jira_search',
  'notion_search', 'notion_create_page', 'weather_get', 'translate_text', 'summarize_text', 'browser_open', 'browser_click', 'browser_screenshot', 'cron_add', 'cron_list',
]

function run(tools = NAMES.map((name) => tool(name)), executeTool = (call) => call.input) {
  return codeModes.enabled().prepareRun({ runId: 'near', tools, executeTool })
}

const unknown = (callee, id, suggestions) =>
  `TypeError: ${callee} is not a function. Unknown tool id: ${id}.${suggestions.length ? ` Did you mean: ${suggestions.join(', ')}?` : ''} ${RECOVERY}`

describe('near-miss tool names', () => {
  test('unknown ids suggest names a few edits away, with separators and case ignored', async () => {
    const surface = run()
    const expected = {
      readfile: ['read_file'],
      'git-comit': ['git_commit'],
      calender_list_events: ['calendar_list_events'],
      Web_Serach: ['web_search'],
      browser_screnshot: ['browser_screenshot'],
    }
    for (const [id, suggestions] of Object.entries(expected)) {
      const result = await surface.exec({ code: `try { await tools.call(${JSON.stringify(id)}, {}) } catch (e) { return e.message }` })
      assert.equal(result.value, `Unknown tool id: ${id}. Did you mean: ${suggestions.join(', ')}? ${RECOVERY}`)
    }
  })

  test('calling a convenience function that does not exist names it and suggests close ones', async () => {
    const surface = run()
    const result = await surface.exec({ code: 'const r = await tools.websearch({ q: "x" })\nreturn r' })
    assert.equal(result.status, 'failed')
    assert.equal(result.error, `${unknown('tools.websearch', 'websearch', ['web_search'])} at line 1:23`)
    // Spaces and a call spread over lines still find the callee.
    const spread = await surface.exec({ code: 'const x = 1\nawait tools . gitstatus (\n  {})' })
    assert.equal(spread.error, `${unknown('tools.gitstatus', 'gitstatus', ['git_status'])} at line 3:3`)
    // Nothing close: only the way on.
    const far = await surface.exec({ code: 'await tools.zzzzzz()' })
    assert.equal(far.error, `${unknown('tools.zzzzzz', 'zzzzzz', [])} at line 1:13`)
  })

  test('an unknown name still reads as undefined: typeof, in and Object.keys are unchanged', async () => {
    const surface = run([tool('web_search'), tool('read-file')])
    const result = await surface.exec({
      code: 'return [typeof tools.websearch, "websearch" in tools, Object.keys(tools).includes("websearch"), typeof tools.web_search, tools.websearch === undefined]',
    })
    assert.deepEqual(result.value, ['undefined', false, false, 'function', true])
    // A tool whose name gets no convenience function is reached with tools.call.
    const named = await surface.exec({ code: 'await tools.read_file({})' })
    assert.match(named.error, /^TypeError: tools\.read_file is not a function\. Unknown tool id: read_file\. Did you mean: read-file\?/)
  })

  test('other TypeErrors and caught ones are left as they are', async () => {
    const surface = run()
    const other = await surface.exec({ code: 'const f = 1\nawait tools.web_search({})\nf()' })
    assert.equal(other.error, 'TypeError: not a function at line 3:1')
    const caught = await surface.exec({ code: 'try { await tools.websearch({}) } catch (e) { return e.message }' })
    assert.equal(caught.value, 'not a function')
    const alias = await surface.exec({ code: 'const t = tools\nawait t.websearch({})' })
    assert.equal(alias.error, 'TypeError: not a function at line 2:9')
  })

  test("another call's TypeError is not put down to a missing tool spelt out before it or around it", async () => {
    const surface = run()
    // After a call of a missing tool that never ran.
    const after = await surface.exec({ code: 'const f = 1\nif (false) tools.websearch({})\nf()' })
    assert.equal(after.error, 'TypeError: not a function at line 3:1')
    // Inside its arguments: they are evaluated before the call is made.
    const inside = await surface.exec({ code: 'const o = {}\nawait tools.websearch(o.nope(), 2)' })
    assert.equal(inside.error, 'TypeError: not a function at line 2:25')
    // The missing tool's own call, with its arguments over lines, still is.
    const own = await surface.exec({ code: 'await tools.websearch(\n  { q: 1 },\n  (() => 2)())' })
    assert.equal(own.error, `${unknown('tools.websearch', 'websearch', ['web_search'])} at line 3:10`)
  })

  test('MCP: an unknown tool of a server, and an unknown server', async () => {
    const mcp = (server, name) => ({ name: `${server}__${name}`, description: '', source: 'mcp', sourceName: server, mcp: { server, tool: name } })
    const surface = run([tool('read_file'), mcp('github', 'create_issue'), mcp('github', 'list_issues'), mcp('docs', 'search')])
    const tool404 = await surface.exec({ code: 'await MCP.github.createissue({})' })
    assert.equal(
      tool404.error,
      'TypeError: MCP.github.createissue is not a function. The MCP server github has no tool createissue. Did you mean: createIssue? Use MCP.github.$api() to list its tools. at line 1:18',
    )
    const server404 = await surface.exec({ code: 'await MCP.githb.list_issues({})' })
    assert.equal(
      server404.error,
      'TypeError: MCP.githb is undefined. There is no MCP server githb. Did you mean: github? Use MCP.$api() to list the servers. at line 1:7',
    )
  })

  test('MCP: another failing call beside a member that exists ($api, a tool, a group) is left as QuickJS reports it', async () => {
    const mcp = (server, name, extra = {}) => ({ name: `${server}__${name}`, description: '', source: 'mcp', sourceName: server, mcp: { server, tool: name, ...extra } })
    const surface = run([tool('read_file'), mcp('github', 'create_issue'), mcp('github', 'res', { operation: 'resources_list' })])
    for (const code of [
      'return (await MCP.github.$api()).slice(0, 5)',
      'return (await MCP.github.createIssue({})).slice(0, 5)',
      'return (await MCP.github.resources.list({})).slice(0, 5)',
    ]) {
      const result = await surface.exec({ code })
      assert.match(result.error, /^TypeError: not a function at line 1:\d+$/, code)
    }
  })
})
