//! The MCP namespace (`mcp/`): what its calls throw, the notes of `$api`
//! answers, the gateway diagnostics of building it, the descriptions of its
//! API files, and the prose of its declarations (`mcp/declarations/`),
//! what a type could not express included.

// --- Calls under `MCP` and `API` ---

pub const MCP_ONE_OBJECT: &str = "MCP namespace tools accept one object argument.";

/// `Missing required MCP namespace argument: a` (`arguments: a, b` for more
/// than one), after schema defaults were filled in.
pub fn mcp_missing_arguments(keys: &[&str]) -> String {
    let noun = if keys.len() == 1 {
        "argument"
    } else {
        "arguments"
    };
    format!("Missing required MCP namespace {noun}: {}", keys.join(", "))
}

/// A function under `MCP` standing for a run tool whose `mcp.operation` code
/// mode does not know.
pub fn mcp_unsupported_operation(call: &str, id: &str, operation: &str) -> String {
    format!("{call} cannot be called: the gateway gave its MCP tool ({id}) the operation \"{operation}\", which code mode does not support (tool, resources_list, resources_read, prompts_list, prompts_get).")
}

/// `MCP.<server>.$api(selector)` matched nothing; `methods` lists what exists.
pub fn mcp_unknown_method(server: &str, selector: &str, methods: &[String]) -> String {
    format!("MCP.{server} has no method {selector}; its methods: {}. Call MCP.{server}.$api() for the whole header.", methods.join(", "))
}

pub const API_PREFIX_NOT_STRING: &str = "API.list prefix must be a string.";
pub const API_PATH_NOT_STRING: &str = "API.read path must be a string.";

/// A path with `.` or `..` segments, or empty segments.
pub fn api_bad_path(path: &str) -> String {
    format!("API path {path} is not allowed: use a path as API.list() gives it, such as mcp/index.d.ts, without . or .. segments.")
}

/// `API.read` of a path that names no file.
pub fn api_unknown_file(path: &str) -> String {
    format!("Unknown API file: {path}. API.list() lists the files.")
}

// --- `$api` answers and API files ---

/// The `note` of `MCP.$api()`.
pub const MCP_ROOT_NOTE: &str = "Call MCP.<server>.$api() for a server's TypeScript-style header, or API.read(\"mcp/<server>.d.ts\"); call its tools with one object argument.";
/// The `note` of `MCP.<server>.$api(...)`.
pub const MCP_SERVER_NOTE: &str = "Call tools with one object argument, for example MCP.<server>.<tool>({ requiredKey: value }); $api(method, { schema: true }) adds the full JSON Schema.";

/// The description of `mcp/index.d.ts` in `API.list()`.
pub const MCP_INDEX_FILE: &str =
    "The MCP namespace: every visible server, with a reference to its file.";

/// The description of `mcp/<identifier>.d.ts` in `API.list()`.
pub fn mcp_server_file(server_name: &str, identifier: &str) -> String {
    format!("The MCP server {server_name}: its tools as functions of MCP.{identifier}.")
}

// --- Building the namespace: notes in a server's declarations, and the
// problems a gateway can fix (diagnostics) ---

/// A run tool with `source: "mcp"` and no `mcp` metadata.
pub fn mcp_tool_without_meta(name: &str, id: &str) -> String {
    format!("MCP tool \"{name}\" ({id}) has no mcp metadata, so it is not under MCP: give the run tool mcp.server and mcp.tool.")
}

/// A server's identifier that is not the one its name makes: the note.
pub fn mcp_server_renamed_note(server_name: &str, identifier: &str, base: &str) -> String {
    format!("This server ({server_name}) is MCP.{identifier}: {base} is reserved or taken by another server.")
}

/// The same, as a problem.
pub fn mcp_server_renamed(server_name: &str, identifier: &str, base: &str) -> String {
    format!("MCP server \"{server_name}\" is MCP.{identifier}: its identifier {base} is reserved or taken by another server.")
}

/// A tool whose `mcp.operation` code mode does not know: the note.
pub fn mcp_unknown_operation_note(name: &str, tool: &str, operation: &str) -> String {
    format!("{name} ({tool}) cannot be called: its mcp.operation \"{operation}\" is not supported.")
}

/// The same, as a problem; `call` is where the tool is under `MCP`.
pub fn mcp_unknown_operation(tool: &str, id: &str, operation: &str, call: &str) -> String {
    format!("MCP tool \"{tool}\" ({id}) has mcp.operation \"{operation}\", which code mode does not support; {call} only reports this. Use tool, resources_list, resources_read, prompts_list or prompts_get.")
}

/// A second tool of a server with the same resource or prompt operation:
/// the note.
pub fn mcp_operation_taken_note(tool: &str, id: &str, server: &str, method: &str) -> String {
    format!("{tool} ({id}) is left out: MCP.{server}.{method} already calls another tool.")
}

/// The same, as a problem.
pub fn mcp_operation_taken(tool: &str, id: &str, server_name: &str, operation: &str) -> String {
    format!("MCP tool \"{tool}\" ({id}) is not under MCP: server \"{server_name}\" already has a run tool with mcp.operation \"{operation}\"; keep one per server.")
}

/// A tool's identifier that is not the one its name makes: the note.
pub fn mcp_tool_renamed_note(name: &str, base: &str) -> String {
    format!(
        "Called {name}, not {base}: {base} is reserved or taken by another tool of this server."
    )
}

