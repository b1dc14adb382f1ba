//! JavaScript identifiers the guest sees as property names: which names are
//! identifiers, which are reserved, and which have a meaning of their own on
//! any object. Shared by the convenience functions on `tools`, the `MCP`
//! namespace and plugin namespaces. Also the numbered names both MCP
//! identifiers and catalog ids fall back to ([`Suffixes`]).

use std::collections::HashMap;

/// ECMAScript reserved words, strict-mode reserved words and the literals: a
/// valid property name, but not a name a declaration can give a function.
#[rustfmt::skip]
pub const RESERVED_WORDS: [&str; 46] = [
    "await", "break", "case", "catch", "class", "const", "continue", "debugger", "default",
    "delete", "do", "else", "enum", "export", "extends", "false", "finally", "for", "function",
    "if", "implements", "import", "in", "instanceof", "interface", "let", "new", "null", "package",
    "private", "protected", "public", "return", "static", "super", "switch", "this", "throw",
    "true", "try", "typeof", "var", "void", "while", "with", "yield",
];

/// Property names with a meaning of their own on any object: `__proto__`
/// would replace a prototype, `constructor` and `prototype` would shadow what
/// code expects there, and a function-valued `then` would make the object a
/// thenable that `await` calls.
pub const UNSAFE_PROPERTIES: [&str; 4] = ["__proto__", "constructor", "prototype", "then"];

/// The globals code mode gives every cell (and `globalThis`, `console`).
pub const CODE_MODE_GLOBALS: [&str; 14] = [
    "ALL_TOOLS",
    "API",
    "MCP",
    "clearInterval",
    "clearTimeout",
    "console",
    "globalThis",
    "json",
    "namespaces",
    "setInterval",
    "setTimeout",
    "text",
    "tools",
    "yield_control",
];

/// `[A-Za-z_$][A-Za-z0-9_$]*`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

pub fn is_reserved_word(name: &str) -> bool {
    RESERVED_WORDS.contains(&name)
}

pub fn is_unsafe_property(name: &str) -> bool {
    UNSAFE_PROPERTIES.contains(&name)
}

/// A path as the guest would write it: `Issues.list`, `Issues.items[0]`,
/// `Issues["a b"]`.
pub fn display_path(global_name: &str, path: &[String]) -> String {
    let mut shown = global_name.to_owned();
    for key in path {
        if is_array_index(key) {
            shown.push_str(&format!("[{key}]"));
        } else if is_identifier(key) {
            shown.push('.');
            shown.push_str(key);
        } else {
            shown.push_str(&format!("[{}]", serde_json::Value::String(key.clone())));
        }
    }
    shown
}

/// Whether `key` is how JavaScript writes an array index (`0`, `17`; not
/// `01` or `+1`, and below 2^32 - 1): only then is `a[key]` shown bare.
fn is_array_index(key: &str) -> bool {
    let canonical = key == "0" || (!key.starts_with('0') && !key.is_empty());
    canonical
        && key.bytes().all(|b| b.is_ascii_digit())
        && key.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX))
}

/// Numbered names for a base that is not free: `{base}{separator}{n}` for
/// the lowest `n >= 2` whose name is free. The rule is "try 2, 3, 4, ... in
/// turn"; trying from 2 every time made n alike names cost n^2/2 tries (16,000
/// alike MCP tools: 128 million). This remembers, per base, the lowest number
/// not yet seen refused, and starts there: the same answer, as long as a name
/// refused once is refused for good (the callers' sets of taken names only
/// grow, and what they reserve is fixed).
///
/// Cost: each try either succeeds (once per call) or passes a name that is
/// taken or reserved, and the pointer of that base then moves past it for
/// good. A taken name `t` can be passed that way only by a base `b` with
/// `t == b + separator + n`; with the numbers a catalog can reach (at most
/// its size plus the refused names) that is at most as many bases as `n` can
/// have digits. So a catalog of `N` names costs `O(N log N)` tries.
#[derive(Debug, Default)]
pub struct Suffixes {
    /// For each base numbered so far, the next number to try.
    next: HashMap<String, u64>,
    /// Names tried so far (what the cost above counts); for tests.
    #[cfg(test)]
    pub(crate) tries: u64,
}

impl Suffixes {
    /// The first `{base}{separator}{n}`, `n = 2, 3, ...`, that `free`
    /// accepts. `free` must refuse for good any name it refused once.
    pub fn first_free(
        &mut self,
        base: &str,
        separator: &str,
        mut free: impl FnMut(&str) -> bool,
    ) -> String {
        let mut n = self.next.get(base).copied().unwrap_or(2);
        loop {
            let candidate = format!("{base}{separator}{n}");
            n += 1;
            #[cfg(test)]
            {
                self.tries += 1;
            }
            if free(&candidate) {
                match self.next.get_mut(base) {
                    Some(next) => *next = n,
                    None => {
                        self.next.insert(base.to_owned(), n);
                    }
                }
                return candidate;
            }
        }
    }
}
