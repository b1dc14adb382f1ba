//! The messages the binding's JavaScript (`src-js/`) throws or reports,
//! which `boundary`'s tests write into `src-js/boundary.js`: compiled into
//! tests only, the addon carrying the file.

use super::{ABORTED, CIRCULAR, NAMESPACE_UNAVAILABLE, TOOL_CALL_FAILED};
use crate::limits::MAX_DEPTH;

/// A message the binding's JavaScript (`src-js/`) throws or reports: its
/// name in `src-js/boundary.js`'s `messages`, and its text, in which
/// `{name}` marks a value the JavaScript fills in. `boundary.js` holds a
/// message without such marks as a string, and one with them as a function
/// of those values, in the order they first appear. Read by `boundary`'s
/// tests only, which write the file the addon carries.
#[derive(Debug)]
pub struct JsMessage {
    pub name: &'static str,
    pub text: String,
}

fn js(name: &'static str, text: impl Into<String>) -> JsMessage {
    JsMessage {
        name,
        text: text.into(),
    }
}

/// Every message of `src-js/`, in the order `boundary.js` lists them.
pub fn js_messages() -> Vec<JsMessage> {
    use crate::limits::{NAMESPACE_REQUIRED_TOOLS, NAMESPACE_TEXT_CHARS};
    vec![
        // host.js: nested calls.
        js("aborted", ABORTED),
        js("toolCallFailed", TOOL_CALL_FAILED),
        js("namespaceUnavailable", NAMESPACE_UNAVAILABLE),
        js(
            "namespaceCallRefused",
            "code mode namespace call refused: {id} has no function at {path} in this run.",
        ),
        js(
            "inputMapperPromise",
            "the inputMapper of {path} returned a Promise; it must return the tool's input itself.",
        ),
        // result-json.js: tool results.
        js(
            "resultTooDeep",
            format!("tool result nests deeper than {MAX_DEPTH} levels"),
        ),
        // result-json.js: what stands for a cycle in a tool result.
        js("circular", CIRCULAR),
        // host.js: process warnings (`code mode: <what>: <message>`).
        js("warning", "code mode: {text}"),
        js(
            "warnUndelivered",
            "nested call results could not be delivered",
        ),
        js("warnPoll", "the host bridge could not poll"),
        js("warnOnEvent", "onEvent threw"),
        js("warnAbort", "aborting a nested call threw"),
        // namespaces.js: the registry's API.
        js("unknownError", "unknown error"),
        js(
            "registrationRefused",
            "registerCodeModeNamespaceForPlugin: {rule}",
        ),
        js("pluginIdRequired", "pluginId must be a non-empty string."),
        js("registrationNotObject", "registration must be an object."),
        js("idRequired", "id must be a non-empty string."),
        js("globalNameNotString", "globalName must be a string."),
        js("createScopeNotFunction", "createScope must be a function."),
        js(
            "requiredToolNamesEmpty",
            "requiredToolNames must be a non-empty array of tool names.",
        ),
        js(
            "requiredToolNamesNotText",
            "requiredToolNames must hold only non-empty strings.",
        ),
        js(
            "requiredToolNamesTooMany",
            format!(
                "requiredToolNames must list at most {NAMESPACE_REQUIRED_TOOLS} different tools."
            ),
        ),
        js("fieldNotString", "{name} must be a string when given."),
        js(
            "fieldTooLong",
            format!("{{name}} must be at most {NAMESPACE_TEXT_CHARS} characters."),
        ),
        js("fieldThrew", "reading {name} threw: {message}"),
        js(
            "globalNameNotIdentifier",
            "globalName {name} is not a JavaScript identifier.",
        ),
        js(
            "globalNameReservedWord",
            "globalName {name} is a reserved word.",
        ),
        js(
            "globalNameOpenclaw",
            "globalName {name} is reserved (names starting __openclaw are code mode's).",
        ),
        js(
            "globalNameOfGuest",
            "globalName {name} is reserved: the guest already has a global of that name.",
        ),
        js(
            "globalNameOfHost",
            "globalName {name} collides with a global of Node's globalThis.",
        ),
        js(
            "idTaken",
            "id {id} is already registered (by plugin {pluginId}).",
        ),
        js(
            "globalNameTaken",
            "globalName {name} is already registered (by namespace {id}).",
        ),
        js(
            "toolNameRequired",
            "createCodeModeNamespaceTool: toolName must be a non-empty string.",
        ),
        js(
            "inputMapperNotFunction",
            "createCodeModeNamespaceTool: inputMapper must be a function when given.",
        ),
        js(
            "clearPluginIdNotString",
            "clearCodeModeNamespacesForPlugin: pluginId must be a string.",
        ),
        // prepare.js: RunContext.tools.
        js("toolsNotArray", "RunContext.tools must be an array."),
        js("toolPath", "RunContext.tools[{index}]"),
        js("toolFieldPath", "RunContext.tools[{index}].{field}"),
        js("toolNotObject", "{path} must be an object."),
        js("toolFieldRequired", "{path} must be a non-empty string."),
        js("toolFieldNotString", "{path} must be a string."),
        js("toolFieldNotBoolean", "{path} must be a boolean."),
        js(
            "toolSourceUnknown",
            "{path} must be \"openclaw\", \"mcp\" or \"client\".",
        ),
        // prepare.js: why a tool's schema was left out.
        js("schemaThrewNoText", "it threw a value with no text"),
        js("schemaTooLong", "its JSON is longer than a string can be"),
        // prepare.js: a schema's toJSON that read the surface's catalog.
        js(
            "toolsReadAgain",
            "RunContext.tools was read again while its schemas were being written.",
        ),
        // scope.js: what a value a scope may not hold is, in its problem.
        js("describedTagged", "an object tagged {tag}"),
        js(
            "describedUninspectable",
            "an object that cannot be inspected",
        ),
        js("describedMarker", "a createCodeModeNamespaceTool marker"),
        js("describedArray", "an array"),
        js("describedA", "a {name}"),
        js("describedAn", "an {name}"),
    ]
}
