//! What a sandbox process does to itself before it runs anything a cell
//! controls, in this order (each step needs what the next takes away):
//!
//! 1. die with its parent (`PR_SET_PDEATHSIG`), and stop if the parent is
//!    gone already;
//! 2. close every file descriptor but its channel ([`CHANNEL_FD`]) and
//!    `/proc/stat`, opened read-only before ([`STAT_FD`]);
//! 3. move to `/`;
//! 4. limits: no files written, no core dumps, at most
//!    [`MAX_OPEN_FILES`] descriptors, and the address space the caller
//!    gives ([`Policy::address_space_bytes`]);
//! 5. no new privileges (`PR_SET_NO_NEW_PRIVS`): no set-user-id program
//!    can give it more than it has;
//! 6. Landlock, where the kernel has it: no file access, no TCP, no
//!    abstract Unix sockets or signals outside the process;
//! 7. seccomp-bpf: the allow-list of [`seccomp`], and any other system call
//!    kills the process.
//!
//! The environment is the launcher's to empty ([`crate::launch`]): a
//! process cannot take back what its own start-up already read.
//!
//! [`CHANNEL_FD`]: crate::CHANNEL_FD
//! [`STAT_FD`]: crate::STAT_FD

#[cfg(target_os = "linux")]
mod landlock;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub mod seccomp;

use std::fmt;

/// Descriptors the sandbox may hold at once: its channel, and room for the
/// few an engine opens without the file system (none today).
pub const MAX_OPEN_FILES: u64 = 16;

/// What the lockdown is given.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// The parent's process id, as the launcher knew it: a sandbox whose
    /// parent is gone by the time it locks down stops.
    pub parent: Option<u32>,
    /// `RLIMIT_AS`, the operating system's backstop to the engine's own
    /// counting allocator; `None` leaves it as inherited.
    pub address_space_bytes: Option<u64>,
}

/// How far the kernel enforces Landlock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landlock {
    /// Every restriction asked for.
    Full,
    /// Some: an older kernel's Landlock knows fewer rights.
    Partial,
    /// None: the kernel has no Landlock, or has it turned off. The seccomp
    /// filter still refuses `open` and `socket`.
    Unavailable,
}

/// What the lockdown did, for the sandbox to report to its parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub landlock: Landlock,
    /// The seccomp filter is installed.
    pub seccomp: bool,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let landlock = match self.landlock {
            Landlock::Full => "full",
            Landlock::Partial => "partial",
            Landlock::Unavailable => "unavailable",
        };
        write!(f, "landlock={landlock} seccomp={}", self.seccomp)
    }
}

/// Why the lockdown could not be completed; the sandbox then stops without
/// running anything.
#[derive(Debug)]
pub struct Error {
    pub step: &'static str,
    pub reason: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.step, self.reason)
    }
}

impl Error {
    fn new(step: &'static str, reason: impl fmt::Display) -> Self {
        Self {
            step,
            reason: reason.to_string(),
        }
    }
}

/// Locks this process down (see the module's documentation). Call it on
/// the main thread before any other thread starts: the seccomp filter is
/// inherited by threads made after it, and is put on this thread only.
#[cfg(target_os = "linux")]
pub fn lock_down(policy: &Policy) -> Result<Report, Error> {
    linux::die_with_parent(policy.parent)?;
    linux::close_inherited()?;
    std::env::set_current_dir("/").map_err(|error| Error::new("working directory", error))?;
    linux::limit(policy)?;
    linux::no_new_privileges()?;
    let landlock = landlock::restrict()?;
    seccomp::install()?;
    Ok(Report {
        landlock,
        seccomp: true,
    })
}

/// Elsewhere the sandbox is a separate process and nothing more yet.
#[cfg(not(target_os = "linux"))]
pub fn lock_down(_policy: &Policy) -> Result<Report, Error> {
    Ok(Report {
        landlock: Landlock::Unavailable,
        seccomp: false,
    })
}
