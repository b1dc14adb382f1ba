//! `code-mode-sandbox`: locks itself down, says so on its channel, and
//! answers requests on it, one line each, until the channel closes.
//!
//! The requests today are a health check (`ping`), `threads N`, which does
//! in the locked-down process what any threaded program does (threads,
//! memory, locks, sleeps, time, randomness), and `cell {json}`, which runs
//! a cell on the engine with one tool answered inside (`cells.rs`), so that
//! a test sees the allow-list hold for both. The protocol that carries the
//! addon's runs replaces them (issue 34).
//!
//! Started by `code_mode_sandbox::launch::start`: `--parent PID` names the
//! process that must still be its parent, `--address-space BYTES` its
//! `RLIMIT_AS`.

use std::io::{BufRead, BufReader, Write};
use std::process::ExitCode;

#[cfg(unix)]
mod cells;

#[cfg(unix)]
fn main() -> ExitCode {
    use std::os::fd::FromRawFd;
    use std::os::unix::net::UnixStream;

    use code_mode_sandbox::lockdown;
    use code_mode_sandbox::CHANNEL_FD;

    let policy = match policy(std::env::args().skip(1)) {
        Ok(policy) => policy,
        Err(reason) => return usage(&reason),
    };
    // SAFETY: `fcntl(F_GETFD)` only asks whether the descriptor is open.
    if unsafe { libc::fcntl(CHANNEL_FD, libc::F_GETFD) } == -1 {
        return usage("no channel at descriptor 3");
    }
    // SAFETY: descriptor 3 is open (checked above) and nothing else in this
    // process owns it: the launcher put the channel there for us.
    let channel = unsafe { UnixStream::from_raw_fd(CHANNEL_FD) };
    let mut out = &channel;
    let report = match lockdown::lock_down(&policy) {
        Ok(report) => report,
        Err(error) => {
            let _ = writeln!(out, "lockdown-failed {error}");
            return ExitCode::from(71);
        }
    };
    if writeln!(out, "ready {report}").is_err() {
        return ExitCode::from(74);
    }
    serve(&channel)
}

#[cfg(not(unix))]
fn main() -> ExitCode {
    usage("sandbox processes run on Unix only so far")
}

/// The lockdown's policy from the arguments.
#[cfg(unix)]
fn policy(
    mut args: impl Iterator<Item = String>,
) -> Result<code_mode_sandbox::lockdown::Policy, String> {
    let mut policy = code_mode_sandbox::lockdown::Policy::default();
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
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(policy)
}

/// A wrong start: the sandbox is started by the addon, not by hand.
fn usage(reason: &str) -> ExitCode {
    let mut stderr = std::io::stderr();
    let _ = writeln!(
        stderr,
        "code-mode-sandbox: {reason}\nusage: code-mode-sandbox [--parent PID] [--address-space BYTES], with its channel at descriptor 3 (started by @openclaw/code-mode)"
    );
    ExitCode::from(64)
}

/// Answers each request line until the channel closes.
#[cfg(unix)]
fn serve(channel: &std::os::unix::net::UnixStream) -> ExitCode {
    let mut out = channel;
    for line in BufReader::new(channel).lines() {
        let Ok(line) = line else {
            return ExitCode::from(74);
        };
        let answer = answer(line.trim());
        if writeln!(out, "{answer}").is_err() {
            return ExitCode::from(74);
        }
    }
    ExitCode::SUCCESS
}

#[cfg(unix)]
fn answer(request: &str) -> String {
    let (verb, rest) = request.split_once(' ').unwrap_or((request, ""));
    match verb {
        "ping" => "pong".to_owned(),
        "cell" => cells::run(rest),
        "threads" => match rest.parse::<usize>() {
            Ok(count) if (1..=64).contains(&count) => threads(count),
            _ => "error threads takes 1 to 64".to_owned(),
        },
        #[cfg(feature = "test-hooks")]
        "probe" => probe::run(rest),
        _ => format!("error unknown request {verb}"),
    }
}

/// What an engine does, on `count` threads: allocate and free, lock, sleep,
/// read clocks and randomness, name itself.
#[cfg(unix)]
fn threads(count: usize) -> String {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    let total = Arc::new(Mutex::new(0u64));
    let mut handles = Vec::new();
    for index in 0..count {
        let total = total.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("sandbox-{index}"))
            .spawn(move || {
                let started = Instant::now();
                let mut map: HashMap<u64, Vec<u8>> = HashMap::new();
                for k in 0..64u64 {
                    map.insert(k, vec![k as u8; 64 * 1024]);
                }
                std::thread::sleep(Duration::from_millis(1));
                let sum: u64 = map.values().map(|v| u64::from(v[0])).sum();
                *total.lock().unwrap_or_else(|e| e.into_inner()) += sum;
                started.elapsed()
            });
        match spawned {
            Ok(handle) => handles.push(handle),
            Err(error) => return format!("error spawn: {error}"),
        }
    }
    for handle in handles {
        if handle.join().is_err() {
            return "error a thread panicked".to_owned();
        }
    }
    let total = *total.lock().unwrap_or_else(|e| e.into_inner());
    format!("threads {count} ok {total}")
}

/// Tests only: what the lockdown must refuse, tried from inside.
#[cfg(all(unix, feature = "test-hooks"))]
mod probe {
    pub fn run(request: &str) -> String {
        let (what, rest) = request.split_once(' ').unwrap_or((request, ""));
        match what {
            "open" => match std::fs::File::open(rest) {
                Ok(_) => "open ok".to_owned(),
                Err(error) => format!("open error {}", error.raw_os_error().unwrap_or(0)),
            },
            "create" => match std::fs::File::create(rest) {
                Ok(_) => "create ok".to_owned(),
                Err(error) => format!("create error {}", error.raw_os_error().unwrap_or(0)),
            },
            "socket" => {
                // SAFETY: `socket` takes integers; a descriptor it returns is closed.
                let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) };
                if fd >= 0 {
                    // SAFETY: `fd` was just returned by `socket` and is ours.
                    unsafe { libc::close(fd) };
                    return "socket ok".to_owned();
                }
                format!(
                    "socket error {}",
                    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
                )
            }
            "forbidden" => {
                // `getuid`: harmless, and not on the allow-list.
                // SAFETY: `syscall(SYS_getuid)` has no arguments.
                let uid = unsafe { libc::syscall(libc::SYS_getuid) };
                format!("forbidden returned {uid}")
            }
            "fork" => {
                // SAFETY: in the child (if there were one) only `_exit` runs.
                let pid = unsafe { libc::fork() };
                if pid == 0 {
                    // SAFETY: `_exit` ends the child at once.
                    unsafe { libc::_exit(0) };
                }
                format!("fork returned {pid}")
            }
            "exec-memory" => {
                // SAFETY: an anonymous mapping with no address hint, which
                // nothing reads or writes (the lockdown kills the process first).
                let address = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        4096,
                        libc::PROT_READ | libc::PROT_EXEC,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                        -1,
                        0,
                    )
                };
                format!("exec-memory returned {}", address as usize)
            }
            "abort" => std::process::abort(),
            _ => format!("error unknown probe {what}"),
        }
    }
}
