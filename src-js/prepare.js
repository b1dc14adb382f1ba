// The JavaScript half of reading `RunContext.tools` (`tools.rs`), compiled
// once per CodeMode. Evaluates to a factory: given the constants, it returns
// `{ scan, serialize, stream }`.
//
// `scan` checks every field of every tool and keeps them in a table: the
// fields as plain values, the schema by reference. That is all prepareRun
// does with the whole list on the JavaScript thread (a few hundred
// microseconds at 5000 tools). The tools become JSON text, column by
// column, either at once (`serialize`: the tools the model sees) or over
// the next turns of the event loop, a slice at a time (`stream`: every
// tool, for the catalog built off this thread).
'use strict'

const { constants, messages, ToolSourceCode, ToolFlag } = require('./boundary.js')
const { messageOf } = require('./thrown.js')

/**
 * The tools as columns (records.d.ts `ToolColumns`, less `problems`).
 * @typedef {Omit<import('./records').ToolColumns, 'problems'>} Table
 */

/**
 * A value of the gateway's `RunContext.tools` as it came: anything, each
 * part checked before it is kept. An object's fields are read by name, and
 * are such values too.
 * @typedef {GatewayObject | Function | string | number | bigint | boolean | symbol | null | undefined} GatewayValue
 */

/** @typedef {{ readonly [field: string]: GatewayValue }} GatewayObject */

/**
 * @returns {import('./records').PrepareFunctions}
 */
