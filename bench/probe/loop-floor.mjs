// The floor of a nested call's two crossings with nothing else done: a
// thread hands a turn to the Node thread's event loop (which sleeps in
// epoll and is woken the way a threadsafe function wakes it, through a
// libuv async handle) and sleeps on a futex until the Node thread hands it
// back. Here the thread is a worker_threads Worker: it wakes the event
// loop with postMessage (a libuv async handle, as napi's threadsafe
// functions do) and sleeps in Atomics.wait (a futex); the Node thread
// answers with Atomics.notify. Pure Node, no addon: what any design with
// the guest off the Node thread pays per sequential call, at least.
//
//   node bench/probe/loop-floor.mjs [--rounds N] [--busy N]
//
// --busy N starts N busy processes for the measurement.
import { spawn } from 'node:child_process'
import { parseArgs } from 'node:util'
import { Worker } from 'node:worker_threads'

const { values: args } = parseArgs({
  options: { rounds: { type: 'string', default: '20000' }, busy: { type: 'string', default: '0' } },
})
const rounds = Number(args.rounds)

const busy = []
for (let i = 0; i < Number(args.busy); i++) {
  const child = spawn(process.execPath, ['-e', `process.stdout.write('go'); const end = Date.now() + 120000; while (Date.now() < end) {}`], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  await new Promise((resolve) => child.stdout.once('data', resolve))
  busy.push(child)
}

const shared = new Int32Array(new SharedArrayBuffer(4))
const worker = new Worker(
  `
  const { parentPort, workerData } = require('node:worker_threads')
  const turn = workerData
  for (let i = 0; ; i++) {
    // Wait for the Node thread's answer (a futex), then send the next "call".
    while (Atomics.load(turn, 0) === 0) Atomics.wait(turn, 0, 0)
    if (Atomics.load(turn, 0) === 2) break
    Atomics.store(turn, 0, 0)
    parentPort.postMessage(i)
  }
  `,
  { eval: true, workerData: shared },
)

const times = []
let last = 0
await new Promise((resolve) => {
  worker.on('message', (i) => {
    const now = performance.now()
    if (i > 0) times.push((now - last) * 1000)
    last = now
    if (i >= rounds) {
      Atomics.store(shared, 0, 2)
      Atomics.notify(shared, 0)
      resolve()
      return
    }
    Atomics.store(shared, 0, 1)
    Atomics.notify(shared, 0)
  })
  last = performance.now()
  Atomics.store(shared, 0, 1)
  Atomics.notify(shared, 0)
})
await worker.terminate()
for (const child of busy) child.kill('SIGKILL')

times.sort((a, b) => a - b)
const at = (q) => times[Math.floor(q * (times.length - 1))].toFixed(2)
console.log(`${args.busy} busy processes: round trip median ${at(0.5)} µs, p90 ${at(0.9)} µs, p99 ${at(0.99)} µs (${times.length} rounds)`)
