// The MCP server config of the runner, in the common `mcpServers` format:
//
//   { "mcpServers": { "<name>": { "command": "npx", "args": [...], "env": {...}, "cwd": "..." } } }
//
// Only stdio servers (a command to start) are supported. Every problem is a
// ConfigError naming the place, so the runner can say exactly what to fix.
import { readFileSync } from 'node:fs'
import path from 'node:path'

export class ConfigError extends Error {}

/** Server names become `MCP.<name>` in the cell: letters, digits, `_`, `-`. */
const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/
const MAX_SERVERS = 32

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value)

/** Reads and checks the config file at `file`; returns [{ name, command, args, env, cwd }]. */
export function readConfig(file) {
  let text
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new ConfigError(`cannot read the MCP config ${file}: ${error.code ?? error.message}`)
  }
  let json
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new ConfigError(`the MCP config ${file} is not JSON: ${error.message}`)
  }
  return checkConfig(json, path.dirname(path.resolve(file)), file)
}

/** Checks a parsed config; relative `cwd`s are taken from `base`. */
export function checkConfig(json, base, label = 'the MCP config') {
  if (!isObject(json) || !isObject(json.mcpServers)) {
    throw new ConfigError(`${label}: expected an object with "mcpServers": { "<name>": { "command": ... } }`)
  }
  const entries = Object.entries(json.mcpServers)
  if (entries.length > MAX_SERVERS) throw new ConfigError(`${label}: at most ${MAX_SERVERS} servers, got ${entries.length}`)
  return entries.map(([name, server]) => {
    const at = `${label}: mcpServers.${name}`
    if (!NAME.test(name)) throw new ConfigError(`${at}: a server name is letters, digits, "_" and "-", starting with a letter or "_" (it becomes MCP.<name>)`)
    if (!isObject(server)) throw new ConfigError(`${at}: expected an object with "command"`)
    if (server.url !== undefined || server.type === 'http' || server.type === 'sse') {
      throw new ConfigError(`${at}: only stdio servers (with "command") are supported`)
    }
    if (typeof server.command !== 'string' || server.command.trim() === '') throw new ConfigError(`${at}.command: expected a non-empty string`)
    const args = server.args ?? []
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new ConfigError(`${at}.args: expected an array of strings`)
    const env = server.env ?? {}
    if (!isObject(env) || !Object.values(env).every((v) => typeof v === 'string')) throw new ConfigError(`${at}.env: expected an object of strings`)
    if (server.cwd !== undefined && typeof server.cwd !== 'string') throw new ConfigError(`${at}.cwd: expected a string`)
    return { name, command: server.command, args, env, cwd: server.cwd === undefined ? undefined : path.resolve(base, server.cwd) }
  })
}
