0 // Date: statics and every Date.prototype getter, setter and formatter (results kept independent of the clock and zone)
const d = new Date(Date.UTC(2024, 1, 29, 13, 45, 30, 250))
const now = Date.now()
const parsed = [Date.parse('2024-02-29T13:45:30.250Z'), Date.parse('Thu, 01 Jan 1970 00:00:00 GMT'), Date.parse('nonsense')]
const local = [d.getFullYear(), d.getMonth(), d.getDate(), d.getDay(), d.getHours(), d.getMinutes(), d.getSeconds(),
  d.getMilliseconds(), d.getYear(), d.getTimezoneOffset()].every((x) => typeof x === 'number')
const utc = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCDay(), d.getUTCHours(), d.getUTCMinutes(),
  d.getUTCSeconds(), d.getUTCMilliseconds(), d.getTime(), d.valueOf()]
const strings = [d.toISOString(), d.toUTCString(), d.toGMTString(), d.toJSON(), typeof d.toString(), typeof d.toDateString(),
  typeof d.toTimeString(), typeof d.toLocaleString(), typeof d.toLocaleDateString(), typeof d.toLocaleTimeString(),
  d[Symbol.toPrimitive]('number'), typeof d[Symbol.toPrimitive]('string')]
const e = new Date(0)
e.setTime(86400000); e.setMilliseconds(1); e.setUTCMilliseconds(2); e.setSeconds(3); e.setUTCSeconds(4)
e.setMinutes(5); e.setUTCMinutes(6); e.setHours(7); e.setUTCHours(8); e.setDate(9); e.setUTCDate(10)
e.setMonth(3); e.setUTCMonth(4); e.setFullYear(2030); e.setUTCFullYear(2031); e.setYear(99)
const invalid = new Date('x')
return { parsed, local, utc, strings, set: typeof e.getTime(), sane: now > 1.6e12, utcFn: Date.UTC(2000, 0),
  invalid: [String(invalid), isNaN(invalid)], json: JSON.stringify({ d }), arithmetic: new Date(2024, 0, 31) - new Date(2024, 0, 1) > 0 }
