//! What the Node thread's JavaScript (`src-js/`) and Rust share: the
//! operations of a value cut into pieces ([`PieceOp`]), the codes of the
//! tools' columns ([`ToolSource`], [`ToolFlags`]), and the bounds,
//! tunings, lists and messages `src-js/` uses. Each is defined once on the
//! Rust side (`runs/pieces.rs`, `limits.rs`, `tuning.rs`, `messages/`),
//! and `src-js/boundary.js` is written from them ([`javascript`]). A test
//! keeps the file in step: a name added or changed in Rust and not written
//! there fails `cargo test` (and `npm run lint`), and JavaScript that uses
//! a name the file does not have fails `tsc` in `npm run lint`. The module
//! is compiled into tests only: the addon carries the file it wrote.

use crate::records::{ToolFlags, ToolSource};
use crate::runs::pieces::PieceOp;

/// A value `src-js/` reads, as JavaScript source: a number or a list of
/// strings.
fn number(value: impl std::fmt::Display) -> String {
    value.to_string()
}

fn strings<S: AsRef<str>>(values: &[S]) -> String {
    let values: Vec<&str> = values.iter().map(AsRef::as_ref).collect();
    serde_json::to_string(&values).unwrap_or_default()
}

/// `(name, JavaScript value)` of every bound, tuning and list `src-js/`
/// reads, under the names they have in Rust.
fn constants() -> Vec<(&'static str, String)> {
    use crate::limits::*;
    use crate::tuning::*;
    macro_rules! numbers {
        ($($name:ident),* $(,)?) => { vec![$((stringify!($name), number($name))),*] };
    }
    let mut all = numbers![
        TURN_WORK_MICROS,
        INPUT_PIECE_BYTES,
        MAX_DEPTH,
        NAMESPACE_SCOPE_NODES,
        NAMESPACE_SCOPE_BYTES,
        NAMESPACE_SCOPE_DEPTH,
        NAMESPACE_CALLABLES,
        NAMESPACE_TEXT_CHARS,
        NAMESPACE_REQUIRED_TOOLS,
        HOST_HOT_MS,
        HOST_COLD_MS,
        TOOLS_FIRST_SLICE,
        TOOLS_MAX_SLICE,
    ];
    let separator = crate::namespaces::PATH_SEPARATOR.to_string();
    all.push((
        "NAMESPACE_PATH_SEPARATOR",
        serde_json::to_string(&separator).unwrap_or_default(),
    ));
    all.push((
        "NAMESPACE_UNSAFE_KEYS",
        strings(&crate::namespaces::UNSAFE_KEYS),
    ));
    all.push(("LEGACY_CONTROLS", strings(&crate::catalog::LEGACY_CONTROLS)));
    all.push((
        "RESERVED_WORDS",
        strings(crate::identifiers::RESERVED_WORDS.as_slice()),
    ));
    all.push(("GUEST_GLOBALS", strings(crate::runs::guest_globals())));
    all
}

/// A message as JavaScript: a string, or an arrow function of its
/// `{placeholders}` that returns a template literal.
fn message(text: &str) -> String {
    let mut params: Vec<&str> = Vec::new();
    let mut body = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|close| open + close) else {
            break;
        };
        let name = &rest[open + 1..close];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
            body.push_str(&escape_template(&rest[..=open]));
            rest = &rest[open + 1..];
            continue;
        }
        body.push_str(&escape_template(&rest[..open]));
        body.push_str(&format!("${{{name}}}"));
        if !params.contains(&name) {
            params.push(name);
        }
        rest = &rest[close + 1..];
    }
    body.push_str(&escape_template(rest));
    if params.is_empty() {
        return serde_json::to_string(text).unwrap_or_default();
    }
    let typed: Vec<String> = params
        .iter()
        .map(|name| format!("{name}: string | number"))
        .collect();
    format!(
        "/** @type {{({}) => string}} */ (({}) => `{body}`)",
        typed.join(", "),
        params.join(", "),
    )
}

/// `text` inside a template literal.
fn escape_template(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('`', "\\`")
        .replace("${", "\\${")
}

/// The text of `src-js/boundary.js`.
pub fn javascript() -> String {
    let mut out = String::from(
        "// Written from the core's `boundary` module \
         (crates/code-mode-core/src/boundary/mod.rs): do not edit.\n\
         // `cargo test -p code-mode-core boundary` checks it; run it with\n\
         // UPDATE_BOUNDARY=1 to write it again.\n\
         'use strict'\n\n",
    );
    out.push_str(
        "/** The operations of a value cut into pieces: the first character of each piece. */\n\
         exports.PieceOp = Object.freeze({\n",
    );
    for op in PieceOp::ALL {
        out.push_str(&format!("  {}: '{}',\n", op.js_name(), op.code()));
    }
    out.push_str("})\n\n");
    out.push_str(
        "/** The code of each tool source in the tools' `sources` column (records.rs `ToolSource`). */\n\
         exports.ToolSourceCode = Object.freeze({\n",
    );
    for source in ToolSource::ALL {
        out.push_str(&format!(
            "  {}: {},\n",
            source.as_str().to_uppercase(),
            source.code()
        ));
    }
    out.push_str("})\n\n");
    out.push_str(&format!(
        "/** The bits of the tools' `flags` column (records.rs `ToolFlags`). */\n\
         exports.ToolFlag = Object.freeze({{\n  DIRECT_ONLY: {},\n  REPLAY_SAFE: {},\n}})\n\n",
        ToolFlags::DIRECT_ONLY,
        ToolFlags::REPLAY_SAFE,
    ));
    out.push_str(
        "/** Bounds (limits.rs), tunings (tuning.rs) and lists of the core, by their Rust names. */\n\
         exports.constants = Object.freeze({\n",
    );
    for (name, value) in constants() {
        out.push_str(&format!("  {name}: {value},\n"));
    }
    out.push_str("})\n\n");
    out.push_str(
        "/** Every message src-js throws or reports (messages/js.rs `js_messages`). */\n\
         exports.messages = Object.freeze({\n",
    );
    for js in crate::messages::js_messages() {
        out.push_str(&format!("  {}: {},\n", js.name, message(&js.text)));
    }
    out.push_str("})\n");
    out
}

#[cfg(test)]
mod tests;
