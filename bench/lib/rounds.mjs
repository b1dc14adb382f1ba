// Interleaved rounds: every round runs each contender once (one "slice" of
// `perSlice` samples), in an order that rotates by one place each round and
// reverses every other pass, so no contender always runs first (the first
// slice of a round tends to run slower) or always after the same neighbour.
// A full gc() runs before each slice so that garbage left by one contender
// is not collected on another's clock. Warm-up rounds are discarded.

export function collect() {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc()
    globalThis.gc()
  }
}

export function rotation(list, round) {
  const k = round % list.length
  const rotated = [...list.slice(k), ...list.slice(0, k)]
  return Math.floor(round / list.length) % 2 ? rotated.reverse() : rotated
}

/**
 * Runs `sample(entry)` for each entry, interleaved. Returns a Map from entry
 * name to the list of kept samples (whatever `sample` returned).
 */
export async function interleave({ entries, rounds, warmup = 0, perSlice = 1, sample, onRound }) {
  const kept = new Map(entries.map((e) => [e.name, []]))
  for (let round = 0; round < warmup + rounds; round++) {
    for (const entry of rotation(entries, round)) {
      collect()
      for (let k = 0; k < perSlice; k++) {
        const value = await sample(entry)
        if (round >= warmup) kept.get(entry.name).push(value)
      }
    }
    onRound?.(round)
  }
  return kept
}

/** Wall time of one call of `fn`, in ms, and its value. */
export async function timed(fn) {
  const start = performance.now()
  const value = await fn()
  return { ms: performance.now() - start, value }
}
