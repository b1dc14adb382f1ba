// Written from the core's `boundary` module (crates/code-mode-core/src/boundary/mod.rs): do not edit.
// `cargo test -p code-mode-core boundary` checks it; run it with
// UPDATE_BOUNDARY=1 to write it again.
'use strict'

/** The operations of a value cut into pieces: the first character of each piece. */
exports.PieceOp = Object.freeze({
  OPEN_OBJECT: 'o',
  OPEN_ARRAY: 'a',
  MEMBERS: 'm',
  ELEMENTS: 'e',
  CLOSE: 'c',
})

/** The code of each tool source in the tools' `sources` column (records.rs `ToolSource`). */
exports.ToolSourceCode = Object.freeze({
  OPENCLAW: 0,
  MCP: 1,
  CLIENT: 2,
})

/** The bits of the tools' `flags` column (records.rs `ToolFlags`). */
exports.ToolFlag = Object.freeze({
  DIRECT_ONLY: 1,
  REPLAY_SAFE: 2,
})

/** Bounds (limits.rs), tunings (tuning.rs) and lists of the core, by their Rust names. */
exports.constants = Object.freeze({
  TURN_WORK_MICROS: 500,
  INPUT_PIECE_BYTES: 16384,
  MAX_DEPTH: 1000,
  NAMESPACE_SCOPE_NODES: 10000,
  NAMESPACE_SCOPE_BYTES: 262144,
  NAMESPACE_SCOPE_DEPTH: 32,
  NAMESPACE_CALLABLES: 256,
  NAMESPACE_TEXT_CHARS: 4096,
  NAMESPACE_REQUIRED_TOOLS: 256,
  HOST_HOT_MS: 0.15,
  HOST_COLD_MS: 20,
  TOOLS_FIRST_SLICE: 64,
  TOOLS_MAX_SLICE: 1024,
  NAMESPACE_PATH_SEPARATOR: ".",
  NAMESPACE_UNSAFE_KEYS: ["__proto__","constructor","prototype"],
  LEGACY_CONTROLS: ["tool_search_code","tool_search","tool_describe","tool_call"],
  RESERVED_WORDS: ["await","break","case","catch","class","const","continue","debugger","default","delete","do","else","enum","export","extends","false","finally","for","function","if","implements","import","in","instanceof","interface","let","new","null","package","private","protected","public","return","static","super","switch","this","throw","true","try","typeof","var","void","while","with","yield"],
  GUEST_GLOBALS: ["ALL_TOOLS","API","AggregateError","Array","ArrayBuffer","AsyncDisposableStack","BigInt","BigInt64Array","BigUint64Array","Boolean","DataView","Date","DisposableStack","Error","EvalError","FinalizationRegistry","Float16Array","Float32Array","Float64Array","Function","Infinity","Int16Array","Int32Array","Int8Array","InternalError","Iterator","JSON","MCP","Map","Math","NaN","Number","Object","Promise","Proxy","RangeError","ReferenceError","Reflect","RegExp","Set","String","SuppressedError","Symbol","SyntaxError","TypeError","URIError","Uint16Array","Uint32Array","Uint8Array","Uint8ClampedArray","WeakMap","WeakRef","WeakSet","__block","clearInterval","clearTimeout","console","decodeURI","decodeURIComponent","encodeURI","encodeURIComponent","escape","eval","globalThis","isFinite","isNaN","json","namespaces","parseFloat","parseInt","queueMicrotask","setInterval","setTimeout","text","tools","undefined","unescape","yield_control"],
})

