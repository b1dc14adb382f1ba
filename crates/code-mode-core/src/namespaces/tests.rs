//! Visibility and the checks on serialised scopes.

use serde_json::json;

use super::{display_path, Registration, RunNamespaces, ScopeProblem, ScopeProblemKind};
use crate::catalog::testing::{client, core, mcp, plugin};
use crate::catalog::Catalog;
use crate::limits::{NAMESPACE_SCOPE_DEPTH, NAMESPACE_SCOPE_NODES};

fn issues() -> Registration {
    Registration {
        id: "github-issues".into(),
        plugin_id: "github".into(),
        global_name: "Issues".into(),
        description: Some("GitHub issues.".into()),
        prompt: None,
        required_tool_names: vec!["list_issues".into(), "update_issue".into()],
    }
}

fn planned(tools: &[crate::catalog::ToolSpec]) -> RunNamespaces {
    RunNamespaces::plan(vec![issues()], &Catalog::build(tools))
}

fn visible() -> RunNamespaces {
    planned(&[
        plugin("list_issues", "github"),
        plugin("update_issue", "github"),
    ])
}

#[test]
fn each_required_tool_is_the_first_catalog_entry_of_its_plugin_and_name() {
    // Two plugin tools with one name: ids `...:list_issues` and `#2`; the
    // first is the one the namespace calls, whatever else the catalog has.
    let mut tools = vec![
        client("list_issues", Some("github")),
        plugin("list_issues", "other"),
        plugin("list_issues", "github"),
        plugin("list_issues", "github"),
    ];
    tools.extend((0..2000).map(|i| plugin(&format!("t{i}"), "github")));
    tools.push(plugin("update_issue", "github"));
    let run = planned(&tools);
    assert_eq!(
        run.visible[0].tool_ids,
        [
            "openclaw:github:list_issues",
            "openclaw:github:update_issue"
        ]
    );
    assert_eq!(
        Catalog::build(&tools)
            .exact("openclaw:github:list_issues#2")
            .map(|e| e.name.as_str()),
        Some("list_issues")
    );
}

#[test]
fn a_namespace_is_visible_only_with_every_tool_of_its_own_plugin() {
    let run = visible();
    assert_eq!(run.visible.len(), 1);
    assert_eq!(
        run.visible[0].tool_ids,
        [
            "openclaw:github:list_issues",
            "openclaw:github:update_issue"
        ]
    );
    assert!(!run.ready(), "its scope is built at the first exec");
    let hidden = [
        vec![plugin("list_issues", "github")],
        vec![
            plugin("list_issues", "github"),
            plugin("update_issue", "evil"),
        ],
        vec![plugin("list_issues", "github"), core("update_issue")],
        vec![
            plugin("list_issues", "github"),
            client("update_issue", Some("github")),
        ],
        vec![
            plugin("list_issues", "github"),
            mcp("update_issue", "github", "update_issue"),
        ],
    ];
    for tools in hidden {
        assert!(planned(&tools).is_empty(), "{tools:?}");
        assert!(planned(&tools).ready());
    }
}

#[test]
fn a_same_named_tool_of_another_plugin_does_not_take_the_call() {
    let run = planned(&[
        plugin("list_issues", "evil"),
        plugin("list_issues", "github"),
        plugin("update_issue", "github"),
    ]);
    assert_eq!(
        run.visible[0].tool_id("list_issues"),
        Some("openclaw:github:list_issues")
    );
}

fn accept(scope: serde_json::Value) -> Result<(), String> {
    visible().accept(&json!([scope]).to_string())
}

#[test]
fn a_well_formed_scope_is_kept_once() {
    let run = visible();
    let scope = json!([{
        "tree": {"repo": "a/b", "list": null, "nested": {"update": null}, "all": [null]},
        "callables": [
            {"path": ["list"], "tool": "list_issues"},
            {"path": ["nested", "update"], "tool": "update_issue"},
            {"path": ["all", "0"], "tool": "list_issues"}
        ]
    }]);
    run.accept(&scope.to_string()).unwrap();
    assert!(run.ready());
    let scopes = run.scopes().unwrap();
    assert_eq!(scopes[0].callables[1].path_text, "nested.update");
    assert_eq!(
        scopes[0].callables[1].tool_id,
        "openclaw:github:update_issue"
    );
    // A second exec's scopes do not replace the first.
    run.accept("[]").unwrap();
    assert_eq!(run.scopes().unwrap().len(), 1);
}

