0 // regression: Promise.allSettled and Promise.any leaked their element functions out of memory (the VM was retired)
const settled = await Promise.allSettled([1, Promise.reject(new Error('x'))])
const any = await Promise.any([Promise.reject(1), 2])
return [settled.map((r) => r.status), any]
