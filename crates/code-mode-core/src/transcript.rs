//! Nested calls as transcript messages: for each finished nested call, an
//! assistant message carrying the tool call and a tool-result message, so a
//! gateway can place them after the parent exec's result like real tool calls.

use serde_json::{json, Map, Value};

/// Turns `onEvent` events into transcript messages, in the order the calls
/// started. Only calls with both a `nested_call_started` and a
/// `nested_call_finished` event appear; other events are ignored. When
/// `parent_tool_call_id` is given, only that parent's calls are kept.
pub fn project(events: &[Value], parent_tool_call_id: Option<&str>) -> Vec<Value> {
    let finished: Map<String, Value> = events
        .iter()
        .filter(|event| event["type"] == "nested_call_finished")
        .filter_map(|event| Some((event["toolCallId"].as_str()?.to_owned(), event.clone())))
        .collect();
    let mut messages = Vec::new();
    for started in events
        .iter()
        .filter(|event| event["type"] == "nested_call_started")
    {
        let Some(id) = started["toolCallId"].as_str() else {
            continue;
        };
        let Some(done) = finished.get(id) else {
            continue;
        };
        let parent = started["parentToolCallId"].as_str();
        if parent_tool_call_id.is_some_and(|wanted| Some(wanted) != parent) {
            continue;
        }
        let name = started["name"].as_str().unwrap_or_default();
        let ok = done["ok"].as_bool().unwrap_or(false);
        let text = if ok {
            match &done["result"] {
                Value::String(text) => text.clone(),
                Value::Null => "null".to_owned(),
                value => value.to_string(),
            }
        } else {
            done["error"].as_str().unwrap_or_default().to_owned()
        };
        let mut call = json!({
            "role": "assistant",
            "content": [{
                "type": "toolCall",
                "id": id,
                "name": name,
                "arguments": started.get("input").cloned().unwrap_or(Value::Object(Map::new())),
            }],
            "toolId": started["toolId"],
            "codeModeNested": true,
        });
        let mut result = json!({
            "role": "toolResult",
            "toolCallId": id,
            "toolName": name,
            "content": [{"type": "text", "text": text}],
            "isError": !ok,
            "codeModeNested": true,
        });
        if let Some(parent) = parent {
            call["parentToolCallId"] = json!(parent);
            result["parentToolCallId"] = json!(parent);
        }
        if let Some(duration) = done.get("durationMs") {
            result["durationMs"] = duration.clone();
        }
        messages.push(call);
        messages.push(result);
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(id: &str, parent: &str, input: Value) -> Value {
        json!({"type": "nested_call_started", "toolCallId": id, "parentToolCallId": parent,
               "toolId": "openclaw:core:read", "name": "read", "input": input})
    }

    fn finished(id: &str, ok: bool, payload: Value) -> Value {
        let mut event = json!({"type": "nested_call_finished", "toolCallId": id, "parentToolCallId": "p1",
                               "toolId": "openclaw:core:read", "name": "read", "ok": ok, "durationMs": 3.5});
        event[if ok { "result" } else { "error" }] = payload;
        event
    }

    #[test]
    fn pairs_calls_with_results_in_start_order() {
        let events = [
            started("a", "p1", json!({"path": "x"})),
            started("b", "p1", json!({})),
            started("c", "p1", json!({})),
            finished("b", false, json!("denied")),
            finished("a", true, json!({"text": "hi"})),
            json!({"type": "something_else"}),
        ];
        let messages = project(&events, None);
        assert_eq!(messages.len(), 4, "c never finished");
        assert_eq!(messages[0]["content"][0]["id"], "a");
        assert_eq!(messages[0]["content"][0]["arguments"], json!({"path": "x"}));
        assert_eq!(messages[1]["content"][0]["text"], "{\"text\":\"hi\"}");
        assert_eq!(messages[1]["isError"], false);
        assert_eq!(messages[1]["parentToolCallId"], "p1");
        assert_eq!(messages[3]["toolCallId"], "b");
        assert_eq!(messages[3]["isError"], true);
        assert_eq!(messages[3]["content"][0]["text"], "denied");
    }

    #[test]
    fn filters_by_parent() {
        let events = [
            started("a", "p1", json!({})),
            finished("a", true, json!("ok")),
            started("b", "p2", json!({})),
            finished("b", true, json!("ok")),
        ];
        assert_eq!(project(&events, Some("p2")).len(), 2);
        assert_eq!(project(&events, Some("p2"))[0]["content"][0]["id"], "b");
        assert_eq!(project(&events, Some("p1"))[1]["content"][0]["text"], "ok");
    }
}
