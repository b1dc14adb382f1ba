// Unit tests of the binding's JavaScript halves (src-js/), required as the
// CommonJS modules they are, without the addon: the piece replay, the
// per-turn budget, the keep-hot turns, and the order in which the bridge
// starts calls. What they do inside a running instance is tested through
// the public API (result-slices, hardening, namespaces).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'

const require = createRequire(import.meta.url)
const { replay, assemble } = require('../src-js/pieces.js')
const { turnBudget } = require('../src-js/turns.js')
const { PieceOp, messages } = require('../src-js/boundary.js')
const codeModeHost = require('../src-js/host.js')
const { keeperHot } = require('../src-js/hot.js')

/** Pieces the core cut (boundary/tests.rs writes them: split at 48 bytes, 8 members). */
const CASES = JSON.parse(readFileSync(new URL('./fixtures/pieces.json', import.meta.url), 'utf8'))

describe('pieces.js', () => {
  test('the fixture uses every operation', () => {
    const ops = new Set(CASES.flatMap(({ pieces }) => pieces.map((piece) => piece[0])))
    assert.deepEqual([...ops].sort(), Object.values(PieceOp).sort())
  })

  test('replaying what the core cut gives what parsing the whole text gives', () => {
    for (const { json, pieces } of CASES) {
      const entry = replay(pieces)
      assert.equal(assemble(entry, () => true), true)
      assert.deepEqual(entry.input, JSON.parse(json), json)
      assert.equal(entry.pieces, null)
    }
  })

  test('a __proto__ key is a member, never the prototype', () => {
    const { pieces } = CASES.find(({ json }) => json.startsWith('{"__proto__"'))
    const entry = replay(pieces)
    assemble(entry, () => true)
    assert.equal(Object.getPrototypeOf(entry.input), Object.prototype)
    assert.deepEqual(Object.keys(entry.input)[0], '__proto__')
    assert.equal(Object.getOwnPropertyDescriptor(entry.input, '__proto__').value.polluted, true)
    assert.equal({}.polluted, undefined)
  })

  test('a budget that runs out stops between pieces, and the replay goes on where it stopped', () => {
    for (const { json, pieces } of CASES) {
      const entry = replay(pieces)
      let calls = 0
      let turns = 0
      // One piece per turn: the budget says yes once, then no.
      for (;;) {
        turns++
        let given = false
        const budget = () => {
          calls++
          if (given) return false
          given = true
          return true
        }
        if (assemble(entry, budget)) break
        assert.ok(turns <= pieces.length, 'every turn replays a piece')
      }
      // Each turn but the last asks twice (a piece, then no); the last
      // replays the last piece and ends.
      assert.equal(turns, pieces.length, `${json}: one piece per turn`)
      assert.equal(calls, pieces.length * 2 - 1)
      assert.deepEqual(entry.input, JSON.parse(json))
      // A finished replay is whole: asking again does nothing.
      assert.equal(assemble(entry, () => assert.fail('no budget is asked')), true)
    }
  })

  test('a piece that is not JSON throws, as the parse of a whole text would', () => {
    const entry = replay([PieceOp.OPEN_OBJECT, `${PieceOp.MEMBERS}{"a":`])
    assert.throws(() => assemble(entry, () => true), SyntaxError)
  })
})

describe('turns.js', () => {
  /** A clock that reads `time` (steps of 1/8 ms: exact in binary), and the callbacks setImmediate was given. */
  function fixture(turnMs = 0.5) {
    const clock = { time: 100 }
    const scheduled = []
    const budget = turnBudget(turnMs, () => clock.time, (callback) => scheduled.push(callback))
    return { clock, scheduled, budget }
  }

  test('work is measured from the mark, and the turn ends once its time is spent', () => {
    const { clock, budget } = fixture()
    budget.begin(clock.time)
    assert.equal(budget.hasTime(), true)
    assert.equal(budget.deadline(), 100.5)
    clock.time += 0.25
    assert.equal(budget.spend(), true)
    assert.equal(budget.deadline(), 100.5)
    clock.time += 0.25
    assert.equal(budget.spend(), false)
    assert.equal(budget.hasTime(), false)
  })

  test('time between passes is not counted: each pass counts from its own mark', () => {
    const { clock, budget } = fixture()
    budget.begin(clock.time)
    clock.time += 0.25
    budget.spend()
    clock.time += 50
    budget.begin(clock.time)
    clock.time += 0.125
    assert.equal(budget.spend(), true)
    assert.equal(budget.deadline(), clock.time + 0.125)
  })

  test('the next turn gets a fresh budget and runs the work again, once however often it is asked', () => {
    const { clock, scheduled, budget } = fixture()
    budget.begin(clock.time)
    clock.time += 1
    budget.spend()
    let again = 0
    budget.next(true, () => again++)
    budget.next(true, () => again++)
    assert.equal(scheduled.length, 1)
    scheduled.shift()()
    assert.equal(again, 1)
    assert.equal(budget.hasTime(), true)
    budget.begin(clock.time)
    assert.equal(budget.deadline(), clock.time + 0.5)
    // Once it ran, the next turn can be asked for again.
    budget.next(true, () => again++)
    assert.equal(scheduled.length, 1)
  })

  test('a pass that spent nothing and left nothing asks for no turn; one that spent time does', () => {
    const { clock, scheduled, budget } = fixture()
    budget.begin(clock.time)
    budget.next(false, () => {})
    assert.equal(scheduled.length, 0)
    clock.time += 0.125
    budget.spend()
    budget.next(false, () => {})
    assert.equal(scheduled.length, 1, 'the spent time is given back in the next turn')
  })
})

