//! The lockdown, seen from outside: a started sandbox holds only its
//! channel, has no environment, runs in `/` under its limits with no new
//! privileges and the seccomp filter, still does what an engine does, and
//! is refused files and sockets; a forbidden system call, a new process or
//! executable memory kills it, and only it.

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Child;

use code_mode_sandbox::launch::{self, Options, Sandbox};

const BINARY: &str = env!("CARGO_BIN_EXE_code-mode-sandbox");

struct Running {
    child: Child,
    lines: BufReader<UnixStream>,
    channel: UnixStream,
    ready: String,
}

impl Running {
    fn start() -> Self {
        let Sandbox { child, channel } =
            launch::start(Path::new(BINARY), &Options::default()).unwrap();
        let mut lines = BufReader::new(channel.try_clone().unwrap());
        let mut ready = String::new();
        lines.read_line(&mut ready).unwrap();
        Self {
            child,
            lines,
            channel,
            ready: ready.trim().to_owned(),
        }
    }

    /// Sends one request; its answer, or `None` when the channel closed.
    fn ask(&mut self, request: &str) -> Option<String> {
        writeln!(self.channel, "{request}").ok()?;
        let mut answer = String::new();
        match self.lines.read_line(&mut answer) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(answer.trim().to_owned()),
        }
    }

    fn proc(&self, name: &str) -> String {
        std::fs::read_to_string(format!("/proc/{}/{name}", self.child.id())).unwrap()
    }

    /// The signal that ended the process.
    fn killed_by(mut self) -> Option<i32> {
        self.child.wait().unwrap().signal()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_started_sandbox_reports_its_lockdown_and_answers() {
    let mut sandbox = Running::start();
    assert!(
        sandbox.ready.starts_with("ready landlock="),
        "{}",
        sandbox.ready
    );
    assert!(sandbox.ready.ends_with("seccomp=true"), "{}", sandbox.ready);
    assert_eq!(sandbox.ask("ping").as_deref(), Some("pong"));
}

#[test]
fn it_holds_only_its_channel_no_environment_and_runs_in_the_root_directory() {
    let sandbox = Running::start();
    let fd_dir = format!("/proc/{}/fd", sandbox.child.id());
    let mut fds: Vec<String> = std::fs::read_dir(fd_dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    fds.sort();
    assert_eq!(fds, ["3"]);
    assert_eq!(sandbox.proc("environ"), "");
    let cwd = std::fs::read_link(format!("/proc/{}/cwd", sandbox.child.id())).unwrap();
    assert_eq!(cwd, Path::new("/"));
}

#[test]
fn it_runs_with_no_new_privileges_the_seccomp_filter_and_its_limits() {
    let sandbox = Running::start();
    let status = sandbox.proc("status");
    assert!(
        status.lines().any(|line| line == "NoNewPrivs:\t1"),
        "{status}"
    );
    assert!(status.lines().any(|line| line == "Seccomp:\t2"), "{status}");
    let limits = sandbox.proc("limits");
    let limit = |name: &str| -> Vec<String> {
        let line = limits.lines().find(|line| line.starts_with(name)).unwrap();
        line[name.len()..]
            .split_whitespace()
            .take(2)
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(limit("Max open files"), ["16", "16"]);
    assert_eq!(limit("Max file size"), ["0", "0"]);
    assert_eq!(limit("Max core file size"), ["0", "0"]);
}

#[test]
fn what_an_engine_does_passes_the_filter() {
    let mut sandbox = Running::start();
    // 8 threads, each 4 MiB of allocations, a lock, a sleep, a hash map
    // (its seed from getrandom) and a thread name.
    assert_eq!(
        sandbox.ask("threads 8").as_deref(),
        Some("threads 8 ok 16128")
    );
    assert_eq!(sandbox.ask("ping").as_deref(), Some("pong"));
}

#[test]
fn files_and_sockets_are_refused() {
    let mut sandbox = Running::start();
    let eacces = libc::EACCES;
    assert_eq!(
        sandbox.ask("probe open /etc/hostname"),
        Some(format!("open error {eacces}"))
    );
    assert_eq!(
        sandbox.ask("probe open /proc/self/status"),
        Some(format!("open error {eacces}"))
    );
    let target = std::env::temp_dir().join(format!("code-mode-sandbox-{}", std::process::id()));
    let answer = sandbox.ask(&format!("probe create {}", target.display()));
    assert_eq!(answer, Some(format!("create error {eacces}")));
    assert!(!target.exists());
    assert_eq!(
        sandbox.ask("probe socket"),
        Some(format!("socket error {eacces}"))
    );
    // Still serving: a refusal is an error, not the end.
    assert_eq!(sandbox.ask("ping").as_deref(), Some("pong"));
}

#[test]
fn a_forbidden_system_call_kills_the_sandbox_and_nothing_else() {
    let mut doomed = Running::start();
    let mut neighbour = Running::start();
    assert_eq!(doomed.ask("probe forbidden"), None, "the channel closes");
    assert_eq!(doomed.killed_by(), Some(libc::SIGSYS));
    assert_eq!(neighbour.ask("ping").as_deref(), Some("pong"));
}

#[test]
fn a_new_process_or_executable_memory_kills_the_sandbox() {
    for probe in ["fork", "exec-memory"] {
        let mut sandbox = Running::start();
        assert_eq!(sandbox.ask(&format!("probe {probe}")), None, "{probe}");
        assert_eq!(sandbox.killed_by(), Some(libc::SIGSYS), "{probe}");
    }
}

#[test]
fn an_abort_inside_ends_the_sandbox_with_its_own_signal() {
    let mut sandbox = Running::start();
    assert_eq!(sandbox.ask("probe abort"), None);
    assert_eq!(sandbox.killed_by(), Some(libc::SIGABRT));
}

#[test]
fn a_sandbox_whose_parent_is_not_the_one_named_stops_before_it_runs_anything() {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let mut command = std::process::Command::new(BINARY);
    command.env_clear().args(["--parent", "1"]);
    let theirs_fd = std::os::fd::AsRawFd::as_raw_fd(&theirs);
    let channel_at_3 = move || {
        // SAFETY: `dup2` of a descriptor the child holds onto 3.
        if unsafe { libc::dup2(theirs_fd, 3) } == -1 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: only `dup2`, which is async-signal-safe, runs between fork
    // and exec.
    unsafe { std::os::unix::process::CommandExt::pre_exec(&mut command, channel_at_3) };
    let mut child = command.spawn().unwrap();
    drop(theirs);
    let mut line = String::new();
    BufReader::new(ours).read_line(&mut line).unwrap();
    assert_eq!(
        line.trim(),
        "lockdown-failed parent death signal: the parent is gone"
    );
    assert_eq!(child.wait().unwrap().code(), Some(71));
}

/// A cell's result as JSON, run in the sandbox.
fn cell(sandbox: &mut Running, request: serde_json::Value) -> serde_json::Value {
    let answer = sandbox
        .ask(&format!("cell {request}"))
        .expect("the sandbox answered");
    serde_json::from_str(&answer).unwrap_or_else(|_| panic!("not a result: {answer}"))
}

#[test]
fn the_engine_runs_javascript_and_typescript_cells_under_the_lockdown() {
    let mut sandbox = Running::start();
    let result = cell(
        &mut sandbox,
        serde_json::json!({ "code": "const xs = [3, 1, 2].sort(); return { xs, t: typeof Date.now(), r: Math.random() < 1 }" }),
    );
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(
        result["value"],
        serde_json::json!({ "xs": [1, 2, 3], "t": "number", "r": true })
    );
    let result = cell(
        &mut sandbox,
        serde_json::json!({ "language": "typescript", "code": "const n: number = await new Promise<number>((resolve) => setTimeout(() => resolve(41), 5)); return n + 1" }),
    );
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], 42);
}

#[test]
fn deadlines_and_the_memory_limit_hold_under_the_lockdown() {
    let mut sandbox = Running::start();
    let result = cell(
        &mut sandbox,
        serde_json::json!({ "code": "while (true) {}", "config": { "timeoutMs": 200 } }),
    );
    assert_eq!(result["status"], "failed", "{result}");
    assert_eq!(result["code"], "timeout", "{result}");
    let result = cell(
        &mut sandbox,
        serde_json::json!({ "code": "const a = []; while (true) a.push('x'.repeat(1 << 16) + a.length)", "config": { "memoryLimitBytes": 16777216 } }),
    );
    assert_eq!(result["status"], "failed", "{result}");
    assert_eq!(
        result["error"], "code mode memory limit exceeded.",
        "{result}"
    );
    assert_eq!(sandbox.ask("ping").as_deref(), Some("pong"));
}

#[test]
fn nested_calls_and_their_hand_offs_run_under_the_lockdown() {
    let mut sandbox = Running::start();
    // Sequential calls (a worker polling then sleeping for each answer, the
    // hand-off policy looking at the machine) and a burst in parallel.
    let code = "let n = 0; for (let i = 0; i < 200; i++) n += (await tools.call('echo', { i })).i; \
                const all = await Promise.all(Array.from({ length: 50 }, (_, i) => tools.call('echo', { i }))); \
                return [n, all.length]";
    let result = cell(&mut sandbox, serde_json::json!({ "code": code }));
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], serde_json::json!([19900, 50]));
    assert_eq!(result["telemetry"]["callCount"], 250);
}
