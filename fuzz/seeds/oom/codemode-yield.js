0 // yield_control parks the run; the next wait resumes it; a timer and a call still pending across the park
text('step 1')
const pending = tools.echo({ text: 'in flight', ms: 20 })
const first = await yield_control('show progress')
text('step 2')
const timer = new Promise((r) => setTimeout(() => r('timer fired'), 5))
const second = await yield_control()
const results = await Promise.all([pending, timer])
const long = await yield_control('x'.repeat(2000))
return { first, second, results, longReason: long.reason.length }
