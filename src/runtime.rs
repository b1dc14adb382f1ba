//! The lifetime of one code-mode runtime, shared by everything that can still
//! use it.

use std::sync::Arc;

use code_mode_core::runs::Engine;

use crate::host::HostChannel;
use crate::prepared::Builder;

/// What keeps a runtime open: the `CodeMode` object, each of its run
/// surfaces and each exec or wait in progress hold one reference. A gateway
/// may keep only its surfaces; `close()` ends the runtime on purpose.
pub struct Runtime {
    pub engine: Arc<Engine>,
    pub channel: Arc<HostChannel>,
    /// Builds run catalogs off the JavaScript thread.
    pub builder: Builder,
}

/// When the last holder is garbage-collected without `close()`, the runtime
/// still stops its threads and drops its parked runs (nothing could resume
/// them any more), off the JavaScript thread.
impl Drop for Runtime {
    fn drop(&mut self) {
        if self.engine.is_closed() {
            return;
        }
        self.engine.begin_close();
        let (engine, channel) = (self.engine.clone(), self.channel.clone());
        let _ = std::thread::Builder::new()
            .name("code-mode-close".into())
            .spawn(move || {
                engine.close();
                channel.close();
            });
    }
}
