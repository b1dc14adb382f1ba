//! The bounds a nested call meets when it is queued
//! (`sandbox/bridge/enqueue.rs`), at their value and one past it:
//! [`MAX_QUEUED_CALLS`], the run's bridge budget for tool inputs (pending
//! inputs included), [`MAX_LEG_INPUT_BYTES`], [`MAX_OBJECT_MEMBERS`] and
//! [`NAMESPACE_ARGS_BYTES`]; the MCP one-object rule; and how a refused
//! input names the call.

mod common;

use std::sync::Arc;

use code_mode_core::catalog::Catalog;
use code_mode_core::catalog::Schema;
use code_mode_core::catalog::{McpMeta, ToolSource};
use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::limits::{
    MAX_LEG_INPUT_BYTES, MAX_OBJECT_MEMBERS, MAX_QUEUED_CALLS, NAMESPACE_ARGS_BYTES,
};
use code_mode_core::mcp::McpNamespace;
use code_mode_core::namespaces::{self, Registration, RunNamespaces};
use code_mode_core::runs::AgentRun;
use code_mode_core::runs::Engine;
use common::*;
use serde_json::json;
use serde_json::value::RawValue;

#[test]
fn a_run_queues_max_queued_calls_and_refuses_one_more() {
    assert_eq!(MAX_QUEUED_CALLS, 1024);
    // Queued in one synchronous burst: none is dispatched before the last.
    let done = exec(
        "const calls = []; \
         for (let i = 0; i < 1025; i++) calls.push(tools.echo({ i }).then((r) => r.i, (e) => e.message)); \
         const got = await Promise.all(calls); \
         return [got.filter((v, i) => v === i).length, got.slice(1024)]",
    );
    assert_eq!(
        done["value"],
        json!([1024, ["too many queued code mode tool calls."]]),
        "{done}"
    );
}

#[test]
fn a_tool_input_fills_the_bridge_budget_and_one_byte_more_is_refused() {
    // Half the memory limit: 2 MiB.
    let config = CodeModeConfig {
        memory_limit_bytes: 4 * 1024 * 1024,
        ..CodeModeConfig::default()
    };
    let max = 2 * 1024 * 1024;
    let refused = format!(
        "tool input is larger than the code mode bridge limit of {max} bytes (inputs of pending calls included)."
    );
    // `{"s":"x…"}` is 8 bytes around the string. `fail` answers with a
    // short rejection, so that no copy of the input comes back.
    let code = format!(
        "const send = (n) => tools.fail({{ s: 'x'.repeat(n - 8) }}).then(() => 'resolved', (e) => e.message); \
         return [await send({max}), await send({max} + 1)]"
    );
    let engine = Engine::new(1).unwrap();
    let host = Arc::new(ThreadHost::default());
    let state = host.state.clone();
    let agent = agent_run(host, &config);
    let done = exec_on(&engine, agent, config, &code, Language::Javascript);
    assert_eq!(done["status"], "completed", "{done}");
    assert_ne!(done["value"][0], refused.as_str(), "{done}");
    assert_eq!(done["value"][1], refused.as_str(), "{done}");
    // Only the first reached the host.
    assert_eq!(state.started.lock().unwrap().len(), 1);
}

#[test]
fn a_tool_input_object_of_max_object_members_is_sent_and_one_more_is_refused() {
    assert_eq!(MAX_OBJECT_MEMBERS, 65_536);
    // Members JSON leaves out (`undefined`) do not count; the bound holds
    // at any depth. `fail` answers with a short rejection.
    let done = exec(
        "const wide = (n, skipped = 0) => { const o = {}; \
           for (let i = 0; i < n; i++) o['k' + i] = i; \
           for (let i = 0; i < skipped; i++) o['u' + i] = undefined; return o }; \
         const send = (input) => tools.fail(input).then(() => 'resolved', (e) => e.message); \
         return [await send(wide(65536, 5)), await send(wide(65537)), \
                 await send([{ a: wide(65536) }]), await send([{ a: wide(65537) }])]",
    );
    let refused = "tool input has an object with more than 65536 members.";
    let value = &done["value"];
    assert_eq!(done["status"], "completed", "{done}");
    assert_ne!(value[0], refused, "{done}");
    assert_eq!(value[1], refused, "{done}");
    assert_ne!(value[2], refused, "{done}");
    assert_eq!(value[3], refused, "{done}");
}

