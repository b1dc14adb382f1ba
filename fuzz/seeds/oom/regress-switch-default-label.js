0 // regression: the switch parser patched the default clause's label over other code when its placeholder was never written (an atom freed twice, SIGSEGV)
const kind = (v) => { switch (typeof v) { case 'number': return 'num'; case 'object': return v === null ? 'null' : 'obj'; default: return 'other' } }
return [0, null, {}, 'x'].map(kind)
