//! What `MCP.<server>.<tool>(input)` does to its input before the call goes
//! out: fill in the schema's defaults for absent keys, then refuse the call
//! when a required key is still missing.
//!
//! It works on the JSON text the sandbox converted the guest's object to
//! (compact, valid, an object), so what is checked is what is sent.

use std::collections::HashSet;

use serde_json::Value;

use crate::messages;

/// The input rules of one tool, read from its schema once per run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputRules {
    /// `required` of the root schema: the string entries, in order, once each.
    required: Vec<String>,
    /// Each root property with a `default`: its key and the default as JSON text.
    defaults: Vec<(String, String)>,
}

impl InputRules {
    /// The rules of an object schema (anything else has none).
    pub fn of(schema: &Value) -> InputRules {
        let mut rules = InputRules::default();
        let Some(schema) = schema.as_object() else {
            return rules;
        };
        if let Some(Value::Array(required)) = schema.get("required") {
            let mut seen = HashSet::new();
            rules.required = required
                .iter()
                .filter_map(Value::as_str)
                .filter(|key| seen.insert(*key))
                .map(str::to_owned)
                .collect();
        }
        if let Some(Value::Object(properties)) = schema.get("properties") {
            rules.defaults = properties
                .iter()
                .filter_map(|(key, property)| {
                    let default = property.as_object()?.get("default")?;
                    Some((key.clone(), serde_json::to_string(default).ok()?))
                })
                .collect();
        }
        rules
    }

    /// `input` (a JSON object's text) with the defaults of absent keys added,
    /// or the message the call rejects with when required keys are missing.
    pub fn apply(&self, input: String) -> Result<String, String> {
        if self.required.is_empty() && self.defaults.is_empty() {
            return Ok(input);
        }
        // Not an object: nothing to add to (the sandbox never sends one).
        let Some(keys) = top_level_keys(&input) else {
            return Ok(input);
        };
        let mut out = input;
        let mut added = HashSet::new();
        for (key, default) in &self.defaults {
            if keys.contains(key) {
                continue;
            }
            out.pop(); // the closing brace
            if !out.ends_with('{') {
                out.push(',');
            }
            // A String cannot fail to serialize.
            out.push_str(&serde_json::to_string(key).unwrap_or_default());
            out.push(':');
            out.push_str(default);
            out.push('}');
            added.insert(key.as_str());
        }
        let missing: Vec<&str> = self
            .required
            .iter()
            .map(String::as_str)
            .filter(|key| !keys.contains(*key) && !added.contains(key))
            .collect();
        if missing.is_empty() {
            Ok(out)
        } else {
            Err(messages::mcp_missing_arguments(&missing))
        }
    }
}

/// The keys of a compact JSON object, read without recursion: values are
/// skipped by counting brackets, so an input nested 1000 levels deep (the
/// most a tool input may) costs one pass and no stack. `None` when the text
/// is not the compact object the sandbox writes.
fn top_level_keys(json: &str) -> Option<HashSet<String>> {
    let bytes = json.as_bytes();
    let mut keys = HashSet::new();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut at = 1;
    if bytes.get(at) == Some(&b'}') {
        return (at + 1 == bytes.len()).then_some(keys);
    }
    loop {
        let key_end = string_end(bytes, at)?;
        keys.insert(serde_json::from_str::<String>(json.get(at..key_end)?).ok()?);
        if bytes.get(key_end) != Some(&b':') {
            return None;
        }
        at = value_end(bytes, key_end + 1)?;
        match bytes.get(at)? {
            b',' => at += 1,
            b'}' if at + 1 == bytes.len() => return Some(keys),
            _ => return None,
        }
    }
}

/// Just past the JSON string starting at `at`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut at = at + 1;
    loop {
        match *bytes.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
}

/// The offset of the `,` or `}` that ends the member value starting at `at`.
fn value_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    let start = at;
    let mut depth = 0usize;
    loop {
        match *bytes.get(at)? {
            b'"' => at = string_end(bytes, at)?,
            b'{' | b'[' => {
                depth += 1;
                at += 1;
            }
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                at += 1;
            }
            b',' | b'}' | b']' if depth == 0 => return (at > start).then_some(at),
            _ => at += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(schema: Value) -> InputRules {
        InputRules::of(&schema)
    }

    #[test]
    fn defaults_fill_absent_keys_in_schema_order() {
        let rules = rules(json!({
            "type": "object",
            "properties": {
                "owner": {"type": "string"},
                "state": {"type": "string", "default": "open"},
                "limit": {"type": "number", "default": 30},
                "labels": {"default": ["a", "b\""]},
            },
        }));
        assert_eq!(
            rules.apply(r#"{"owner":"o","limit":5}"#.into()),
            Ok(r#"{"owner":"o","limit":5,"state":"open","labels":["a","b\""]}"#.into())
        );
        assert_eq!(
            rules.apply("{}".into()),
            Ok(r#"{"state":"open","limit":30,"labels":["a","b\""]}"#.into())
        );
        // null is a value: it is kept, not replaced by the default.
        assert_eq!(
            rules.apply(r#"{"state":null,"limit":1,"labels":[]}"#.into()),
            Ok(r#"{"state":null,"limit":1,"labels":[]}"#.into())
        );
    }

    #[test]
    fn missing_required_keys_are_named_after_defaults() {
        let rules = rules(json!({
            "type": "object",
            "properties": {"a": {}, "b": {}, "c": {"default": 1}},
            "required": ["a", "b", "c", "a", 7],
        }));
        assert_eq!(
            rules.apply("{}".into()),
            Err("Missing required MCP namespace arguments: a, b".into())
        );
        assert_eq!(
            rules.apply(r#"{"b":null}"#.into()),
            Err("Missing required MCP namespace argument: a".into())
        );
        assert_eq!(
            rules.apply(r#"{"a":"x","b":false}"#.into()),
            Ok(r#"{"a":"x","b":false,"c":1}"#.into())
        );
    }

    #[test]
    fn escaped_keys_are_read_as_keys() {
        let rules = rules(json!({"required": ["a\"b", "é"]}));
        assert_eq!(
            rules.apply(r#"{"a\"b":1,"\u00e9":2}"#.into()),
            Ok(r#"{"a\"b":1,"\u00e9":2}"#.into())
        );
    }

    #[test]
    fn keys_are_read_past_values_of_any_depth() {
        let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
        let json = format!(
            r#"{{"a":{deep},"b":"}},\"{{","c":{{"d":[1,{{"e":2}}]}},"f":-1.5e3,"g":null}}"#
        );
        let keys = top_level_keys(&json).unwrap();
        let mut keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["a", "b", "c", "f", "g"]);
        assert_eq!(top_level_keys("{}").unwrap().len(), 0);
        for bad in [
            "[1]",
            "{\"a\"}",
            "{\"a\":1",
            "{\"a\":1]",
            "",
            "{a:1}",
            "{\"a\":}",
            "{}x",
            "{\"a\":1}x",
        ] {
            assert!(top_level_keys(bad).is_none(), "{bad}");
        }
        let rules = rules(json!({"required": ["a", "z"]}));
        assert_eq!(
            rules.apply(json),
            Err("Missing required MCP namespace argument: z".into())
        );
    }

    #[test]
    fn schemas_without_rules_pass_inputs_through() {
        for schema in [
            json!({}),
            json!("string"),
            json!({"required": "a"}),
            json!({"properties": []}),
        ] {
            assert_eq!(
                rules(schema).apply(r#"{"x":1}"#.into()),
                Ok(r#"{"x":1}"#.into())
            );
        }
    }
}
