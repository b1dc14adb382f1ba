//! `code-mode-sandbox`: locks itself down, says so on its channel
//! (`ready <report>`, one line), then serves the addon's frames
//! (`code_mode_sandbox::wire`) with its engine until the channel closes,
//! and exits once the engine has ended its runs.
//!
//! Started by `code_mode_sandbox::launch::spawn`: `--parent PID` names the
//! process that must still be its parent, `--address-space BYTES` its
//! `RLIMIT_AS`, `--workers N` its engine's worker threads.

use std::io::Write;
use std::process::ExitCode;

#[cfg(target_os = "linux")]
fn main() -> ExitCode {
    use std::os::fd::FromRawFd;
    use std::os::unix::net::UnixStream;

    use code_mode_sandbox::lockdown;
    use code_mode_sandbox::server::Server;
    use code_mode_sandbox::CHANNEL_FD;

    let (policy, workers) = match arguments(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(reason) => return usage(&reason),
    };
    // SAFETY: `fcntl(F_GETFD)` only asks whether the descriptor is open.
    if unsafe { libc::fcntl(CHANNEL_FD, libc::F_GETFD) } == -1 {
        return usage("no channel at descriptor 3");
    }
    // SAFETY: descriptor 3 is open (checked above) and nothing else in this
    // process owns it: the launcher put the channel there for us.
    let channel = std::sync::Arc::new(unsafe { UnixStream::from_raw_fd(CHANNEL_FD) });
    let mut out = &*channel;
    // The time zone (`TZ`, else /etc/localtime) is read now: the C library
    // keeps it, and the lockdown leaves no file to read it from later.
    // SAFETY: `tzset` only reads the environment and the zone file.
    unsafe { tzset() };
    keep_stat();
    let report = match lockdown::lock_down(&policy) {
        Ok(report) => report,
        Err(error) => {
            let _ = writeln!(out, "lockdown-failed {error}");
            return ExitCode::from(71);
        }
    };
    // The engine's threads start now, under the lockdown.
    let server = match Server::new(channel.clone(), workers) {
        Ok(server) => std::sync::Arc::new(server),
        Err(error) => {
            let _ = writeln!(out, "lockdown-failed the engine did not start: {error}");
            return ExitCode::from(71);
        }
    };
    if writeln!(out, "ready {report}").is_err() {
        return ExitCode::from(74);
    }
    let served = server.serve();
    server.close();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        // A frame it could not read: the addon will see the channel close.
        Err(_) => ExitCode::from(65),
    }
}

/// Opens `/proc/stat` at [`STAT_FD`](code_mode_sandbox::STAT_FD) for the
/// hand-off policy, which cannot open it after the lockdown; without it
/// (no procfs), the policy never sees the machine busy and polls as on an
/// idle one.
#[cfg(target_os = "linux")]
fn keep_stat() {
    use code_mode_sandbox::STAT_FD;
    use std::os::fd::{FromRawFd, IntoRawFd};
    let Ok(stat) = std::fs::File::open("/proc/stat") else {
        return;
    };
    let fd = stat.into_raw_fd();
    if fd != STAT_FD {
        // SAFETY: `dup2` of a descriptor this process holds onto STAT_FD,
        // which the launcher left closed (only 0, 1, 2 and 3 are open).
        let moved = unsafe { libc::dup2(fd, STAT_FD) };
        // SAFETY: `fd` is ours and closed once.
        unsafe { libc::close(fd) };
        if moved != STAT_FD {
            return;
        }
    }
    // SAFETY: STAT_FD now holds the file just opened, owned by nobody else.
    let stat = unsafe { std::fs::File::from_raw_fd(STAT_FD) };
    code_mode_core::runs::hand_off::read_stat_from(stat);
}

#[cfg(target_os = "linux")]
extern "C" {
    /// The C library's time-zone setup (POSIX).
    fn tzset();
}

#[cfg(not(target_os = "linux"))]
fn main() -> ExitCode {
    usage("sandbox processes run on Linux only so far")
}

/// The lockdown's policy and the worker count from the arguments.
#[cfg(target_os = "linux")]
fn arguments(
    mut args: impl Iterator<Item = String>,
) -> Result<(code_mode_sandbox::lockdown::Policy, usize), String> {
    let mut policy = code_mode_sandbox::lockdown::Policy::default();
    let mut workers = code_mode_core::runs::Engine::default_workers();
    while let Some(arg) = args.next() {
        let value = args.next().ok_or_else(|| format!("{arg} needs a value"))?;
        let number = |what: &str| {
            value
                .parse::<u64>()
                .map_err(|_| format!("{what}: not a number: {value}"))
        };
        match arg.as_str() {
            "--parent" => {
                policy.parent = Some(
                    u32::try_from(number("--parent")?)
                        .map_err(|_| "--parent: not a process id".to_owned())?,
                )
            }
            "--address-space" => policy.address_space_bytes = Some(number("--address-space")?),
            "--workers" => {
                workers = usize::try_from(number("--workers")?)
                    .ok()
                    .filter(|count| {
                        (1..=code_mode_core::limits::MAX_WORKER_THREADS).contains(count)
                    })
                    .ok_or_else(|| "--workers: 1 to 16".to_owned())?
            }
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok((policy, workers))
}

/// A wrong start: the sandbox is started by the addon, not by hand.
fn usage(reason: &str) -> ExitCode {
    let mut stderr = std::io::stderr();
    let _ = writeln!(
        stderr,
        "code-mode-sandbox: {reason}\nusage: code-mode-sandbox [--parent PID] [--address-space BYTES] [--workers N], with its channel at descriptor 3 (started by @openclaw/code-mode)"
    );
    ExitCode::from(64)
}
