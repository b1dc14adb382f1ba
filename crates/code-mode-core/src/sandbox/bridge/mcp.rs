//! The guest's `MCP` and `API` globals (`docs/mcp.md`).
//!
//! `MCP.<server>.<tool>(input)` is a nested call like `tools.call`, checked
//! first against the tool's input rules. `MCP.$api`, `MCP.<server>.$api`,
//! `API.list` and `API.read` are answered here, on the worker, from what the
//! run's namespace built once; `API.*` are synchronous.

use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rquickjs::function::Rest;
use rquickjs::{qjs, Ctx, Function, Object, Promise, Value};

use super::enqueue::{enqueue, Call, Callee, McpInput};
use super::feed::settled_promise;
use super::text_argument;
use crate::mcp::{ApiRefusal, Member, ServerLayout};
use crate::messages;
use crate::records::CallKind;
use crate::sandbox::js::{define, define_listed, freeze, plain_error};
use crate::sandbox::lazy;
use crate::sandbox::state::SharedState;
use crate::sandbox::toolbox::Toolbox;

/// Installs `MCP` and `API`; both exist in every cell (empty without MCP tools).
/// `MCP`, each server's object and each function in it are made when a cell
/// first uses them (`sandbox/lazy`), so a fresh VM costs the same however many
/// MCP tools the run has.
pub(super) fn install<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    toolbox: &Arc<Toolbox>,
) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    define(&globals, "API", api_object(ctx, state)?)?;
    let root = Rc::new(RootMembers {
        state: state.clone(),
        toolbox: toolbox.clone(),
    });
    define(
        &globals,
        "MCP",
        lazy::object(ctx, state.lazy_class.get(), root)?,
    )
}

/// The members of `MCP`: `$api`, then one object per server.
struct RootMembers {
    state: SharedState,
    toolbox: Arc<Toolbox>,
}

impl lazy::Members for RootMembers {
    fn names(&self) -> Vec<&str> {
        let servers = self.toolbox.mcp.servers.iter();
        std::iter::once("$api")
            .chain(servers.map(|server| server.identifier.as_str()))
            .collect()
    }

    fn find(&self, name: &str) -> Option<u32> {
        if name == "$api" {
            return Some(0);
        }
        Some(self.toolbox.mcp.server_index(name)? as u32 + 1)
    }

    fn enumerable(&self) -> bool {
        true
    }

    fn make<'js>(&self, ctx: &Ctx<'js>, key: u32) -> rquickjs::Result<Value<'js>> {
        let Some(server) = (key as usize).checked_sub(1) else {
            return Ok(root_api_function(ctx, &self.state)?
                .with_name("$api")?
                .into_value());
        };
        let members = Rc::new(ServerMembers {
            state: self.state.clone(),
            toolbox: self.toolbox.clone(),
            server,
        });
        lazy::object(ctx, self.state.lazy_class.get(), members)
    }
}

/// The members of `MCP.<server>`, in the order of its layout.
struct ServerMembers {
    state: SharedState,
    toolbox: Arc<Toolbox>,
    server: usize,
}

impl ServerMembers {
    fn layout(&self) -> rquickjs::Result<&ServerLayout> {
        self.toolbox
            .mcp
            .layout(self.server)
            .ok_or(rquickjs::Error::Unknown)
    }
}

impl lazy::Members for ServerMembers {
    fn names(&self) -> Vec<&str> {
        self.layout()
            .map(|layout| {
                layout
                    .members
                    .iter()
                    .map(|(name, _)| name.as_str())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn find(&self, name: &str) -> Option<u32> {
        self.layout().ok()?.find(name)
    }

    fn enumerable(&self) -> bool {
        true
    }

    fn make<'js>(&self, ctx: &Ctx<'js>, key: u32) -> rquickjs::Result<Value<'js>> {
        let layout = self.layout()?;
        let (name, member) = layout
            .members
            .get(key as usize)
            .ok_or(rquickjs::Error::Unknown)?;
        let (state, s) = (&self.state, self.server);
        let function = match *member {
            Member::Api => server_api_function(ctx, state, s)?,
            Member::Tool(t) => tool_function(ctx, state, s, t)?,
            Member::Refusal(r) => {
                let message = self.toolbox.mcp.refusals[r].message.clone();
                refusal_function(ctx, message)?
            }
            Member::Group(g) => {
                // A group has a few operations (resources, prompts): made
                // together, frozen.
                let group = Object::new(ctx.clone())?;
                for (operation, t) in &layout.groups[g].1 {
                    let function = tool_function(ctx, state, s, *t)?;
                    define_listed(&group, operation, function.with_name(operation.as_str())?)?;
                }
                freeze(ctx, &group);
                return Ok(group.into_value());
            }
        };
        Ok(function.with_name(name.as_str())?.into_value())
    }
}

/// `MCP.<server>.<tool>(input)`: a nested call to the tool's exact catalog id.
fn tool_function<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    server: usize,
    tool: usize,
) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
            let toolbox = state.toolbox()?;
            let namespace = &toolbox.mcp;
            let found = namespace
                .servers
                .get(server)
                .and_then(|s| Some((s, s.tools.get(tool)?)))
                .zip(namespace.rules(server, tool))
                .and_then(|((server, tool), rules)| {
                    Some((server, tool, toolbox.catalog.exact(&tool.id)?, rules))
                });
            let Some((server, mcp_tool, entry, rules)) = found else {
                return settled_promise(&ctx, Err(messages::INTERNAL.to_owned()));
            };
            toolbox.counters.call.fetch_add(1, Ordering::Relaxed);
            let extra_arguments = args.0.len() > 1;
            let call = Call {
                entry,
                kind: CallKind::Mcp,
                input: args.0.into_iter().next(),
                mcp: Some(McpInput {
                    rules,
                    extra_arguments,
                }),
                namespace: None,
                callee: Callee::Mcp {
                    server: &server.identifier,
                    path: &mcp_tool.path,
                    object_schema: mcp_tool.object_schema,
                },
            };
            enqueue(&ctx, &state, &toolbox, call)
        },
    )
}

