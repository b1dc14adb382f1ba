//! A namespace's scope as data: the JSON tree the guest gets, frozen, and the
//! paths in it that are functions. `namespaces.js` serialises a scope and
//! refuses what does not belong in one, with the path; this module checks
//! the same rules again on what arrives, so that nothing malformed reaches a
//! VM whatever the JavaScript side did.

use serde::Deserialize;
use serde_json::Value;

use super::{ScopeProblemKind, VisibleNamespace};
use crate::identifiers::display_path;
use crate::limits::{
    NAMESPACE_CALLABLES, NAMESPACE_SCOPE_BYTES, NAMESPACE_SCOPE_DEPTH, NAMESPACE_SCOPE_NODES,
};
use crate::messages;

/// Joins the keys of a path (`list`, `issues.update`); a key never contains it.
pub const PATH_SEPARATOR: char = '.';

/// The scope one namespace serialised for one run.
#[derive(Clone, Debug)]
pub struct Scope {
    /// JSON text of the tree: an object, with `null` where a function goes.
    pub tree_json: String,
    pub callables: Vec<Callable>,
}

/// A function in a scope tree.
#[derive(Clone, Debug)]
pub struct Callable {
    /// Keys from the root (array indexes as decimal text).
    pub path: Vec<String>,
    /// The keys joined with [`PATH_SEPARATOR`]: what the host checks.
    pub path_text: String,
    /// The catalog id of the tool it calls.
    pub tool_id: String,
    /// The function as the cell names it (`Issues.update`), for messages.
    pub callee: String,
}

#[derive(Deserialize)]
struct RawScope {
    tree: Value,
    callables: Vec<RawCallable>,
}

#[derive(Deserialize)]
struct RawCallable {
    path: Vec<String>,
    tool: String,
}

/// Keys that would reach or shadow a prototype (`namespaces.js` reads them
/// from `src-js/boundary.js`).
pub const UNSAFE_KEYS: [&str; 3] = ["__proto__", "constructor", "prototype"];

/// Keys a scope may not use: empty, one of [`UNSAFE_KEYS`], or holding the
/// path separator (the path would be ambiguous).
pub fn is_unsafe_key(key: &str) -> bool {
    key.is_empty() || UNSAFE_KEYS.contains(&key) || key.contains(PATH_SEPARATOR)
}

/// One scope per visible namespace, in order, or the exec's error.
pub(super) fn parse_all(json: &str, visible: &[VisibleNamespace]) -> Result<Vec<Scope>, String> {
    if json.len() > NAMESPACE_SCOPE_BYTES * visible.len().max(1) + 64 * 1024 {
        return Err(unprepared(visible, &messages::namespace_scope_too_large()));
    }
    let raw: Vec<RawScope> = serde_json::from_str(json)
        .map_err(|error| unprepared(visible, &messages::scope_malformed(error)))?;
    if raw.len() != visible.len() {
        return Err(unprepared(visible, messages::SCOPES_MISCOUNTED));
    }
    raw.into_iter()
        .zip(visible)
        .map(|(raw, namespace)| {
            let name = &namespace.registration.global_name;
            check(raw, namespace).map_err(|problem| messages::namespace_unprepared(name, &problem))
        })
        .collect()
}

/// A failure that concerns every visible namespace at once.
fn unprepared(visible: &[VisibleNamespace], problem: &str) -> String {
    let names: Vec<&str> = visible
        .iter()
        .map(|namespace| namespace.registration.global_name.as_str())
        .collect();
    messages::namespace_unprepared(&names.join(", "), problem)
}

fn check(raw: RawScope, namespace: &VisibleNamespace) -> Result<Scope, String> {
    let global_name = &namespace.registration.global_name;
    if !raw.tree.is_object() {
        return Err(messages::namespace_problem(
            ScopeProblemKind::NotObject,
            "",
            messages::ANOTHER_VALUE,
        ));
    }
    let mut nodes = 0;
    walk(&raw.tree, global_name, &mut Vec::new(), &mut nodes)?;
    if raw.callables.len() > NAMESPACE_CALLABLES {
        return Err(messages::namespace_problem(
            ScopeProblemKind::TooManyFunctions,
            "",
            "",
        ));
    }
    let mut callables: Vec<Callable> = Vec::with_capacity(raw.callables.len());
    for RawCallable { path, tool } in raw.callables {
        let shown = display_path(global_name, &path);
        let path_text = path.join(&PATH_SEPARATOR.to_string());
        if path.is_empty() || path.len() > NAMESPACE_SCOPE_DEPTH {
            return Err(messages::namespace_problem(
                ScopeProblemKind::TooDeep,
                &shown,
                "",
            ));
        }
        if let Some(key) = path.iter().find(|key| is_unsafe_key(key)) {
            return Err(messages::namespace_problem(
                ScopeProblemKind::UnsafeKey,
                &shown,
                &quoted(key),
            ));
        }
        if path.last().is_some_and(|key| key == "then") {
            return Err(messages::namespace_problem(
                ScopeProblemKind::Then,
                &shown,
                "",
            ));
        }
        let found = matches!(resolve(&raw.tree, &path), Some(Value::Null));
        if !found || callables.iter().any(|c| c.path_text == path_text) {
            return Err(messages::not_a_function_place(&shown));
        }
        let tool_id = namespace
            .tool_id(&tool)
            .ok_or_else(|| messages::namespace_foreign_tool(&shown, &tool))?
            .to_owned();
        callables.push(Callable {
            path,
            path_text,
            tool_id,
            callee: shown,
        });
    }
    let tree_json = raw.tree.to_string();
    if tree_json.len() > NAMESPACE_SCOPE_BYTES {
        return Err(messages::namespace_scope_too_large());
    }
    Ok(Scope {
        tree_json,
        callables,
    })
}

/// Counts the nodes and checks the depth and the keys of the tree; `path`
/// holds the keys down to `value`.
fn walk(
    value: &Value,
    global_name: &str,
    path: &mut Vec<String>,
    nodes: &mut usize,
) -> Result<(), String> {
    *nodes += 1;
    if *nodes > NAMESPACE_SCOPE_NODES {
        return Err(messages::namespace_scope_too_large());
    }
    if path.len() > NAMESPACE_SCOPE_DEPTH {
        return Err(messages::namespace_problem(
            ScopeProblemKind::TooDeep,
            &display_path(global_name, path),
            "",
        ));
    }
    let children: Box<dyn Iterator<Item = (String, &Value)>> = match value {
        Value::Object(map) => Box::new(map.iter().map(|(key, item)| (key.clone(), item))),
        Value::Array(items) => Box::new(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| (i.to_string(), item)),
        ),
        _ => return Ok(()),
    };
    for (key, item) in children {
        if is_unsafe_key(&key) {
            let shown = display_path(global_name, path);
            return Err(messages::namespace_problem(
                ScopeProblemKind::UnsafeKey,
                &shown,
                &quoted(&key),
            ));
        }
        path.push(key);
        walk(item, global_name, path, nodes)?;
        path.pop();
    }
    Ok(())
}

/// The value at `path`; array steps must be canonical indexes.
fn resolve<'v>(tree: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(tree, |node, key| match node {
        Value::Object(map) => map.get(key),
        Value::Array(items) => {
            let canonical = key == "0" || (!key.starts_with('0') && !key.starts_with('+'));
            items.get(key.parse::<usize>().ok().filter(|_| canonical)?)
        }
        _ => None,
    })
}

/// `key` as a JSON string.
pub(super) fn quoted(key: &str) -> String {
    Value::String(key.to_owned()).to_string()
}
