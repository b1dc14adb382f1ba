//! `tools.search(query, {limit})` scoring (`docs/catalog.md`).

#[cfg(test)]
use super::cmp_code_units;
#[cfg(test)]
use super::entry::Lowered;
use super::index::SearchIndex;
use super::{Catalog, CatalogEntry};
use crate::messages;

/// The `limit` option as the guest passed it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SearchLimit {
    /// Missing or `undefined`: the configured default.
    Absent,
    Number(f64),
    /// Any other value, the string `"3"` included.
    Invalid,
}

impl Catalog {
    /// The best guest entries for `query`: best score first, ties by id in
    /// JavaScript string order, at most the resolved limit. A limit that is not a
    /// positive integer is the guest error "limit must be a positive integer.".
    pub fn search(
        &self,
        query: &str,
        limit: SearchLimit,
        default_limit: usize,
        max_limit: usize,
    ) -> Result<Vec<&CatalogEntry>, &'static str> {
        let limit = resolve_limit(limit, default_limit, max_limit)?;
        let query = query.to_lowercase();
        let terms = terms(&query);
        let index = self
            .search_index
            .get_or_init(|| SearchIndex::build(self.guest_entries()));
        let hits = index.search(&terms, limit);
        Ok(hits
            .into_iter()
            .map(|k| &self.entries[self.guest[k]])
            .collect())
    }

    /// [`Catalog::search`] the way `docs/catalog.md` states it, one entry at
    /// a time: what the index must agree with.
    #[cfg(test)]
    fn search_by_scan(&self, query: &str, limit: usize) -> Vec<&CatalogEntry> {
        let query = query.to_lowercase();
        let terms = terms(&query);
        let mut hits: Vec<(u32, &CatalogEntry)> = self
            .guest_entries()
            .map(|entry| (score(entry.lower(), &terms), entry))
            .filter(|&(score, _)| score > 0)
            .collect();
        hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| cmp_code_units(&a.1.id, &b.1.id)));
        hits.truncate(limit);
        hits.into_iter().map(|(_, entry)| entry).collect()
    }
}

fn resolve_limit(
    limit: SearchLimit,
    default_limit: usize,
    max_limit: usize,
) -> Result<usize, &'static str> {
    match limit {
        SearchLimit::Absent => Ok(default_limit.min(max_limit)),
        // `as` saturates, so a huge integer simply clamps.
        SearchLimit::Number(n) if n.is_finite() && n >= 1.0 && n.fract() == 0.0 => {
            Ok((n as usize).min(max_limit))
        }
        _ => Err(messages::SEARCH_LIMIT_INVALID),
    }
}

/// The lower-cased query split on `[^a-z0-9_./:-]+`, empty terms dropped.
fn terms(lowered_query: &str) -> Vec<&str> {
    lowered_query
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || "_./:-".contains(c)))
        .filter(|term| !term.is_empty())
        .collect()
}

/// The sum over terms of independent bonuses; with no terms every entry
/// scores 1. (The index computes the same; this is its test oracle.)
#[cfg(test)]
fn score(entry: &Lowered, terms: &[&str]) -> u32 {
    if terms.is_empty() {
        return 1;
    }
    terms.iter().map(|term| term_score(entry, term)).sum()
}