/** Every message src-js throws or reports (messages/js.rs `js_messages`). */
exports.messages = Object.freeze({
  aborted: "code mode run was aborted.",
  toolCallFailed: "tool call failed",
  namespaceUnavailable: "code mode namespace calls are not available in this run.",
  namespaceCallRefused: /** @type {(id: string | number, path: string | number) => string} */ ((id, path) => `code mode namespace call refused: ${id} has no function at ${path} in this run.`),
  inputMapperPromise: /** @type {(path: string | number) => string} */ ((path) => `the inputMapper of ${path} returned a Promise; it must return the tool's input itself.`),
  resultTooDeep: "tool result nests deeper than 1000 levels",
  circular: "[Circular]",
  warning: /** @type {(text: string | number) => string} */ ((text) => `code mode: ${text}`),
  warnUndelivered: "nested call results could not be delivered",
  warnPoll: "the host bridge could not poll",
  warnOnEvent: "onEvent threw",
  warnAbort: "aborting a nested call threw",
  unknownError: "unknown error",
  registrationRefused: /** @type {(rule: string | number) => string} */ ((rule) => `registerCodeModeNamespaceForPlugin: ${rule}`),
  pluginIdRequired: "pluginId must be a non-empty string.",
  registrationNotObject: "registration must be an object.",
  idRequired: "id must be a non-empty string.",
  globalNameNotString: "globalName must be a string.",
  createScopeNotFunction: "createScope must be a function.",
  requiredToolNamesEmpty: "requiredToolNames must be a non-empty array of tool names.",
  requiredToolNamesNotText: "requiredToolNames must hold only non-empty strings.",
  requiredToolNamesTooMany: "requiredToolNames must list at most 256 different tools.",
  fieldNotString: /** @type {(name: string | number) => string} */ ((name) => `${name} must be a string when given.`),
  fieldTooLong: /** @type {(name: string | number) => string} */ ((name) => `${name} must be at most 4096 characters.`),
  fieldThrew: /** @type {(name: string | number, message: string | number) => string} */ ((name, message) => `reading ${name} threw: ${message}`),
  globalNameNotIdentifier: /** @type {(name: string | number) => string} */ ((name) => `globalName ${name} is not a JavaScript identifier.`),
  globalNameReservedWord: /** @type {(name: string | number) => string} */ ((name) => `globalName ${name} is a reserved word.`),
  globalNameOpenclaw: /** @type {(name: string | number) => string} */ ((name) => `globalName ${name} is reserved (names starting __openclaw are code mode's).`),
  globalNameOfGuest: /** @type {(name: string | number) => string} */ ((name) => `globalName ${name} is reserved: the guest already has a global of that name.`),
  globalNameOfHost: /** @type {(name: string | number) => string} */ ((name) => `globalName ${name} collides with a global of Node's globalThis.`),
  idTaken: /** @type {(id: string | number, pluginId: string | number) => string} */ ((id, pluginId) => `id ${id} is already registered (by plugin ${pluginId}).`),
  globalNameTaken: /** @type {(name: string | number, id: string | number) => string} */ ((name, id) => `globalName ${name} is already registered (by namespace ${id}).`),
  toolNameRequired: "createCodeModeNamespaceTool: toolName must be a non-empty string.",
  inputMapperNotFunction: "createCodeModeNamespaceTool: inputMapper must be a function when given.",
  clearPluginIdNotString: "clearCodeModeNamespacesForPlugin: pluginId must be a string.",
  toolsNotArray: "RunContext.tools must be an array.",
  toolPath: /** @type {(index: string | number) => string} */ ((index) => `RunContext.tools[${index}]`),
  toolFieldPath: /** @type {(index: string | number, field: string | number) => string} */ ((index, field) => `RunContext.tools[${index}].${field}`),
  toolNotObject: /** @type {(path: string | number) => string} */ ((path) => `${path} must be an object.`),
  toolFieldRequired: /** @type {(path: string | number) => string} */ ((path) => `${path} must be a non-empty string.`),
  toolFieldNotString: /** @type {(path: string | number) => string} */ ((path) => `${path} must be a string.`),
  toolFieldNotBoolean: /** @type {(path: string | number) => string} */ ((path) => `${path} must be a boolean.`),
  toolSourceUnknown: /** @type {(path: string | number) => string} */ ((path) => `${path} must be "openclaw", "mcp" or "client".`),
  schemaThrewNoText: "it threw a value with no text",
  schemaTooLong: "its JSON is longer than a string can be",
  toolsReadAgain: "RunContext.tools was read again while its schemas were being written.",
  describedTagged: /** @type {(tag: string | number) => string} */ ((tag) => `an object tagged ${tag}`),
  describedUninspectable: "an object that cannot be inspected",
  describedMarker: "a createCodeModeNamespaceTool marker",
  describedArray: "an array",
  describedA: /** @type {(name: string | number) => string} */ ((name) => `a ${name}`),
  describedAn: /** @type {(name: string | number) => string} */ ((name) => `an ${name}`),
})