describe('host.js', () => {
  /** A nested call as the core hands it over (records.d.ts `NestedCall`). */
  const call = (key, fields) => ({
    key,
    kind: 'call',
    toolId: `openclaw:core:t${key}`,
    name: `t${key}`,
    source: 'openclaw',
    sourceName: null,
    toolCallId: `c${key}`,
    parentToolCallId: null,
    codeModeRunId: null,
    namespace: null,
    rejection: null,
    ...fields,
  })
  const namespaceCall = (key, args) =>
    call(key, { kind: 'namespace', input: args, namespace: { id: 'issues', path: 'update', callee: 'Issues.update' } })

  /**
   * The bridge with the binding's functions recorded: `checkInput` sends
   * every mapped input to the checker thread (answers true), and
   * `takeInput` gives back what was checked.
   */
  function bridge() {
    const seen = { settled: [], checks: [], started: [] }
    const inputs = new Map()
    const host = codeModeHost(
      ({ keys, oks, payloads }) => keys.forEach((key, k) => seen.settled.push([key, oks[k], payloads[k]])),
      (key) => inputs.get(key) ?? null,
      () => false,
      () => {},
      () => {},
      (key, toolId, callee, text) => {
        seen.checks.push(key)
        inputs.set(key, text)
        return true
      },
    )
    const execute = (nested) => {
      seen.started.push([nested.toolCallId, nested.input])
      return { ok: true }
    }
    const mapInput = (id, path, args) => ({ mapped: args })
    return { host, seen, start: (calls) => host.start(execute, undefined, JSON.stringify(calls), mapInput) }
  }

  /** Lets the event loop turn until `done()` or 1,000 turns. */
  async function turnsUntil(done) {
    for (let turn = 0; turn < 1000 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve))
    return done()
  }

  test('a namespace call whose input is being checked does not hold up the calls behind it', async () => {
    const { host, seen, start } = bridge()
    start([namespaceCall(1, [{ title: 'x' }]), call(2, { input: { path: '/a' } })])
    assert.ok(await turnsUntil(() => seen.started.length === 1), 'the call behind the check started')
    assert.deepEqual(seen.checks, [1])
    assert.deepEqual(seen.started, [['c2', { path: '/a' }]])
    // Later calls, from this run or another, go ahead too.
    start([call(3, { input: {} })])
    assert.ok(await turnsUntil(() => seen.started.length === 2))
    assert.equal(seen.started[1][0], 'c3')
    // The check's answer starts it, with its checked input.
    host.checked(1, null)
    assert.ok(await turnsUntil(() => seen.started.length === 3))
    assert.deepEqual(seen.started[2], ['c1', { mapped: [{ title: 'x' }] }])
  })

  test('a call set aside for its check and refused by it fails with the refusal, never started', async () => {
    const { host, seen, start } = bridge()
    start([namespaceCall(1, [1])])
    assert.ok(await turnsUntil(() => seen.checks.length === 1))
    host.checked(1, 'refused: no')
    assert.ok(await turnsUntil(() => seen.settled.length === 1))
    assert.deepEqual(seen.settled, [[1, false, 'refused: no']])
    assert.deepEqual(seen.started, [])
  })

  test('a call aborted while set aside for its check ends aborted once the answer comes, and an answer for no call is ignored', async () => {
    const { host, seen, start } = bridge()
    start([namespaceCall(1, [1])])
    assert.ok(await turnsUntil(() => seen.checks.length === 1))
    host.abort('[1]')
    host.checked(7, null)
    host.checked(1, null)
    assert.ok(await turnsUntil(() => seen.settled.length === 1))
    assert.deepEqual(seen.settled, [[1, false, messages.aborted]])
    assert.deepEqual(seen.started, [])
    // A second answer for the same call finds nothing.
    host.checked(1, null)
    assert.equal(await turnsUntil(() => seen.settled.length > 1), false)
  })
})

describe('hot.js', () => {
  /** keepHot over a fake clock and setImmediate; `answers` are what poll(true) says, in turn. */
  function fixture(answers) {
    const clock = { time: 0 }
    const scheduled = []
    const polls = []
    const keepHot = keeperHot(
      (wantsPolling) => {
        polls.push(wantsPolling)
        return wantsPolling ? answers.shift() : false
      },
      0.15,
      20,
      () => clock.time,
      (callback) => scheduled.push(callback),
      (error) => assert.fail(String(error)),
    )
    return { clock, scheduled, polls, keepHot }
  }

  test('activity keeps the thread turning while polling pays, and the turn past the hot window ends the polling', () => {
    const { clock, scheduled, polls, keepHot } = fixture([true, true, true])
    keepHot()
    keepHot()
    assert.equal(scheduled.length, 1, 'one turn, however much activity')
    scheduled.shift()()
    assert.equal(scheduled.length, 1, 'within the hot window: turn again')
    clock.time = 0.2
    scheduled.shift()()
    assert.equal(scheduled.length, 0)
    assert.deepEqual(polls, [true, true, false], 'past the window, poll(false) ends the polling')
  })

  test('when polling does not pay, no turn is kept hot for the cold window', () => {
    const { clock, scheduled, polls, keepHot } = fixture([false])
    keepHot()
    scheduled.shift()()
    assert.deepEqual(polls, [true], 'the answer false has ended the polling already')
    clock.time = 19
    keepHot()
    assert.equal(scheduled.length, 0, 'cold: activity asks for no turn')
    clock.time = 21
    keepHot()
    assert.equal(scheduled.length, 1, 'after the cold window, turns again')
  })
})