/// The same, as a problem.
pub fn mcp_tool_renamed(tool: &str, id: &str, server: &str, name: &str, base: &str) -> String {
    format!("MCP tool \"{tool}\" ({id}) is MCP.{server}.{name}: its identifier {base} is reserved or taken by another tool of the server.")
}

/// A tool whose input schema is missing or not an object (`what`, one of
/// the two below), with how to `fix` it.
pub fn mcp_input_unchecked(
    tool: &str,
    id: &str,
    what: &str,
    server: &str,
    method: &str,
    fix: &str,
) -> String {
    format!("MCP tool \"{tool}\" ({id}) {what}; MCP.{server}.{method} passes its input object on unchecked. {fix}")
}

pub const MCP_NO_SCHEMA: &str = "has no input schema";
pub const MCP_SCHEMA_NOT_OBJECT: &str = "has an input schema that does not describe an object";
pub const MCP_NO_SCHEMA_FIX: &str = "Pass the server's inputSchema as the run tool's parameters.";
pub const MCP_SCHEMA_NOT_OBJECT_FIX: &str = "MCP input schemas are objects ({\"type\": \"object\", ...}); pass the server's inputSchema as the run tool's parameters.";
/// What the declaration says to the model of a tool without an input schema.
pub const MCP_NO_SCHEMA_NOTE: &str =
    "The server gave no input schema: the input object is passed on as it is.";
/// ... and of one whose schema does not describe an object.
pub const MCP_SCHEMA_NOT_OBJECT_NOTE: &str =
    "The server's input schema does not describe an object: the input object is passed on as it is.";

// --- Declarations: their comments ---

/// The comment of a server's `declare namespace` block; `server_name` quoted.
pub fn mcp_server_comment(server_name: &str, identifier: &str) -> String {
    format!("The MCP server {server_name}: call its tools as MCP.{identifier}.<tool>({{ ... }}).")
}

/// The comment of a server's `$api` function.
pub const MCP_SERVER_API_COMMENT: &str = "Return this TypeScript-style API header.";

/// The comment of the root's `$api`.
pub const MCP_ROOT_API_COMMENT: &str = "List the MCP servers; MCP.<server>.$api() describes one.";

/// The comment of a server in the root header; `server_name` quoted.
pub fn mcp_root_server_comment(server_name: &str, tools: usize) -> String {
    let tools = match tools {
        1 => "1 tool".to_owned(),
        n => format!("{n} tools"),
    };
    format!("The MCP server {server_name} ({tools}).")
}

/// Where a cut description continues; `method` quoted.
pub fn mcp_whole_description(identifier: &str, method: &str) -> String {
    format!("MCP.{identifier}.$api({method}) has the whole description")
}

/// Where the schema of what the types leave out is; `method` quoted.
pub fn mcp_full_schema(identifier: &str, method: &str) -> String {
    format!("MCP.{identifier}.$api({method}, {{ schema: true }}) has the full schema")
}

/// The same for a catalog tool's signature (`tools.describe`); `id` quoted.
pub fn tool_whole_description(id: &str) -> String {
    format!("tools.describe({id}) has the whole description")
}

/// ... and for what its types leave out.
pub const TOOL_FULL_SCHEMA: &str = "its parameters have the whole schema";

/// A catalog tool whose input schema is not an object's.
pub const TOOL_SCHEMA_NOT_OBJECT: &str =
    "The input schema does not describe an object; its parameters have it.";

/// `(9 more lines: <where>)`, the last line of a cut description.
pub fn more_lines(count: usize, more: &str) -> String {
    format!("({count} more lines: {more})")
}

/// Before a property's default value in its `@param` note.
pub const DEFAULT_NOTE: &str = "Default: ";

/// The first line of what the types leave out; `whole` says where the
/// whole schema is.
pub fn not_expressed(whole: &str) -> String {
    format!("Not expressed in these types ({whole}):")
}

/// After the listed paths, when there are more features than listed.
pub fn more_lost_features(count: usize) -> String {
    format!("- and {count} more lost features")
}

/// The last line when the declaration was cut to its budget.
pub const DECLARATION_CUT: &str = "- the schema is larger or deeper than this declaration shows";

// --- Declarations: what a type could not express (after its path) ---

/// An option of an `anyOf`/`oneOf` at `path`.
pub fn option_path(path: &str, number: usize) -> String {
    format!("{path} (option {number})")
}

pub const LOST_TOO_DEEP: &str = "nested deeper than these types show";
pub const LOST_NOT_A_SCHEMA: &str = "a schema that is not an object";
pub const LOST_TYPE_NOT_STRING: &str = "a type that is not a string";
pub const LOST_UNIQUE_ITEMS: &str = "unique items";

/// `an enum that is not an array`, `an allOf ...`.
pub fn lost_not_an_array(keyword: &str) -> String {
    format!("an {keyword} that is not an array")
}

/// An `anyOf`/`oneOf` whose members only constrain.
pub fn lost_constraint_sets(keyword: &str, count: usize) -> String {
    format!("{keyword}: one of {count} sets of constraints")
}

pub const LOST_REF_NOT_STRING: &str = "a $ref that is not a string";

pub fn lost_remote_ref(shown: &str) -> String {
    format!("remote $ref {shown} (not followed)")
}

pub fn lost_recursive_ref(shown: &str) -> String {
    format!("recursive $ref {shown}")
}

pub fn lost_unresolved_ref(shown: &str) -> String {
    format!("$ref {shown} that does not resolve")
}