#[test]
fn pending_inputs_share_the_bridge_budget_by_their_sum() {
    // Two inputs of 10 KB in flight at once are 20 KB of a 16 MiB budget
    // (a product of their sizes would pass it).
    let done = exec(
        "const a = tools.echo({ ms: 50, s: 'x'.repeat(10000) }); \
         const b = tools.echo({ ms: 0, s: 'y'.repeat(10000) }); \
         const got = await Promise.allSettled([a, b]); \
         return got.map((r) => r.status === 'fulfilled' ? r.value.s.length : r.reason.message)",
    );
    assert_eq!(done["value"], json!([10000, 10000]), "{done}");
}

#[test]
fn one_exec_sends_max_leg_input_bytes_of_inputs_and_one_byte_more_is_refused() {
    assert_eq!(MAX_LEG_INPUT_BYTES, 64 * 1024 * 1024);
    // Four inputs of the whole 16 MiB bridge budget, one after another, are
    // the leg's 64 MiB; then a one-byte input (`1`) is refused. `fail`
    // answers with a short rejection, so no copy comes back.
    let config = CodeModeConfig {
        memory_limit_bytes: 128 * 1024 * 1024,
        timeout_ms: 60_000,
        ..CodeModeConfig::default()
    };
    let bridge = 16 * 1024 * 1024;
    let code = format!(
        "const send = (input) => tools.fail(input).then(() => 'resolved', (e) => e.message === '' ? 'sent' : e.message); \
         const out = []; \
         for (let i = 0; i < 4; i++) out.push(await send({{ s: 'x'.repeat({bridge} - 8) }})); \
         out.push(await send(1)); \
         return out"
    );
    let engine = Engine::new(1).unwrap();
    let host = Arc::new(ThreadHost::default());
    let state = host.state.clone();
    let agent = agent_run(host, &config);
    let done = exec_on(&engine, agent, config, &code, Language::Javascript);
    let refused = format!(
        "tool inputs of this exec or wait call passed the code mode budget of {MAX_LEG_INPUT_BYTES} bytes; return, or await yield_control() and continue after the next wait."
    );
    assert_eq!(
        done["value"],
        json!(["sent", "sent", "sent", "sent", refused]),
        "{done}"
    );
    assert_eq!(state.started.lock().unwrap().len(), 4);
}

#[test]
fn an_mcp_tool_takes_one_object_argument() {
    let mut search = tool("docs__search");
    search.source = ToolSource::Mcp;
    search.source_name = Some("docs".into());
    search.mcp = Some(McpMeta {
        server: "docs".into(),
        tool: "search".into(),
        operation: None,
    });
    let config = CodeModeConfig::default();
    let host = Arc::new(ThreadHost::default());
    let state = host.state.clone();
    let agent = agent_run_with(host, &config, &[search]);
    let engine = Engine::new(1).unwrap();
    let done = exec_on(
        &engine,
        agent,
        config,
        "const send = (...args) => MCP.docs.search(...args).then((r) => r, (e) => e.message); \
         return [await send({ q: 'a' }), await send(), await send([1]), await send('q'), await send(5), await send({ q: 'b' }, 2)]",
        Language::Javascript,
    );
    let refused = "MCP namespace tools accept one object argument.";
    assert_eq!(
        done["value"],
        json!([{ "q": "a" }, {}, refused, refused, refused, refused]),
        "{done}"
    );
    assert_eq!(state.started.lock().unwrap().len(), 2);
}

