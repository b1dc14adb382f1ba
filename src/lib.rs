//! The napi binding: JavaScript shapes in, core types through, results out.
//! Guest code never runs here; everything heavy happens on the core's workers.

mod checks;
mod code_mode;
mod config;
mod context;
mod diagnostics;
mod early;
mod engine;
mod hooks;
mod host;
mod js;
mod namespaces;
mod prepared;
mod runtime;
mod scopes;
mod surface;
mod tools;
mod transcript;
mod tsfn;

pub use code_mode::{create_code_mode, CodeMode};
pub use config::resolve_code_mode_config;
pub use diagnostics::{code_mode_diagnostics, CodeModeDiagnostics};
pub use hooks::code_mode_hook_metadata;
pub use namespaces::{
    clear_code_mode_namespaces_for_plugin, clear_code_mode_namespaces_for_test,
    create_code_mode_namespace_tool, list_code_mode_namespaces,
    register_code_mode_namespace_for_plugin,
};
pub use surface::CodeModeRunSurface;
pub use transcript::nested_call_transcript;
