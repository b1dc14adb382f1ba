// A plugin namespace's scope serialised as data (the core's `Scope`: a
// JSON-safe tree and its callable places), or the problem that refuses it
// (the core's `ScopeProblem`), for namespaces.js. Host globals are captured
// when the registry is made.
'use strict'

const { constants, messages } = require('./boundary.js')
const { messageOf } = require('./thrown.js')

/**
 * A callable place of a scope: its path, the marker's tool and its mapper.
 * @typedef {{ path: string[], tool: string, inputMapper: Function | undefined }} Callable
 */

/**
 * A scope as data (the core's `Scope`, with each callable's mapper): its
 * JSON-safe tree and its callable places.
 * @typedef {{ tree: unknown, callables: Callable[] }} Scope
 */

/**
 * The serialiser of scopes whose tool markers are those of `markers` (the
 * registry's: marker -> { toolName, inputMapper }).
 * @param {WeakMap<object, { toolName: string, inputMapper: Function | undefined }>} markers
 */
function scopeWriter(markers) {
  const MAX_NODES = constants.NAMESPACE_SCOPE_NODES
  const MAX_BYTES = constants.NAMESPACE_SCOPE_BYTES
  const MAX_DEPTH = constants.NAMESPACE_SCOPE_DEPTH
  const MAX_CALLABLES = constants.NAMESPACE_CALLABLES
  const SEPARATOR = constants.NAMESPACE_PATH_SEPARATOR
  /** The rule of the core's `is_unsafe_key`, with its list of keys. */
  const UNSAFE_KEYS = new Set(constants.NAMESPACE_UNSAFE_KEYS)
  const isUnsafeKey = (/** @type {string} */ name) => name === '' || UNSAFE_KEYS.has(name) || name.includes(SEPARATOR)
  const stringify = JSON.stringify
  const apply = Reflect.apply
  const keys = Object.keys
  const hasOwn = Object.hasOwn
  const byteLength = Buffer.byteLength
  const getPrototypeOf = Object.getPrototypeOf
  const isArray = Array.isArray
  const ObjectPrototype = Object.prototype
  const objectToString = Object.prototype.toString
  const toWellFormed = String.prototype.toWellFormed

  /**
   * The text of what the plugin's code threw (thrown.js).
   * @param {unknown} error
   * @returns {string}
   */
  function message(error) {
    return messageOf(error, messages.unknownError)
  }

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

  /**
   * `a Map`, `an Error`.
   * @param {string} name
   * @returns {string}
   */
  function article(name) {
    return /^[AEIOUaeiou]/.test(name) ? messages.describedAn(name) : messages.describedA(name)
  }

  /**
   * What a value that is not plain is, for a message: `a Map`, `an object tagged [object X]`.
   * @param {unknown} value
   * @returns {string}
   */
  function describe(value) {
    try {
      const prototype = getPrototypeOf(value)
      const name = prototype !== null && typeof prototype.constructor === 'function' ? prototype.constructor.name : ''
      if (typeof name === 'string' && name !== '' && name !== 'Object') return article(name)
    } catch {}
    try {
      return messages.describedTagged(apply(objectToString, value, []))
    } catch {
      return messages.describedUninspectable
    }
  }

  /**
   * @param {unknown} value
   * @returns {string}
   */
  function typeName(value) {
    if (value === null) return 'null'
    // A primitive is no key of the WeakMap: `has` answers false.
    if (markers.has(/** @type {object} */ (value))) return messages.describedMarker
    if (isArray(value)) return messages.describedArray
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
   * @param {{ requiredToolNames: readonly string[] }} record
   * @param {unknown} root
   * @returns {Scope}
   */
  function serialise(record, root) {
    if (root === null || typeof root !== 'object' || isArray(root) || markers.has(root)) {
      throw new Problem('not_object', [], typeName(root))
    }
    const required = record.requiredToolNames
    /** @type {Callable[]} */
    const callables = []
    /** @type {unknown[]} */
    const ancestors = []
    let nodes = 0
    /**
     * @param {unknown} value
     * @param {string[]} path
     * @returns {unknown}
     */
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
          if (typeof /** @type {{ toJSON?: unknown }} */ (value).toJSON === 'function') value = /** @type {{ toJSON: (key: string) => unknown }} */ (value).toJSON(path.length === 0 ? '' : path[path.length - 1])
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
          members = keys(/** @type {object} */ (value))
        }
      } catch (error) {
        if (error instanceof Problem) throw error
        throw new Problem('threw', path.slice(), message(error))
      }
      ancestors.push(value)
      /** @type {unknown[] | Record<string, unknown>} */
      let out
      if (array) {
        out = []
        let length
        try {
          length = /** @type {unknown[]} */ (value).length
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
        // An object's keys, read above when it was not an array.
        for (const key of /** @type {string[]} */ (members)) {
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
    /**
     * @param {unknown} container an array or plain object
     * @param {string | number} key
     * @param {string[]} path
     * @returns {unknown}
     */
    function read(container, key, path) {
      let value
      try {
        value = /** @type {Record<string | number, unknown>} */ (container)[key]
      } catch (error) {
        throw new Problem('threw', path.slice(), message(error))
      }
      return node(value, path)
    }
    const tree = node(root, [])
    if (byteLength(stringify(tree)) > MAX_BYTES) throw new Problem('too_large', [])
    return { tree, callables }
  }

  return { serialise, Problem }
}

module.exports = { scopeWriter }
