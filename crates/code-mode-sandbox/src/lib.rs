//! The sandbox process of `isolation: 'process'` (`docs/isolation.md`): an
//! operating-system boundary around the engine, so that an engine taken
//! over by a cell reaches nothing but its own process.
//!
//! - [`lockdown`]: what the sandbox does to itself before it runs anything
//!   a cell controls. On Linux: no new privileges, every inherited file
//!   descriptor but its channel closed, the working directory `/`, limits
//!   on files and address space, death with its parent, Landlock (no file
//!   access, no TCP, no abstract sockets or signals outside the process)
//!   where the kernel has it, and a seccomp-bpf allow-list of the system
//!   calls an engine needs (no `open`, no `socket`, no new process, no new
//!   executable memory).
//! - [`launch`]: how the addon starts a sandbox, with an empty environment
//!   and one socket as its only channel.
//! - [`wire`]: the frames on that socket; [`inbound`]: reading them by
//!   whichever thread is awake.
//! - [`server`]: the sandbox's half (its engine, a copy of each agent run);
//!   the binary (`src/main.rs`) locks down, then serves.
//! - [`client`]: the addon's half, [`client::Sandboxes`], an engine whose
//!   runs live in sandbox processes, with their restarts.
//!
//! Linux only so far: elsewhere the addon refuses `isolation: 'process'`.

#[cfg(target_os = "linux")]
pub mod client;
#[cfg(target_os = "linux")]
pub mod inbound;
#[cfg(target_os = "linux")]
pub mod launch;
pub mod lockdown;
#[cfg(all(target_os = "linux", feature = "test-hooks"))]
pub mod probe;
#[cfg(target_os = "linux")]
pub mod server;
pub mod wire;

/// The file descriptor the sandbox's channel has in the sandbox process.
pub const CHANNEL_FD: i32 = 3;

/// Where the sandbox keeps `/proc/stat`, opened before its lockdown: the
/// hand-off policy reads the machine's idle time from it (read-only, and
/// the only call allowed on it is `pread64`).
pub const STAT_FD: i32 = 4;
