// The PRNG of the mix: job i draws its class and its cell from a generator of
// its own, seeded with (seed, i), so a run is reproducible and a job does not
// depend on the others.

function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A PRNG of its own for job `i`, so a job does not depend on the others. */
export function jobRng(seed, i) {
  const random = mulberry32((seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0)
  random() // the first draw of close seeds is correlated
  const rng = {
    random,
    int: (lo, hi) => lo + Math.floor(random() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(random() * items.length)],
    chance: (p) => random() < p,
    word: (min = 3, max = 8) => {
      let w = ''
      for (let n = rng.int(min, max); n > 0; n--) w += 'abcdefghijklmnopqrstuvwxyz'[rng.int(0, 25)]
      return w
    },
    /** A JSON value built from letter-prefixed keys (no integer-like keys). */
    object: (depth = 2) => {
      const o = {}
      for (let n = rng.int(1, 6); n > 0; n--) {
        const key = 'k' + rng.word(1, 5)
        const kind = rng.int(0, depth > 0 ? 6 : 4)
        o[key] = [() => rng.int(-1e6, 1e6), () => rng.word(), () => rng.chance(0.5), () => null,
          () => rng.int(0, 1000) / 8, () => rng.object(depth - 1),
          () => Array.from({ length: rng.int(0, 4) }, () => rng.int(0, 99))][kind]()
      }
      return o
    },
  }
  return rng
}
