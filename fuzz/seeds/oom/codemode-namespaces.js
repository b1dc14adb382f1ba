0 // The plugin namespace: Issues.list(), Issues.issue.update({...}), Issues.repo, namespaces.Issues
const listed = await Issues.list()
const updated = await Issues.issue.update({ number: 2, title: 'Renamed', labels: ['oom'] })
const viaGlobal = await namespaces.Issues.list({ state: 'open' })
let refused
try { await Issues.issue.update(1, 2) } catch (e) { refused = e.message }
return {
  repo: Issues.repo, listed, updated, viaGlobal, refused,
  shape: [typeof Issues.list, typeof Issues.issue, typeof Issues.issue.update, namespaces.Issues === Issues],
  keys: Object.keys(Issues), frozen: Object.isFrozen(Issues), namespaceKeys: Object.keys(namespaces),
}
