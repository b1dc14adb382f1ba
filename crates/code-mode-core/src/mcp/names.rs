//! Identifiers of MCP servers and tools under `MCP` (`docs/mcp.md`): camel
//! case of the alphanumeric words, and a numeric suffix for a name that is
//! unsafe, reserved or already taken.

use std::collections::HashSet;

use crate::identifiers::{is_identifier, is_reserved_word, is_unsafe_property, CODE_MODE_GLOBALS};

/// Names a server's tools can never take: its own `$api` and the groups of
/// resource and prompt operations.
pub const SERVER_MEMBERS: [&str; 3] = ["$api", "resources", "prompts"];

/// `create_issue` -> `createIssue`, `chrome-devtools` -> `chromeDevtools`:
/// split on everything but ASCII letters and digits, lower the first letter
/// of the first word and raise the first letter of each later one, keep the
/// rest as written; drop leading digits. `fallback` when nothing is left.
pub fn camel_case(name: &str, fallback: &str) -> String {
    let mut out = String::new();
    for word in name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
    {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            if out.is_empty() {
                out.push(first.to_ascii_lowercase());
            } else {
                out.push(first.to_ascii_uppercase());
            }
            out.extend(chars);
        }
    }
    let out = out.trim_start_matches(|c: char| c.is_ascii_digit());
    if out.is_empty() {
        fallback.to_owned()
    } else {
        out.to_owned()
    }
}

/// Hands out identifiers in one scope (the servers under `MCP`, or the tools
/// of one server), each unique, safe and not reserved.
#[derive(Debug, Default)]
pub struct Identifiers {
    taken: HashSet<String>,
    /// Names this scope refuses besides the shared ones.
    reserved: &'static [&'static str],
}

impl Identifiers {
    /// The scope of server identifiers.
    pub fn servers() -> Self {
        Self::default()
    }

    /// The scope of one server's tool identifiers.
    pub fn tools() -> Self {
        Self {
            taken: HashSet::new(),
            reserved: &SERVER_MEMBERS,
        }
    }

    /// `base`, or `base2`, `base3`, ... when `base` is unsafe, reserved or
    /// taken. `base` is an identifier (see [`camel_case`]).
    pub fn claim(&mut self, base: &str) -> String {
        let mut candidate = base.to_owned();
        let mut n = 2u64;
        while !self.allowed(&candidate) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }

    fn allowed(&self, name: &str) -> bool {
        is_identifier(name)
            && !self.taken.contains(name)
            && !self.reserved.contains(&name)
            && !is_unsafe_property(name)
            && !is_reserved_word(name)
            && !CODE_MODE_GLOBALS.contains(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_camel_cased_on_non_alphanumerics() {
        for (name, expected) in [
            ("create_issue", "createIssue"),
            ("chrome-devtools", "chromeDevtools"),
            ("GetUser", "getUser"),
            ("read file.v2", "readFileV2"),
            ("__private__tool", "privateTool"),
            ("2fa_login", "faLogin"),
            ("café_au_lait", "cafAuLait"),
            ("already", "already"),
            ("x", "x"),
        ] {
            assert_eq!(camel_case(name, "tool"), expected, "{name}");
        }
        for name in ["", "___", "123", "--", "日本"] {
            assert_eq!(camel_case(name, "server"), "server", "{name:?}");
        }
    }

    #[test]
    fn taken_unsafe_and_reserved_names_get_a_numeric_suffix() {
        let mut tools = Identifiers::tools();
        assert_eq!(tools.claim("createIssue"), "createIssue");
        assert_eq!(tools.claim("createIssue"), "createIssue2");
        assert_eq!(tools.claim("createIssue"), "createIssue3");
        for (base, expected) in [
            ("constructor", "constructor2"),
            ("prototype", "prototype2"),
            ("then", "then2"),
            ("resources", "resources2"),
            ("prompts", "prompts2"),
            ("$api", "$api2"),
            ("delete", "delete2"),
            ("tools", "tools2"),
            ("json", "json2"),
        ] {
            assert_eq!(tools.claim(base), expected);
        }
        let mut servers = Identifiers::servers();
        assert_eq!(servers.claim("resources"), "resources");
        assert_eq!(servers.claim("constructor"), "constructor2");
        assert_eq!(servers.claim("github"), "github");
        assert_eq!(servers.claim("github"), "github2");
    }

    #[test]
    fn a_suffix_skips_names_taken_naturally() {
        let mut tools = Identifiers::tools();
        assert_eq!(tools.claim("read2"), "read2");
        assert_eq!(tools.claim("read"), "read");
        assert_eq!(tools.claim("read"), "read3");
    }
}
