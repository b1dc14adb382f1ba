//! Starting a sandbox process: the executable at `binary`, with an empty
//! environment, `/` as its working directory, `/dev/null` as its standard
//! streams (it closes them as it locks down), and one end of a Unix socket
//! pair as its channel, at [`CHANNEL_FD`]. The other end is the caller's.

use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::CHANNEL_FD;

/// What the sandbox is told at its start.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `RLIMIT_AS` for the sandbox (`lockdown::Policy::address_space_bytes`).
    pub address_space_bytes: Option<u64>,
    /// The engine's worker threads (`--workers`); the sandbox's default
    /// when `None`.
    pub workers: Option<usize>,
}

/// A started sandbox: its process, and the caller's end of its channel.
pub struct Sandbox {
    pub child: Child,
    pub channel: UnixStream,
}

/// Starts the sandbox at `binary`.
pub fn start(binary: &Path, options: &Options) -> io::Result<Sandbox> {
    let (ours, theirs) = UnixStream::pair()?;
    let child = spawn(binary, options, theirs)?;
    Ok(Sandbox {
        child,
        channel: ours,
    })
}

/// Starts the sandbox at `binary` with `theirs` as its channel (the other
/// end of a pair the caller made, and may write to already).
pub fn spawn(binary: &Path, options: &Options, theirs: UnixStream) -> io::Result<Child> {
    let theirs_fd = theirs.as_raw_fd();
    let mut command = Command::new(binary);
    command.env_clear();
    // The gateway's time zone, which the sandbox loads before it locks
    // itself down (its only variable).
    if let Some(zone) = std::env::var_os("TZ") {
        command.env("TZ", zone);
    }
    command
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .arg("--parent")
        .arg(std::process::id().to_string());
    if let Some(bytes) = options.address_space_bytes {
        command.arg("--address-space").arg(bytes.to_string());
    }
    if let Some(workers) = options.workers {
        command.arg("--workers").arg(workers.to_string());
    }
    // SAFETY: the closure runs in the child between fork and exec, and only
    // makes async-signal-safe calls (`dup2`, `fcntl`) on descriptors it was
    // given; it allocates nothing.
    unsafe {
        command.pre_exec(move || channel_at_its_place(theirs_fd));
    }
    let child = command.spawn()?;
    drop(theirs);
    Ok(child)
}

/// In the child: puts the channel at [`CHANNEL_FD`], open across exec.
fn channel_at_its_place(fd: i32) -> io::Result<()> {
    if fd == CHANNEL_FD {
        // `dup2` onto itself keeps close-on-exec: clear it.
        // SAFETY: `fcntl(F_SETFD, 0)` on a descriptor this process holds.
        let cleared = unsafe { libc::fcntl(fd, libc::F_SETFD, 0) };
        return if cleared == -1 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        };
    }
    // SAFETY: `dup2` of a descriptor this process holds onto CHANNEL_FD;
    // the copy does not have close-on-exec.
    let duplicated = unsafe { libc::dup2(fd, CHANNEL_FD) };
    if duplicated == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
