//! The run-scoped tool catalog (`docs/catalog.md`): entries and their ids, the
//! guest-facing views, search, lookup for describe/call and convenience names.
//!
//! The run catalog holds every effective tool except direct-only tools and the
//! legacy tool-search controls. MCP entries stay in it (the `MCP` namespace
//! dispatches them by exact id) but every guest-facing view skips them.

mod columns;
mod entry;
mod index;
mod lookup;
mod names;
pub(crate) mod near;
mod schema;
mod search;
#[cfg(test)]
pub(crate) mod testing;

pub use columns::{read_tools, replace_lone_surrogates, Keep};
pub use entry::CatalogEntry;
pub use schema::Schema;
pub use search::SearchLimit;

use index::SearchIndex;

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::identifiers::Suffixes;

pub use crate::records::ToolSource;

/// The MCP metadata of an effective tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpMeta {
    pub server: String,
    pub tool: String,
    /// `tool`, `resources_list`, `resources_read`, `prompts_list` or `prompts_get`.
    pub operation: Option<String>,
}

/// One effective tool as the gateway passed it (already validated by the binding).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub label: Option<String>,
    pub description: String,
    /// Shared with the catalog entry, read on first use.
    pub parameters: Option<Schema>,
    pub source: ToolSource,
    pub source_name: Option<String>,
    pub direct_only: bool,
    pub replay_safe: bool,
    pub mcp: Option<McpMeta>,
}

/// The legacy tool-search controls: dropped everywhere when code mode is active.
pub const LEGACY_CONTROLS: [&str; 4] = [
    "tool_search_code",
    "tool_search",
    "tool_describe",
    "tool_call",
];

pub fn is_legacy_control(name: &str) -> bool {
    LEGACY_CONTROLS.contains(&name)
}

/// Whether an effective tool goes into the run catalog: neither direct-only
/// nor a legacy control.
pub fn in_catalog(tool: &ToolSpec) -> bool {
    !tool.direct_only && !is_legacy_control(&tool.name)
}

/// The catalog of one run. Built once per run surface and shared read-only.
#[derive(Debug)]
pub struct Catalog {
    entries: Vec<CatalogEntry>,
    /// Indexes of the guest-facing (non-MCP) entries, in catalog order.
    guest: Vec<usize>,
    by_id: HashMap<String, usize>,
    /// Guest entries by exact name; more than one index means the name is ambiguous.
    guest_by_name: HashMap<String, Vec<usize>>,
    /// `ALL_TOOLS` as JSON text, made on first use.
    all_tools_json: OnceLock<String>,
    /// Entries that get a `tools.<name>` function.
    convenience: Vec<usize>,
    /// Entries per source, `(openclaw, mcp, client)`: every result's telemetry.
    source_counts: (usize, usize, usize),
    /// Built on the first search.
    search_index: OnceLock<SearchIndex>,
}

impl Catalog {
    /// Builds the run catalog from the effective tools in gateway order.
    ///
    /// Order: core OpenClaw tools, plugin tools, MCP tools, client tools; input
    /// order within each group. Ids are `<source>:<owner>:<name>` (MCP:
    /// `mcp:<mcp.server>:<mcp.tool>`). When two entries would get the same id,
    /// the first keeps it and each later one gets the first free `#2`, `#3`, ...
    /// suffix, skipping any id another entry has naturally, so ids depend only on
    /// the input list.
    pub fn build(tools: &[ToolSpec]) -> Catalog {
        let mut included: Vec<&ToolSpec> = tools.iter().filter(|tool| in_catalog(tool)).collect();
        included.sort_by_key(|tool| group(tool));
        let ids = unique_ids(included.iter().map(|tool| natural_id(tool)).collect());
        let entries = included
            .into_iter()
            .zip(ids)
            .map(|(spec, id)| CatalogEntry::new(id, spec))
            .collect();
        Self::from_entries(entries)
    }

