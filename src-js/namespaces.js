// The plugin namespace registry, compiled once per JavaScript environment (the
// binding keeps it as the environment's instance data), so every CodeMode of
// one process or worker thread shares it. It holds the plugins' own
// functions: createScope, and the input mappers of the tool markers. What
// reaches Rust is data: registration metadata, and per run the scopes it
// serialised (docs/namespaces.md). Host globals are captured here once.
'use strict'

const { constants, messages } = require('./boundary.js')
const { messageOf } = require('./thrown.js')

module.exports = function codeModeNamespaces() {
  const GUEST_GLOBALS = new Set(constants.GUEST_GLOBALS)
  const RESERVED_WORDS = new Set(constants.RESERVED_WORDS)
  const MAX_NODES = constants.NAMESPACE_SCOPE_NODES
  const MAX_BYTES = constants.NAMESPACE_SCOPE_BYTES
  const MAX_DEPTH = constants.NAMESPACE_SCOPE_DEPTH
  const MAX_CALLABLES = constants.NAMESPACE_CALLABLES
  const MAX_TEXT = constants.NAMESPACE_TEXT_CHARS
  const MAX_REQUIRED = constants.NAMESPACE_REQUIRED_TOOLS
  const SEPARATOR = constants.NAMESPACE_PATH_SEPARATOR
  /** The rule of the core's `is_unsafe_key`, with its list of keys. */
  const UNSAFE_KEYS = new Set(constants.NAMESPACE_UNSAFE_KEYS)
  const isUnsafeKey = (/** @type {string} */ name) => name === '' || UNSAFE_KEYS.has(name) || name.includes(SEPARATOR)
  const hostGlobal = globalThis
  const stringify = JSON.stringify
  const apply = Reflect.apply
  const freeze = Object.freeze
  const keys = Object.keys
  const hasOwn = Object.hasOwn
  const byteLength = Buffer.byteLength
  const getPrototypeOf = Object.getPrototypeOf
  const isArray = Array.isArray
  const ObjectPrototype = Object.prototype
  const objectToString = Object.prototype.toString
  const toWellFormed = String.prototype.toWellFormed
  const promiseResolve = Promise.resolve
  const promiseThen = Promise.prototype.then
  const PromiseClass = Promise
  const AbortControllerClass = AbortController
  const setTimer = setTimeout
  const clearTimer = clearTimeout
  const ErrorClass = Error
  const TypeErrorClass = TypeError
  const MapClass = Map
  const WeakMapClass = WeakMap
  const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u

  /** Registrations by id, in registration order. */
  const registry = new MapClass()
  /** Every marker createCodeModeNamespaceTool made, with what it holds. */
  const markers = new WeakMapClass()

  /** The text of what the plugin's code threw (thrown.js). */
  function message(error) {
    return messageOf(error, messages.unknownError)
  }

  function refuse(rule) {
    throw new TypeErrorClass(messages.registrationRefused(rule))
  }

  function text(value) {
    return typeof value === 'string' && value.trim() !== ''
  }

  function optionalText(registration, name) {
    const value = field(registration, name)
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string') refuse(messages.fieldNotString(name))
    if (value.length > MAX_TEXT) refuse(messages.fieldTooLong(name))
    return value
  }

  /** Why `name` cannot be a namespace global, or undefined when it can. */
  function globalNameProblem(name) {
    if (!IDENTIFIER.test(name)) return messages.globalNameNotIdentifier(stringify(name))
    if (RESERVED_WORDS.has(name)) return messages.globalNameReservedWord(stringify(name))
    if (name.startsWith('__openclaw')) return messages.globalNameOpenclaw(stringify(name))
    if (GUEST_GLOBALS.has(name)) return messages.globalNameOfGuest(stringify(name))
    if (name in hostGlobal) return messages.globalNameOfHost(stringify(name))
    return undefined
  }

  /** `registration[field]`; a getter that throws is a refusal naming the field. */
  function field(registration, name) {
    try {
      return registration[name]
    } catch (error) {
      return refuse(messages.fieldThrew(name, message(error)))
    }
  }

  function register(pluginId, registration) {
    if (!text(pluginId)) refuse(messages.pluginIdRequired)
    if (registration === null || typeof registration !== 'object') refuse(messages.registrationNotObject)
    const id = field(registration, 'id')
    const globalName = field(registration, 'globalName')
    const requiredToolNames = field(registration, 'requiredToolNames')
    const createScope = field(registration, 'createScope')
    if (!text(id)) refuse(messages.idRequired)
    if (typeof globalName !== 'string') refuse(messages.globalNameNotString)
    const problem = globalNameProblem(globalName)
    if (problem !== undefined) refuse(problem)
    if (typeof createScope !== 'function') refuse(messages.createScopeNotFunction)
    if (!isArray(requiredToolNames) || requiredToolNames.length === 0) refuse(messages.requiredToolNamesEmpty)
    const required = []
    let names
    try {
      names = [...requiredToolNames]
    } catch (error) {
      refuse(messages.fieldThrew('requiredToolNames', message(error)))
    }
    for (const name of names) {
      if (!text(name)) refuse(messages.requiredToolNamesNotText)
      if (!required.includes(name)) required.push(name)
      if (required.length > MAX_REQUIRED) refuse(messages.requiredToolNamesTooMany)
    }
    const description = optionalText(registration, 'description')
    const prompt = optionalText(registration, 'prompt')
    const existing = registry.get(id)
    if (existing !== undefined) refuse(messages.idTaken(stringify(id), stringify(existing.pluginId)))
    for (const other of registry.values()) {
      if (other.globalName === globalName) refuse(messages.globalNameTaken(stringify(globalName), stringify(other.id)))
    }
    registry.set(
      id,
      freeze({ id, pluginId, globalName, description, prompt, requiredToolNames: freeze(required), createScope }),
    )
  }

  function tool(toolName, inputMapper) {
    if (!text(toolName)) throw new TypeErrorClass(messages.toolNameRequired)
    if (inputMapper !== undefined && typeof inputMapper !== 'function') {
      throw new TypeErrorClass(messages.inputMapperNotFunction)
    }
    const marker = freeze({ kind: 'code_mode_namespace_tool', toolName })
    markers.set(marker, { toolName, inputMapper })
    return marker
  }

  function clearPlugin(pluginId) {
    if (typeof pluginId !== 'string') throw new TypeErrorClass(messages.clearPluginIdNotString)
    for (const [id, record] of registry) {
      if (record.pluginId === pluginId) registry.delete(id)
    }
  }

  function clearAll() {
    registry.clear()
  }

  function list() {
    const out = []
    for (const record of registry.values()) out.push({ id: record.id, pluginId: record.pluginId, globalName: record.globalName })
    return out
  }

  /**
   * What prepareRun plans with: the registrations' metadata as JSON text,
   * and the records themselves in the same order; null when there are none.
   */
  /**
   * What the registry holds now (null when empty): the registrations as
   * JSON for the core, and the records themselves (with their functions).
   * @returns {{ json: string, records: any[] } | null}
   */
  function snapshot() {
    if (registry.size === 0) return null
    const records = [...registry.values()]
    /** @type {import('./records').Registration[]} */
    const meta = records.map(({ id, pluginId, globalName, description, prompt, requiredToolNames }) => ({
      id,
      pluginId,
      globalName,
      description: description ?? null,
      prompt: prompt ?? null,
      requiredToolNames,
    }))
    return { json: stringify(meta), records }
  }

  /** A scope the rules refuse: which namespace, what, where. */
  /** A scope problem (the core's `ScopeProblem`, less the namespace's index). */
  class Problem {
    /**
     * @param {import('./records').ScopeProblemKind} kind
     * @param {string[]} path
     * @param {string} [detail]
     */
    constructor(kind, path, detail = '') {
      this.kind = kind
      this.path = path
      this.detail = detail
    }
  }

  /** `a Map`, `an Error`. */
  function article(name) {
    return /^[AEIOUaeiou]/.test(name) ? `an ${name}` : `a ${name}`
  }

  function describe(value) {
    try {
      const prototype = getPrototypeOf(value)
      const name = prototype !== null && typeof prototype.constructor === 'function' ? prototype.constructor.name : ''
      if (typeof name === 'string' && name !== '' && name !== 'Object') return article(name)
    } catch {}
    try {
      return `an object tagged ${apply(objectToString, value, [])}`
    } catch {
      return 'an object that cannot be inspected'
    }
  }

  function typeName(value) {
    if (value === null) return 'null'
    if (markers.has(value)) return 'a createCodeModeNamespaceTool marker'
    if (isArray(value)) return 'an array'
    if (typeof value === 'object') return describe(value)
    return typeof value === 'undefined' ? 'undefined' : article(typeof value)
  }

  const SKIP = Symbol('skip')

  /**
   * The scope of one namespace as data: its tree (JSON-safe, `null` where a
   * function goes) and its callable places, each with the marker's tool and
   * mapper. Shared references are copied; cycles, raw functions, unsafe
   * keys, values that are not plain and markers of tools the registration
   * does not require are refused with their path.
   */
  function serialise(record, root) {
    if (root === null || typeof root !== 'object' || isArray(root) || markers.has(root)) {
      throw new Problem('not_object', [], typeName(root))
    }
    const required = record.requiredToolNames
    const callables = []
    const ancestors = []
    let nodes = 0
    function node(value, path) {
      if (++nodes > MAX_NODES) throw new Problem('too_large', [])
      if (typeof value === 'function') throw new Problem('function', path.slice())
      if (value !== null && typeof value === 'object') {
        const marker = markers.get(value)
        if (marker !== undefined) {
          if (path[path.length - 1] === 'then') throw new Problem('then', path.slice())
          if (!required.includes(marker.toolName)) throw new Problem('foreign_tool', path.slice(), marker.toolName)
          if (callables.length >= MAX_CALLABLES) throw new Problem('too_many_functions', [])
          callables.push({ path: path.slice(), tool: marker.toolName, inputMapper: marker.inputMapper })
          return null
        }
        try {
          if (typeof value.toJSON === 'function') value = value.toJSON(path.length === 0 ? '' : path[path.length - 1])
        } catch (error) {
          throw new Problem('threw', path.slice(), message(error))
        }
        if (typeof value === 'function') throw new Problem('function', path.slice())
      }
      switch (typeof value) {
        case 'string':
          return apply(toWellFormed, value, [])
        case 'boolean':
          return value
        case 'number':
          return Number.isFinite(value) ? value : null
        case 'bigint':
          return value.toString()
        case 'undefined':
        case 'symbol':
          return SKIP
      }
      if (value === null) return null
      if (value instanceof Number || value instanceof String || value instanceof Boolean) return node(value.valueOf(), path)
      if (ancestors.includes(value)) throw new Problem('cycle', path.slice())
      if (path.length >= MAX_DEPTH) throw new Problem('too_deep', path.slice())
      let array
      let members
      try {
        array = isArray(value)
        if (!array) {
          const prototype = getPrototypeOf(value)
          if (prototype !== ObjectPrototype && prototype !== null) throw new Problem('unsupported', path.slice(), describe(value))
          members = keys(value)
        }
      } catch (error) {
        if (error instanceof Problem) throw error
        throw new Problem('threw', path.slice(), message(error))
      }
      ancestors.push(value)
      let out
      if (array) {
        out = []
        let length
        try {
          length = value.length
        } catch (error) {
          throw new Problem('threw', path.slice(), message(error))
        }
        for (let i = 0; i < length; i++) {
          path.push(String(i))
          const item = read(value, i, path)
          out.push(item === SKIP ? null : item)
          path.pop()
        }
      } else {
        out = {}
        for (const key of members) {
          const name = apply(toWellFormed, key, [])
          if (isUnsafeKey(name)) {
            throw new Problem('unsafe_key', path.slice(), stringify(name))
          }
          if (name !== key && hasOwn(out, name)) throw new Problem('duplicate_key', path.slice(), stringify(name))
          path.push(name)
          const item = read(value, key, path)
          if (item !== SKIP) out[name] = item
          path.pop()
        }
      }
      ancestors.pop()
      return out
    }
    function read(container, key, path) {
      let value
      try {
        value = container[key]
      } catch (error) {
        throw new Problem('threw', path.slice(), message(error))
      }
      return node(value, path)
    }
    const tree = node(root, [])
    if (byteLength(stringify(tree)) > MAX_BYTES) throw new Problem('too_large', [])
    return { tree, callables }
  }

  function defaultInput(args) {
    return args.length === 0 || args[0] === null ? {} : args[0]
  }

  /**
   * One agent run's namespaces: the records visible when it was prepared and
   * the context createScope gets. `scopes` builds every scope once (on the
   * first exec that needs them; a failed attempt is tried again by the next
   * exec) and answers each waiting exec through `done`; `input` maps the
   * arguments of a call the guest made, refusing a namespace id or path this
   * run did not serialise.
   */
  /**
   * @typedef {{ toolName: string, inputMapper: Function | undefined }} Target
   * @typedef {{ problem: import('./records').ScopeProblem, json?: undefined, tables?: undefined }
   *   | { problem?: undefined, json: string, tables: Map<string, Map<string, Target>> }} Outcome
   * @typedef {{ controller: AbortController, waiters: number, promise: Promise<Outcome> }} Attempt
   */
  function bind(records, base) {
    /**
     * namespace id -> (path -> { toolName, inputMapper }), once accepted.
     * @type {Map<string, Map<string, Target>> | null}
     */
    let tables = null
    /** @type {string | null} */
    let json = null
    /**
     * The attempt in progress: its promise, its controller and its waiters.
     * @type {Attempt | null}
     */
    let attempt = null

    /** One createScope call, as an outcome: a scope or a problem. */
    function call(record, index, signal) {
      const ctx = {
        agentId: base.agentId,
        sessionKey: base.sessionKey,
        sessionId: base.sessionId,
        runId: base.runId,
        config: base.config,
        signal,
      }
      const failed = (error) => ({ index, problem: error instanceof Problem ? error : new Problem('create_failed', [], message(error)) })
      return new PromiseClass((resolve) => {
        try {
          const returned = apply(record.createScope, undefined, [ctx])
          const onValue = (value) => {
            try {
              resolve({ index, scope: serialise(record, value) })
            } catch (error) {
              resolve(failed(error))
            }
          }
          // Like `await`: a thenable is followed; one that throws on the way fails.
          apply(promiseThen, apply(promiseResolve, PromiseClass, [returned]), [onValue, (error) => resolve(failed(error))])
        } catch (error) {
          resolve(failed(error))
        }
      })
    }

    /**
     * Starts an attempt. createScope runs in a later microtask, so an exec
     * it makes itself joins this attempt rather than starting another. Its
     * signal aborts when every exec waiting for it has been aborted, and the
     * attempt is then dropped, so a later exec starts afresh.
     */
    function start() {
      const controller = new AbortControllerClass()
      /** @type {Attempt} */
      const current = { controller, waiters: 0, promise: /** @type {any} */ (undefined) }
      current.promise = promiseResolve
        .call(PromiseClass, undefined)
        .then(() =>
          // Every exec that wanted it was aborted before it began: not called.
          controller.signal.aborted
            ? [{ index: 0, problem: new Problem('create_failed', [], 'aborted') }]
            : PromiseClass.all(records.map((record, index) => call(record, index, controller.signal))),
        )
        .then((outcomes) => {
          const failed = outcomes.find((outcome) => outcome.problem !== undefined)
          if (failed !== undefined) {
            const { kind, path, detail } = failed.problem
            return { problem: { index: failed.index, kind, path, detail } }
          }
          const built = new MapClass()
          const out = []
          for (const { index, scope } of outcomes) {
            const table = new MapClass()
            for (const { path, tool, inputMapper } of scope.callables) table.set(path.join(SEPARATOR), { toolName: tool, inputMapper })
            built.set(records[index].id, table)
            out.push({ tree: scope.tree, callables: scope.callables.map(({ path, tool }) => ({ path, tool })) })
          }
          return { json: stringify(out), tables: built }
        })
        .then(undefined, (error) => ({ problem: { index: 0, kind: /** @type {const} */ ('create_failed'), path: [], detail: message(error) } }))
        .then((outcome) => {
          // A failure is not kept: the next exec tries again.
          if (outcome.problem !== undefined && attempt === current) attempt = null
          return outcome
        })
      return current
    }

    /**
     * done('ready', json) -> whether the core accepted the scopes |
     * done('problem', ScopeProblem) | done('stopped') when `budgetMs`
     * passes or `signal` aborts first.
     */
    function scopes(budgetMs, signal, done) {
      /**
       * Tells the core; what it throws is not the plugin's, and goes nowhere else.
       * @param {import('./records').ScopesDone} kind
       * @param {unknown} [payload]
       */
      const tell = (kind, payload) => {
        try {
          return done(kind, payload === undefined ? null : payload)
        } catch {
          return false
        }
      }
      if (json !== null) return tell('ready', json)
      if (attempt === null) attempt = start()
      const current = attempt
      current.waiters++
      let finished = false
      let timer
      let onAbort
      const finish = (kind, payload, outcome) => {
        if (finished) return
        finished = true
        clearTimer(timer)
        current.waiters--
        if (onAbort !== undefined) {
          try {
            signal.removeEventListener('abort', onAbort)
          } catch {}
        }
        if (kind === 'aborted') {
          if (current.waiters === 0) {
            if (attempt === current) attempt = null
            try {
              current.controller.abort(signal.reason)
            } catch {}
          }
          return tell('stopped')
        }
        if (kind !== 'ready') return tell(kind, payload)
        if (json !== null) return tell('ready', json)
        if (tell('ready', payload) === true) {
          json = payload
          tables = outcome.tables
        } else if (attempt === current) {
          attempt = null
        }
      }
      timer = setTimer(() => finish('stopped'), budgetMs)
      if (typeof timer === 'object' && typeof timer.unref === 'function') timer.unref()
      if (signal !== undefined && signal !== null) {
        let aborted = false
        try {
          aborted = signal.aborted === true
          if (!aborted) {
            onAbort = () => finish('aborted')
            signal.addEventListener('abort', onAbort, { once: true })
          }
        } catch {}
        if (aborted) return finish('aborted')
      }
      current.promise.then((outcome) => (outcome.json !== undefined ? finish('ready', outcome.json, outcome) : finish('problem', outcome.problem)))
    }

    function input(id, path, args) {
      const target = tables === null ? undefined : tables.get(id)?.get(path)
      if (target === undefined || !isArray(args)) throw new ErrorClass(messages.namespaceCallRefused(stringify(id), stringify(path)))
      const mapped = target.inputMapper === undefined ? defaultInput(args) : apply(target.inputMapper, undefined, [args])
      if (mapped !== null && (typeof mapped === 'object' || typeof mapped === 'function') && typeof mapped.then === 'function') {
        throw new TypeErrorClass(messages.inputMapperPromise(stringify(path)))
      }
      return mapped === undefined ? {} : mapped
    }

    return { scopes, input }
  }

  return { register, tool, clearPlugin, clearAll, list, snapshot, bind }
}
