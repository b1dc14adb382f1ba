//! Process-wide facts for tests and operators.

use napi_derive::napi;

/// What the addon has loaded or started in this process.
#[napi(object)]
pub struct CodeModeDiagnostics {
    /// Whether the TypeScript machinery (swc) has been initialised. A process
    /// that only runs JavaScript cells never initialises it.
    pub typescript_initialized: bool,
}

/// Process-wide diagnostics of the addon.
#[napi]
pub fn code_mode_diagnostics() -> CodeModeDiagnostics {
    CodeModeDiagnostics {
        typescript_initialized: code_mode_core::source::typescript_initialized(),
    }
}
