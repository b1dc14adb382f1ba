0 // regression: new Array(n) made its length property on a path marked "cannot fail" (SIGSEGV out of memory; also Array.fromAsync)
return [new Array(3).length, Array.of(1, 2).length]
