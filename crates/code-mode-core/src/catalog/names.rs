//! Convenience functions `tools.<name>(input)` (`docs/catalog.md`): which names get one.

use super::{Catalog, CatalogEntry};
use crate::identifiers::{is_identifier, is_reserved_word};

/// The catalog helpers on `tools`; a tool name never shadows them.
const HELPERS: [&str; 3] = ["search", "describe", "call"];

/// Property names with a meaning of their own on any object: `__proto__` would
/// replace the prototype of `tools`, and a function-valued `then` would make
/// `tools` a thenable that `await` calls. (`constructor` and `prototype` are
/// plain tool names here: `tools` is frozen and nothing reads them.)
const UNSAFE_PROPERTIES: [&str; 2] = ["__proto__", "then"];

impl Catalog {
    /// The names that get a convenience function, with their entries, in catalog
    /// order: a JavaScript identifier (ASCII) that is not a reserved word, occurs
    /// exactly once among the guest entries, and is not a catalog helper name.
    /// Chosen once when the catalog is built.
    pub fn convenience_names(&self) -> Vec<(&str, &CatalogEntry)> {
        self.convenience
            .iter()
            .map(|&i| (self.entries[i].name.as_str(), &self.entries[i]))
            .collect()
    }

    /// The index (in [`Catalog::entries`]) of the entry `tools.<name>` calls,
    /// when `name` gets a convenience function.
    pub fn shortcut(&self, name: &str) -> Option<usize> {
        if !self.has_shortcut(name) {
            return None;
        }
        self.guest_by_name.get(name)?.first().copied()
    }

    /// Indexes of the entries that get a convenience function.
    pub(super) fn choose_convenience(&self) -> Vec<usize> {
        self.guest
            .iter()
            .copied()
            .filter(|&i| self.has_shortcut(&self.entries[i].name))
            .collect()
    }

    /// Whether `tools.<name>` is a convenience function.
    pub fn has_shortcut(&self, name: &str) -> bool {
        is_identifier(name)
            && !is_reserved_word(name)
            && !HELPERS.contains(&name)
            && !UNSAFE_PROPERTIES.contains(&name)
            && self.guest_name_count(name) == 1
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn names(tools: &[crate::catalog::ToolSpec]) -> Vec<(String, String)> {
        Catalog::build(tools)
            .convenience_names()
            .into_iter()
            .map(|(name, entry)| (name.to_owned(), entry.id.clone()))
            .collect()
    }

    #[test]
    fn identifiers_that_occur_once_get_a_function() {
        assert_eq!(
            names(&[
                core("web_search"),
                client("$pick2", Some("app")),
                core("exec")
            ]),
            [
                (
                    "web_search".to_owned(),
                    "openclaw:core:web_search".to_owned()
                ),
                ("exec".to_owned(), "openclaw:core:exec".to_owned()),
                ("$pick2".to_owned(), "client:app:$pick2".to_owned()),
            ]
        );
    }

    #[test]
    fn non_identifiers_are_left_out() {
        assert!(names(&[
            core("web-search"),
            core("2fa"),
            core("a.b"),
            core("café"),
            core("")
        ])
        .is_empty());
    }

    #[test]
    fn duplicates_are_left_out_but_mcp_does_not_count() {
        assert!(names(&[core("read"), plugin("read", "notes")]).is_empty());
        assert_eq!(
            names(&[core("read"), mcp("read", "fs", "read")]),
            [("read".to_owned(), "openclaw:core:read".to_owned())]
        );
    }

    #[test]
    fn helper_names_reserved_words_and_unsafe_properties_are_left_out() {
        let tools: Vec<_> = [
            "search",
            "describe",
            "call",
            "delete",
            "new",
            "class",
            "yield",
            "__proto__",
            "then",
        ]
        .into_iter()
        .map(core)
        .collect();
        assert!(names(&tools).is_empty());
        assert_eq!(names(&[core("deleted")]).len(), 1);
    }
}
