//! Plugin namespaces on the JavaScript side: the exported registry functions,
//! and what `prepareRun` and `exec` ask of the registry (`namespaces.js`).
//!
//! The registry is compiled once per JavaScript environment and kept as the
//! environment's instance data: every `CodeMode` of a process (or of one
//! worker thread) shares it, as a module-level registry would be shared.

use code_mode_core::messages;
use code_mode_core::namespaces::Registration;
use code_mode_core::records::NamespaceFunctions;
use napi::bindgen_prelude::{FunctionRef, JsObjectValue, Unknown};
use napi::{sys, Env, Error, JsValue, Result};
use napi_derive::napi;

use crate::js::{self, call_function};

/// The compiled registry's functions.
struct Registry {
    register: FunctionRef<(), ()>,
    tool: FunctionRef<(), ()>,
    clear_plugin: FunctionRef<(), ()>,
    clear_all: FunctionRef<(), ()>,
    list: FunctionRef<(), ()>,
    snapshot: FunctionRef<(), ()>,
    bind: FunctionRef<(), ()>,
}

/// This environment's registry, compiled on first use.
fn registry(env: &Env) -> Result<&'static Registry> {
    if let Some(registry) = env.get_instance_data::<Registry>()? {
        return Ok(registry);
    }
    let registry = compile(env)?;
    env.set_instance_data(registry, (), |_| {})?;
    env.get_instance_data::<Registry>()?
        .map(|registry| &*registry)
        .ok_or_else(|| Error::from_reason(messages::REGISTRY_NOT_KEPT))
}

fn compile(env: &Env) -> Result<Registry> {
    let factory: Unknown = js::load(env, "namespaces.js")?;
    let made = js::make(env, &factory, &[], messages::REGISTRY_FAILED)?;
    Ok(Registry {
        register: made.function(NamespaceFunctions::register)?,
        tool: made.function(NamespaceFunctions::tool)?,
        clear_plugin: made.function(NamespaceFunctions::clearPlugin)?,
        clear_all: made.function(NamespaceFunctions::clearAll)?,
        list: made.function(NamespaceFunctions::list)?,
        snapshot: made.function(NamespaceFunctions::snapshot)?,
        bind: made.function(NamespaceFunctions::bind)?,
    })
}

/// Calls one of the registry's functions; what it throws is thrown on to the
/// caller as the very same value.
fn call<'env>(
    env: &'env Env,
    pick: impl Fn(&Registry) -> &FunctionRef<(), ()>,
    args: &[sys::napi_value],
) -> Result<Unknown<'env>> {
    let function = pick(registry(env)?).borrow_back(env)?.raw();
    match call_function(env, function, args) {
        Ok(value) => Ok(js::value(env, value)),
        Err(thrown) => Err(js::rethrow(env, thrown)),
    }
}

/// Registers a plugin namespace: a frozen global `globalName` in every cell
/// of a run whose catalog holds each of `requiredToolNames` as a tool of
/// plugin `pluginId`. Throws an Error naming the field and the rule for an
/// empty id or pluginId, a `globalName` that is not an identifier, reserved,
/// or a global of the guest or of Node, a missing `createScope`, empty
/// `requiredToolNames`, and an id or globalName already registered.
#[napi(
    catch_unwind,
    ts_args_type = "pluginId: string, registration: NamespaceRegistration"
)]
pub fn register_code_mode_namespace_for_plugin(
    env: Env,
    plugin_id: Unknown,
    registration: Unknown,
) -> Result<()> {
    call(
        &env,
        |r| &r.register,
        &[plugin_id.raw(), registration.raw()],
    )?;
    Ok(())
}

/// Marks a scope member as callable: the guest's call runs `toolName` (one of
/// the namespace's `requiredToolNames`) through the gateway's `executeTool`,
/// with the input `inputMapper(args)` returns (default: the first argument,
/// or `{}`).
#[napi(
    catch_unwind,
    ts_args_type = "toolName: string, inputMapper?: (args: unknown[]) => unknown",
    ts_return_type = "NamespaceToolMarker"
)]
pub fn create_code_mode_namespace_tool<'env>(
    env: &'env Env,
    tool_name: Unknown,
    input_mapper: Unknown,
) -> Result<Unknown<'env>> {
    // Not an `Option`: napi would read `null` as absent, and a mapper of
    // `null` is a mistake to report, not a default.
    call(env, |r| &r.tool, &[tool_name.raw(), input_mapper.raw()])
}

