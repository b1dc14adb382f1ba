//! One QuickJS VM per cell: limits, the guest globals, evaluation and the JSON
//! codec. A VM is driven by one thread at a time and may move between threads.

mod alloc;
pub mod bridge;
mod control;
mod errors;
mod json;
mod output;
mod prelude;
mod vm;

pub use control::{Control, Stop};
pub use json::{string_lossy, to_json, ConvertError};
pub use output::OutputLog;
pub use vm::{CellOutcome, Vm, VmLimits};
