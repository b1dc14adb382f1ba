//! Where a `CodeMode`'s cells run: on worker threads in this process
//! (`isolation: 'thread'`, the core's [`ThreadEngine`]), or in sandbox
//! processes (`isolation: 'process'`, [`Sandboxes`]). Both take the same
//! requests and answer through the same `Done`; the binding never asks
//! which it has, except to tell the sandboxes about agent runs.

use std::path::PathBuf;
use std::sync::Arc;

use code_mode_core::result::ErrorCode;
use code_mode_core::runs::{
    AgentRun, Control, Done, Engine as ThreadEngine, ExecRequest, Gate as ThreadGate, WaitRequest,
};
#[cfg(target_os = "linux")]
use code_mode_sandbox::client::{Gate as ProcessGate, Sandboxes};

pub enum Engine {
    Thread(ThreadEngine),
    #[cfg(target_os = "linux")]
    Process(Sandboxes),
}

/// An exec held back until its namespace scopes are built.
#[derive(Clone)]
pub enum Gate {
    Thread(ThreadGate),
    #[cfg(target_os = "linux")]
    Process(ProcessGate),
}

impl Engine {
    pub fn is_closed(&self) -> bool {
        match self {
            Self::Thread(engine) => engine.is_closed(),
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => sandboxes.is_closed(),
        }
    }

    pub fn exec(&self, request: ExecRequest, control: Arc<Control>, done: Done) {
        match self {
            Self::Thread(engine) => engine.exec(request, control, done),
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => sandboxes.exec(request, control, done),
        }
    }

    pub fn wait(&self, request: WaitRequest, control: Arc<Control>, done: Done) {
        match self {
            Self::Thread(engine) => engine.wait(request, control, done),
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => sandboxes.wait(request, control, done),
        }
    }

    pub fn hold(&self, request: ExecRequest, control: Arc<Control>, done: Done) -> Gate {
        match self {
            Self::Thread(engine) => Gate::Thread(engine.hold(request, control, done)),
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => Gate::Process(sandboxes.hold(request, control, done)),
        }
    }

    pub fn open(&self, gate: &Gate) {
        match (self, gate) {
            (Self::Thread(engine), Gate::Thread(gate)) => engine.open(gate),
            #[cfg(target_os = "linux")]
            (Self::Process(sandboxes), Gate::Process(gate)) => sandboxes.open(gate),
            _ => {}
        }
    }

    pub fn refuse_held(&self, gate: &Gate, code: ErrorCode, message: &str) {
        match (self, gate) {
            (Self::Thread(engine), Gate::Thread(gate)) => engine.refuse_held(gate, code, message),
            #[cfg(target_os = "linux")]
            (Self::Process(sandboxes), Gate::Process(gate)) => {
                sandboxes.refuse_held(gate, code, message)
            }
            _ => {}
        }
    }

    pub fn refuse(&self, agent_run: Arc<AgentRun>, code: ErrorCode, message: &str, done: Done) {
        match self {
            Self::Thread(engine) => engine.refuse(agent_run, code, message, done),
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => sandboxes.refuse(agent_run, code, message, done),
        }
    }

    pub fn suspended_runs(&self) -> usize {
        match self {
            Self::Thread(engine) => engine.suspended_runs(),
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => sandboxes.suspended_runs(),
        }
    }

    pub fn begin_close(&self) {
        match self {
            Self::Thread(engine) => engine.begin_close(),
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => sandboxes.begin_close(),
        }
    }

    /// Blocks: call it off the JavaScript thread.
    pub fn close(&self) {
        match self {
            Self::Thread(engine) => engine.close(),
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => sandboxes.close(),
        }
    }

    pub fn is_process(&self) -> bool {
        !matches!(self, Self::Thread(_))
    }

    /// Tells the sandboxes of an agent run, with what its copies are made
    /// from (process isolation; nothing in thread isolation).
    pub fn register(
        &self,
        agent_run: &Arc<AgentRun>,
        active: bool,
        namespaces: String,
        tools: Arc<Vec<String>>,
    ) {
        match self {
            Self::Thread(_) => {}
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => sandboxes.register(agent_run, active, namespaces, tools),
        }
    }

    /// The binding's surface of an agent run is gone.
    pub fn forget(&self, agent_run: u64) {
        match self {
            Self::Thread(_) => {}
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => sandboxes.forget(agent_run),
        }
    }

    /// The sandboxes, in process isolation.
    #[cfg(target_os = "linux")]
    pub fn sandboxes(&self) -> Option<&Sandboxes> {
        match self {
            Self::Thread(_) => None,
            #[cfg(target_os = "linux")]
            Self::Process(sandboxes) => Some(sandboxes),
        }
    }
}

/// The `code-mode-sandbox` executable beside the loaded addon (the
/// platform package ships them together; `npm run build` copies the one
/// it builds beside the `.node` file it writes).
#[cfg(target_os = "linux")]
pub fn sandbox_beside_addon() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;

    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    let address = sandbox_beside_addon as *const () as *const libc::c_void;
    // SAFETY: `dladdr` reads the address of a function of this library and
    // fills `info`, which is large enough and zeroed.
    let found = unsafe { libc::dladdr(address, info.as_mut_ptr()) };
    if found == 0 {
        return None;
    }
    // SAFETY: `dladdr` succeeded, so `info` is filled in.
    let info = unsafe { info.assume_init() };
    if info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: `dli_fname` is a NUL-terminated path owned by the loader,
    // valid while the library is loaded (it is: this code runs in it).
    let path = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(path.to_bytes()));
    Some(path.parent()?.join(SANDBOX_EXECUTABLE))
}

/// The executable's name.
#[cfg(target_os = "linux")]
pub const SANDBOX_EXECUTABLE: &str = "code-mode-sandbox";
