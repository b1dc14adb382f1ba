0 // regression: a bound function whose record bind() failed to allocate crashed its finalizer (SIGSEGV)
function f(a, b) { return a + b }
return f.bind(null, 1)(2)
