0 // regression: code compiled by a direct eval inside a function reached the closure slot -1 when the slot for an outer variable could not be added (SIGSEGV in resolve_scope_var)
function outer(a, b) { const local = 3; return eval('const f = (x) => a + b + local + x; f(1)') }
return outer(1, 2)
