//! Lookup for `tools.describe` and `tools.call`, with suggestions for unknown
//! ids (`docs/catalog.md`). Only guest entries (no MCP) can be found here.

use std::collections::HashSet;

use super::entry::Lowered;
use super::near::{near_miss, normalize};
use super::{cmp_code_units, Catalog, CatalogEntry, ToolSource};
use crate::limits::MAX_SUGGESTIONS;
use crate::messages;

impl Catalog {
    /// The guest entry with this exact id, else the only guest entry with this
    /// exact name. Errors are the guest-visible messages.
    pub fn lookup(&self, requested: &str) -> Result<&CatalogEntry, String> {
        if let Some(entry) = self.exact(requested) {
            if entry.source != ToolSource::Mcp {
                return Ok(entry);
            }
        }
        match self.guest_by_name.get(requested).map(Vec::as_slice) {
            Some([only]) => Ok(&self.entries[*only]),
            Some([_, _, ..]) => Err(messages::ambiguous_tool_name(requested)),
            _ => Err(messages::unknown_tool_id(
                requested,
                &self.suggestions(requested),
            )),
        }
    }

    /// At most three guest entries close to `requested`, best first, ties by id;
    /// each shown by name, or by id when its name is ambiguous. The scores of
    /// `docs/catalog.md`, plus a near miss of the name or id (`near.rs`).
    fn suggestions(&self, requested: &str) -> Vec<&str> {
        let needle = requested.to_lowercase();
        let needle_tokens = tokens(&needle);
        let near = normalize(requested);
        let scores: Vec<(u32, u32, &CatalogEntry)> = self
            .guest_entries()
            .map(|entry| {
                let near = near_score(entry.lower(), &near);
                let score = suggestion_score(entry.lower(), &needle, &needle_tokens) + near;
                (score, near, entry)
            })
            .filter(|&(score, _, _)| score > 0)
            .collect();
        // Next to a near miss, an entry that only shares a word or a
        // description with the needle is noise: below half the best, out.
        let best = scores.iter().map(|&(score, _, _)| score).max().unwrap_or(0);
        let any_near = scores.iter().any(|&(_, near, _)| near > 0);
        let mut scored: Vec<(u32, &CatalogEntry)> = scores
            .into_iter()
            .filter(|&(score, near, _)| !any_near || near > 0 || score * 2 >= best)
            .map(|(score, _, entry)| (score, entry))
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| cmp_code_units(&a.1.id, &b.1.id)));
        scored
            .into_iter()
            .take(MAX_SUGGESTIONS)
            .map(|(_, entry)| {
                if self.guest_name_count(&entry.name) > 1 {
                    entry.id.as_str()
                } else {
                    entry.name.as_str()
                }
            })
            .collect()
    }
}

/// Distinct runs of ASCII letters and digits (the text is already lower-cased).
fn tokens(lowered: &str) -> HashSet<&str> {
    lowered
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|token| !token.is_empty())
        .collect()
}

/// The suggestion score (`docs/catalog.md`). An empty needle suggests nothing: every text "contains" it.
fn suggestion_score(entry: &Lowered, needle: &str, needle_tokens: &HashSet<&str>) -> u32 {
    if needle.is_empty() {
        return 0;
    }
    let mut score = 0;
    if needle.contains(entry.name.as_str()) || entry.id.contains(needle) {
        score += 40;
    }
    if needle_tokens.contains(entry.name.as_str()) {
        score += 40;
    }
    let mut entry_tokens = tokens(&entry.name);
    entry_tokens.extend(tokens(&entry.id));
    let shared = needle_tokens.intersection(&entry_tokens).count() as u32;
    score += 12 * shared;
    let label_has = entry.label.as_deref().is_some_and(|l| l.contains(needle));
    if label_has || entry.description.contains(needle) {
        score += 8;
    }
    score
}

/// Points for a near miss of the entry's name or id (`near.rs`): `readfile`
/// or `read_flie` for `read_file`.
fn near_score(entry: &Lowered, near: &str) -> u32 {
    near_miss(near, &normalize(&entry.name)).max(near_miss(near, &normalize(&entry.id)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    const ADVICE: &str =
        "Use tools.search to find a tool, tools.describe to inspect it, then tools.call with the exact id or name.";

    fn catalog() -> Catalog {
        Catalog::build(&[
            described(core("read"), None, "Read a file from disk."),
            described(core("write"), None, "Write a file to disk."),
            described(plugin("read", "notes"), None, "Read a note."),
            described(
                client("select_file", None),
                Some("Select file"),
                "Pick a file.",
            ),
            mcp("read_issue", "github", "read_issue"),
        ])
    }

    fn error(catalog: &Catalog, requested: &str) -> String {
        catalog.lookup(requested).expect_err("lookup should fail")
    }

    #[test]
    fn exact_id_first_then_unique_name() {
        let catalog = Catalog::build(&[core("write"), client("openclaw:core:write", None)]);
        assert_eq!(catalog.lookup("openclaw:core:write").unwrap().name, "write");
        assert_eq!(catalog.lookup("write").unwrap().id, "openclaw:core:write");
        let catalog = self::catalog();
        assert_eq!(
            catalog.lookup("select_file").unwrap().id,
            "client:client:select_file"
        );
        assert_eq!(catalog.lookup("openclaw:notes:read").unwrap().name, "read");
    }

    #[test]
    fn an_ambiguous_name_asks_for_an_id() {
        assert_eq!(
            error(&catalog(), "read"),
            "Ambiguous tool name: read; use an exact tool id."
        );
    }

    #[test]
    fn suggestions_show_ids_for_ambiguous_names() {
        // Both reads: needle contains "read" 40 + token equals name 40 + shared
        // token "read" 12 = 92. read_issue (MCP, would score 12) is never offered;
        // write and select_file score 0.
        assert_eq!(
            error(&catalog(), "read_files"),
            format!("Unknown tool id: read_files. Did you mean: openclaw:core:read, openclaw:notes:read? {ADVICE}")
        );
    }

    #[test]
    fn suggestions_score_id_containment_and_shared_tokens() {
        // select_file: id contains the needle 40 + shared tokens client, select 24.
        assert_eq!(
            error(&catalog(), "Client:Select"),
            format!("Unknown tool id: Client:Select. Did you mean: select_file? {ADVICE}")
        );
        // Descriptions containing "disk": 8 each, tied, by id; the core read is
        // ambiguous so it shows its id.
        assert_eq!(
            error(&catalog(), "disk"),
            format!("Unknown tool id: disk. Did you mean: openclaw:core:read, write? {ADVICE}")
        );
        // select_file: id contains 40 + shared "file" 12 + label 8 = 60; core read
        // and write: description 8 each.
        assert_eq!(
            error(&catalog(), "file"),
            format!("Unknown tool id: file. Did you mean: select_file, openclaw:core:read, write? {ADVICE}")
        );
    }

    #[test]
    fn at_most_three_suggestions() {
        let catalog = Catalog::build(&[core("a4"), core("a2"), core("a3"), core("a1")]);
        // Every description contains "tool": 8 each.
        assert_eq!(
            error(&catalog, "tool"),
            format!("Unknown tool id: tool. Did you mean: a1, a2, a3? {ADVICE}")
        );
    }

    #[test]
    fn no_suggestions_leaves_out_did_you_mean() {
        assert_eq!(
            error(&catalog(), "zzz"),
            format!("Unknown tool id: zzz. {ADVICE}")
        );
        assert_eq!(
            error(&catalog(), ""),
            format!("Unknown tool id: . {ADVICE}")
        );
    }
}
