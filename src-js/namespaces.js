// The plugin namespace registry, compiled once per JavaScript environment (the
// binding keeps it as the environment's instance data), so every CodeMode of
// one process or worker thread shares it. It holds the plugins' own
// functions: createScope, and the input mappers of the tool markers. What
// reaches Rust is data: registration metadata, and per run the scopes it
// serialised (docs/namespaces.md). Host globals are captured here once.
'use strict'

const { constants, messages } = require('./boundary.js')
const { messageOf } = require('./thrown.js')
const { scopeWriter } = require('./scope.js')

/**
 * A registration as the registry keeps it (frozen), with the plugin's
 * createScope.
 * @typedef {Readonly<{
 *   id: string, pluginId: string, globalName: string,
 *   description: string | undefined, prompt: string | undefined,
 *   requiredToolNames: readonly string[], createScope: Function,
 * }>} NamespaceRecord
 */

/**
 * What the run context gives every createScope's `ctx` besides `signal`
 * (context.rs `scope_context`).
 * @typedef {{
 *   agentId: string | undefined, sessionKey: string | undefined,
 *   sessionId: string | undefined, runId: string, config: unknown,
 * }} ScopeBase
 */

module.exports = function codeModeNamespaces() {
  const GUEST_GLOBALS = new Set(constants.GUEST_GLOBALS)
  const RESERVED_WORDS = new Set(constants.RESERVED_WORDS)
  const MAX_TEXT = constants.NAMESPACE_TEXT_CHARS
  const MAX_REQUIRED = constants.NAMESPACE_REQUIRED_TOOLS
  const SEPARATOR = constants.NAMESPACE_PATH_SEPARATOR
  const hostGlobal = globalThis
  const stringify = JSON.stringify
  const apply = Reflect.apply
  const freeze = Object.freeze
  const isArray = Array.isArray
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

  /**
   * Registrations by id, in registration order.
   * @type {Map<string, NamespaceRecord>}
   */
  const registry = new MapClass()
  /**
   * Every marker createCodeModeNamespaceTool made, with what it holds.
   * @type {WeakMap<object, Target>}
   */
  const markers = new WeakMapClass()

  /**
   * The text of what the plugin's code threw (thrown.js).
   * @param {unknown} error
   * @returns {string}
   */
  function message(error) {
    return messageOf(error, messages.unknownError)
  }

  /**
   * @param {string} rule
   * @returns {never}
   */
  function refuse(rule) {
    throw new TypeErrorClass(messages.registrationRefused(rule))
  }

  /**
   * Whether `value` is a non-empty string (as a type guard: its false case,
   * which every caller refuses, holds the empty string too).
   * @param {unknown} value
   * @returns {value is string}
   */
  function text(value) {
    return typeof value === 'string' && value.trim() !== ''
  }

  /**
   * @param {object} registration
   * @param {string} name
   * @returns {string | undefined}
   */
  function optionalText(registration, name) {
    const value = field(registration, name)
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string') refuse(messages.fieldNotString(name))
    if (value.length > MAX_TEXT) refuse(messages.fieldTooLong(name))
    return value
  }

  /**
   * Why `name` cannot be a namespace global, or undefined when it can.
   * @param {string} name
   * @returns {string | undefined}
   */
  function globalNameProblem(name) {
    if (!IDENTIFIER.test(name)) return messages.globalNameNotIdentifier(stringify(name))
    if (RESERVED_WORDS.has(name)) return messages.globalNameReservedWord(stringify(name))
    if (name.startsWith('__openclaw')) return messages.globalNameOpenclaw(stringify(name))
    if (GUEST_GLOBALS.has(name)) return messages.globalNameOfGuest(stringify(name))
    if (name in hostGlobal) return messages.globalNameOfHost(stringify(name))
    return undefined
  }

  /**
   * `registration[field]`; a getter that throws is a refusal naming the field.
   * @param {object} registration
   * @param {string} name
   * @returns {unknown}
   */
  function field(registration, name) {
    try {
      return /** @type {Record<string, unknown>} */ (registration)[name]
    } catch (error) {
      return refuse(messages.fieldThrew(name, message(error)))
    }
  }

  /**
   * @param {unknown} pluginId
   * @param {unknown} registration
   */
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
    /** @type {string[]} */
    const required = []
    /** @type {unknown[]} */
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

  /**
   * @param {unknown} toolName
   * @param {unknown} inputMapper
   */
  function tool(toolName, inputMapper) {
    if (!text(toolName)) throw new TypeErrorClass(messages.toolNameRequired)
    if (inputMapper !== undefined && typeof inputMapper !== 'function') {
      throw new TypeErrorClass(messages.inputMapperNotFunction)
    }
    const marker = freeze({ kind: 'code_mode_namespace_tool', toolName })
    markers.set(marker, { toolName, inputMapper })
    return marker
  }

  /** @param {unknown} pluginId */
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
   * What prepareRun plans with (null when the registry is empty): the
   * registrations' metadata as JSON text for the core, and the records
   * themselves (with their functions) in the same order.
   * @returns {{ json: string, records: NamespaceRecord[] } | null}
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
      // Frozen, and only written as JSON here.
      requiredToolNames: /** @type {string[]} */ (requiredToolNames),
    }))
    return { json: stringify(meta), records }
  }

  const { serialise, Problem } = scopeWriter(markers)

  /**
   * @param {unknown[]} args
   * @returns {unknown}
   */
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
   * @typedef {{ index: number, scope: import('./scope.js').Scope, problem?: undefined }
   *   | { index: number, scope?: undefined, problem: InstanceType<typeof Problem> }} Built
   */
  /**
   * @param {NamespaceRecord[]} records
   * @param {ScopeBase} base
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

    /**
     * One createScope call, as an outcome: a scope or a problem.
     * @param {NamespaceRecord} record
     * @param {number} index
     * @param {AbortSignal} signal
     * @returns {Promise<Built>}
     */
    function call(record, index, signal) {
      const ctx = {
        agentId: base.agentId,
        sessionKey: base.sessionKey,
        sessionId: base.sessionId,
        runId: base.runId,
        config: base.config,
        signal,
      }
      /** @param {unknown} error */
      const failed = (error) => ({ index, problem: error instanceof Problem ? error : new Problem('create_failed', [], message(error)) })
      return new PromiseClass((resolve) => {
        try {
          const returned = apply(record.createScope, undefined, [ctx])
          /** @param {unknown} value */
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
          // None failed: each has its scope.
          for (const { index, scope } of /** @type {Extract<Built, { problem?: undefined }>[]} */ (outcomes)) {
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
     * @param {number} budgetMs
     * @param {AbortSignal | null | undefined} signal
     * @param {(kind: import('./records').ScopesDone, payload: unknown) => boolean} done
     * @returns {boolean | void} what `done` answered, when it was called now
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
      /** @type {ReturnType<typeof setTimer> | undefined} */
      let timer
      /** @type {(() => void) | undefined} */
      let onAbort
      /**
       * @param {import('./records').ScopesDone | 'aborted'} kind
       * @param {unknown} [payload] the scopes' JSON text when 'ready', the
       *   problem when 'problem'
       * @param {Extract<Outcome, { json: string }>} [outcome] when 'ready'
       * @returns {boolean | void} what `done` answered, when it was called
       */
      const finish = (kind, payload, outcome) => {
        if (finished) return
        finished = true
        clearTimer(timer)
        current.waiters--
        if (onAbort !== undefined) {
          try {
            // A listener was added only to a signal.
            /** @type {AbortSignal} */ (signal).removeEventListener('abort', onAbort)
          } catch {}
        }
        if (kind === 'aborted') {
          if (current.waiters === 0) {
            if (attempt === current) attempt = null
            try {
              // Only the signal aborts a waiter.
              current.controller.abort(/** @type {AbortSignal} */ (signal).reason)
            } catch {}
          }
          return tell('stopped')
        }
        if (kind !== 'ready') return tell(kind, payload)
        if (json !== null) return tell('ready', json)
        if (tell('ready', payload) === true) {
          json = /** @type {string} */ (payload)
          tables = /** @type {Extract<Outcome, { json: string }>} */ (outcome).tables
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

    /**
     * @param {string} id
     * @param {string} path
     * @param {unknown} args
     * @returns {unknown}
     */
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

  /** @type {import('./records').NamespaceFunctions} */
  const made = { register, tool, clearPlugin, clearAll, list, snapshot, bind }
  return made
}
