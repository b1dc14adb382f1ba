// The JavaScript half of the bridge, compiled once per CodeMode on the
// gateway's thread: starts nested calls through the gateway's executeTool,
// emits their events, and reports how they end through `settleBatch`. Host
// globals are captured here once, so later changes to them do not matter.
// `resultJson` is result-json.js's `{ writer }`, compiled beside
// it; `appendResult(key, text)` hands the binding the first part of a
// result written over several turns; `splitJson(text)` cuts JSON text into
// the pieces `assemble` replays (the binding's `pieces::split`; null when it
// is short or not a container).
(function codeModeHost(settleBatch, takeInput, constants, poll, resultJson, appendResult, splitJson) {
  'use strict'
  const ABORTED = constants.aborted
  const TOOL_CALL_FAILED = constants.toolCallFailed
  const HOT_MS = constants.hotMs
  const PIECE_BYTES = constants.pieceBytes
  const TURN_MS = constants.turnMs
  const NAMESPACE_UNAVAILABLE = constants.namespaceUnavailable
  const AbortControllerClass = AbortController
  const PromiseClass = Promise
  const promiseResolve = Promise.resolve
  const promiseThen = Promise.prototype.then
  const apply = Reflect.apply
  const parse = JSON.parse
  const now = performance.now.bind(performance)
  const immediate = setImmediate
  const emitWarning = process.emitWarning.bind(process)
  const { writer } = resultJson
  /** A process warning: the one way this bridge (and the binding) reports. */
  function warn(text) {
    try {
      emitWarning(`code mode: ${text}`)
    } catch {}
  }
  const reportError = (what, error) => warn(`${what}: ${message(error)}`)

  /** Calls in flight, by key. */
  const live = new Map()

  // Settlements cross back to the workers in batches: every call that ends
  // in the same run of microtasks goes in one `settleBatch` (one crossing,
  // one wake-up per run), sent once the microtasks queued before it ran.
  // A microtask through a settled promise, not queueMicrotask (which makes
  // an async resource per call).
  const RESOLVED = apply(promiseResolve, PromiseClass, [undefined])
  // The same three arrays every time (emptied after each crossing): the
  // binding reads them during the call. New arrays per crossing died young,
  // and V8 threw away the optimised code that had seen them after every
  // full collection.
  const settledKeys = []
  const settledOks = []
  const settledPayloads = []
  function settle(key, ok, payload) {
    if (settledKeys.length === 0) apply(promiseThen, RESOLVED, [flush])
    settledKeys.push(key)
    settledOks.push(ok)
    settledPayloads.push(payload)
  }
  function flush() {
    try {
      settleBatch(settledKeys, settledOks, settledPayloads)
    } catch (error) {
      reportError('nested call results could not be delivered', error)
    }
    settledKeys.length = 0
    settledOks.length = 0
    settledPayloads.length = 0
  }

  // While calls flow, keep this thread from sleeping for HOT_MS after the last
  // activity: the event loop keeps turning (and serving I/O); it only skips
  // the sleep whose wake-up would cost tens of microseconds per call. Each
  // turn takes what the workers sent (poll(true)): while this thread polls,
  // they do not wake it. poll(false) ends the polling and takes what raced
  // with the end. poll(true) answers false when polling does not pay (other
  // work wants the cores: nested-calls.md); it has then ended the polling
  // itself, and no turn is kept hot for COLD_MS, so that a busy machine pays
  // no setImmediate turn per call.
  const COLD_MS = 20
  let hotUntil = 0
  let coldUntil = 0
  let hot = false
  function tick() {
    let answer
    try {
      answer = poll(true)
    } catch (error) {
      reportError('the host bridge could not poll', error)
    }
    if (answer === true && now() < hotUntil) {
      immediate(tick)
      return
    }
    hot = false
    if (answer === false) {
      coldUntil = now() + COLD_MS
      return
    }
    try {
      poll(false)
    } catch (error) {
      reportError('the host bridge could not poll', error)
    }
  }
  function keepHot() {
    const at = now()
    hotUntil = at + HOT_MS
    if (!hot && at >= coldUntil) {
      hot = true
      immediate(tick)
    }
  }

  const isArray = Array.isArray
  const keys = Object.keys
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
   */
  const controllers = new WeakMap()
  const SIGNAL = {
    get() {
      const controller = controllers.get(this)
      return controller === undefined ? undefined : controller.signal
    },
    set(value) {
      defineProperty(this, 'signal', { value, writable: true, enumerable: true, configurable: true })
    },
    enumerable: true,
    configurable: true,
  }

  function message(error) {
    try {
      if (typeof error === 'string') return error
      if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
        const text = error.message
        if (typeof text === 'string') return text
      }
      return String(error)
    } catch {
      return TOOL_CALL_FAILED
    }
  }

  function emit(onEvent, event) {
    try {
      onEvent(event)
    } catch (error) {
      reportError('onEvent threw', error)
    }
  }

  function finish(key, ok, payload, value) {
    const call = live.get(key)
    if (call === undefined) return
    live.delete(key)
    if (call.onEvent !== undefined) {
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

  /**
   * What a plugin namespace call resolves to: the result's `details` when it
   * is an object that has them, else the result.
   */
  function details(value) {
    if (value !== null && typeof value === 'object' && !isArray(value)) {
      const inner = value.details
      if (inner !== undefined) return inner
    }
    return value
  }

  function follow(key, returned, namespace) {
    const onValue = (value) => {
      let w
      try {
        w = writer(namespace ? details(value) : value)
      } catch (error) {
        finish(key, false, message(error))
        return
      }
      results.push({ key, w, value })
      writeResults()
    }
    const onError = (error) => finish(key, false, message(error))
    // Like `await`: a plain value is the result, a thenable is followed.
    apply(promiseThen, apply(promiseResolve, PromiseClass, [returned]), [onValue, onError])
  }

  /**
   * Results being written as JSON text, oldest first. Writing one walks the
   * whole value, so results are written for at most TURN_MS of measured
   * time per event-loop turn, like calls are started: a small one at once,
   * a large one (a 16 MB string, a million small objects) over as many
   * turns as it needs, its text handed to the binding after each
   * (`appendResult`; the binding keeps no more of it than the run's bridge
   * budget, and counts the rest). A result whose call was aborted meanwhile
   * is dropped.
   */
  const results = []
  let resultsHead = 0
  let writeLeft = TURN_MS
  let writeScheduled = false
  function writeResults() {
    while (resultsHead < results.length && writeLeft > 0) {
      const job = results[resultsHead]
      if (!live.has(job.key)) {
        results[resultsHead++] = undefined
        continue
      }
      const started = now()
      let done
      try {
        done = job.w.write(started + writeLeft)
        if (!done) {
          const text = job.w.take()
          if (text.length > 0) appendResult(job.key, text)
        }
      } catch (error) {
        results[resultsHead++] = undefined
        writeLeft -= now() - started
        finish(job.key, false, message(error))
        continue
      }
      writeLeft -= now() - started
      if (!done) break
      results[resultsHead++] = undefined
      finish(job.key, true, job.w.take(), job.value)
    }
    if (resultsHead === results.length) {
      results.length = 0
      resultsHead = 0
    }
    if (!writeScheduled && (resultsHead < results.length || writeLeft < TURN_MS)) {
      // Next turn: a fresh budget, and whatever still waits.
      writeScheduled = true
      immediate(() => {
        writeScheduled = false
        writeLeft = TURN_MS
        writeResults()
      })
    }
  }

  /**
   * Calls waiting to start, oldest first, with the executor and event sink of
   * their run. Starting a call parses its input and runs the gateway's
   * executeTool, so calls start for at most TURN_MS per event-loop turn
   * (measured, not estimated: the cost of a byte of JSON varies tenfold with
   * its shape); the rest wait for the next turn and the event loop keeps
   * serving. A large input arrives in pieces (the binding's `pieces::split`),
   * assembled within the same budget, over several turns if need be. Each
   * turn makes progress: its first call or piece always goes ahead.
   */
  const backlog = []
  let head = 0
  /** Milliseconds of work this turn may still do; reset by the scheduled drain. */
  let left = TURN_MS
  /** When the work counted so far ended. */
  let mark = 0
  let scheduled = false

  /** Counts the work done since the last mark; true while the turn has time left. */
  function spend() {
    const at = now()
    left -= at - mark
    mark = at
    return left > 0
  }
  /** Keys in the backlog, and those of them aborted before they started. */
  const waiting = new Set()
  const cancelled = new Set()

  /**
   * `batch`: JSON text of [{key, id, name, source, sourceName, toolCallId,
   * parentToolCallId, codeModeRunId, namespaceId, namespacePath,
   * namespaceCallee, rejection, input?}, ...] (the binding's `BatchCall`;
   * absent optional fields are null). A small input comes inline as `input`;
   * the others are taken with takeInput(key) when each call starts. `mapInput(id, path, args)` is
   * the run's plugin namespaces' check and input mapper (namespaces.js), and
   * `validate(id, callee, inputText)` the schema check of a mapped input
   * (the message of a refusal, or null); both undefined when the run has no
   * namespaces. A call with a `rejection` (its input failed its schema on
   * the worker) is shown as a failed call and never started.
   */
  function start(execute, onEvent, batch, mapInput, validate) {
    const since = now()
    for (const call of parse(batch)) {
      backlog.push({ execute, onEvent, call, mapInput, validate })
      waiting.add(call.key)
    }
    drain(since)
  }

  /** Starts what this turn's budget allows, counting the work from `since`. */
  function drain(since = now()) {
    mark = since
    while (head < backlog.length && left > 0) {
      const entry = backlog[head]
      if (!ready(entry)) break
      backlog[head] = undefined
      head++
      startOne(entry)
      spend()
    }
    if (head === backlog.length) {
      backlog.length = 0
      head = 0
    }
    if (!scheduled && (head < backlog.length || left < TURN_MS)) {
      // Next turn: a fresh budget, and whatever still waits.
      scheduled = true
      immediate(() => {
        scheduled = false
        left = TURN_MS
        drain()
      })
    }
    keepHot()
  }

  /**
   * Makes the entry's input within this turn's budget; false when it needs
   * another turn. A plugin namespace call's input is then mapped by the
   * plugin and made JSON-safe (`mapped`).
   */
  function ready(entry) {
    if (entry.parsed !== true) {
      if (!parsed(entry)) return false
      entry.parsed = true
      if (entry.failed !== undefined || cancelled.has(entry.call.key) || entry.call.namespaceId === null) return true
    }
    try {
      return mapped(entry)
    } catch (error) {
      entry.failed = message(error)
      return true
    }
  }

  /**
   * A namespace call's input: the guest's arguments, checked against what
   * this run serialised and mapped by the plugin's inputMapper (in one step:
   * the plugin's own code; what it throws is the call's error), then written
   * as JSON-safe text, checked against the tool's schema and made into the
   * value the tool receives, each in slices of the turn's budget: a million
   * small arguments took the event loop 300 ms in one piece.
   */
  function mapped(entry) {
    const { call } = entry
    if (entry.writing === undefined) {
      if (typeof entry.mapInput !== 'function') throw new ErrorClass(NAMESPACE_UNAVAILABLE)
      entry.writing = writer(entry.mapInput(call.namespaceId, call.namespacePath, entry.input))
      entry.input = undefined
      entry.chunks = []
    }
    if (entry.writing !== null) {
      if (!spend()) return false
      // The text written in this turn, joined now: the writer keeps every
      // element's text apart until `take()`.
      const done = entry.writing.write(mark + left)
      entry.chunks.push(entry.writing.take())
      if (!done) return false
      const text = entry.chunks.length === 1 ? entry.chunks[0] : entry.chunks.join('')
      entry.writing = null
      entry.chunks = null
      if (typeof entry.validate === 'function') entry.rejection = entry.validate(call.id, call.namespaceCallee, text)
      const pieces = text.length > PIECE_BYTES ? splitJson(text) : null
      if (pieces === null) {
        entry.input = parse(text)
        return true
      }
      entry.pieces = pieces
      entry.at = 0
      entry.open = []
    }
    return assemble(entry, spend)
  }

  /**
   * Takes the entry's input and turns it into a value within this turn's
   * budget; false when its pieces need another turn. A call aborted while
   * waiting is not parsed at all.
   */
  function parsed(entry) {
    const { key } = entry.call
    if (entry.call.input !== undefined) {
      entry.input = entry.call.input
      return true
    }
    if (entry.pieces === undefined) {
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
      entry.pieces = input
      entry.at = 0
      entry.open = []
    }
    if (cancelled.has(key)) return true
    try {
      return assemble(entry, spend)
    } catch (error) {
      entry.failed = message(error)
      return true
    }
  }

  /**
   * Replays the pieces of a large input or result (see `pieces.rs`) into
   * `entry.input` while `budget()` says the turn has time left.
   */
  function assemble(entry, budget) {
    const { pieces, open } = entry
    while (entry.at < pieces.length) {
      if (!budget()) return false
      const piece = pieces[entry.at++]
      const op = piece[0]
      const top = open[open.length - 1]
      if (op === 'o' || op === 'a') {
        const container = op === 'o' ? {} : []
        if (top === undefined) entry.input = container
        else if (isArray(top)) top.push(container)
        else defineProperty(top, parse(piece.slice(1)), { value: container, writable: true, enumerable: true, configurable: true })
        open.push(container)
      } else if (op === 'm') {
        const members = parse(piece.slice(1))
        for (const name of keys(members)) {
          defineProperty(top, name, { value: members[name], writable: true, enumerable: true, configurable: true })
        }
      } else if (op === 'e') {
        const items = parse(piece.slice(1))
        for (let i = 0; i < items.length; i++) top.push(items[i])
      } else {
        open.pop()
      }
    }
    entry.pieces = null
    return true
  }

  function startOne({ execute, onEvent, call: { key, id, name, source, sourceName, toolCallId, parentToolCallId, codeModeRunId, namespaceId, rejection: refused }, input, failed, rejection = refused }) {
    waiting.delete(key)
    if (cancelled.delete(key)) {
      settle(key, false, ABORTED)
      return
    }
    if (failed !== undefined) {
      settle(key, false, failed)
      return
    }
    const namespace = namespaceId !== null
    let controller
    try {
      controller = new AbortControllerClass()
    } catch (error) {
      settle(key, false, message(error))
      return
    }
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

  /**
   * Exec and wait results too long to parse in one piece (a final value or
   * output items of up to `maxOutputBytes`): the binding cuts their JSON
   * text on the worker thread, as it cuts a large tool input, and
   * `deliver(pieces)` answers a promise of the result object, assembled
   * oldest first for at most TURN_MS of measured time per event-loop turn.
   */
  const deliveries = []
  let deliveriesHead = 0
  let deliverLeft = TURN_MS
  let deliverMark = 0
  let deliverScheduled = false
  function deliverSpend() {
    const at = now()
    deliverLeft -= at - deliverMark
    deliverMark = at
    return deliverLeft > 0
  }
  function deliver(pieces) {
    let resolve
    let reject
    const promise = new PromiseClass((yes, no) => {
      resolve = yes
      reject = no
    })
    deliveries.push({ pieces, at: 0, open: [], input: undefined, resolve, reject })
    deliverSome()
    return promise
  }
  function deliverSome() {
    deliverMark = now()
    while (deliveriesHead < deliveries.length && deliverLeft > 0) {
      const entry = deliveries[deliveriesHead]
      let done
      try {
        done = assemble(entry, deliverSpend)
      } catch (error) {
        // Pieces the binding cut from valid JSON do not fail to parse; a
        // failure here (memory) rejects the exec or wait, as a failed
        // JSON.parse of the whole text would.
        deliveries[deliveriesHead++] = undefined
        entry.reject(error)
        continue
      }
      if (!done) break
      deliveries[deliveriesHead++] = undefined
      entry.resolve(entry.input)
    }
    if (deliveriesHead === deliveries.length) {
      deliveries.length = 0
      deliveriesHead = 0
    }
    if (!deliverScheduled && (deliveriesHead < deliveries.length || deliverLeft < TURN_MS)) {
      // Next turn: a fresh budget, and whatever still waits.
      deliverScheduled = true
      immediate(() => {
        deliverScheduled = false
        deliverLeft = TURN_MS
        deliverSome()
      })
    }
  }

  /** Fires the signals of these calls and ends them; a later settlement is ignored. */
  function abort(keys) {
    for (const key of parse(keys)) {
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
        reportError('aborting a nested call threw', error)
      }
    }
  }

  return { start, abort, warn, deliver }
})