/// An agent run whose plugin namespace `Issues` (plugin `github`) has one
/// function, `Issues.list`, calling the plugin tool `list_issues`; the test
/// host answers a call with its input (the arguments' JSON array).
fn namespace_run(config: &CodeModeConfig, host: Arc<ThreadHost>) -> Arc<AgentRun> {
    let mut list = tool("list_issues");
    list.source_name = Some("github".into());
    let catalog = Arc::new(Catalog::build(&[list]));
    let registration = Registration {
        id: "github-issues".into(),
        plugin_id: "github".into(),
        global_name: "Issues".into(),
        description: None,
        prompt: None,
        required_tool_names: vec!["list_issues".into()],
    };
    let visible = namespaces::visible(vec![registration], |_, _| true);
    let run_namespaces = RunNamespaces::resolve(visible, &catalog);
    let scope = json!([{ "tree": { "list": null }, "callables": [{ "path": ["list"], "tool": "list_issues" }] }]);
    run_namespaces.accept(&scope.to_string()).unwrap();
    let mcp = Arc::new(McpNamespace::build(&catalog));
    AgentRun::new(
        Arc::new(config.clone()),
        catalog,
        mcp,
        Arc::new(run_namespaces),
        host,
        vec!["exec".into(), "wait".into()],
        owner(),
    )
}

#[test]
fn namespace_call_arguments_of_namespace_args_bytes_are_sent_and_one_byte_more_is_refused() {
    assert_eq!(NAMESPACE_ARGS_BYTES, 1024 * 1024);
    // `["x…"]` is 4 bytes around the string, `[1,null,"x…"]` 11; trailing
    // `undefined`s are dropped, one in the middle is `null`.
    let config = CodeModeConfig::default();
    let host = Arc::new(ThreadHost::default());
    let state = host.state.clone();
    let agent = namespace_run(&config, host);
    let engine = Engine::new(1).unwrap();
    let code = format!(
        "const send = (...args) => Issues.list(...args).then((r) => r.length === 1 ? r[0].length : r, (e) => e.message); \
         const last = (...args) => send(...args).then((r) => typeof r === 'string' ? r : r[2].length); \
         return [await send('x'.repeat({max} - 4)), await send('x'.repeat({max} - 3)), await send(1, undefined, 2, undefined), \
           await last(1, undefined, 'x'.repeat({max} - 11)), await last(1, undefined, 'x'.repeat({max} - 10)), await send('x'.repeat(3 * {max}))]",
        max = NAMESPACE_ARGS_BYTES
    );
    let done = exec_on(&engine, agent, config, &code, Language::Javascript);
    let refused = format!(
        "plugin namespace call arguments are larger than {NAMESPACE_ARGS_BYTES} bytes of JSON."
    );
    assert_eq!(
        done["value"],
        json!([
            NAMESPACE_ARGS_BYTES - 4,
            refused,
            [1, null, 2],
            NAMESPACE_ARGS_BYTES - 11,
            refused,
            refused
        ]),
        "{done}"
    );
    assert_eq!(state.started.lock().unwrap().len(), 3);
}

#[test]
fn an_input_its_schema_refuses_names_the_call_as_the_cell_wrote_it() {
    let mut read = tool("read");
    read.parameters = Some(Schema::from_json(
        RawValue::from_string(
            r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#
                .to_owned(),
        )
        .unwrap(),
    ));
    let config = CodeModeConfig::default();
    let agent = agent_run_with(Arc::new(ThreadHost::default()), &config, &[read]);
    let engine = Engine::new(1).unwrap();
    let done = exec_on(
        &engine,
        agent,
        config,
        "const sent = (p) => p.then(() => 'sent', (e) => e.message); \
         return [await sent(tools.read({})), await sent(tools.call('read', { path: 1 }))]",
        Language::Javascript,
    );
    assert_eq!(
        done["value"],
        json!([
            "Invalid input for tools.read: input: missing required property \"path\". tools.describe(\"openclaw:core:read\") shows its input schema.",
            "Invalid input for tools.call(\"read\"): input.path: expected string, got 1. tools.describe(\"openclaw:core:read\") shows its input schema."
        ]),
        "{done}"
    );
}
