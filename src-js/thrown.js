// The text of a thrown or rejected value, as code mode reports it: the one
// rule for every JavaScript half (the binding's Rust reads values the same
// way: `js::error_message` runs this module).
'use strict'

const StringFunction = String

/**
 * A string as it is; an object's or function's `message` when that is a
 * string; anything else as `String(value)`. `fallback` when reading it
 * throws (a throwing getter or Proxy, an object String() cannot convert).
 * @param {unknown} value
 * @param {string} fallback
 * @returns {string}
 */
function messageOf(value, fallback) {
  try {
    if (typeof value === 'string') return value
    if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
      const text = /** @type {{ message?: unknown }} */ (value).message
      if (typeof text === 'string') return text
    }
    return StringFunction(value)
  } catch {
    return fallback
  }
}

module.exports = { messageOf }