#[cfg(test)]
fn term_score(entry: &Lowered, term: &str) -> u32 {
    let label_has = entry.label.as_deref().is_some_and(|l| l.contains(term));
    [
        (entry.name == term || entry.id == term, 20),
        (entry.name.contains(term), 8),
        (entry.id.contains(term), 6),
        (label_has, 4),
        (entry.description.contains(term), 2),
    ]
    .iter()
    .filter(|(hit, _)| *hit)
    .map(|(_, points)| points)
    .sum()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    /// read: `openclaw:core:read`, label "Read file";
    /// file_search: `openclaw:files:file_search`, no label;
    /// select_file: `client:app:select_file`, label "Select file";
    /// web_fetch: `openclaw:core:web_fetch`, no label.
    fn catalog() -> Catalog {
        Catalog::build(&[
            described(
                client("select_file", Some("app")),
                Some("Select file"),
                "Ask the user to pick a file.",
            ),
            described(
                plugin("file_search", "files"),
                None,
                "Search files by glob.",
            ),
            described(core("read"), Some("Read file"), "Read a file from disk."),
            described(core("web_fetch"), None, "Fetch a URL and read its text."),
        ])
    }

    fn search(catalog: &Catalog, query: &str) -> Vec<(u32, String)> {
        let lowered = query.to_lowercase();
        let terms = terms(&lowered);
        catalog
            .search(query, SearchLimit::Absent, 50, 50)
            .unwrap()
            .into_iter()
            .map(|entry| (score(entry.lower(), &terms), entry.name.clone()))
            .collect()
    }

    fn hits(list: &[(u32, &str)]) -> Vec<(u32, String)> {
        list.iter().map(|&(s, n)| (s, n.to_owned())).collect()
    }

    #[test]
    fn equality_and_containment_bonuses_stack() {
        // read: name equals 20 + name contains 8 + id contains 6 + label 4 + description 2.
        // web_fetch: description only.
        assert_eq!(
            search(&catalog(), "read"),
            hits(&[(40, "read"), (2, "web_fetch")])
        );
    }

    #[test]
    fn scores_rank_entries() {
        // select_file: name 8 + id 6 + label 4 + description 2; file_search: name 8 +
        // id 6 + description ("files") 2; read: label 4 + description 2.
        assert_eq!(
            search(&catalog(), "file"),
            hits(&[(20, "select_file"), (16, "file_search"), (6, "read")])
        );
        // Terms add up: read 40 + 6; the others as above.
        assert_eq!(
            search(&catalog(), "READ File"),
            hits(&[
                (46, "read"),
                (20, "select_file"),
                (16, "file_search"),
                (2, "web_fetch")
            ])
        );
        // web: name 8 + id 6; fetch: name 8 + id 6 + description 2; url: description 2.
        assert_eq!(
            search(&catalog(), "web fetch!!url"),
            hits(&[(32, "web_fetch")])
        );
    }

    #[test]
    fn an_exact_id_is_one_term() {
        // id equals 20 + id contains 6; the name does not contain the whole id.
        assert_eq!(
            search(&catalog(), "openclaw:core:read"),
            hits(&[(26, "read")])
        );
        assert!(search(&catalog(), "web-fetch").is_empty());
    }

    #[test]
    fn ties_sort_by_id() {
        let catalog = Catalog::build(&[core("zeta"), client("beta", None), core("alpha")]);
        let names: Vec<_> = catalog
            .search("tool", SearchLimit::Absent, 8, 50)
            .unwrap()
            .into_iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "client:client:beta",
                "openclaw:core:alpha",
                "openclaw:core:zeta"
            ]
        );
    }

    #[test]
    fn a_query_without_terms_lists_everything_by_id() {
        for query in ["", "  !! ??", "ÉÀ"] {
            assert_eq!(
                search(&catalog(), query),
                hits(&[
                    (1, "select_file"),
                    (1, "read"),
                    (1, "web_fetch"),
                    (1, "file_search")
                ])
            );
        }
    }

    #[test]
    fn limit_defaults_clamps_and_rejects() {
        let catalog = catalog();
        let count = |limit| catalog.search("", limit, 2, 3).map(|hits| hits.len());
        assert_eq!(count(SearchLimit::Absent), Ok(2));
        assert_eq!(count(SearchLimit::Number(1.0)), Ok(1));
        assert_eq!(count(SearchLimit::Number(3.0)), Ok(3));
        assert_eq!(count(SearchLimit::Number(100.0)), Ok(3));
        assert_eq!(count(SearchLimit::Number(1e300)), Ok(3));
        assert_eq!(
            catalog.search("", SearchLimit::Absent, 9, 3).unwrap().len(),
            3
        );
        for bad in [
            SearchLimit::Number(0.0),
            SearchLimit::Number(-2.0),
            SearchLimit::Number(1.5),
            SearchLimit::Number(f64::NAN),
            SearchLimit::Number(f64::INFINITY),
            SearchLimit::Invalid,
        ] {
            assert_eq!(count(bad), Err("limit must be a positive integer."));
        }
    }
}

#[cfg(test)]
mod index_tests {
    use super::super::testing::*;
    use super::*;
    use crate::catalog::ToolSpec;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[(self.next() % items.len() as u64) as usize]
        }
    }

    const WORDS: [&str; 12] = [
        "read",
        "file",
        "Read",
        "fil",
        "e",
        "web_fetch",
        "web",
        "issue",
        "ISSUE-1",
        "a.b/c:d",
        "\u{e9}t\u{e9}",
        "x\u{0}y",
    ];

    fn text(rng: &mut Rng, words: usize) -> String {
        (0..words)
            .map(|_| rng.pick(&WORDS))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Catalogs of odd names, labels and descriptions (shared words,
    /// duplicates, case, separators, non-ASCII, NUL), searched with the
    /// index and entry by entry: same entries, same order, for every limit.
    #[test]
    fn the_index_finds_what_scoring_each_entry_finds() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..40 {
            let count = 1 + (rng.next() % 60) as usize;
            let tools: Vec<ToolSpec> = (0..count)
                .map(|i| {
                    let name = format!("{}{}", rng.pick(&WORDS), i % 7);
                    let spec = match rng.next() % 3 {
                        0 => core(&name),
                        1 => plugin(&name, rng.pick(&["files", "web", "Files"])),
                        _ => client(&name, Some("app")),
                    };
                    let label = rng.next().is_multiple_of(2).then(|| text(&mut rng, 2));
                    let words = (rng.next() % 6) as usize;
                    described(spec, label.as_deref(), &text(&mut rng, words))
                })
                .collect();
            let catalog = Catalog::build(&tools);
            for _ in 0..25 {
                let words = (rng.next() % 4) as usize;
                let query = text(&mut rng, words);
                for limit in [1, 3, 50] {
                    let indexed: Vec<&str> = catalog
                        .search(&query, SearchLimit::Number(limit as f64), 8, 50)
                        .unwrap()
                        .iter()
                        .map(|entry| entry.id.as_str())
                        .collect();
                    let scanned: Vec<&str> = catalog
                        .search_by_scan(&query, limit)
                        .iter()
                        .map(|entry| entry.id.as_str())
                        .collect();
                    assert_eq!(
                        indexed, scanned,
                        "round {round}, query {query:?}, limit {limit}"
                    );
                }
            }
        }
    }
}
