0 // regression: resolve_labels patched jump offsets into a bytecode buffer that had failed to grow (SIGSEGV, heap corruption)
let s = 0
for (let i = 0; i < 4; i++) { if (i % 2) s += i; else s -= 1 }
while (s > 10) s--
return s
