//! An exec held back before it reaches the workers, while the host prepares
//! what its cells need first (the plugin namespaces' scopes, built by the
//! gateway's own `createScope` on the JavaScript thread). Its budget is
//! already running. Whoever comes first lets it through or refuses it: the
//! host when it is done, or `close`, which answers every held exec at once.

use std::sync::Arc;

use parking_lot::Mutex;

use super::leg::{Done, Leg};
use super::request::ExecRequest;
use crate::messages;
use crate::result::ErrorCode;
use crate::sandbox::Control;

/// A held exec; cheap to clone, let through or refused once.
#[derive(Clone)]
pub struct Gate {
    pub(super) held: Arc<Mutex<Option<Held>>>,
}

pub(super) struct Held {
    pub(super) request: ExecRequest,
    pub(super) control: Arc<Control>,
    pub(super) done: Done,
}

impl Gate {
    pub(super) fn new(request: ExecRequest, control: Arc<Control>, done: Done) -> Self {
        Self {
            held: Arc::new(Mutex::new(Some(Held {
                request,
                control,
                done,
            }))),
        }
    }

    /// The held exec, unless someone let it through or refused it already.
    pub(super) fn take(&self) -> Option<Held> {
        self.held.lock().take()
    }
}

impl Held {
    /// Answers the exec with a failure, without running it.
    pub(super) fn refuse(self, code: ErrorCode, message: &str) {
        let restart_safe = self.request.input.restart_safe;
        Leg::new(
            self.done,
            self.control,
            self.request.agent_run,
            restart_safe,
        )
        .refuse(code, message);
    }

    /// Answers the exec as closed.
    pub(super) fn close(self) {
        self.refuse(ErrorCode::RuntimeUnavailable, messages::CLOSED);
    }
}
