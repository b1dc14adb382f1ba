//! One QuickJS VM per cell: limits, the guest globals, evaluation and the JSON
//! codec. A VM is driven by one thread at a time and may move between threads.
//!
//! Nothing here knows about workers, parked runs or the host: the engine
//! (`runs`) drives a [`Vm`] and moves its [`CallTable`] entries to the host.

mod alloc;
mod bridge;
mod calls;
mod control;
mod errors;
mod js;
mod json;
mod output;
mod prelude;
mod state;
mod toolbox;
mod vm;

#[cfg(test)]
mod tests;

pub use calls::{CallKey, Settlement};
pub use control::{Control, Stop};
pub use toolbox::Toolbox;
pub use vm::{CellOutcome, Vm, VmLimits};
