// The replay of a value a worker thread cut into pieces (the core's
// `runs::pieces::split`): a large tool input, a namespace call's mapped
// input, or a long exec or wait result, turned into a value a few pieces at
// a time so that no event-loop turn holds it for long. Each piece is one
// operation, named by its first character (`PieceOp`); replaying them in
// order gives what parsing the whole text gives, `__proto__` keys included
// (members are defined, never assigned).
'use strict'

const { PieceOp } = require('./boundary.js')

const parse = JSON.parse
const isArray = Array.isArray
const keys = Object.keys
const defineProperty = Object.defineProperty

/**
 * A replay in progress: the pieces (null once done), the next one, the
 * containers open, and the value so far.
 * @typedef {{ pieces: string[] | null, at: number, open: any[], input: any }} Replay
 */

/**
 * A replay of `pieces` from the start.
 * @param {string[]} pieces
 * @returns {Replay}
 */
function replay(pieces) {
  return { pieces, at: 0, open: [], input: undefined }
}

/**
 * Replays pieces into `entry.input` while `budget()` says the turn has time
 * left: true when the value is whole, false when pieces remain for a later
 * call. A piece that is not JSON throws (the binding cut them from valid
 * JSON, so only memory makes one fail).
 * @param {Replay} entry
 * @param {() => boolean} budget
 * @returns {boolean}
 */
function assemble(entry, budget) {
  const { pieces, open } = entry
  if (pieces === null) return true
  while (entry.at < pieces.length) {
    if (!budget()) return false
    const piece = pieces[entry.at++]
    const op = piece[0]
    const top = open[open.length - 1]
    if (op === PieceOp.OPEN_OBJECT || op === PieceOp.OPEN_ARRAY) {
      const container = op === PieceOp.OPEN_OBJECT ? {} : []
      if (top === undefined) entry.input = container
      else if (isArray(top)) top.push(container)
      else defineProperty(top, parse(piece.slice(1)), { value: container, writable: true, enumerable: true, configurable: true })
      open.push(container)
    } else if (op === PieceOp.MEMBERS) {
      const members = parse(piece.slice(1))
      for (const name of keys(members)) {
        defineProperty(top, name, { value: members[name], writable: true, enumerable: true, configurable: true })
      }
    } else if (op === PieceOp.ELEMENTS) {
      const items = parse(piece.slice(1))
      for (let i = 0; i < items.length; i++) top.push(items[i])
    } else {
      open.pop()
    }
  }
  entry.pieces = null
  return true
}

module.exports = { replay, assemble }
