// The JavaScript half of the bridge, compiled once per CodeMode on the
// gateway's thread: starts nested calls through the gateway's executeTool,
// emits their events, and reports how they end through `settleBatch`. Host
// globals are captured here once, so later changes to them do not matter.
// `appendResult(key, text)` hands the binding the first part of a
// result written over several turns, and `appendInput(key, text)` the first
// part of a namespace call's mapped input; `checkInput(key, toolId, callee,
// text)` hands it the last part and checks it against the tool's schema:
// `false` (passed) or the refusal when it was checked at once (only for
// an input written whole in one turn), `true` when the answer comes later
// through `checked(key, rejection)`, the input then waiting for `takeInput`.
'use strict'

const { constants, messages } = require('./boundary.js')
const codeModeResultJson = require('./result-json.js')
const { replay, assemble } = require('./pieces.js')
const { turnBudget } = require('./turns.js')
const { messageOf } = require('./thrown.js')
const { deliverer } = require('./deliver.js')
const { keeperHot } = require('./hot.js')
const { resultsWriter } = require('./results.js')

/**
 * A nested call as the gateway's executeTool gets it (`NestedToolCall` of
 * types.d.ts), its fields set one by one in the order the gateway sees
 * them; `signal` an accessor (`SIGNAL`).
 * @typedef {{
 *   id: string, name: string, source: import('./records').ToolSource,
 *   sourceName?: string, input?: unknown, toolCallId?: string,
 *   parentToolCallId?: string, codeModeRunId?: string, signal?: AbortSignal,
 * }} GatewayCall
 */

/**
 * An event of a nested call for the gateway's onEvent (`CodeModeEvent` of
 * types.d.ts), its fields set one by one in the order the gateway sees them.
 * @typedef {{
 *   type: 'nested_call_started' | 'nested_call_finished', toolCallId: string,
 *   parentToolCallId?: string, toolId?: string, name?: string, input?: unknown,
 *   ok?: boolean, durationMs?: number, result?: unknown, error?: string,
 * }} CallEvent
 */

/**
 * The binding's functions (host/mod.rs `compile`): `settleBatch(settled)`,
 * `takeInput(key)` (JSON text, the pieces of a long one, or null when none
 * waits), `poll(wantsPolling)` (whether polling goes on),
 * `appendResult(key, text)`, `appendInput(key, text)` and
 * `checkInput(key, toolId, callee, text)` (see above).
 * @param {(settled: import('./records').Settled) => void} settleBatch
 * @param {(key: number) => string | string[] | null} takeInput
 * @param {(wantsPolling: boolean) => boolean} poll
 * @param {(key: number, text: string) => void} appendResult
 * @param {(key: number, text: string) => void} appendInput
 * @param {(key: number, toolId: string, callee: string, text: string) => string | boolean} checkInput
 * @returns {import('./records').HostFunctions}
 */