/// A function that only says why it cannot be called.
fn refusal_function<'js>(ctx: &Ctx<'js>, message: String) -> rquickjs::Result<Function<'js>> {
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>| -> rquickjs::Result<Promise<'js>> {
            settled_promise(&ctx, Err(message.clone()))
        },
    )
}

/// `MCP.$api()`.
fn root_api_function<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>| -> rquickjs::Result<Promise<'js>> {
            let toolbox = state.toolbox()?;
            let cap = state.memory_bytes.get();
            match toolbox.mcp.root_api(cap) {
                Ok(json) => settled_promise(&ctx, Ok(json)),
                Err(ApiRefusal::Rejected(message)) => settled_promise(&ctx, Err(message)),
                Err(ApiRefusal::TooLarge) => Err(out_of_memory(&ctx, cap)),
            }
        },
    )
}

/// `MCP.<server>.$api(selector?, {schema?})`.
fn server_api_function<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    server: usize,
) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
            let mut args = args.0.into_iter();
            let (selector, options) = (args.next(), args.next());
            let selector = match text_argument(&ctx, selector.as_ref()) {
                Ok(selector) => selector,
                Err(error) => return super::rejected_by_guest(&ctx, &state, error),
            };
            let schema = match options.and_then(|options| options.into_object()) {
                Some(options) => options.get::<_, Value>("schema")?.as_bool() == Some(true),
                None => false,
            };
            let toolbox = state.toolbox()?;
            let cap = state.memory_bytes.get();
            match toolbox.mcp.server_api(server, Some(&selector), schema, cap) {
                Ok(json) => settled_promise(&ctx, Ok(json)),
                Err(ApiRefusal::Rejected(message)) => settled_promise(&ctx, Err(message)),
                Err(ApiRefusal::TooLarge) => Err(out_of_memory(&ctx, cap)),
            }
        },
    )
}

/// `API`: `list(prefix?)` and `read(path)`, synchronous.
fn api_object<'js>(ctx: &Ctx<'js>, state: &SharedState) -> rquickjs::Result<Object<'js>> {
    let api = Object::new(ctx.clone())?;
    let list_state = state.clone();
    let list = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Value<'js>> {
            let prefix = match args.0.first() {
                None => None,
                Some(value) if value.is_undefined() || value.is_null() => None,
                Some(value) if value.is_string() => Some(text_argument(&ctx, Some(value))?),
                Some(_) => return Err(throw(&ctx, messages::API_PREFIX_NOT_STRING)),
            };
            let toolbox = list_state.toolbox()?;
            let cap = list_state.memory_bytes.get();
            answer(&ctx, toolbox.mcp.api_list(prefix.as_deref(), cap), cap)
        },
    )?;
    let read_state = state.clone();
    let read = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, args: Rest<Value<'js>>| -> rquickjs::Result<Value<'js>> {
            let path = match args.0.first() {
                Some(value) if value.is_string() => text_argument(&ctx, Some(value))?,
                _ => return Err(throw(&ctx, messages::API_PATH_NOT_STRING)),
            };
            let toolbox = read_state.toolbox()?;
            let cap = read_state.memory_bytes.get();
            answer(&ctx, toolbox.mcp.api_read(&path, cap), cap)
        },
    )?;
    define_listed(&api, "list", list.with_name("list")?)?;
    define_listed(&api, "read", read.with_name("read")?)?;
    freeze(ctx, &api);
    Ok(api)
}

/// The answer's JSON as a value, or its message thrown as a plain `Error`.
fn answer<'js>(
    ctx: &Ctx<'js>,
    answer: Result<String, ApiRefusal>,
    cap: usize,
) -> rquickjs::Result<Value<'js>> {
    match answer {
        Ok(json) => ctx.json_parse(json),
        Err(ApiRefusal::Rejected(message)) => Err(throw(ctx, &message)),
        Err(ApiRefusal::TooLarge) => Err(out_of_memory(ctx, cap)),
    }
}

/// An answer longer than the VM's memory limit (`cap`) ends the cell as
/// reading it into the VM would have: the answer is never written; the VM's
/// allocator is asked for more than its limit, refuses (marking the VM out
/// of memory for good, which no `catch` undoes) and QuickJS throws its
/// out-of-memory error. The guest sees what it saw before answers were
/// bounded: `code mode memory limit exceeded.`
fn out_of_memory(ctx: &Ctx<'_>, cap: usize) -> rquickjs::Error {
    let size = qjs::size_t::try_from(cap.saturating_add(1)).unwrap_or(qjs::size_t::MAX);
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: the context is live while `ctx` is; `js_malloc` returns a block
    // of this runtime or NULL, with QuickJS's out-of-memory error thrown.
    let block = unsafe { qjs::js_malloc(raw, size) };
    if !block.is_null() {
        // SAFETY: `block` was just allocated in this context and is unused.
        unsafe { qjs::js_free(raw, block) };
    }
    rquickjs::Error::Exception
}

fn throw(ctx: &Ctx<'_>, message: &str) -> rquickjs::Error {
    match plain_error(ctx, message) {
        Ok(error) => ctx.throw(error),
        Err(error) => error,
    }
}
