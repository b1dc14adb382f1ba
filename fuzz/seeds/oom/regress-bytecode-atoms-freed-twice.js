0 // regression: resolve_labels freed atoms it had dropped, then the failed function freed them again (SIGSEGV in free_bytecode_atoms)
const o = { length: 2, a: 1 }
if (o.a) return o.length + 'xy'.length
return 0