#[test]
fn malformed_scopes_are_refused_with_the_namespace_and_the_path() {
    let prefix = "code mode namespace Issues could not be prepared: ";
    let cases = [
        (
            json!({"tree": {"list": null}, "callables": [{"path": ["list"], "tool": "delete_repo"}]}),
            "Issues.list targets the tool \"delete_repo\", which is not in the namespace's requiredToolNames.",
        ),
        (
            json!({"tree": {"a": {"__proto__": 1}}, "callables": []}),
            "Issues.a has the unsafe key \"__proto__\".",
        ),
        (
            json!({"tree": {"a.b": 1}, "callables": []}),
            "Issues has the unsafe key \"a.b\".",
        ),
        (
            json!({"tree": {"list": 1}, "callables": [{"path": ["list"], "tool": "list_issues"}]}),
            "Issues.list is not a function place in the scope, or appears twice.",
        ),
        (
            json!({"tree": {"list": null}, "callables": [
                {"path": ["list"], "tool": "list_issues"},
                {"path": ["list"], "tool": "list_issues"}
            ]}),
            "Issues.list is not a function place in the scope, or appears twice.",
        ),
        (
            json!({"tree": {"then": null}, "callables": [{"path": ["then"], "tool": "list_issues"}]}),
            "Issues.then is callable, which would make the object a thenable; use another name.",
        ),
        (
            json!({"tree": [], "callables": []}),
            "createScope returned another value, not a plain object.",
        ),
        // Array steps are canonical indexes: not `01`, not `+1`.
        (
            json!({"tree": {"all": [null, null]}, "callables": [{"path": ["all", "01"], "tool": "list_issues"}]}),
            "Issues.all[\"01\"] is not a function place in the scope, or appears twice.",
        ),
        (
            json!({"tree": {"all": [null, null]}, "callables": [{"path": ["all", "+1"], "tool": "list_issues"}]}),
            "Issues.all[\"+1\"] is not a function place in the scope, or appears twice.",
        ),
    ];
    for (scope, problem) in cases {
        assert_eq!(accept(scope).unwrap_err(), format!("{prefix}{problem}"));
    }
    let mut deep = json!(1);
    for _ in 0..=NAMESPACE_SCOPE_DEPTH {
        deep = json!({ "d": deep });
    }
    let error = accept(json!({"tree": deep, "callables": []})).unwrap_err();
    assert!(error.ends_with("nests deeper than 32 levels."), "{error}");
    let wide: Vec<u32> = (0..NAMESPACE_SCOPE_NODES as u32).collect();
    let error = accept(json!({"tree": {"wide": wide}, "callables": []})).unwrap_err();
    assert!(error.ends_with("bytes of JSON."), "{error}");
    assert!(visible().accept("{").unwrap_err().starts_with(prefix));
    assert!(visible().accept("[]").is_err(), "one scope per namespace");
}

#[test]
fn paths_are_shown_as_the_guest_writes_them() {
    let keys = |keys: &[&str]| keys.iter().map(|k| k.to_string()).collect::<Vec<_>>();
    assert_eq!(
        display_path("Issues", &keys(&["a", "0", "b c"])),
        "Issues.a[0][\"b c\"]"
    );
    assert_eq!(display_path("Issues", &[]), "Issues");
    // Only canonical array indexes are shown bare: `01` is a key like any other.
    assert_eq!(
        display_path(
            "Issues",
            &keys(&["all", "01", "10", "4294967294", "4294967295"])
        ),
        "Issues.all[\"01\"][10][4294967294][\"4294967295\"]"
    );
    assert_eq!(
        visible().problem(&ScopeProblem {
            index: 0,
            kind: ScopeProblemKind::Function,
            path: keys(&["list"]),
            detail: String::new(),
        }),
        "code mode namespace Issues could not be prepared: Issues.list is a function; a callable member must be a createCodeModeNamespaceTool(toolName) marker."
    );
}
