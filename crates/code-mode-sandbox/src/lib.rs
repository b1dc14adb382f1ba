//! The sandbox process: where code mode's engine will run behind an
//! operating-system boundary (issue 34), so that an engine taken over by a
//! cell reaches nothing but its own process.
//!
//! This crate holds the two halves that do not depend on the engine:
//!
//! - [`lockdown`]: what the sandbox does to itself before it runs anything
//!   a cell controls. On Linux: no new privileges, every inherited file
//!   descriptor but its channel closed, the working directory `/`, limits
//!   on files and address space, death with its parent, Landlock (no file
//!   access, no TCP, no abstract sockets or signals outside the process)
//!   where the kernel has it, and a seccomp-bpf allow-list of the system
//!   calls an engine needs (no `open`, no `socket`, no new process, no new
//!   executable memory). Elsewhere, nothing yet: see [`lockdown::Report`].
//! - [`launch`]: how the addon starts a sandbox, with an empty environment
//!   and one socket as its only channel.
//!
//! The binary (`src/main.rs`) locks itself down and answers on its channel.
//! The engine and its protocol move in next; until then the addon does not
//! start it.

#[cfg(unix)]
pub mod client;
#[cfg(unix)]
pub mod inbound;
#[cfg(unix)]
pub mod launch;
pub mod lockdown;
#[cfg(all(unix, feature = "test-hooks"))]
pub mod probe;
#[cfg(unix)]
pub mod server;
pub mod wire;

/// The file descriptor the sandbox's channel has in the sandbox process.
pub const CHANNEL_FD: i32 = 3;
