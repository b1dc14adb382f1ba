// The host boundary every peer gets: one async host function
// `call(name, inputJson) -> Promise<resultJson>`, backed by the same tool
// function the product's `executeTool` uses, plus the guest wrapper that
// turns it into `tools.call(name, input)`. JSON crosses in both directions,
// as it does in the product (its inputs and results cross as JSON too).

/** The tool behind every nested call: resolves `{ ok: true, n }`. */
export const echo = async (input) => ({ ok: true, n: input?.n })

/** The peers' host function. `slow` calls go to `onSlow` (B5, B6). */
export function makeHostCall(onSlow) {
  return async function call(name, inputJson) {
    const input = JSON.parse(inputJson)
    const result = name === 'slow' && onSlow ? await onSlow(input) : await echo(input)
    return JSON.stringify(result)
  }
}

/**
 * Guest source for a peer: the `tools` wrapper over the global host function
 * `__call`, then the cell as an async function whose value comes back as JSON
 * text (peers hand strings across more cheaply than objects, and the product
 * returns its value as JSON too).
 */
export const guestSource = (code) => `const tools = {
  call: async (name, input) => JSON.parse(await __call(name, JSON.stringify(input === undefined ? {} : input))),
};
(async () => {
${code}
})().then((value) => JSON.stringify(value === undefined ? null : value))`

/** Guest source whose completion lands in `globalThis.__done` (for VMs whose promise handles do not survive a snapshot). */
export const guestSourceToGlobal = (code) => `${guestSource(code)}.then((json) => { globalThis.__done = json })`

/** A promise with resolve exposed. */
export function deferred() {
  let resolve
  const promise = new Promise((r) => (resolve = r))
  return { promise, resolve }
}

/** Throws unless the value a contender returned is the expected one. */
export function check(name, value, expect) {
  if (expect === undefined) return
  if (JSON.stringify(value) !== JSON.stringify(expect)) {
    throw new Error(`${name}: got ${JSON.stringify(value)?.slice(0, 200)}, expected ${JSON.stringify(expect)}`)
  }
}
