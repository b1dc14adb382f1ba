0 // regression: growing an object's shape unlinked it from the collector's list, then threw out of memory, and making the error ran the collector over it (SIGSEGV in gc_scan)
const kept = []
for (let i = 0; i < 600; i++) { const o = { i }; o.a = i; o.b = [i]; o.c = { i }; o.d = i; kept.push(o) }
return kept.length
