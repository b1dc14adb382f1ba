0 // Uint8Array base64 and hex: toBase64, toHex, fromBase64, fromHex, setFromBase64, setFromHex
const bytes = new TextEncoderLike().encode('code mode: ~ok?')
function TextEncoderLike() { this.encode = (s) => Uint8Array.from([...s].map((c) => c.charCodeAt(0))) }
const b64 = bytes.toBase64()
const url = bytes.toBase64({ alphabet: 'base64url', omitPadding: true })
const hex = bytes.toHex()
const back = Uint8Array.fromBase64(b64)
const backUrl = Uint8Array.fromBase64(url, { alphabet: 'base64url' })
const fromHex = Uint8Array.fromHex(hex)
const target = new Uint8Array(8)
const r1 = target.setFromBase64('aGVsbG8=')
const target2 = new Uint8Array(4)
const r2 = target2.setFromHex('deadbeefcafe')
let bad
try { Uint8Array.fromBase64('***') } catch (e) { bad = e.name }
return { b64, url, hex, same: [back.length, backUrl.length, fromHex.join() === bytes.join()], r1, r2,
  target: [...target], target2: [...target2], bad }
