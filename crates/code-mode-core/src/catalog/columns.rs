//! Tools' columns, as `prepare.js` writes them (one JSON array per field,
//! `records::ToolColumns`), read into tool specs. The binding reads them on
//! its builder thread; a sandbox process reads the same text to build its
//! copy of a run's catalog.

use std::borrow::Cow;

use super::{in_catalog, McpMeta, Schema, ToolSource, ToolSpec};
use crate::messages;
use crate::records::{ToolColumns, ToolFlags};

/// Which of the tools read go on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Every one (the tools the model sees).
    All,
    /// Those the run catalog takes (`catalog::in_catalog`); the others'
    /// schema problems are not reported again.
    Catalog,
}

/// Reads the JSON text of tools' columns into `specs`, adding a sentence
/// to `problems` for each tool whose schema was left out. The text comes
/// from `prepare.js`, which checked every field already; text it did not
/// write is an error. A lone surrogate in a string (which `JSON.stringify`
/// writes as an escape, and UTF-8 cannot hold) reads as U+FFFD, as it does
/// wherever JavaScript text becomes Rust text.
pub fn read_tools(
    text: &str,
    keep: Keep,
    specs: &mut Vec<ToolSpec>,
    problems: &mut Vec<String>,
) -> std::result::Result<(), String> {
    let unreadable = |e: serde_json::Error| messages::tools_unreadable(&e.to_string());
    // Schemas included, which stay raw text until read.
    let text = replace_lone_surrogates(text);
    let columns: ToolColumns = serde_json::from_str(&text).map_err(unreadable)?;
    let ToolColumns {
        names,
        labels,
        descriptions,
        sources,
        source_names,
        flags,
        servers,
        mcp_tools: tools,
        operations,
        parameters: schemas,
        problems: schema_problems,
    } = columns;
    let count = names.len();
    let lengths = [
        labels.len(),
        descriptions.len(),
        sources.len(),
        source_names.len(),
        flags.len(),
        servers.len(),
        tools.len(),
        operations.len(),
        schemas.len(),
        schema_problems.as_ref().map_or(count, Vec::len),
    ];
    if lengths.iter().any(|&length| length != count) {
        return Err(messages::tools_unreadable(messages::COLUMNS_DIFFER));
    }
    let mut schema_problems = schema_problems.map(Vec::into_iter);
    let fields = names.into_iter().zip(labels).zip(descriptions).zip(sources);
    let fields = fields.zip(source_names).zip(flags).zip(servers).zip(tools);
    let fields = fields.zip(operations).zip(schemas);
    specs.reserve(count);
    for (
        (
            (((((((name, label), description), source), source_name), flags), server), tool),
            operation,
        ),
        schema,
    ) in fields
    {
        let problem = schema_problems.as_mut().and_then(Iterator::next).flatten();
        let spec = ToolSpec {
            name,
            label,
            description: description.unwrap_or_default(),
            parameters: schema.map(Schema::from_json),
            source: ToolSource::from_code(source)
                .ok_or_else(|| messages::tools_unreadable(messages::SOURCE_WITHOUT_CODE))?,
            source_name,
            direct_only: flags & ToolFlags::DIRECT_ONLY != 0,
            replay_safe: flags & ToolFlags::REPLAY_SAFE != 0,
            mcp: match (server, tool) {
                (Some(server), Some(tool)) => Some(McpMeta {
                    server,
                    tool,
                    operation,
                }),
                _ => None,
            },
        };
        if keep == Keep::Catalog && !in_catalog(&spec) {
            continue;
        }
        if let Some(problem) = problem {
            problems.push(messages::tool_schema_unwritable(&spec.name, &problem));
        }
        specs.push(spec);
    }
    Ok(())
}

/// JSON text with each `\uXXXX` escape of a surrogate made `\ufffd`. Only
/// for text `JSON.stringify` wrote: it escapes a surrogate only when it is
/// alone (a pair is written as its character), so every such escape is one.
/// Borrowed when there is none.
pub fn replace_lone_surrogates(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    if !bytes.contains(&b'\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while let Some(found) = bytes[i..].iter().position(|&b| b == b'\\') {
        let at = i + found;
        let escape = bytes.get(at + 1).copied();
        let surrogate = escape == Some(b'u')
            && bytes.len() >= at + 6
            && bytes[at + 2].eq_ignore_ascii_case(&b'd')
            && matches!(bytes[at + 3].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'f')
            && bytes[at + 4..at + 6].iter().all(u8::is_ascii_hexdigit);
        if surrogate {
            out.push_str(&text[copied..at]);
            out.push_str("\\ufffd");
            copied = at + 6;
            i = at + 6;
        } else {
            // Any other escape is two bytes, or six for `\u`; skipping two
            // is enough to step over an escaped backslash.
            i = at + 2;
        }
        if i >= bytes.len() {
            break;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_escapes_become_replacement_characters() {
        let text = r#"["a\ud800b","\\ud800","\udfff","ok\n"]"#;
        let fixed = replace_lone_surrogates(text);
        assert_eq!(fixed, r#"["a\ufffdb","\\ud800","\ufffd","ok\n"]"#);
        let strings: Vec<String> = serde_json::from_str(&fixed).unwrap();
        assert_eq!(strings, ["a\u{fffd}b", "\\ud800", "\u{fffd}", "ok\n"]);
    }

    #[test]
    fn columns_read_into_specs_and_dropped_schemas_into_problems() {
        let text = r#"[["read","q","pick"],["Read",null,null],[null,"d",null],[0,1,0],[null,"s",null],
            [2,0,1],[null,"srv",null],[null,"query",null],[null,"tool",null],[{"type":"object"},null,null],
            [null,"cycle","cycle"]]"#;
        let (mut specs, mut problems) = (Vec::new(), Vec::new());
        read_tools(text, Keep::Catalog, &mut specs, &mut problems).unwrap();
        assert_eq!(specs.len(), 2, "the direct-only tool is not the catalog's");
        assert_eq!(specs[0].name, "read");
        assert_eq!(specs[0].label.as_deref(), Some("Read"));
        assert_eq!(specs[0].description, "");
        assert!(specs[0].replay_safe && specs[0].parameters.is_some());
        assert_eq!(specs[1].source, ToolSource::Mcp);
        let mcp = specs[1].mcp.as_ref().unwrap();
        assert_eq!(
            (mcp.server.as_str(), mcp.operation.as_deref()),
            ("srv", Some("tool"))
        );
        assert!(specs[1].parameters.is_none());
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("Tool \"q\" has no schema"));
        let (mut all, mut problems) = (Vec::new(), Vec::new());
        read_tools(text, Keep::All, &mut all, &mut problems).unwrap();
        assert_eq!((all.len(), problems.len()), (3, 2));
        assert!(all[2].direct_only);
        let uneven = r#"[["a"],[],[null],[0],[null],[0],[null],[null],[null],[null],null]"#;
        assert!(read_tools(uneven, Keep::All, &mut all, &mut problems).is_err());
        assert!(read_tools("[1]", Keep::All, &mut all, &mut problems).is_err());
    }
}
