//! One catalog entry: its public fields, the lower-cased text search compares,
//! and its compact JSON (what `ALL_TOOLS` and `tools.search` return).

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::{json, Value};

use super::{McpMeta, Schema, ToolSource, ToolSpec};

#[derive(Clone, Debug)]
pub struct CatalogEntry {
    pub id: String,
    pub name: String,
    pub label: Option<String>,
    pub description: String,
    /// The input JSON Schema; `{}` when the tool has none.
    pub parameters: Schema,
    /// Whether the gateway gave a schema (`parameters` is `{}` when not).
    pub has_parameters: bool,
    pub source: ToolSource,
    pub source_name: Option<String>,
    pub replay_safe: bool,
    pub mcp: Option<McpMeta>,
    /// Made on first use (search, suggestions): a run surface that never
    /// searches never lower-cases its catalog.
    lower: OnceLock<Lowered>,
    /// Made on first use (`ALL_TOOLS`, search results).
    compact_json: OnceLock<String>,
    /// `tools.describe`'s answer with its TypeScript `declaration`, made by
    /// the bridge on the first describe of the run (the catalog cannot
    /// render declarations itself: the renderer is the MCP namespace's).
    pub described: OnceLock<String>,
}

/// Lower-cased copies of the searchable text, computed once per run.
#[derive(Clone, Debug)]
pub(super) struct Lowered {
    pub id: String,
    pub name: String,
    pub label: Option<String>,
    pub description: String,
}

/// The guest-facing JSON shape; keys in this order, absent optional keys omitted.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GuestJson<'a> {
    id: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<&'a str>,
    description: &'a str,
    source: ToolSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters: Option<&'a Value>,
}

impl CatalogEntry {
    pub(super) fn new(id: String, spec: &ToolSpec) -> Self {
        let entry = CatalogEntry {
            lower: OnceLock::new(),
            id,
            name: spec.name.clone(),
            label: spec.label.clone(),
            description: spec.description.clone(),
            has_parameters: spec
                .parameters
                .as_ref()
                .is_some_and(|schema| !schema.is_null()),
            parameters: spec
                .parameters
                .clone()
                .filter(|schema| !schema.is_null())
                .unwrap_or_else(|| Schema::from(json!({}))),
            source: spec.source,
            source_name: spec.source_name.clone(),
            replay_safe: spec.replay_safe,
            mcp: spec.mcp.clone(),
            compact_json: OnceLock::new(),
            described: OnceLock::new(),
        };
        entry
    }

    /// The lower-cased text search and suggestions compare.
    pub(super) fn lower(&self) -> &Lowered {
        self.lower.get_or_init(|| Lowered {
            id: self.id.to_lowercase(),
            name: self.name.to_lowercase(),
            label: self.label.as_deref().map(str::to_lowercase),
            description: self.description.to_lowercase(),
        })
    }

    /// `{id, name, label?, description, source, sourceName?}` as JSON text
    /// (made once, on first use).
    pub fn compact_json(&self) -> &str {
        self.compact_json.get_or_init(|| self.guest_json(false))
    }

    /// The compact entry plus `parameters`, as JSON text (what `tools.describe`
    /// returns). Built on demand: schemas can be large and describe is rare.
    pub fn describe_json(&self) -> String {
        self.guest_json(true)
    }

    fn guest_json(&self, with_parameters: bool) -> String {
        let shape = GuestJson {
            id: &self.id,
            name: &self.name,
            label: self.label.as_deref(),
            description: &self.description,
            source: self.source,
            source_name: self.source_name.as_deref(),
            // `then`, not `then_some`: the compact entry must not read the schema.
            parameters: with_parameters.then(|| &**self.parameters.value()),
        };
        // Strings and a `serde_json::Value` (string keys only) cannot fail to serialize.
        serde_json::to_string(&shape).expect("catalog entries serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn the_compact_entry_leaves_the_schema_unread() {
        let text = serde_json::value::RawValue::from_string(r#"{"type":"object"}"#.into()).unwrap();
        let spec = ToolSpec {
            parameters: Some(Schema::from_json(text)),
            ..core("read")
        };
        let entry = CatalogEntry::new("openclaw:core:read".into(), &spec);
        entry.compact_json();
        assert!(
            !entry.parameters.is_read(),
            "ALL_TOOLS must not parse every schema"
        );
        assert!(entry
            .describe_json()
            .contains(r#""parameters":{"type":"object"}"#));
        assert!(entry.parameters.is_read());
    }

    #[test]
    fn compact_json_keeps_key_order_and_omits_absent_keys() {
        let bare = CatalogEntry::new("openclaw:core:read".into(), &core("read"));
        assert_eq!(
            bare.compact_json(),
            r#"{"id":"openclaw:core:read","name":"read","description":"read tool","source":"openclaw"}"#
        );
        let full = CatalogEntry::new(
            "client:app:pick".into(),
            &described(client("pick", Some("app")), Some("Pick \"it\""), "Pick one"),
        );
        assert_eq!(
            full.compact_json(),
            r#"{"id":"client:app:pick","name":"pick","label":"Pick \"it\"","description":"Pick one","source":"client","sourceName":"app"}"#
        );
    }

    #[test]
    fn describe_json_adds_parameters_defaulting_to_an_empty_object() {
        let bare = CatalogEntry::new("openclaw:core:read".into(), &core("read"));
        assert_eq!(**bare.parameters.value(), json!({}));
        assert_eq!(
            bare.describe_json(),
            r#"{"id":"openclaw:core:read","name":"read","description":"read tool","source":"openclaw","parameters":{}}"#
        );
        let mut spec = plugin("browse", "browser");
        spec.parameters =
            Some(json!({"type": "object", "properties": {"url": {"type": "string"}}}).into());
        let entry = CatalogEntry::new("openclaw:browser:browse".into(), &spec);
        assert_eq!(
            entry.describe_json(),
            concat!(
                r#"{"id":"openclaw:browser:browse","name":"browse","description":"browse tool","source":"openclaw","sourceName":"browser","#,
                r#""parameters":{"type":"object","properties":{"url":{"type":"string"}}}}"#
            )
        );
    }

    #[test]
    fn searchable_text_is_lower_cased() {
        let entry = CatalogEntry::new(
            "openclaw:core:Web_Fetch".into(),
            &described(core("Web_Fetch"), Some("Web Fetch"), "Fetch a URL"),
        );
        assert_eq!(entry.lower().id, "openclaw:core:web_fetch");
        assert_eq!(entry.lower().name, "web_fetch");
        assert_eq!(entry.lower().label.as_deref(), Some("web fetch"));
        assert_eq!(entry.lower().description, "fetch a url");
    }
}
