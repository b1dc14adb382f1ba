// What the figures were measured on: CPU, cores, RAM, Node, commit and load.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'

function cpuModel() {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'))
    if (line) return line.split(':')[1].trim()
  } catch {}
  return os.cpus()[0]?.model ?? 'unknown'
}

function gitCommit(cwd) {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8' }).trim()
    return dirty ? `${commit} (working tree modified)` : commit
  } catch {
    return 'unknown'
  }
}

export const loadAverage = () => os.loadavg().map((v) => v.toFixed(2)).join(' ')

export function machineInfo(repoDir) {
  return {
    date: new Date().toISOString(),
    commit: gitCommit(repoDir),
    cpu: cpuModel(),
    cores: os.availableParallelism?.() ?? os.cpus().length,
    ramGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    platform: `${process.platform} ${os.release()} ${process.arch}`,
  }
}
