//! Tests only (feature `test-hooks`): what the lockdown must refuse, tried
//! from inside. A cell whose code is `//probe:<what> <argument>` runs the
//! probe instead (`server.rs`), and its result is the probe's answer:
//! `open PATH`, `create PATH`, `socket`, `forbidden` (a system call off the
//! allow-list), `fork`, `exec-memory`, `abort`.

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
