// What the leak checks measure: RSS after gc, V8's heap, the threads of the
// process (/proc/self/task) and its active handles; and the waits they need.
import { readdirSync } from 'node:fs'

import { stats } from './stats.mjs'

export const MiB = 1024 * 1024

export const threadCount = () => readdirSync('/proc/self/task').length

export function handleCounts() {
  const counts = {}
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] || 0) + 1
  return counts
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const turn = () => new Promise((resolve) => setImmediate(resolve))

async function collect() {
  for (let k = 0; k < 3; k++) {
    globalThis.gc()
    await turn()
  }
  return process.memoryUsage().rss
}

/** Polls until the thread count is at most `target` (or stops changing, without one), up to `ms`. */
async function settleThreads(target, ms = 5000) {
  const deadline = Date.now() + ms
  let last = threadCount()
  let stableSince = Date.now()
  while (Date.now() < deadline) {
    await sleep(50)
    const now = threadCount()
    if (target !== undefined && now <= target) return now
    if (now !== last) {
      last = now
      stableSince = Date.now()
    } else if (target === undefined && Date.now() - stableSince >= 500) {
      return now
    }
  }
  return threadCount()
}

export async function measure(threadTarget) {
  const deadline = Date.now() + 5000
  while (stats.liveTimers > 0 && Date.now() < deadline) await sleep(20)
  const threads = await settleThreads(threadTarget)
  const rss = await collect()
  const { heapUsed, heapTotal } = process.memoryUsage()
  await turn()
  return { rss, heapUsed, heapTotal, threads, handles: handleCounts(), liveTimers: stats.liveTimers }
}

export const mib = (bytes) => (bytes / MiB).toFixed(1)
