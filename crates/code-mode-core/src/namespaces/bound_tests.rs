//! The core's own check of a serialised scope (`scope.rs`), at each bound of
//! `limits.rs` and one past it: [`NAMESPACE_SCOPE_NODES`],
//! [`NAMESPACE_SCOPE_BYTES`] (and the text of all scopes, read before it is
//! parsed), [`NAMESPACE_SCOPE_DEPTH`] and [`NAMESPACE_CALLABLES`]. (`namespaces.js` checks the same bounds first;
//! `__test__/bounds.test.mjs` tests those through the public API.)

use serde_json::{json, Value};

use super::{Registration, RunNamespaces};
use crate::catalog::testing::plugin;
use crate::catalog::Catalog;
use crate::limits::{
    NAMESPACE_CALLABLES, NAMESPACE_SCOPE_BYTES, NAMESPACE_SCOPE_DEPTH, NAMESPACE_SCOPE_NODES,
};

fn visible() -> RunNamespaces {
    let registration = Registration {
        id: "github-issues".into(),
        plugin_id: "github".into(),
        global_name: "Issues".into(),
        description: None,
        prompt: None,
        required_tool_names: vec!["list_issues".into()],
    };
    let catalog = Catalog::build(&[plugin("list_issues", "github")]);
    RunNamespaces::plan(vec![registration], &catalog)
}

fn accept(tree: Value, callables: Value) -> Result<(), String> {
    visible().accept(&json!([{ "tree": tree, "callables": callables }]).to_string())
}

const TOO_LARGE: &str = "code mode namespace Issues could not be prepared: the scope has more than 10000 values or 262144 bytes of JSON.";

#[test]
fn a_tree_of_scope_nodes_values_is_kept_and_one_more_is_refused() {
    assert_eq!(NAMESPACE_SCOPE_NODES, 10_000);
    // The root object and the array are two of the values.
    let wide = |values: usize| json!({ "w": vec![0; values - 2] });
    assert_eq!(accept(wide(NAMESPACE_SCOPE_NODES), json!([])), Ok(()));
    assert_eq!(
        accept(wide(NAMESPACE_SCOPE_NODES + 1), json!([])),
        Err(TOO_LARGE.to_owned())
    );
}

#[test]
fn a_tree_of_scope_bytes_is_kept_and_one_byte_more_is_refused() {
    assert_eq!(NAMESPACE_SCOPE_BYTES, 256 * 1024);
    // {"b":"…"}: 8 bytes around the string.
    let big = |bytes: usize| json!({ "b": "x".repeat(bytes - 8) });
    assert_eq!(
        big(NAMESPACE_SCOPE_BYTES).to_string().len(),
        NAMESPACE_SCOPE_BYTES
    );
    assert_eq!(accept(big(NAMESPACE_SCOPE_BYTES), json!([])), Ok(()));
    assert_eq!(
        accept(big(NAMESPACE_SCOPE_BYTES + 1), json!([])),
        Err(TOO_LARGE.to_owned())
    );
}

/// A tree whose deepest value lies `levels` keys below the root, and that path.
fn nested(levels: usize) -> (Value, Vec<String>) {
    let mut tree = Value::Null;
    for _ in 0..levels {
        tree = json!({ "d": tree });
    }
    (tree, vec!["d".to_owned(); levels])
}

#[test]
fn a_tree_nests_scope_depth_levels_and_one_more_is_refused() {
    assert_eq!(NAMESPACE_SCOPE_DEPTH, 32);
    let (tree, _) = nested(NAMESPACE_SCOPE_DEPTH);
    assert_eq!(accept(tree, json!([])), Ok(()));
    let (tree, _) = nested(NAMESPACE_SCOPE_DEPTH + 1);
    let error = accept(tree, json!([])).unwrap_err();
    assert!(
        error.ends_with(&format!(
            "Issues{} nests deeper than 32 levels.",
            ".d".repeat(NAMESPACE_SCOPE_DEPTH + 1)
        )),
        "{error}"
    );
}

#[test]
fn a_function_place_may_be_scope_depth_keys_deep() {
    let (tree, path) = nested(NAMESPACE_SCOPE_DEPTH);
    let callable = json!([{ "path": path, "tool": "list_issues" }]);
    assert_eq!(accept(tree, callable), Ok(()));
    // One key deeper: refused for the callable's path too (the tree alone
    // is refused first, so the path is checked against a tree within bounds).
    let (tree, mut path) = nested(NAMESPACE_SCOPE_DEPTH);
    path.push("d".into());
    let error = accept(tree, json!([{ "path": path, "tool": "list_issues" }])).unwrap_err();
    assert!(error.contains("nests deeper than 32 levels."), "{error}");
}

#[test]
fn a_scope_holds_namespace_callables_functions_and_one_more_is_refused() {
    assert_eq!(NAMESPACE_CALLABLES, 256);
    let with = |count: usize| {
        let tree = json!({ "f": vec![Value::Null; count] });
        let callables: Vec<Value> = (0..count)
            .map(|i| json!({ "path": ["f", i.to_string()], "tool": "list_issues" }))
            .collect();
        accept(tree, Value::Array(callables))
    };
    assert_eq!(with(NAMESPACE_CALLABLES), Ok(()));
    assert_eq!(
        with(NAMESPACE_CALLABLES + 1),
        Err("code mode namespace Issues could not be prepared: the scope has more than 256 functions.".to_owned())
    );
}

/// `count` visible namespaces, `Issues0`, `Issues1`, ...
fn visible_many(count: usize) -> RunNamespaces {
    let registrations = (0..count)
        .map(|i| Registration {
            id: format!("github-issues-{i}"),
            plugin_id: "github".into(),
            global_name: format!("Issues{i}"),
            description: None,
            prompt: None,
            required_tool_names: vec!["list_issues".into()],
        })
        .collect();
    let catalog = Catalog::build(&[plugin("list_issues", "github")]);
    RunNamespaces::plan(registrations, &catalog)
}

/// The scopes of `count` namespaces, each an empty tree, as `len` bytes of
/// JSON text (padded with spaces before the closing bracket).
fn scopes_text(count: usize, len: usize) -> String {
    let body = vec![r#"{"tree":{},"callables":[]}"#; count].join(",");
    let text = format!("[{body}");
    format!("{text}{}]", " ".repeat(len - text.len() - 1))
}

#[test]
fn the_scopes_text_is_read_up_to_scope_bytes_per_namespace_and_64_kib() {
    // Checked on the text before it is parsed: spaces count. One namespace,
    // then two (the bound grows with each).
    for count in [1, 2] {
        let bound = NAMESPACE_SCOPE_BYTES * count + 64 * 1024;
        let text = scopes_text(count, bound);
        assert_eq!(text.len(), bound);
        assert_eq!(
            visible_many(count).accept(&text),
            Ok(()),
            "{count} namespaces"
        );
        // (A run keeps the scopes it accepted first: a fresh one.)
        let names: Vec<String> = (0..count).map(|i| format!("Issues{i}")).collect();
        assert_eq!(
            visible_many(count).accept(&scopes_text(count, bound + 1)),
            Err(format!(
                "code mode namespace {} could not be prepared: the scope has more than 10000 values or 262144 bytes of JSON.",
                names.join(", ")
            )),
            "{count} namespaces"
        );
    }
}
