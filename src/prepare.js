// The JavaScript half of reading `RunContext.tools` (`prepare.rs`), compiled
// once per CodeMode. Evaluates to a factory: given the constants, it returns
// `{ scan, serialize, stream }`.
//
// `scan` checks every field of every tool and takes a row of each: the
// fields as plain values, the schema by reference. That is all prepareRun
// does with the whole list on the JavaScript thread (a few hundred
// microseconds at 5000 tools). The rows become JSON text either at once
// (`serialize`: the tools the model sees) or over the next turns of the
// event loop, a slice at a time (`stream`), for the catalog built off this
// thread.
(function codeModePrepare(constants) {
  'use strict'

  const { legacyControls, sliceRows, turnMillis } = constants
  const LEGACY = new Set(legacyControls)
  const SOURCES = new Map([['openclaw', 0], ['mcp', 1], ['client', 2]])
  const stringify = JSON.stringify
  const now = () => performance.now()

  // A field JSON would leave out, or write as null.
  const absent = (value) =>
    value === undefined ||
    value === null ||
    typeof value === 'function' ||
    typeof value === 'symbol' ||
    (typeof value === 'number' && !Number.isFinite(value))

  const fail = (message) => {
    throw new Error(message)
  }

  // Paths are made only for a message: `RunContext.tools[i].field`.
  const path = (index, field) => `RunContext.tools[${index}]${field === '' ? '' : `.${field}`}`

  // A required string field: present, a string, not empty.
  const required = (value, index, field) =>
    typeof value === 'string' && value !== '' ? value : fail(`${path(index, field)} must be a non-empty string.`)

  // An optional string field: the string, or null when absent.
  const optional = (value, index, field) => {
    if (typeof value === 'string') return value
    return absent(value) ? null : fail(`${path(index, field)} must be a string.`)
  }

  const flag = (value, index, field) => {
    if (value === true || value === false) return value
    return absent(value) ? false : fail(`${path(index, field)} must be a boolean.`)
  }

  const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value)

  // One tool as a row: [name, label, description, source (0 openclaw,
  // 1 mcp, 2 client), sourceName, directOnly, replaySafe, mcp.server,
  // mcp.tool, mcp.operation, parameters, problem] (mcp.server null without
  // metadata). Fields are checked in the order of the messages' table in
  // docs/errors.md, so the first problem is the one reported.
  const rowOf = (tool, i) => {
    if (!isObject(tool)) fail(`${path(i, '')} must be an object.`)
    const name = required(tool.name, i, 'name')
    const source = SOURCES.get(tool.source)
    if (source === undefined) fail(`${path(i, 'source')} must be "openclaw", "mcp" or "client".`)
    const meta = tool.mcp
    let server = null
    let mcpTool = null
    let operation = null
    if (!absent(meta)) {
      if (!isObject(meta)) fail(`${path(i, 'mcp')} must be an object.`)
      server = required(meta.server, i, 'mcp.server')
      mcpTool = required(meta.tool, i, 'mcp.tool')
      operation = optional(meta.operation, i, 'mcp.operation')
    }
    const parameters = absent(tool.parameters) ? null : tool.parameters
    const label = optional(tool.label, i, 'label')
    const description = optional(tool.description, i, 'description')
    const sourceName = optional(tool.sourceName, i, 'sourceName')
    const directOnly = flag(tool.directOnly, i, 'directOnly')
    const replaySafe = flag(tool.replaySafe, i, 'replaySafe')
    return [name, label, description, source, sourceName, directOnly, replaySafe, server, mcpTool, operation, parameters, null]
  }

  // Checks `tools` and returns [all rows, catalog rows, direct-only rows,
  // outline as JSON text]. `required` lists `pluginId + '\0' + name` of the
  // tools registered plugin namespaces require.
  function scan(tools, requiredTools) {
    if (!Array.isArray(tools)) fail('RunContext.tools must be an array.')
    const wanted = requiredTools.length > 0 ? new Set(requiredTools) : null
    const count = tools.length
    const all = new Array(count)
    const catalog = []
    const direct = []
    const servers = new Set()
    const plugins = []
    for (let i = 0; i < count; i++) {
      const row = rowOf(tools[i], i)
      all[i] = row
      if (row[5]) {
        direct.push(row)
        continue
      }
      if (LEGACY.has(row[0])) continue
      catalog.push(row)
      if (row[3] === 1 && row[7] !== null) servers.add(row[7])
      if (row[3] === 0 && row[4] !== null && wanted !== null && wanted.has(`${row[4]}\0${row[0]}`)) {
        plugins.push([row[4], row[0]])
      }
    }
    const outline = stringify({ count, mcpServers: [...servers], pluginTools: plugins })
    return [all, catalog, direct, outline]
  }

  // One row as JSON text. A schema JSON cannot write (a cycle, a BigInt, a
  // throwing toJSON) is dropped, and the row says why.
  const rowText = (row) => {
    try {
      return stringify(row)
    } catch (error) {
      const copy = row.slice()
      copy[10] = null
      // One line: V8 explains a cycle over several.
      copy[11] = `${error?.message ?? error}`.split('\n')[0]
      return stringify(copy)
    }
  }

  // rows[from, to) as the JSON text of an array.
  const sliceText = (rows, from, to) => {
    const slice = rows.slice(from, to)
    try {
      return stringify(slice)
    } catch {
      return `[${slice.map(rowText).join(',')}]`
    }
  }

  // All of `rows` as JSON text, now.
  const serialize = (rows) => sliceText(rows, 0, rows.length)

  // Hands `rows` to `push(text, last)` a slice at a time, spending at most
  // about `turnMillis` of each turn of the event loop; the last call has
  // `last` true (once, even for no rows). `push` returns false when nobody
  // wants the rest (the surface is gone). Returns `finish()`, which hands
  // over what is left at once.
  function stream(rows, push) {
    let next = 0
    let ended = false
    let busy = false
    const pump = (deadline) => {
      // A schema's toJSON that reads the surface's catalog would re-enter.
      if (busy) fail('RunContext.tools was read again while its schemas were being written.')
      busy = true
      try {
        write(deadline)
      } finally {
        busy = false
      }
    }
    const write = (deadline) => {
      while (!ended) {
        const to = Math.min(rows.length, next + sliceRows)
        const text = sliceText(rows, next, to)
        next = to
        ended = next >= rows.length
        if (!push(text, ended)) ended = true
        if (deadline !== undefined && now() >= deadline) break
      }
    }
    const turn = () => {
      if (ended) return
      pump(now() + turnMillis)
      if (!ended) setImmediate(turn).unref()
    }
    setImmediate(turn).unref()
    return function finish() {
      pump(undefined)
    }
  }

  return { scan, serialize, stream }
})
