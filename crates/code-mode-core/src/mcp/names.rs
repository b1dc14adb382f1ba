//! Identifiers of MCP servers and tools under `MCP` (`docs/mcp.md`): camel
//! case of the alphanumeric words, and a numeric suffix for a name that is
//! unsafe, reserved or already taken.

use std::collections::HashSet;

use crate::identifiers::{
    is_identifier, is_reserved_word, is_unsafe_property, Suffixes, CODE_MODE_GLOBALS,
};

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
    /// Where each base's numbering goes on: a scope of `n` names costs
    /// `O(n log n)` tries, however alike they are.
    suffixes: Suffixes,
}

impl Identifiers {
    /// The scope of server identifiers.
    pub fn servers() -> Self {
        Self::default()
    }

    /// The scope of one server's tool identifiers.
    pub fn tools() -> Self {
        Self {
            reserved: &SERVER_MEMBERS,
            ..Self::default()
        }
    }

    /// `base`, or the first of `base2`, `base3`, ... that is not unsafe,
    /// reserved or taken when `base` is. `base` is an identifier (see
    /// [`camel_case`]).
    pub fn claim(&mut self, base: &str) -> String {
        let name = if allowed(&self.taken, self.reserved, base) {
            base.to_owned()
        } else {
            let (taken, reserved) = (&self.taken, self.reserved);
            // A name refused stays refused: `taken` only grows.
            self.suffixes
                .first_free(base, "", |candidate| allowed(taken, reserved, candidate))
        };
        self.taken.insert(name.clone());
        name
    }

    /// Names tried so far, `base` itself included.
    #[cfg(test)]
    fn tries(&self) -> u64 {
        self.suffixes.tries + self.taken.len() as u64
    }
}

fn allowed(taken: &HashSet<String>, reserved: &[&str], name: &str) -> bool {
    is_identifier(name)
        && !taken.contains(name)
        && !reserved.contains(&name)
        && !is_unsafe_property(name)
        && !is_reserved_word(name)
        && !CODE_MODE_GLOBALS.contains(&name)
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

    /// The rule as it was first written: try `base`, then `base2`,
    /// `base3`, ... in turn, from 2 every time. The oracle for [`Identifiers`].
    fn reference_claim(taken: &mut HashSet<String>, reserved: &[&str], base: &str) -> String {
        let mut candidate = base.to_owned();
        let mut n = 2u64;
        while !allowed(taken, reserved, &candidate) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        taken.insert(candidate.clone());
        candidate
    }

    /// splitmix64: a fixed sequence, so a failure reproduces.
    struct Random(u64);

    impl Random {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        }
    }

    #[test]
    fn identifiers_match_the_try_each_number_rule_on_random_collisions() {
        // Few bases, so most claims collide; bases that look numbered
        // (`read2`, `read23`, `read1`) take names the numbering of `read`
        // reaches; reserved and unsafe names start numbered at once.
        const BASES: [&str; 14] = [
            "read",
            "read2",
            "read3",
            "read23",
            "read1",
            "read12",
            "a",
            "a2",
            "a22",
            "then",
            "constructor",
            "tools",
            "$api",
            "resources",
        ];
        let mut random = Random(32);
        for round in 0..300 {
            let scope = round % 2 == 0;
            let mut fast = if scope {
                Identifiers::tools()
            } else {
                Identifiers::servers()
            };
            let reserved: &[&str] = if scope { &SERVER_MEMBERS } else { &[] };
            let mut taken = HashSet::new();
            let claims = 1 + random.below(200);
            for _ in 0..claims {
                let base = match random.below(4) {
                    // A base with a random number, near the ones handed out.
                    0 => format!("read{}", random.below(40)),
                    _ => BASES[random.below(BASES.len() as u64) as usize].to_owned(),
                };
                assert_eq!(
                    fast.claim(&base),
                    reference_claim(&mut taken, reserved, &base),
                    "round {round}, base {base}"
                );
            }
        }
    }

    #[test]
    fn alike_names_cost_a_bounded_number_of_tries() {
        // The review's case: 16,000 tools whose names camel-case alike. Trying
        // 2, 3, 4, ... from the start each time took 128 million tries.
        const N: u64 = 16_000;
        let mut tools = Identifiers::tools();
        for _ in 0..N {
            tools.claim("createIssue");
        }
        assert_eq!(tools.claim("createIssue"), format!("createIssue{}", N + 1));
        // Each claim: the base, then the one number that is free.
        assert!(tools.tries() <= 2 * (N + 1), "{} tries", tools.tries());

        // Names that look numbered, claimed first, are each passed once.
        let mut tools = Identifiers::tools();
        for n in 2..=N {
            tools.claim(&format!("read{n}"));
        }
        for _ in 0..N {
            tools.claim("read");
        }
        assert_eq!(tools.claim("read"), format!("read{}", 2 * N));
        // Each claim: the base and the free number; and each of the 15,999
        // numbered names passed once.
        let claims = (N - 1) + (N + 1);
        assert!(tools.tries() <= 2 * claims + N, "{} tries", tools.tries());
    }

    #[test]
    fn a_suffix_skips_names_taken_naturally() {
        let mut tools = Identifiers::tools();
        assert_eq!(tools.claim("read2"), "read2");
        assert_eq!(tools.claim("read"), "read");
        assert_eq!(tools.claim("read"), "read3");
    }
}