/// Removes every namespace `pluginId` registered (rollback or uninstall).
/// Runs prepared before keep the namespaces they saw.
#[napi(catch_unwind, ts_args_type = "pluginId: string")]
pub fn clear_code_mode_namespaces_for_plugin(env: Env, plugin_id: Unknown) -> Result<()> {
    call(&env, |r| &r.clear_plugin, &[plugin_id.raw()])?;
    Ok(())
}

/// Removes every registered namespace (between test cases).
#[napi(catch_unwind)]
pub fn clear_code_mode_namespaces_for_test(env: Env) -> Result<()> {
    call(&env, |r| &r.clear_all, &[])?;
    Ok(())
}

/// The registered namespaces, in registration order.
#[napi(
    catch_unwind,
    ts_return_type = "{ id: string; pluginId: string; globalName: string }[]"
)]
pub fn list_code_mode_namespaces(env: &Env) -> Result<Unknown<'_>> {
    call(env, |r| &r.list, &[])
}

/// The registrations as they stand now, for `prepareRun`: their metadata,
/// and the JavaScript array of their records in the same order.
pub struct Snapshot<'env> {
    pub registrations: Vec<Registration>,
    records: Unknown<'env>,
}

/// What the registry holds now; `None` when it is empty (or was never used,
/// which costs nothing).
pub fn snapshot(env: &Env) -> Result<Option<Snapshot<'_>>> {
    if env.get_instance_data::<Registry>()?.is_none() {
        return Ok(None);
    }
    let taken = call(env, |r| &r.snapshot, &[])?;
    let Some(taken) = js::object(&taken)? else {
        return Ok(None);
    };
    let meta: Unknown = taken.get_named_property("json")?;
    let records: Unknown = taken.get_named_property("records")?;
    let meta = js::string(&meta)?.unwrap_or_default();
    let registrations = serde_json::from_str(&meta)
        .map_err(|e| Error::from_reason(messages::registry_error(&e.to_string())))?;
    Ok(Some(Snapshot {
        registrations,
        records,
    }))
}

/// The namespaces of one agent run, as the registry bound them.
pub struct RunBinding {
    /// `scopes(budgetMs, signal, done)`.
    pub scopes: FunctionRef<(), ()>,
    /// `input(id, path, args)`, for `host.js`.
    pub input: FunctionRef<(), ()>,
}

/// Binds the visible records (`visible`: indexes into the snapshot) to the
/// run's context: the fields createScope's `ctx` carries besides `signal`.
pub fn bind(
    env: &Env,
    snapshot: &Snapshot,
    visible: &[usize],
    base: Unknown,
) -> Result<RunBinding> {
    let unusable = |reason: &str| Error::from_reason(messages::registry_error(reason));
    let all =
        js::object(&snapshot.records)?.ok_or_else(|| unusable(messages::REGISTRY_NO_RECORDS))?;
    let mut records = env.create_array(visible.len() as u32)?;
    for (slot, &index) in visible.iter().enumerate() {
        let record: Unknown = all.get_element(index as u32)?;
        records.set(slot as u32, record)?;
    }
    let records = records.to_unknown();
    let bound = call(env, |r| &r.bind, &[records.raw(), base.raw()])?;
    let bound = js::object(&bound)?.ok_or_else(|| unusable(messages::REGISTRY_BIND_FAILED))?;
    let function = |name: &str| -> Result<FunctionRef<(), ()>> {
        let value: Unknown = bound.get_named_property(name)?;
        js::function::<(), ()>(&value)?
            .ok_or_else(|| unusable(messages::REGISTRY_BIND_FAILED))?
            .create_ref()
    };
    Ok(RunBinding {
        scopes: function("scopes")?,
        input: function("input")?,
    })
}
