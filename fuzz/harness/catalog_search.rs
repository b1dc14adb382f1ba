//! `catalog_search`: `Catalog::build` from fuzzed tool specs, then `search`
//! and `lookup` with fuzzed queries and limits.
//!
//! Input: text lines. Line 1 the search query, line 2 the limit (empty is
//! absent, a number is a number, anything else an invalid value), line 3 a
//! lookup request, then one tool per line as tab-separated fields: flags,
//! name, description, label, source name, MCP server, MCP tool. The first
//! byte of the flags picks the source (`% 3`: openclaw, mcp, client), bit 2
//! marks the tool direct-only, bit 3 replay-safe; an empty optional field is
//! absent.

use std::collections::HashSet;

use code_mode_core::catalog::{
    is_legacy_control, Catalog, McpMeta, SearchLimit, ToolSource, ToolSpec,
};
use code_mode_core::messages;

use super::is_json;

const DEFAULT_LIMIT: usize = 8;
const MAX_LIMIT: usize = 50;

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let query = lines.next().unwrap_or_default();
    let limit = match lines.next().unwrap_or_default() {
        "" => SearchLimit::Absent,
        limit => limit
            .parse()
            .map_or(SearchLimit::Invalid, SearchLimit::Number),
    };
    let request = lines.next().unwrap_or_default();
    let specs: Vec<ToolSpec> = lines.map(spec).collect();
    let catalog = Catalog::build(&specs);
    check_catalog(&catalog, &specs);
    check_search(&catalog, query, limit);
    check_lookup(&catalog, request);
    for spec in specs.iter().take(4) {
        check_lookup(&catalog, &spec.name);
    }
}

fn spec(line: &str) -> ToolSpec {
    let mut fields = line.split('\t');
    let mut next = || fields.next().unwrap_or_default().to_owned();
    let optional = |field: String| (!field.is_empty()).then_some(field);
    let flags = next().bytes().next().unwrap_or(0);
    let (name, description, label, source_name) = (next(), next(), next(), next());
    let (server, tool) = (next(), next());
    ToolSpec {
        name,
        label: optional(label),
        description,
        parameters: None,
        source: [ToolSource::Openclaw, ToolSource::Mcp, ToolSource::Client][usize::from(flags % 3)],
        source_name: optional(source_name),
        direct_only: flags & 4 != 0,
        replay_safe: flags & 8 != 0,
        mcp: (!server.is_empty()).then_some(McpMeta {
            server,
            tool,
            operation: None,
        }),
    }
}

fn check_catalog(catalog: &Catalog, specs: &[ToolSpec]) {
    let included = specs
        .iter()
        .filter(|spec| !spec.direct_only && !is_legacy_control(&spec.name))
        .count();
    assert_eq!(catalog.size(), included);
    let mut ids = HashSet::new();
    for entry in catalog.entries() {
        assert!(ids.insert(entry.id.as_str()), "duplicate id {}", entry.id);
        assert_eq!(
            catalog.exact(&entry.id).map(|e| e.id.as_str()),
            Some(entry.id.as_str())
        );
        assert!(is_json(entry.compact_json()), "{}", entry.compact_json());
        assert!(is_json(&entry.describe_json()));
    }
    let mut guest = 0;
    for entry in catalog.guest_entries() {
        guest += 1;
        assert_ne!(entry.source, ToolSource::Mcp);
        let found = catalog
            .lookup(&entry.id)
            .expect("a guest entry is found by its id");
        assert_eq!(found.id, entry.id);
    }
    let all: serde_json::Value =
        serde_json::from_str(catalog.all_tools_json()).expect("ALL_TOOLS is JSON");
    assert_eq!(all.as_array().map(Vec::len), Some(guest));
    let mut names = HashSet::new();
    for (name, entry) in catalog.convenience_names() {
        assert_eq!(name, entry.name);
        assert!(names.insert(name), "two convenience functions named {name}");
        assert_eq!(
            catalog.lookup(name).map(|e| e.id.as_str()),
            Ok(entry.id.as_str())
        );
    }
}

fn check_search(catalog: &Catalog, query: &str, limit: SearchLimit) {
    let valid = match limit {
        SearchLimit::Absent => Some(DEFAULT_LIMIT),
        SearchLimit::Number(n) if n.is_finite() && n >= 1.0 && n.fract() == 0.0 => {
            Some((n as usize).min(MAX_LIMIT))
        }
        _ => None,
    };
    match catalog.search(query, limit, DEFAULT_LIMIT, MAX_LIMIT) {
        Ok(hits) => {
            let limit = valid.expect("an invalid limit is refused");
            assert!(hits.len() <= limit);
            let mut seen = HashSet::new();
            for hit in hits {
                assert_ne!(hit.source, ToolSource::Mcp);
                assert!(seen.insert(hit.id.as_str()), "{} found twice", hit.id);
            }
        }
        Err(message) => {
            assert!(valid.is_none(), "a valid limit was refused");
            assert_eq!(message, messages::SEARCH_LIMIT_INVALID);
        }
    }
}

fn check_lookup(catalog: &Catalog, request: &str) {
    match catalog.lookup(request) {
        Ok(entry) => {
            assert_ne!(entry.source, ToolSource::Mcp);
            assert!(
                entry.id == request || entry.name == request,
                "{request} found {}",
                entry.id
            );
        }
        Err(message) => assert!(!message.is_empty()),
    }
}
