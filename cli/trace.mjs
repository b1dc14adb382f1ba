// What the runner says on stderr while a cell runs: servers starting, the
// tools found, each nested call as it starts and finishes, the cell's own
// output, a run parked and resumed, and the end. Colour only on a terminal
// (and never with NO_COLOR set).

const MAX_SHOWN = 120

function short(value) {
  let text
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value)
  } catch {
    text = String(value)
  }
  if (text === undefined) text = 'undefined'
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 3)}...` : text
}

export function createTrace({ quiet = false, stream = process.stderr } = {}) {
  const colour = !quiet && stream.isTTY === true && !process.env.NO_COLOR
  const paint = (code) => (text) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text)
  const dim = paint('2')
  const green = paint('32')
  const red = paint('31')
  const cyan = paint('36')
  const say = (line) => {
    if (!quiet) stream.write(`${line}\n`)
  }
  return {
    progress: (line) => say(dim(`code-mode: ${line}`)),
    event(event) {
      if (event.type === 'nested_call_started') say(`${cyan('->')} ${event.toolCallId} ${event.toolId} ${dim(short(event.input))}`)
      else if (event.type === 'nested_call_finished') {
        const outcome = event.ok ? dim(short(event.result)) : red(`error: ${short(event.error)}`)
        say(`${event.ok ? green('<-') : red('<-')} ${event.toolCallId} ${event.durationMs.toFixed(1)} ms ${outcome}`)
      }
    },
    output(items) {
      for (const item of items ?? []) say(`${dim('|')} ${item.type === 'text' ? item.text : short(item.value)}`)
    },
    /** A run parked (`waiting`): said once per run, then once per wait that found it still waiting. */
    parked(result, waits) {
      const pending = (result.pendingToolCalls ?? []).map((p) => p.toolId).join(', ') || 'nothing'
      if (waits === 0) say(dim(`code-mode: parked as ${result.runId}, waiting on ${pending}; resuming with wait`))
      else say(dim(`code-mode: still waiting on ${pending} (wait ${waits})`))
    },
    result(result, ms) {
      if (result.status === 'completed') say(green(`code-mode: completed${Number.isFinite(ms) ? ` in ${ms.toFixed(1)} ms` : ''}`))
      else if (result.status === 'waiting') say(dim(`code-mode: parked as ${result.runId}`))
      else say(red(`code-mode: ${result.status}${result.code ? ` (${result.code})` : ''}: ${result.error ?? ''}`))
    },
  }
}
