//! The lifetime of one code-mode runtime, shared by everything that can still
//! use it.

use std::sync::{Arc, Weak};

use code_mode_core::runs::Stop;
use napi::Env;
use parking_lot::Mutex;

use crate::checks::Checker;
use crate::early::Early;
use crate::engine::Engine;
use crate::host::{HostChannel, Results};
use crate::prepared::Builder;

/// What keeps a runtime open: the `CodeMode` object, each of its run
/// surfaces and each exec or wait in progress hold one reference. A gateway
/// may keep only its surfaces; `close()` ends the runtime on purpose.
pub struct Runtime {
    pub engine: Arc<Engine>,
    pub channel: Arc<HostChannel>,
    /// Turns exec and wait results into values (a large one over several
    /// event-loop turns).
    pub results: Results,
    /// Builds run catalogs off the JavaScript thread.
    pub builder: Builder,
    /// Checks namespace calls' mapped inputs off the JavaScript thread.
    pub checker: Arc<Checker>,
    /// Execs and waits waiting for their run's catalog, which `close()`
    /// answers.
    pub early: Mutex<Vec<Weak<Early>>>,
}

impl Runtime {
    /// Keeps `early` for `close()`, forgetting those no longer waiting.
    pub fn hold_early(&self, early: &Arc<Early>) {
        let mut held = self.early.lock();
        held.retain(|early| early.upgrade().is_some_and(|early| early.waiting()));
        held.push(Arc::downgrade(early));
    }

    /// Answers every call still waiting for its catalog as closed.
    pub fn close_early(&self, env: &Env) {
        let held: Vec<_> = self.early.lock().drain(..).collect();
        for early in held.iter().filter_map(Weak::upgrade) {
            early.stop(env, Stop::Closed);
        }
    }
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
        self.checker.stop();
        let (engine, channel) = (self.engine.clone(), self.channel.clone());
        let _ = std::thread::Builder::new()
            .name("code-mode-close".into())
            .spawn(move || {
                engine.close();
                channel.close();
            });
    }
}
