//! What `MCP.<server>.<tool>(input)` does to its input before the call goes
//! out: fill in the schema's defaults for absent keys, then refuse the call
//! when a required key is still missing.
//!
//! It works on the JSON text the sandbox converted the guest's object to
//! (compact, valid, an object), so what is checked is what is sent.

use std::collections::HashSet;

use serde::de::IgnoredAny;
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
        let keys: HashSet<String> =
            match serde_json::from_str::<std::collections::HashMap<String, IgnoredAny>>(&input) {
                Ok(members) => members.into_keys().collect(),
                // Not an object: nothing to add to; the sandbox never sends one.
                Err(_) => return Ok(input),
            };
        let mut out = input;
        let mut added = Vec::new();
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
            added.push(key.as_str());
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
