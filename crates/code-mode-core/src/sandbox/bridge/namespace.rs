//! The guest's plugin namespaces (`docs/namespaces.md`): `namespaces`, and per
//! visible namespace a frozen tree at `globalThis[globalName]` (the same
//! object as `namespaces[globalName]`), built in every fresh VM from the
//! scope the run serialised once.
//!
//! Each function of a tree is a host function bound to its place in the
//! scope: a call sends the namespace id, the path and the arguments, and the
//! host checks that pair against what it serialised before it maps the
//! arguments. Guest code can neither name another path nor reach the tree's
//! objects to change them.

use std::sync::atomic::Ordering;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Function, Object, Promise, Value};

use super::enqueue::{enqueue, Call, Callee, NamespaceInput};
use super::feed::settled_promise;
use crate::limits::NAMESPACE_SCOPE_DEPTH;
use crate::messages;
use crate::records::CallKind;
use crate::sandbox::calls::NamespaceTarget;
use crate::sandbox::js::{define, freeze};
use crate::sandbox::state::SharedState;
use crate::sandbox::toolbox::Toolbox;

/// Installs `namespaces` (frozen; empty without visible namespaces) and the
/// global of each visible namespace whose scope is built.
pub(super) fn install<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    toolbox: &Toolbox,
) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    let registry = Object::new(ctx.clone())?;
    let run = &toolbox.namespaces;
    if let Some(scopes) = run.scopes() {
        for (n, (namespace, scope)) in run.visible.iter().zip(scopes).enumerate() {
            let tree: Value = ctx.json_parse(scope.tree_json.as_str())?;
            let root = tree.as_object().ok_or(rquickjs::Error::Unknown)?;
            for (c, callable) in scope.callables.iter().enumerate() {
                let Some((last, parents)) = callable.path.split_last() else {
                    continue;
                };
                let mut parent = root.clone();
                for key in parents {
                    parent = parent.get::<_, Object>(key.as_str())?;
                }
                let function = function(ctx, state, n, c)?.with_name(last.as_str())?;
                parent.set(last.as_str(), function)?;
            }
            deep_freeze(ctx, &tree, 0)?;
            let name = namespace.registration.global_name.as_str();
            // The registry refuses names the guest already has; this never
            // replaces one whatever it let through.
            if !globals.contains_key(name)? {
                define(&globals, name, tree.clone())?;
            }
            registry.prop(name, rquickjs::object::Property::from(tree).enumerable())?;
        }
    }
    freeze(ctx, &registry);
    define(&globals, "namespaces", registry)
}

/// Freezes `value` and everything below it (the tree is at most
/// [`NAMESPACE_SCOPE_DEPTH`] deep, plus its functions).
fn deep_freeze<'js>(ctx: &Ctx<'js>, value: &Value<'js>, depth: usize) -> rquickjs::Result<()> {
    let Some(object) = value.as_object() else {
        return Ok(());
    };
    if depth <= NAMESPACE_SCOPE_DEPTH + 1 && !value.is_function() {
        for key in object.keys::<String>() {
            let child: Value = object.get(key?)?;
            deep_freeze(ctx, &child, depth + 1)?;
        }
    }
    freeze(ctx, object);
    Ok(())
}

/// The function at place `callable` of visible namespace `namespace`: a
/// nested call of the tool the scope's marker named, with the guest's
/// arguments for the host's input mapper.
fn function<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    namespace: usize,
    callable: usize,
) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
            let toolbox = state.toolbox()?;
            let run = &toolbox.namespaces;
            let found = run
                .visible
                .get(namespace)
                .zip(run.scopes().and_then(|scopes| scopes.get(namespace)))
                .and_then(|(visible, scope)| Some((visible, scope.callables.get(callable)?)))
                .and_then(|(visible, target)| {
                    Some((visible, target, toolbox.catalog.exact(&target.tool_id)?))
                });
            let Some((visible, target, entry)) = found else {
                return settled_promise(&ctx, Err(messages::INTERNAL.to_owned()));
            };
            toolbox.counters.call.fetch_add(1, Ordering::Relaxed);
            let call = Call {
                entry,
                kind: CallKind::Namespace,
                input: None,
                mcp: None,
                namespace: Some(NamespaceInput {
                    args: args.0,
                    target: NamespaceTarget {
                        id: visible.registration.id.clone(),
                        path: target.path_text.clone(),
                        callee: target.callee.clone(),
                    },
                }),
                callee: Callee::Namespace,
            };
            enqueue(&ctx, &state, &toolbox, call)
        },
    )
}