module.exports = function codeModeHost(settleBatch, takeInput, poll, appendResult, appendInput, checkInput) {
  const ABORTED = messages.aborted
  const TOOL_CALL_FAILED = messages.toolCallFailed
  const HOT_MS = constants.HOST_HOT_MS
  const COLD_MS = constants.HOST_COLD_MS
  const TURN_MS = constants.TURN_WORK_MICROS / 1000
  const NAMESPACE_UNAVAILABLE = messages.namespaceUnavailable
  const AbortControllerClass = AbortController
  const PromiseClass = Promise
  const promiseResolve = Promise.resolve
  const promiseThen = Promise.prototype.then
  const apply = Reflect.apply
  const parse = JSON.parse
  const now = performance.now.bind(performance)
  const immediate = setImmediate
  const emitWarning = process.emitWarning.bind(process)
  const { writer } = codeModeResultJson()
  /**
   * A process warning: the one way this bridge (and the binding) reports.
   * @param {string} text
   */
  function warn(text) {
    try {
      emitWarning(messages.warning(text))
    } catch {}
  }
  /** @param {string} what @param {unknown} error */
  const reportError = (what, error) => warn(`${what}: ${message(error)}`)

  /**
   * Calls in flight, by key.
   * @type {Map<number, {
   *   controller: AbortController, onEvent: Entry['onEvent'], toolCallId: string,
   *   parentToolCallId: string | null, toolId: string, name: string, started: number,
   * }>}
   */
  const live = new Map()

  // Settlements cross back to the workers in batches: every call that ends
  // in the same run of microtasks goes in one `settleBatch` (one crossing,
  // one wake-up per run), sent once the microtasks queued before it ran.
  // A microtask through a settled promise, not queueMicrotask (which makes
  // an async resource per call).
  const RESOLVED = apply(promiseResolve, PromiseClass, [undefined])
  // The same record of three columns every time (emptied after each
  // crossing): the binding reads it during the call. New arrays per crossing
  // died young, and V8 threw away the optimised code that had seen them
  // after every full collection.
  /** @type {import('./records').Settled} */
  const settled = { keys: [], oks: [], payloads: [] }
  const settledKeys = settled.keys
  const settledOks = settled.oks
  const settledPayloads = settled.payloads
  /** @param {number} key @param {boolean} ok @param {string} payload */
  function settle(key, ok, payload) {
    if (settledKeys.length === 0) apply(promiseThen, RESOLVED, [flush])
    settledKeys.push(key)
    settledOks.push(ok)
    settledPayloads.push(payload)
  }
  function flush() {
    try {
      settleBatch(settled)
    } catch (error) {
      reportError(messages.warnUndelivered, error)
    }
    settledKeys.length = 0
    settledOks.length = 0
    settledPayloads.length = 0
  }

  // Keep-hot turns (hot.js): the hand-off policy's executor on this thread.
  const keepHot = keeperHot(poll, HOT_MS, COLD_MS, now, immediate, (error) => reportError(messages.warnPoll, error))

  const defineProperty = Object.defineProperty
  const ErrorClass = Error

  /**
   * `call.signal`: an enumerable own accessor, the same pair on every call,
   * that makes the call's AbortSignal when first read (as AbortController
   * itself does), so a spread copies it; assigning the property replaces it
   * like a plain one. One shared pair, not closures per call: V8 keeps an
   * accessor pair in the object's hidden class, and closures per call made
   * every call its own class, kept alive with its input (large inputs then
   * reached the old generation and full collections held the event loop).
   * @type {WeakMap<object, AbortController>}
   */
  const controllers = new WeakMap()
  const SIGNAL = {
    get() {
      const controller = controllers.get(this)
      return controller === undefined ? undefined : controller.signal
    },
    /** @param {unknown} value */
    set(value) {
      defineProperty(this, 'signal', { value, writable: true, enumerable: true, configurable: true })
    },
    enumerable: true,
    configurable: true,
  }

  /**
   * The text of what a call threw or rejected with (thrown.js).
   * @param {unknown} error
   * @returns {string}
   */
  function message(error) {
    return messageOf(error, TOOL_CALL_FAILED)
  }

  /**
   * @param {(event: CallEvent) => void} onEvent
   * @param {CallEvent} event
   */
  function emit(onEvent, event) {
    try {
      onEvent(event)
    } catch (error) {
      reportError(messages.warnOnEvent, error)
    }
  }

  /**
   * @param {number} key
   * @param {boolean} ok
   * @param {string} payload
   * @param {unknown} [value]
   */
  function finish(key, ok, payload, value) {
    const call = live.get(key)
    if (call === undefined) return
    live.delete(key)
    if (call.onEvent !== undefined) {
      /** @type {CallEvent} */
      const event = { type: 'nested_call_finished', toolCallId: call.toolCallId }
      if (call.parentToolCallId !== null) event.parentToolCallId = call.parentToolCallId
      event.toolId = call.toolId
      event.name = call.name
      event.ok = ok
      event.durationMs = now() - call.started
      if (ok) event.result = value
      else event.error = payload
      emit(call.onEvent, event)
    }
    settle(key, ok, payload)
    keepHot()
  }

  // Results as JSON text (results.js), written within their turn budget.
  const follow = resultsWriter({
    writer,
    turnMs: TURN_MS,
    now,
    immediate,
    isLive: (key) => live.has(key),
    appendResult,
    finish,
    message,
  })

  /**
   * Calls waiting to start, oldest first, with the executor and event sink of
   * their run. Starting a call parses its input and runs the gateway's
   * executeTool, so calls start for at most TURN_MS per event-loop turn
   * (measured, not estimated: the cost of a byte of JSON varies tenfold with
   * its shape); the rest wait for the next turn and the event loop keeps
   * serving. A large input arrives in pieces (the binding's `pieces::split`),
   * assembled within the same budget, over several turns if need be. Each
   * turn makes progress: its first call or piece always goes ahead. A
   * namespace call whose mapped input goes to the checker thread is set
   * aside (`aside`) until `checked` answers, and the calls behind it go on.
   */
  /** @type {(Entry | undefined)[]} */
  const backlog = []
  let head = 0
  const starting = turnBudget(TURN_MS, now, immediate)
  const spend = () => starting.spend()
  /**
   * Namespace calls whose mapped input is on the checker thread, by key.
   * @type {Map<number, Entry>}
   */
  const aside = new Map()
  /** Keys in the backlog or aside, and those of them aborted before they started. */
  const waiting = new Set()
  const cancelled = new Set()

  /**
   * A call waiting to start, with what starting it has made so far: its
   * input (parsed, or replayed from pieces, or for a namespace call mapped,
   * written and rebuilt), or why it failed.
   * @typedef {{
   *   execute: (call: GatewayCall) => unknown,
   *   onEvent: ((event: CallEvent) => void) | undefined,
   *   call: import('./records').NestedCall & { input?: unknown },
   *   mapInput: ((id: string, path: string, args: unknown) => unknown) | undefined,
   *   parsed?: boolean, failed?: string, input?: unknown,
   *   replay?: import('./pieces.js').Replay,
   *   writing?: import('./result-json.js').Writer | null,
   *   checking?: boolean, checked?: boolean,
   *   rejection?: string | null,
   * }} Entry
   */

  /**
   * An entry of a plugin namespace call: one whose `call.namespace` is set.
   * @typedef {Entry & { call: { namespace: import('./records').NamespaceTarget } }} NamespaceEntry
   */

  /**
   * `batch`: JSON text of the calls (the core's `NestedCall`s, records.d.ts;
   * absent optional fields are null). A small input comes inline as `input`;
   * the others are taken with takeInput(key) when each call starts. `mapInput(id, path, args)` is
   * the run's plugin namespaces' check and input mapper (namespaces.js),
   * undefined when the run has no namespaces. A call with a `rejection`
   * (its input failed its schema) is shown as a failed call and never
   * started.
   * @param {Entry['execute']} execute
   * @param {Entry['onEvent']} onEvent
   * @param {string} batch
   * @param {Entry['mapInput']} mapInput
   */
  function start(execute, onEvent, batch, mapInput) {
    const since = now()
    /** @type {Entry['call'][]} */
    const calls = parse(batch)
    for (const call of calls) {
      backlog.push({ execute, onEvent, call, mapInput })
      waiting.add(call.key)
    }
    drain(since)
  }

  /** Starts what this turn's budget allows, counting the work from `since`. */
  function drain(since = now()) {
    starting.begin(since)
    while (head < backlog.length && starting.hasTime()) {
      // Below `backlog.length` from `head` on, every slot holds an entry.
      const entry = /** @type {Entry} */ (backlog[head])
      const isReady = ready(entry)
      if (!isReady && entry.checking !== true) break
      backlog[head] = undefined
      head++
      if (isReady) {
        startOne(entry)
        spend()
      } else {
        // Its input is being checked on the checker thread: `checked` puts
        // it back in the backlog.
        aside.set(entry.call.key, entry)
      }
    }
    if (head === backlog.length) {
      backlog.length = 0
      head = 0
    }
    // Next turn: a fresh budget, and whatever still waits.
    starting.next(head < backlog.length, drain)
    keepHot()
  }

  /**
   * Makes the entry's input within this turn's budget; false when it needs
   * another turn. A plugin namespace call's input is then mapped by the
   * plugin and made JSON-safe (`mapped`).
   * @param {Entry} entry
   * @returns {boolean}
   */
  function ready(entry) {
    if (entry.parsed !== true) {
      if (!parsed(entry)) return false
      entry.parsed = true
      if (entry.failed !== undefined || cancelled.has(entry.call.key) || entry.call.namespace === null) return true
    }
    // A mapped input on the checker thread; then taken as any other input.
    if (entry.checking === true) return false
    if (entry.checked === true) return parsed(entry)
    try {
      // Only a namespace call gets here: the others were ready once parsed.
      return mapped(/** @type {NamespaceEntry} */ (entry))
    } catch (error) {
      entry.failed = message(error)
      return true
    }
  }

  /**
   * A namespace call's input: the guest's arguments, checked against what
   * this run serialised and mapped by the plugin's inputMapper (in one step:
   * the plugin's own code; what it throws is the call's error), then written
   * as JSON-safe text in slices of the turn's budget (a million small
   * arguments took the event loop 300 ms in one piece) and handed to the
   * binding, which checks it against the tool's schema: at once when it is
   * short and its check cheap, else on the checker thread, which also cuts
   * it into pieces for `parsed` to take (`checkInput`).
   * @param {NamespaceEntry} entry
   * @returns {boolean}
   */
  function mapped(entry) {
    const { call } = entry
    if (entry.writing === undefined) {
      if (typeof entry.mapInput !== 'function') throw new ErrorClass(NAMESPACE_UNAVAILABLE)
      entry.writing = writer(entry.mapInput(call.namespace.id, call.namespace.path, entry.input))
      // What `parsed` took was the arguments; it takes the mapped input next.
      entry.input = undefined
      entry.replay = undefined
      call.input = undefined
    }
    if (!spend()) return false
    // The text written in this turn, joined now: the writer keeps every
    // element's text apart until `take()`. (Its writer is null only once
    // written, and a written input is not mapped again.)
    const done = /** @type {import('./result-json.js').Writer} */ (entry.writing).write(starting.deadline())
    const text = /** @type {import('./result-json.js').Writer} */ (entry.writing).take()
    if (!done) {
      appendInput(call.key, text)
      return false
    }
    entry.writing = null
    const answer = checkInput(call.key, call.toolId, call.namespace.callee, text)
    if (answer === true) {
      entry.checking = true
      return false
    }
    // Checked at once: written whole in this turn, and short.
    if (typeof answer === 'string') entry.rejection = answer
    entry.input = parse(text)
    return true
  }

  /**
   * The answer of a check made on the checker thread, for a call set aside:
   * its rejection, or null. The call goes back to the end of the backlog,
   * to take its checked input and start.
   * @param {number} key
   * @param {string | null} rejection
   */
  function checked(key, rejection) {
    const entry = aside.get(key)
    if (entry === undefined) return
    aside.delete(key)
    entry.checking = false
    entry.checked = true
    if (rejection !== null) entry.rejection = rejection
    backlog.push(entry)
    drain()
  }

  /**
   * Takes the entry's input and turns it into a value within this turn's
   * budget; false when its pieces need another turn. A call aborted while
   * waiting is not parsed at all.
   * @param {Entry} entry
   * @returns {boolean}
   */
  function parsed(entry) {
    const { key } = entry.call
    if (entry.call.input !== undefined) {
      entry.input = entry.call.input
      return true
    }
    if (entry.replay === undefined) {
      const input = takeInput(key)
      if (cancelled.has(key)) return true
      if (input === undefined || input === null || typeof input === 'string') {
        try {
          entry.input = typeof input === 'string' ? parse(input) : {}
        } catch (error) {
          entry.failed = message(error)
        }
        return true
      }
      entry.replay = replay(input)
    }
    if (cancelled.has(key)) return true
    try {
      // Its replay was made above, now or in an earlier turn.
      return assembled(/** @type {Entry & { replay: import('./pieces.js').Replay }} */ (entry))
    } catch (error) {
      entry.failed = message(error)
      return true
    }
  }

  /**
   * Replays the entry's pieces within this turn's budget; its input once whole.
   * @param {Entry & { replay: import('./pieces.js').Replay }} entry
   * @returns {boolean}
   */
  function assembled(entry) {
    if (!assemble(entry.replay, spend)) return false
    entry.input = entry.replay.input
    return true
  }

  /** @param {Entry} entry */
  function startOne({ execute, onEvent, call: { key, kind, toolId: id, name, source, sourceName, toolCallId, parentToolCallId, codeModeRunId, rejection: refused }, input, failed, rejection = refused }) {
    waiting.delete(key)
    if (cancelled.delete(key)) {
      settle(key, false, ABORTED)
      return
    }
    if (failed !== undefined) {
      settle(key, false, failed)
      return
    }
    const namespace = kind === 'namespace'
    let controller
    try {
      controller = new AbortControllerClass()
    } catch (error) {
      settle(key, false, message(error))
      return
    }
    /** @type {GatewayCall} */
    const call = { id, name, source }
    if (sourceName !== null) call.sourceName = sourceName
    call.input = input
    call.toolCallId = toolCallId
    if (parentToolCallId !== null) call.parentToolCallId = parentToolCallId
    if (codeModeRunId !== null) call.codeModeRunId = codeModeRunId
    // The signal is made when first read (SIGNAL): making one costs more
    // than the rest of starting a call, and many tools never look at it.
    controllers.set(call, controller)
    defineProperty(call, 'signal', SIGNAL)
    live.set(key, { controller, onEvent, toolCallId, parentToolCallId, toolId: id, name, started: now() })
    if (onEvent !== undefined) {
      /** @type {CallEvent} */
      const event = { type: 'nested_call_started', toolCallId }
      if (parentToolCallId !== null) event.parentToolCallId = parentToolCallId
      event.toolId = id
      event.name = name
      event.input = call.input
      emit(onEvent, event)
    }
    if (rejection !== null && rejection !== undefined) {
      // Its input failed the tool's schema: a failed call the gateway and
      // the transcript see, with the message the guest gets; not started.
      finish(key, false, rejection)
      return
    }
    let returned
    try {
      returned = execute(call)
    } catch (error) {
      finish(key, false, message(error))
      return
    }
    follow(key, returned, namespace)
  }

  /** Exec and wait results too long to parse in one piece (deliver.js). */
  const deliver = deliverer(TURN_MS, now, immediate)

  /**
   * Fires the signals of these calls and ends them; a later settlement is ignored.
   * @param {string} keys JSON text of the calls' keys
   */
  function abort(keys) {
    for (const key of /** @type {number[]} */ (parse(keys))) {
      const call = live.get(key)
      if (call === undefined) {
        // Not started yet: it never will be.
        if (waiting.has(key)) cancelled.add(key)
        continue
      }
      finish(key, false, ABORTED)
      try {
        call.controller.abort()
      } catch (error) {
        reportError(messages.warnAbort, error)
      }
    }
  }

  /** @type {import('./records').HostFunctions} */
  const made = { start, abort, warn, deliver, checked }
  return made
}