    fn from_entries(entries: Vec<CatalogEntry>) -> Catalog {
        let guest: Vec<usize> = (0..entries.len())
            .filter(|&i| entries[i].source != ToolSource::Mcp)
            .collect();
        let by_id = entries
            .iter()
            .enumerate()
            .map(|(i, entry)| (entry.id.clone(), i))
            .collect();
        let mut guest_by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for &i in &guest {
            guest_by_name
                .entry(entries[i].name.clone())
                .or_default()
                .push(i);
        }
        let mut catalog = Catalog {
            entries,
            guest,
            by_id,
            guest_by_name,
            all_tools_json: OnceLock::new(),
            convenience: Vec::new(),
            source_counts: (0, 0, 0),
            search_index: OnceLock::new(),
        };
        catalog.convenience = catalog.choose_convenience();
        let count = |source| {
            catalog
                .entries
                .iter()
                .filter(|e| e.source == source)
                .count()
        };
        catalog.source_counts = (
            count(ToolSource::Openclaw),
            count(ToolSource::Mcp),
            count(ToolSource::Client),
        );
        catalog
    }

    /// Every entry of the run catalog, MCP included, in catalog order.
    pub fn entries(&self) -> &[CatalogEntry] {
        &self.entries
    }

    /// The guest-facing entries (no MCP), in catalog order.
    pub fn guest_entries(&self) -> impl Iterator<Item = &CatalogEntry> + '_ {
        self.guest.iter().map(|&i| &self.entries[i])
    }

    /// The number of entries in the run catalog, MCP included (`catalogSize`).
    pub fn size(&self) -> usize {
        self.entries.len()
    }

    /// Entries of the run catalog per source: `(openclaw, mcp, client)`.
    pub fn source_counts(&self) -> (usize, usize, usize) {
        self.source_counts
    }

    /// `ALL_TOOLS` as JSON text: the compact guest entries in catalog order.
    pub fn all_tools_json(&self) -> &str {
        self.all_tools_json.get_or_init(|| {
            let compact: Vec<&str> = self
                .guest_entries()
                .map(CatalogEntry::compact_json)
                .collect();
            format!("[{}]", compact.join(","))
        })
    }

    /// The entry with exactly this id, MCP included (for the `MCP` namespace).
    /// Guest lookups use [`Catalog::lookup`] instead.
    pub fn exact(&self, id: &str) -> Option<&CatalogEntry> {
        self.by_id.get(id).map(|&i| &self.entries[i])
    }

    /// How many guest entries carry this exact name.
    fn guest_name_count(&self, name: &str) -> usize {
        self.guest_by_name.get(name).map_or(0, Vec::len)
    }
}

/// Sort key of the four catalog groups.
fn group(tool: &ToolSpec) -> u8 {
    match (tool.source, &tool.source_name) {
        (ToolSource::Openclaw, None) => 0,
        (ToolSource::Openclaw, Some(_)) => 1,
        (ToolSource::Mcp, _) => 2,
        (ToolSource::Client, _) => 3,
    }
}

/// `<source>:<owner>:<name>` before duplicates are told apart.
fn natural_id(tool: &ToolSpec) -> String {
    let owner_or = |default: &'static str| tool.source_name.as_deref().unwrap_or(default);
    match tool.source {
        ToolSource::Openclaw => format!("openclaw:{}:{}", owner_or("core"), tool.name),
        ToolSource::Mcp => match &tool.mcp {
            Some(meta) => format!("mcp:{}:{}", meta.server, meta.tool),
            None => format!("mcp:{}:{}", owner_or("mcp"), tool.name),
        },
        ToolSource::Client => format!("client:{}:{}", owner_or("client"), tool.name),
    }
}

/// Keeps the first use of each id and gives later duplicates the first `#n`
/// (n >= 2) that is neither taken nor some other entry's natural id: in
/// `O(N log N)` tries for `N` tools, however many share an id
/// ([`Suffixes`]).
fn unique_ids(natural: Vec<String>) -> Vec<String> {
    unique_ids_counted(natural).0
}

