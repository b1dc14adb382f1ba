// The command's exit codes (docs/cli.md).
export const EXIT = { ok: 0, cellFailed: 1, usage: 2, serverStart: 3, serverCrashed: 4, internal: 70, interrupted: 130, terminated: 143 }

/** The exit code of a run stopped by `signal` (SIGINT or SIGTERM). */
export const exitForSignal = (signal) => (signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated)