module.exports = function codeModePrepare() {
  const firstSlice = constants.TOOLS_FIRST_SLICE
  const maxSlice = constants.TOOLS_MAX_SLICE
  const turnMillis = constants.TURN_WORK_MICROS / 1000
  const LEGACY = new Set(constants.LEGACY_CONTROLS)
  const stringify = JSON.stringify
  const parse = JSON.parse
  // Taken now, when the CodeMode is made: a test suite's fake timers
  // installed later neither stall nor see the writing of the tools.
  const now = performance.now.bind(performance)
  const immediate = setImmediate
  const timeout = setTimeout

  // A field JSON would leave out, or write as null.
  /** @type {(value: unknown) => boolean} */
  const absent = (value) =>
    value === undefined ||
    value === null ||
    typeof value === 'function' ||
    typeof value === 'symbol' ||
    (typeof value === 'number' && !Number.isFinite(value))

  /** @type {(message: string) => never} */
  const fail = (message) => {
    throw new Error(message)
  }

  // Paths are made only for a message: `RunContext.tools[i].field`.
  /** @type {(index: number, field: string) => string} */
  const path = (index, field) => (field === '' ? messages.toolPath(index) : messages.toolFieldPath(index, field))

  // The checks below test the common case inline and call these only
  // otherwise: prepareRun runs rarely, so this loop runs mostly in V8's
  // interpreter, where every call counts.

  // A required string field that is not a non-empty string.
  /** @type {(index: number, field: string) => never} */
  const notRequired = (index, field) => fail(messages.toolFieldRequired(path(index, field)))

  // An optional string field that is not a string: null when absent.
  /** @type {(value: unknown, index: number, field: string) => null} */
  const optional = (value, index, field) => (absent(value) ? null : fail(messages.toolFieldNotString(path(index, field))))

  // A boolean field that is not a boolean: false when absent.
  /** @type {(value: unknown, index: number, field: string) => false} */
  const flag = (value, index, field) => (absent(value) ? false : fail(messages.toolFieldNotBoolean(path(index, field))))

  /**
   * @param {GatewayValue} value
   * @returns {value is GatewayObject}
   */
  const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value)

  // The tools as columns, one array per field (a few arrays rather than an
  // object per tool: less for the collector to copy while the list is
  // kept). `flags` holds the ToolFlag bits; `sources` a ToolSourceCode;
  // `servers` null without MCP metadata (records.d.ts `ToolColumns`).
  /** @type {(count: number) => Table} */
  const table = (count) => ({
    names: new Array(count),
    labels: new Array(count),
    descriptions: new Array(count),
    sources: new Array(count),
    sourceNames: new Array(count),
    flags: new Array(count),
    servers: new Array(count),
    mcpTools: new Array(count),
    operations: new Array(count),
    parameters: new Array(count),
  })

  // Checks tool `i` and writes its fields into `t`. Fields are checked in
  // the order of the messages' table in docs/errors.md, so the first
  // problem is the one reported.
  /** @type {(t: Table, tool: GatewayValue, i: number) => void} */
  const take = (t, tool, i) => {
    if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) fail(messages.toolNotObject(path(i, '')))
    const name = tool.name
    if (typeof name !== 'string' || name === '') notRequired(i, 'name')
    const sourceText = tool.source
    const source =
      sourceText === 'openclaw'
        ? ToolSourceCode.OPENCLAW
        : sourceText === 'mcp'
          ? ToolSourceCode.MCP
          : sourceText === 'client'
            ? ToolSourceCode.CLIENT
            : -1
    if (source === -1) fail(messages.toolSourceUnknown(path(i, 'source')))
    const meta = tool.mcp
    let server = null
    let mcpTool = null
    let operation = null
    if (meta !== undefined && !absent(meta)) {
      if (!isObject(meta)) fail(messages.toolNotObject(path(i, 'mcp')))
      server = meta.server
      if (typeof server !== 'string' || server === '') notRequired(i, 'mcp.server')
      mcpTool = meta.tool
      if (typeof mcpTool !== 'string' || mcpTool === '') notRequired(i, 'mcp.tool')
      operation = meta.operation
      if (typeof operation !== 'string') operation = optional(operation, i, 'mcp.operation')
    }
    let parameters = tool.parameters
    if (parameters === undefined || absent(parameters)) parameters = null
    let label = tool.label
    if (typeof label !== 'string') label = optional(label, i, 'label')
    let description = tool.description
    if (typeof description !== 'string') description = optional(description, i, 'description')
    let sourceName = tool.sourceName
    if (typeof sourceName !== 'string') sourceName = optional(sourceName, i, 'sourceName')
    let directOnly = tool.directOnly
    if (typeof directOnly !== 'boolean') directOnly = flag(directOnly, i, 'directOnly')
    let replaySafe = tool.replaySafe
    if (typeof replaySafe !== 'boolean') replaySafe = flag(replaySafe, i, 'replaySafe')
    t.names[i] = name
    t.labels[i] = label
    t.descriptions[i] = description
    t.sources[i] = source
    t.sourceNames[i] = sourceName
    t.flags[i] = (directOnly ? ToolFlag.DIRECT_ONLY : 0) | (replaySafe ? ToolFlag.REPLAY_SAFE : 0)
    t.servers[i] = server
    t.mcpTools[i] = mcpTool
    t.operations[i] = operation
    t.parameters[i] = parameters
  }

  // Checks `tools` and returns the table, the indexes of the direct-only
  // tools and the outline as JSON text (records.d.ts `Scanned`). `requiredTools` lists `pluginId + '\0' + name`
  // of the tools registered plugin namespaces require.
  /**
   * @param {unknown} tools
   * @param {string[]} requiredTools
   * @returns {import('./records').Scanned}
   */
  function scan(tools, requiredTools) {
    if (!Array.isArray(tools)) fail(messages.toolsNotArray)
    const wanted = requiredTools.length > 0 ? new Set(requiredTools) : null
    // A Proxy of an array can report any length.
    const count = tools.length
    if (!Number.isSafeInteger(count) || count < 0 || count > 0xffffffff) fail(messages.toolsNotArray)
    // Columns grow past this; a sparse array's length allocates nothing.
    const t = table(Math.min(count, 65536))
    /** @type {number[]} */
    const direct = []
    /** @type {Set<string>} */
    const servers = new Set()
    /** @type {import('./records').PluginTool[]} */
    const plugins = []
    // Catalog tools per source (openclaw, mcp, client): the telemetry of a
    // call answered before the catalog is built.
    const sources = [0, 0, 0]
    for (let i = 0; i < count; i++) {
      take(t, tools[i], i)
      if ((t.flags[i] & ToolFlag.DIRECT_ONLY) !== 0) {
        direct.push(i)
        continue
      }
      const name = t.names[i]
      if (LEGACY.has(name)) continue
      const source = t.sources[i]
      sources[source]++
      if (source === ToolSourceCode.MCP && t.servers[i] !== null) servers.add(/** @type {string} */ (t.servers[i]))
      if (source === ToolSourceCode.OPENCLAW && wanted !== null && t.sourceNames[i] !== null && wanted.has(`${t.sourceNames[i]}\0${name}`)) {
        plugins.push({ pluginId: /** @type {string} */ (t.sourceNames[i]), name })
      }
    }
    /** @type {import('./records').ToolsOutline} */
    const outline = {
      count,
      mcpServers: [...servers],
      pluginTools: plugins,
      sources: {
        openclaw: sources[ToolSourceCode.OPENCLAW],
        mcp: sources[ToolSourceCode.MCP],
        client: sources[ToolSourceCode.CLIENT],
      },
    }
    /** @type {import('./records').Scanned} */
    const scanned = { table: t, direct, outline: stringify(outline) }
    return scanned
  }


  // Why a value could not be written, in one line (V8 explains a cycle
  // over several). Never throws, whatever was thrown (a Symbol, an object
  // without a prototype, a throwing getter).
  /** @type {(error: unknown) => string} */
  const reason = (error) => messageOf(error, messages.schemaThrewNoText).split('\n')[0]

  /**
   * The columns of the tools at indexes[from, to) (positions from..to when
   * `indexes` is null).
   * @param {Table} t
   * @param {number[] | null} indexes
   * @param {number} from
   * @param {number} to
   * @returns {import('./records').ToolColumns}
   */
  const columnsOf = (t, indexes, from, to) => {
    /** @type {<T>(column: T[]) => T[]} */
    const pick =
      indexes === null
        ? (column) => column.slice(from, to)
        : (column) => {
            const out = new Array(to - from)
            for (let k = from; k < to; k++) out[k - from] = column[indexes[k]]
            return out
          }
    return {
      names: pick(t.names),
      labels: pick(t.labels),
      descriptions: pick(t.descriptions),
      sources: pick(t.sources),
      sourceNames: pick(t.sourceNames),
      flags: pick(t.flags),
      servers: pick(t.servers),
      mcpTools: pick(t.mcpTools),
      operations: pick(t.operations),
      parameters: pick(t.parameters),
      problems: null,
    }
  }

  // Those tools as JSON texts of their columns: one text, or several when
  // one would be longer than a string can be. A schema JSON cannot write (a
  // cycle, a BigInt, a throwing toJSON) is left out, and `problems` says
  // why (null when no schema was left out).
  /** @type {(t: Table, indexes: number[] | null, from: number, to: number) => string[]} */
  const columnsTexts = (t, indexes, from, to) => {
    const columns = columnsOf(t, indexes, from, to)
    try {
      return [stringify(columns)]
    } catch {}
    const parameters = columns.parameters
    /** @type {(string | null)[]} */
    const problems = new Array(parameters.length).fill(null)
    for (let k = 0; k < parameters.length; k++) {
      try {
        // Written once and read back: the copy writes the same text every
        // time, whatever the schema's own toJSON or getters do next.
        const text = stringify(parameters[k])
        parameters[k] = text === undefined ? null : parse(text)
      } catch (error) {
        parameters[k] = null
        problems[k] = reason(error)
      }
    }
    columns.problems = problems
    try {
      return [stringify(columns)]
    } catch {}
    // Too long for one string: halves, down to a single tool.
    if (to - from > 1) {
      const middle = from + ((to - from) >> 1)
      return [...columnsTexts(t, indexes, from, middle), ...columnsTexts(t, indexes, middle, to)]
    }
    parameters[0] = null
    problems[0] ??= messages.schemaTooLong
    return [stringify(columns)]
  }

  // The tools at `indexes` (all of them when null) as JSON texts, now, one
  // per line (JSON.stringify never writes a line break).
  /** @type {(t: Table, indexes: number[] | null) => string} */
  const serialize = (t, indexes) =>
    columnsTexts(t, indexes, 0, indexes === null ? t.names.length : indexes.length).join('\n')

  // Hands every tool to `push(text, last)`, a slice of positions at a time,
  // spending about `turnMillis` of each turn of the event loop: a slice
  // grows while it takes less than a quarter of that and shrinks while it
  // takes more, so a turn lasts about `turnMillis` plus one slice. The last
  // call has `last` true (once, even for no tools). `push` returns false
  // when nobody wants the rest (the surface is gone). Returns `finish()`,
  // which hands over what is left at once. Nothing thrown in a background
  // turn reaches the event loop: the writing stops there and `fail(reason)`
  // ends the build with it (calls waiting for the catalog get it). Once
  // all is handed over, nothing here keeps the gateway's tools alive.
  /**
   * @param {Table} t
   * @param {(text: string, last: boolean) => boolean} push
   * @param {(reason: string) => void} fail
   * @returns {() => void}
   */
  function stream(t, push, fail) {
    /** @type {Table | null} */
    let table = t
    const count = t.names.length
    let next = 0
    let size = firstSlice
    let ended = false
    let busy = false
    let stopped = false
    /** @type {(deadline: number | undefined) => void} */
    const pump = (deadline) => {
      // A schema's toJSON that reads the surface's catalog would re-enter.
      if (busy) fail(messages.toolsReadAgain)
      busy = true
      try {
        write(deadline)
      } finally {
        busy = false
      }
    }
    /** @type {(deadline: number | undefined) => void} */
    const write = (deadline) => {
      while (!ended) {
        const started = now()
        const to = Math.min(count, next + size)
        // The table is dropped only once the writing has ended.
        const texts = columnsTexts(/** @type {Table} */ (table), null, next, to)
        next = to
        const last = next >= count
        let wanted = true
        for (let k = 0; k < texts.length && wanted; k++) wanted = push(texts[k], last && k === texts.length - 1)
        if (last || !wanted) {
          ended = true
          table = null
          break
        }
        const spent = now() - started
        if (spent < turnMillis / 4 && size < maxSlice) size *= 2
        else if (spent > turnMillis && size > 1) size >>= 1
        if (deadline !== undefined && now() >= deadline) break
      }
    }
    const turn = () => {
      if (ended || stopped) return
      try {
        pump(now() + turnMillis)
      } catch (error) {
        stopped = true
        ended = true
        table = null
        try {
          fail(reason(error))
        } catch {}
        return
      }
      if (!ended) immediate(turn)
    }
    // Referenced, so that the writing goes on while the loop would
    // otherwise sleep in poll (an unreferenced immediate waits for the
    // next I/O); it keeps a process alive for the few turns it takes.
    immediate(turn)
    return function finish() {
      stopped = false
      pump(undefined)
    }
  }

  // Calls `fn` after `ms` milliseconds, from a timer that does not keep the
  // process alive.
  /**
   * @param {number} ms
   * @param {() => void} fn
   */
  function later(ms, fn) {
    const timer = timeout(fn, ms)
    if (typeof timer === 'object' && typeof timer.unref === 'function') timer.unref()
  }

  /** @type {import('./records').PrepareFunctions} */
  const made = { scan, serialize, stream, later }
  return made
}