/// [`unique_ids`], and the number of ids it tried (for the tests).
fn unique_ids_counted(natural: Vec<String>) -> (Vec<String>, u64) {
    let reserved: HashSet<&str> = natural.iter().map(String::as_str).collect();
    let mut taken: HashSet<String> = HashSet::with_capacity(natural.len());
    let mut suffixes = Suffixes::default();
    let mut tries = 0u64;
    let mut ids = Vec::with_capacity(natural.len());
    for base in &natural {
        tries += 1;
        let id = if taken.contains(base) {
            // A candidate refused stays refused: `taken` only grows.
            suffixes.first_free(base, "#", |candidate| {
                tries += 1;
                !taken.contains(candidate) && !reserved.contains(candidate)
            })
        } else {
            base.clone()
        };
        taken.insert(id.clone());
        ids.push(id);
    }
    (ids, tries)
}

/// JavaScript's default string order: UTF-16 code units. Equal to byte order
/// except for characters above U+FFFF against U+E000..=U+FFFF.
pub(crate) fn cmp_code_units(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    fn ids(catalog: &Catalog) -> Vec<&str> {
        catalog.entries().iter().map(|e| e.id.as_str()).collect()
    }

    #[test]
    fn ids_and_group_order_for_every_source_kind() {
        let catalog = Catalog::build(&[
            client("select_file", Some("app")),
            mcp("create_issue", "github", "create_issue"),
            plugin("browser_request", "browser"),
            core("message"),
            client("pick_color", None),
            mcp_without_meta("list_pages", Some("devtools")),
            mcp_without_meta("ping", None),
            core("read"),
        ]);
        assert_eq!(
            ids(&catalog),
            [
                "openclaw:core:message",
                "openclaw:core:read",
                "openclaw:browser:browser_request",
                "mcp:github:create_issue",
                "mcp:devtools:list_pages",
                "mcp:mcp:ping",
                "client:app:select_file",
                "client:client:pick_color",
            ]
        );
        assert_eq!(catalog.size(), 8);
        assert_eq!(catalog.source_counts(), (3, 3, 2));
    }

    #[test]
    fn mcp_ids_come_from_the_metadata_not_the_name() {
        let catalog = Catalog::build(&[mcp("github__create_issue", "github", "create_issue")]);
        assert_eq!(ids(&catalog), ["mcp:github:create_issue"]);
        assert_eq!(catalog.entries()[0].name, "github__create_issue");
    }

    #[test]
    fn controls_and_direct_only_tools_are_excluded() {
        let mut computer = core("computer");
        computer.direct_only = true;
        let catalog = Catalog::build(&[
            core("tool_search_code"),
            core("tool_search"),
            core("tool_describe"),
            core("tool_call"),
            computer,
            core("read"),
        ]);
        assert_eq!(ids(&catalog), ["openclaw:core:read"]);
    }

    #[test]
    fn a_shell_tool_named_exec_is_catalogued_like_any_other() {
        let catalog = Catalog::build(&[core("exec"), core("wait")]);
        assert_eq!(ids(&catalog), ["openclaw:core:exec", "openclaw:core:wait"]);
        assert!(catalog.lookup("exec").is_ok());
    }

    #[test]
    fn duplicate_ids_get_deterministic_suffixes() {
        let catalog = Catalog::build(&[core("read"), core("read#2"), core("read"), core("read")]);
        assert_eq!(
            ids(&catalog),
            [
                "openclaw:core:read",
                "openclaw:core:read#2",
                "openclaw:core:read#3",
                "openclaw:core:read#4",
            ]
        );
        let twice = Catalog::build(&[mcp("a", "s", "t"), mcp("b", "s", "t")]);
        assert_eq!(ids(&twice), ["mcp:s:t", "mcp:s:t#2"]);
    }

    /// The rule as it was first written, trying `#2`, `#3`, ... from 2 for
    /// every duplicate: the oracle for [`unique_ids`].
    fn reference_ids(natural: &[String]) -> Vec<String> {
        let reserved: HashSet<&str> = natural.iter().map(String::as_str).collect();
        let mut taken: HashSet<String> = HashSet::new();
        let mut ids = Vec::new();
        for base in natural {
            let id = if taken.contains(base) {
                (2u64..)
                    .map(|n| format!("{base}#{n}"))
                    .find(|candidate| {
                        !taken.contains(candidate) && !reserved.contains(candidate.as_str())
                    })
                    .unwrap()
            } else {
                base.clone()
            };
            taken.insert(id.clone());
            ids.push(id);
        }
        ids
    }

    #[test]
    fn ids_match_the_try_each_number_rule_on_random_duplicates() {
        // Few natural ids, so most collide; some look numbered already.
        const NATURAL: [&str; 8] = ["r", "r#2", "r#3", "r#2#2", "r#12", "r#1", "s", "s#2"];
        let mut state = 7u64;
        let mut below = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for round in 0..300 {
            let natural: Vec<String> = (0..1 + below(150))
                .map(|_| match below(4) {
                    0 => format!("r#{}", below(30)),
                    _ => NATURAL[below(NATURAL.len() as u64) as usize].to_owned(),
                })
                .collect();
            assert_eq!(
                unique_ids(natural.clone()),
                reference_ids(&natural),
                "round {round}: {natural:?}"
            );
        }
    }

    #[test]
    fn duplicate_ids_cost_a_bounded_number_of_tries() {
        // 16,000 tools with one id: trying from #2 for each took 128 million
        // tries. Now each is its own id and one free number; the natural
        // `#n` ids among them are passed once each.
        const N: usize = 16_000;
        let mut natural = vec!["openclaw:core:read".to_owned(); N];
        natural.extend((2..=N).map(|n| format!("openclaw:core:read#{n}")));
        let (ids, tries) = unique_ids_counted(natural.clone());
        assert_eq!(ids[N - 1], format!("openclaw:core:read#{}", 2 * N - 1));
        assert_eq!(ids.len(), ids.iter().collect::<HashSet<_>>().len());
        assert!(tries <= 3 * natural.len() as u64, "{tries} tries");
    }

    #[test]
    fn mcp_entries_are_hidden_from_guest_views_but_found_by_exact_id() {
        let catalog = Catalog::build(&[
            core("read"),
            mcp("create_issue", "github", "create_issue"),
            client("select_file", None),
        ]);
        let guest: Vec<&str> = catalog.guest_entries().map(|e| e.id.as_str()).collect();
        assert_eq!(guest, ["openclaw:core:read", "client:client:select_file"]);
        assert!(!catalog.all_tools_json().contains("github"));
        let found = catalog.exact("mcp:github:create_issue").expect("exact id");
        assert_eq!(found.source, ToolSource::Mcp);
        assert!(catalog.lookup("mcp:github:create_issue").is_err());
        assert!(catalog.lookup("create_issue").is_err());
        let hits = catalog
            .search("create_issue", SearchLimit::Absent, 8, 50)
            .unwrap();
        assert!(hits.is_empty());
        assert!(catalog
            .convenience_names()
            .iter()
            .all(|(name, _)| *name != "create_issue"));
        assert!(catalog.exact("openclaw:core:nope").is_none());
    }

    #[test]
    fn all_tools_json_lists_compact_guest_entries_in_order() {
        let mut read = core("read");
        read.label = Some("Read".into());
        let catalog = Catalog::build(&[client("pick", Some("app")), read]);
        assert_eq!(
            catalog.all_tools_json(),
            concat!(
                r#"[{"id":"openclaw:core:read","name":"read","label":"Read","description":"read tool","source":"openclaw"},"#,
                r#"{"id":"client:app:pick","name":"pick","description":"pick tool","source":"client","sourceName":"app"}]"#
            )
        );
        assert_eq!(Catalog::build(&[]).all_tools_json(), "[]");
    }

    #[test]
    fn code_unit_order_matches_javascript() {
        assert_eq!(cmp_code_units("a", "b"), Ordering::Less);
        // U+FF21 sorts after U+1F600 (a surrogate pair, 0xD83D...) in JavaScript.
        assert_eq!(cmp_code_units("\u{FF21}", "\u{1F600}"), Ordering::Greater);
        assert_eq!("\u{FF21}".cmp("\u{1F600}"), Ordering::Less);
    }
}
