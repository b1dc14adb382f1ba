// Tool results as JSON-safe JSON text, for host.js: compiled once per
// CodeMode on the gateway's thread, with the host globals it uses captured
// here once.
(function codeModeResultJson(maxDepth) {
  'use strict'
  const apply = Reflect.apply
  const stringify = JSON.stringify
  const objectToString = Object.prototype.toString
  const toWellFormed = String.prototype.toWellFormed
  const isWellFormed = String.prototype.isWellFormed
  const isArray = Array.isArray
  const keys = Object.keys
  const ErrorClass = Error
  const SKIP = Symbol('skip')

  /**
   * A tool result as JSON-safe JSON text (docs/guest-runtime.md), node by node: bigints as
   * decimal strings, Errors as {name, message}, cycles as "[Circular]", a
   * throwing toJSON as its Object.prototype.toString tag, and a lone surrogate
   * in a string or a key as U+FFFD, as for guest values. The text is written
   * directly (no copy of the value is built), so a `__proto__` key is data.
   */
  function safeJson(value) {
    const ancestors = []
    const text = (string) => stringify(apply(toWellFormed, string, []))
    function convert(value, key) {
      if (value !== null && typeof value === 'object' && typeof value.toJSON === 'function' && !(value instanceof ErrorClass)) {
        try {
          value = value.toJSON(key)
        } catch {
          return stringify(apply(objectToString, value, []))
        }
      }
      switch (typeof value) {
        case 'string':
          return text(value)
        case 'boolean':
          return value ? 'true' : 'false'
        case 'number':
          return Number.isFinite(value) ? stringify(value) : 'null'
        case 'bigint':
          return stringify(value.toString())
        case 'undefined':
        case 'function':
        case 'symbol':
          return SKIP
      }
      if (value === null) return 'null'
      if (value instanceof ErrorClass) return `{"name":${text(String(value.name))},"message":${text(String(value.message))}}`
      if (value instanceof Number || value instanceof String || value instanceof Boolean) return convert(value.valueOf(), key)
      if (ancestors.includes(value)) return '"[Circular]"'
      if (ancestors.length >= maxDepth) throw new ErrorClass(`tool result nests deeper than ${maxDepth} levels`)
      ancestors.push(value)
      let out
      if (isArray(value)) {
        const items = []
        for (let i = 0; i < value.length; i++) {
          const item = convert(value[i], String(i))
          items.push(item === SKIP ? 'null' : item)
        }
        out = `[${items.join(',')}]`
      } else {
        const members = []
        const names = keys(value)
        // Keys that differ only in lone surrogates become one key (the last
        // value, at the first one's place), as when the value is rebuilt.
        let places = null
        for (let i = 0; i < names.length && places === null; i++) {
          if (!apply(isWellFormed, names[i], [])) places = new Map()
        }
        for (const name of names) {
          const item = convert(value[name], name)
          if (item === SKIP) continue
          if (places === null) {
            members.push(`${stringify(name)}:${item}`)
            continue
          }
          const wellFormed = apply(toWellFormed, name, [])
          const member = `${stringify(wellFormed)}:${item}`
          const place = places.get(wellFormed)
          if (place === undefined) places.set(wellFormed, members.push(member) - 1)
          else members[place] = member
        }
        out = `{${members.join(',')}}`
      }
      ancestors.pop()
      return out
    }
    const root = convert(value, '')
    return root === SKIP ? 'null' : root
  }

  return safeJson
})
