0 const a = await Array.fromAsync([1, Promise.resolve(2)])
const z = [...Iterator.zip([[1, 2], [3, 4]])]
const k = [...Iterator.zipKeyed({ a: [1], b: [2] })]
return [a, z, k]