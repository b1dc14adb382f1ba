// The command line of the soak (main.mjs describes each option). A bad option
// prints the usage and exits with 2; --help prints it and exits with 0.

export const CLASS_NAMES = ['normal', 'tools', 'ts', 'syntax', 'resume', 'abort', 'timeout', 'memory', 'expire', 'stuck']

export function parseOptions(argv) {
  const options = {
    execs: 20000, concurrency: 8, seed: 20240611, stuck: true, workers: undefined,
    rotate: 5000, rssToleranceMiB: 64, only: null, progress: 2000,
  }
  const integer = (name, value, min) => {
    const n = Number(value)
    if (!Number.isSafeInteger(n) || n < min) usage(`${name} must be an integer >= ${min}, got ${value}`)
    return n
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    const value = () => (inline !== undefined ? inline : argv[++i])
    switch (flag) {
      case '--execs': options.execs = integer(flag, value(), 1); break
      case '--concurrency': options.concurrency = Math.min(48, integer(flag, value(), 1)); break
      case '--seed': options.seed = integer(flag, value(), 0) >>> 0; break
      case '--workers': options.workers = integer(flag, value(), 1); break
      case '--rotate': options.rotate = integer(flag, value(), 0); break
      case '--rss-tolerance': options.rssToleranceMiB = integer(flag, value(), 0); break
      case '--no-stuck': options.stuck = false; break
      case '--default-malloc': options.defaultMalloc = true; break
      case '--progress': options.progress = integer(flag, value(), 1); break
      case '--only':
        options.only = value().split(',')
        for (const name of options.only) if (!CLASS_NAMES.includes(name)) usage(`--only: unknown class ${name} (${CLASS_NAMES.join(', ')})`)
        break
      case '--stuck': options.stuck = true; break
      case '-h': case '--help': usage(); break
      default: usage(`unknown option ${arg}`)
    }
  }
  return options
}

export function usage(problem) {
  if (problem) console.error(`soak: ${problem}`)
  console.error('usage: node --expose-gc scripts/soak/main.mjs [--execs N] [--concurrency K] [--seed S] [--no-stuck] [--workers W] [--rotate N] [--rss-tolerance MiB] [--only class,...] [--progress N] [--default-malloc]')
  process.exit(problem ? 2 : 0)
}
