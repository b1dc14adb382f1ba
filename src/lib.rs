//! The napi binding: JavaScript shapes in, core types through, results out.
//! Guest code never runs here; everything heavy happens on the core's workers.

mod code_mode;
mod config;
mod context;
mod diagnostics;
mod hooks;
mod host;
mod js;
mod surface;
mod tools;
mod transcript;
mod tsfn;

pub use code_mode::{create_code_mode, CodeMode};
pub use config::resolve_code_mode_config;
pub use diagnostics::{code_mode_diagnostics, CodeModeDiagnostics};
pub use hooks::code_mode_hook_metadata;
pub use surface::CodeModeRunSurface;
pub use transcript::nested_call_transcript;
