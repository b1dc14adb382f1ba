//! One QuickJS VM per cell: limits, the guest globals, evaluation and the JSON
//! codec. A VM is driven by one thread at a time and may move between threads.
//!
//! Nothing here knows about workers, parked runs or the host: the engine
//! (`runs`) drives a [`Vm`] and moves its [`CallTable`] entries to the host.

mod alloc;
mod bridge;
mod callees;
mod calls;
mod control;
mod errors;
#[cfg(feature = "test-hooks")]
pub mod fault;
mod js;
mod json;
mod lazy;
mod output;
mod prelude;
mod state;
mod timer_table;
mod timers;
mod toolbox;
mod vm;

#[cfg(test)]
mod bound_tests;
#[cfg(test)]
mod tests;

pub use calls::{Arrived, CallKey, NamespaceTarget, Settlement};
pub use control::{Control, Stop};
pub use toolbox::Toolbox;
pub use vm::{retired_vms, CellOutcome, Vm, VmLimits};

/// Every global a cell starts with (QuickJS's standard globals and code
/// mode's own), computed once from a bound VM of an empty run: what a plugin
/// namespace's `globalName` may not be.
pub fn guest_globals() -> &'static [String] {
    static NAMES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        let names = (|| -> rquickjs::Result<Vec<String>> {
            let vm = Vm::blank(1 << 20)?;
            let limits = VmLimits {
                memory_bytes: 64 << 20,
                stack_bytes: 1 << 20,
                max_output_bytes: 1 << 16,
                max_bridge_bytes: 1 << 16,
            };
            let toolbox = std::sync::Arc::new(Toolbox {
                catalog: std::sync::Arc::new(crate::catalog::Catalog::build(&[])),
                mcp: Default::default(),
                namespaces: Default::default(),
                validate: false,
                validators: Default::default(),
                search_default_limit: 1,
                max_search_limit: 1,
                counters: Default::default(),
            });
            vm.bind(limits, std::sync::Arc::new(Control::new()), toolbox)?;
            Ok(vm.global_names())
        })();
        let mut names = names.unwrap_or_default();
        names.sort();
        names
    });
    &NAMES
}
