// Tool results as JSON-safe JSON text, for host.js: compiled once per
// CodeMode on the gateway's thread, with the host globals it uses captured
// here once. Exports a factory that returns `{ writer }`.
'use strict'

const { constants, messages } = require('./boundary.js')

/**
 * A writer of one result (`writer`): `write(deadline)` works until done
 * (true) or past `deadline` (false); `take()` hands over the text so far.
 * @typedef {{ write: (deadline: number) => boolean, take: () => string }} Writer
 */

module.exports = function codeModeResultJson() {
  const maxDepth = constants.MAX_DEPTH
  const apply = Reflect.apply
  const stringify = JSON.stringify
  const objectToString = Object.prototype.toString
  const toWellFormed = String.prototype.toWellFormed
  const isWellFormed = String.prototype.isWellFormed
  const stringSlice = String.prototype.slice
  const charCodeAt = String.prototype.charCodeAt
  const isArray = Array.isArray
  const keys = Object.keys
  const ErrorClass = Error
  const SetClass = Set
  const MapClass = Map
  const now = performance.now.bind(performance)
  // A Buffer's toJSON, `{type: 'Buffer', data: [...bytes]}`, is written
  // byte by byte here instead of being called: it copies every byte at once.
  const bufferToJSON = typeof Buffer === 'function' ? Buffer.prototype.toJSON : undefined
  const Uint8ArrayClass = Uint8Array
  const typedArray = Object.getPrototypeOf(Uint8Array.prototype)
  const typedJoin = typedArray.join
  const typedSubarray = typedArray.subarray
  const typedLength = /** @type {() => number} */ (Object.getOwnPropertyDescriptor(typedArray, 'length')?.get)

  /** Strings longer than this are written a chunk of this many code units at a time. */
  const CHUNK = 32768
  /** Steps between two looks at the clock. */
  const STEPS_PER_LOOK = 64
  /** What a cycle becomes, as JSON text. */
  const CIRCULAR = stringify(messages.circular)

  // What a value becomes (`resolve`): one of these kinds, and its payload.
  const SKIP = 0 // left out of an object, null in an array
  const TEXT = 1 // JSON text, written as it is
  const STRING = 2 // a string, written in chunks when long
  const ERROR = 3 // an Error: {name, message}
  const ARRAY = 4
  const OBJECT = 5
  const BUFFER = 6 // a Buffer: {type: 'Buffer', data: [...bytes]}

  // Work on the writer's stack.
  const VALUE = 10 // a resolved value: [kind, payload]
  const LITERAL = 11 // text
  const CHUNKS = 12 // a long string, from `at`
  const ITEMS = 13 // an array's items, from `at`
  const MEMBERS = 14 // an object's members, from `at`
  const PLACED = 15 // the end of a member of an object whose keys had lone surrogates
  const LEAVE = 16 // an array or object is done: no longer an ancestor
  const BYTES = 17 // a Buffer's bytes, from `at`

  /** Bytes of a Buffer written per step. */
  const BYTES_PER_STEP = 4096

  /**
   * A writer of one tool result as JSON-safe JSON text (docs/guest-runtime.md):
   * bigints as decimal strings, Errors as {name, message}, cycles as
   * "[Circular]", a throwing toJSON as its Object.prototype.toString tag, and
   * a lone surrogate in a string or a key as U+FFFD, as for guest values. The
   * text is written directly (no copy of the value is built), so a
   * `__proto__` key is data.
   *
   * It works in slices, so that no result holds the event loop for long:
   * `write(deadline)` goes on until the work is done (true) or
   * `performance.now()` passes `deadline` (false; call it again later), and
   * `take()` hands over the text written so far. The value is walked with a
   * stack of its own, one element, member or string chunk per step; the only
   * steps that can take long are the gateway's own (a `toJSON`, a getter, a
   * Proxy) and listing the keys of one object (`Object.keys`). What it
   * throws (a value nested deeper than the bound, whatever a getter throws)
   * fails the call, as the message of the error.
   * @param {unknown} value
   * @returns {Writer}
   */
  function writer(value) {
    const ancestors = new SetClass()
    /** @type {string[]} */
    const root = []
    let sink = root
    /**
     * Work on the stack: its kind (VALUE ... BYTES) and what that kind
     * carries (see each case of `step`).
     * @type {[number, ...any[]][]}
     */
    const stack = [[VALUE, resolve(value, '')]]

    /**
     * [kind, payload] of a value, its toJSON applied; throws past the depth bound.
     * @param {any} value
     * @param {string} key
     * @returns {[number, any]}
     */
    function resolve(value, key) {
      if (value !== null && typeof value === 'object' && typeof value.toJSON === 'function' && !(value instanceof ErrorClass)) {
        if (value.toJSON === bufferToJSON && value instanceof Uint8ArrayClass) {
          // What its toJSON makes: an object holding an array, two levels.
          if (ancestors.size + 1 >= maxDepth) throw new ErrorClass(messages.resultTooDeep)
          return [BUFFER, value]
        }
        try {
          value = value.toJSON(key)
        } catch {
          return [TEXT, stringify(apply(objectToString, value, []))]
        }
      }
      switch (typeof value) {
        case 'string':
          return [STRING, value]
        case 'boolean':
          return [TEXT, value ? 'true' : 'false']
        case 'number':
          return [TEXT, Number.isFinite(value) ? stringify(value) : 'null']
        case 'bigint':
          return [TEXT, stringify(value.toString())]
        case 'undefined':
        case 'function':
        case 'symbol':
          return [SKIP, null]
      }
      if (value === null) return [TEXT, 'null']
      if (value instanceof ErrorClass) return [ERROR, value]
      if (value instanceof Number || value instanceof String || value instanceof Boolean) return resolve(value.valueOf(), key)
      if (ancestors.has(value)) return [TEXT, CIRCULAR]
      if (ancestors.size >= maxDepth) throw new ErrorClass(messages.resultTooDeep)
      return [isArray(value) ? ARRAY : OBJECT, value]
    }

    /**
     * Writes a string: at once when short, else chunk by chunk on the stack.
     * @param {string} text
     */
    function string(text) {
      if (text.length <= CHUNK) {
        sink.push(stringify(apply(toWellFormed, text, [])))
        return
      }
      sink.push('"')
      stack.push([LITERAL, '"'], [CHUNKS, text, 0])
    }

    /**
     * Starts writing a resolved value.
     * @param {number} kind
     * @param {any} payload what `kind` says it is (a string, JSON text, an
     *   Error, an array, an object, a Buffer): its type depends on `kind`
     */
    function start(kind, payload) {
      switch (kind) {
        case SKIP:
          // Only the whole value: items and members handle their own.
          sink.push('null')
          return
        case TEXT:
          sink.push(payload)
          return
        case STRING:
          string(payload)
          return
        case ERROR: {
          const name = String(payload.name)
          const message = String(payload.message)
          sink.push('{"name":')
          // Pushed in reverse: the stack runs the last first.
          stack.push([LITERAL, '}'], [VALUE, [STRING, message]], [LITERAL, ',"message":'])
          string(name)
          return
        }
        case BUFFER:
          sink.push('{"type":"Buffer","data":[')
          stack.push([LITERAL, ']}'], [BYTES, payload, 0])
          return
        case ARRAY:
          ancestors.add(payload)
          sink.push('[')
          stack.push([LEAVE, payload, ']'], [ITEMS, payload, 0])
          return
        case OBJECT: {
          ancestors.add(payload)
          const names = keys(payload)
          // Keys that differ only in lone surrogates become one key (the
          // last value, at the first one's place), as when the value is
          // rebuilt: such an object's members are kept until it is done.
          /** @type {Map<string, number> | null} */
          let places = null
          for (let i = 0; i < names.length && places === null; i++) {
            if (!apply(isWellFormed, names[i], [])) places = new MapClass()
          }
          sink.push('{')
          const members = places === null ? null : { places, texts: [] }
          stack.push([LEAVE, payload, '}', members], [MEMBERS, payload, 0, names, members])
          return
        }
      }
    }

    /**
     * One step of the work on top of the stack; returns its weight in steps.
     * @returns {number}
     */
    function step() {
      const top = stack[stack.length - 1]
      switch (top[0]) {
        case VALUE:
          stack.pop()
          start(top[1][0], top[1][1])
          return 1
        case LITERAL:
          stack.pop()
          sink.push(top[1])
          return 1
        case CHUNKS: {
          const text = top[1]
          const at = top[2]
          let end = at + CHUNK
          if (end >= text.length) {
            end = text.length
            stack.pop()
          } else {
            // A surrogate pair stays in one chunk.
            const last = apply(charCodeAt, text, [end - 1])
            if (last >= 0xd800 && last <= 0xdbff) end--
            top[2] = end
          }
          const chunk = stringify(apply(toWellFormed, apply(stringSlice, text, [at, end]), []))
          sink.push(apply(stringSlice, chunk, [1, chunk.length - 1]))
          return STEPS_PER_LOOK
        }
        case BYTES: {
          const bytes = top[1]
          const at = top[2]
          const end = Math.min(apply(typedLength, bytes, []), at + BYTES_PER_STEP)
          if (at > 0 && at < end) sink.push(',')
          sink.push(apply(typedJoin, apply(typedSubarray, bytes, [at, end]), [',']))
          if (end >= apply(typedLength, bytes, [])) stack.pop()
          else top[2] = end
          return STEPS_PER_LOOK
        }
        case ITEMS: {
          const array = top[1]
          const i = top[2]
          if (i >= array.length) {
            stack.pop()
            return 1
          }
          top[2] = i + 1
          if (i > 0) sink.push(',')
          const [kind, payload] = resolve(array[i], String(i))
          if (kind === SKIP) sink.push('null')
          else start(kind, payload)
          return 1
        }
        case MEMBERS: {
          const object = top[1]
          const i = top[2]
          const names = top[3]
          const members = top[4]
          if (i >= names.length) {
            stack.pop()
            return 1
          }
          top[2] = i + 1
          const name = names[i]
          const [kind, payload] = resolve(object[name], name)
          if (kind === SKIP) return 1
          if (members === null) {
            if (top[5] === true) sink.push(',')
            top[5] = true
            string(name)
            // `string` may have put chunks on the stack: the value follows them.
            if (stack[stack.length - 1] !== top) {
              stack.splice(stack.length - 2, 0, [VALUE, [kind, payload]], [LITERAL, ':'])
              return 1
            }
            sink.push(':')
            start(kind, payload)
            return 1
          }
          // Written into a text of its own, then put at its place.
          const wellFormed = apply(toWellFormed, name, [])
          sink = []
          sink.push(stringify(wellFormed), ':')
          stack.push([PLACED, members, wellFormed, sink])
          start(kind, payload)
          return 1
        }
        case PLACED: {
          stack.pop()
          const members = top[1]
          const text = top[3].join('')
          const place = members.places.get(top[2])
          if (place === undefined) members.places.set(top[2], members.texts.push(text) - 1)
          else members.texts[place] = text
          // Back to the object's own text, or to the member of an outer one.
          sink = outerSink()
          return 1
        }
        case LEAVE: {
          stack.pop()
          ancestors.delete(top[1])
          const members = top[3]
          if (members !== undefined && members !== null) sink.push(members.texts.join(','))
          sink.push(top[2])
          return 1
        }
      }
      return 1
    }

    /** Where text goes once a placed member is done: the innermost member still open, else the root. */
    function outerSink() {
      for (let k = stack.length - 1; k >= 0; k--) {
        if (stack[k][0] === PLACED) return stack[k][3]
      }
      return root
    }

    return {
      /**
       * Works until done (true) or past `deadline` (false).
       * @param {number} deadline
       */
      write(deadline) {
        let steps = 0
        while (stack.length > 0) {
          // A long string's chunk weighs as much as a look's worth of
          // steps, so the clock is read after each.
          steps += step()
          if (steps >= STEPS_PER_LOOK) {
            steps = 0
            if (now() >= deadline) return stack.length === 0
          }
        }
        return true
      },
      /** The text written to the top level since the last take. */
      take() {
        const text = root.join('')
        root.length = 0
        return text
      },
    }
  }

  return { writer }
}
