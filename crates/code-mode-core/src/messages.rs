//! Every guest- and model-visible message, byte-exact with SPEC.md.

pub const MODULE_ACCESS_DISABLED: &str = "code mode module access is disabled.";
pub const TYPESCRIPT_FAILED_PREFIX: &str = "typescript transform failed: ";
pub const CODE_AND_COMMAND_MISMATCH: &str = "code and command must match when both are provided.";
pub const CODE_REQUIRED: &str = "code or command must be a non-empty string.";
pub const BAD_LANGUAGE: &str = "language must be javascript or typescript.";
pub const BAD_RESTART_SAFE: &str = "restartSafe must be a boolean.";
pub const TIMEOUT: &str = "code mode timeout exceeded.";
pub const MEMORY_LIMIT: &str = "code mode memory limit exceeded.";
pub const OUTPUT_LIMIT: &str = "code mode output limit exceeded.";
pub const CLOSED: &str = "code mode is closed.";
pub const ABORTED: &str = "code mode run was aborted.";
pub const PENDING_WITHOUT_HOST_WORK: &str = "code mode promise is pending without host work.";

/// `code mode <language> input is disabled.`
pub fn language_disabled(language: &str) -> String {
    format!("code mode {language} input is disabled.")
}

/// The limit on the size of a cell's source, in bytes of UTF-8.
pub const MAX_SOURCE_BYTES: usize = 1024 * 1024;

pub fn source_too_large() -> String {
    format!("code must be at most {MAX_SOURCE_BYTES} bytes.")
}
pub const INTERNAL: &str = "code mode internal error.";
