//! The first exec of a run with plugin namespaces: held until the run's
//! namespace scopes are built by the plugins' `createScope` on the Node
//! thread (`namespaces.js`), then let through or refused. Used by the run
//! surface and by an exec that waited for the catalog (`early.rs`).

use std::sync::Arc;
use std::time::Duration;

use code_mode_core::namespaces::{ScopeProblem, ScopesDone};
use code_mode_core::result::ErrorCode;
use code_mode_core::runs::{Control, Done, ExecRequest, Stop};
use napi::bindgen_prelude::{FunctionRef, Unknown};
use napi::{Env, Error, JsValue};

use crate::engine::Engine;
use crate::js::{self, call_function};

/// Holds the exec until the run's namespace scopes are built (the first
/// exec of the run, or one that came while they were being built), then
/// lets it through; a scope that fails refuses it with `invalid_input`.
/// The budget runs meanwhile: when it ends, or the call is aborted, the
/// exec goes through to the engine stopped and reports that.
pub fn exec_after_scopes(
    env: &Env,
    engine: &Arc<Engine>,
    scopes: &FunctionRef<(), ()>,
    signal: Unknown,
    request: ExecRequest,
    control: Arc<Control>,
    settle: Done,
) {
    let agent_run = request.agent_run.clone();
    let budget = Duration::from_millis(agent_run.config.timeout_ms)
        .saturating_sub(request.started.elapsed());
    let gate = engine.hold(request, control.clone(), settle);
    let answer = gate.clone();
    let engine_ = engine.clone();
    let done = env.create_function_from_closure::<(), bool, _>("codeModeScopesDone", move |ctx| {
        let engine = &engine_;
        let namespaces = &agent_run.toolbox.namespaces;
        // What namespaces.js told, read; what cannot be read (it writes
        // both itself, so only memory fails here) refuses the exec rather
        // than leave it held: nothing else would answer it.
        let told = (|| -> napi::Result<(ScopesDone, Unknown)> {
            let kind: String = ctx.get(0)?;
            let done = serde_json::from_value(serde_json::Value::String(kind))
                .map_err(|e| Error::from_reason(e.to_string()))?;
            Ok((done, ctx.get(1)?))
        })();
        let (done, payload) = match told {
            Ok(told) => told,
            Err(error) => {
                engine.refuse_held(&answer, ErrorCode::InternalError, &error.reason);
                return Ok(false);
            }
        };
        match done {
            ScopesDone::Ready => {
                let json = js::string(&payload).ok().flatten().unwrap_or_default();
                match namespaces.accept(&json) {
                    Ok(()) => {
                        engine.open(&answer);
                        return Ok(true);
                    }
                    Err(message) => engine.refuse_held(&answer, ErrorCode::InvalidInput, &message),
                }
            }
            ScopesDone::Problem => {
                let problem = js::to_json_value(ctx.env, Some(payload)).and_then(|problem| {
                    serde_json::from_value::<ScopeProblem>(problem)
                        .map_err(|e| Error::from_reason(e.to_string()))
                });
                match problem {
                    Ok(problem) => {
                        let message = namespaces.problem(&problem);
                        engine.refuse_held(&answer, ErrorCode::InvalidInput, &message);
                    }
                    Err(error) => {
                        engine.refuse_held(&answer, ErrorCode::InternalError, &error.reason)
                    }
                }
            }
            ScopesDone::Stopped => {
                // The budget ended or the call was aborted first (the
                // abort listener stopped the control already).
                control.stop(Stop::Timeout);
                engine.open(&answer);
            }
        }
        Ok(false)
    });
    let called = done.and_then(|done| {
        let scopes = scopes.borrow_back(env)?;
        let budget = env.create_double(budget.as_secs_f64() * 1000.0)?;
        call_function(env, scopes.raw(), &[budget.raw(), signal.raw(), done.raw()])
            .map_err(|thrown| Error::from_reason(js::error_message(env, thrown)))
    });
    if let Err(error) = called {
        engine.refuse_held(&gate, ErrorCode::InternalError, &error.reason);
    }
}
