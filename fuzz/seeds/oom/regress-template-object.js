0 // regression: cpool_add leaked its value when the constant pool could not grow: a tagged template's object (the VM was retired)
const tag = (strings, ...values) => strings.raw.join("|") + values.join()
return tag`a${1}b${2}c`
