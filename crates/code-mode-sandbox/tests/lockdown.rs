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
use std::sync::Arc;

use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::runs::RunOwner;
use code_mode_sandbox::launch::{self, Options, Sandbox};
use code_mode_sandbox::wire::{self, Define, Exec, FromSandbox, ToSandbox};

const BINARY: &str = env!("CARGO_BIN_EXE_code-mode-sandbox");

/// One tool, `echo`, as `prepare.js` writes tools' columns.
const ECHO: &str =
    r#"[["echo"],[null],["Answers its input."],[0],[null],[0],[null],[null],[null],[null],null]"#;

/// A started sandbox, driven frame by frame as the addon drives it; its
/// nested calls to `echo` are answered with their input.
struct Running {
    child: Child,
    frames: BufReader<UnixStream>,
    channel: UnixStream,
    ready: String,
    next: u64,
}

impl Running {
    fn start() -> Self {
        let Sandbox { child, channel } =
            launch::start(Path::new(BINARY), &Options::default()).unwrap();
        let mut frames = BufReader::new(channel.try_clone().unwrap());
        let mut ready = String::new();
        frames.read_line(&mut ready).unwrap();
        Self {
            child,
            frames,
            channel,
            ready: ready.trim().to_owned(),
            next: 1,
        }
    }

    fn send(&mut self, frame: ToSandbox) -> Option<()> {
        self.channel.write_all(&frame.encode()).ok()
    }

    /// Runs a cell with `config` (the `tools.codeMode` fields); its
    /// result as JSON, or `None` when the sandbox ended first.
    fn cell(
        &mut self,
        code: &str,
        language: Language,
        config: serde_json::Value,
    ) -> Option<serde_json::Value> {
        let (twin, leg) = (self.next, self.next);
        self.next += 1;
        let mut fields = serde_json::json!({ "enabled": true });
        if let (Some(fields), Some(extra)) = (fields.as_object_mut(), config.as_object()) {
            fields.extend(extra.clone());
        }
        self.send(ToSandbox::Define(Box::new(Define {
            twin,
            config: CodeModeConfig::resolve(&fields, &serde_json::Value::Null),
            owner: RunOwner {
                agent_run_id: format!("run-{twin}"),
                ..RunOwner::default()
            },
            visible_tools: vec!["exec".into(), "wait".into()],
            active: true,
            namespaces: "[]".into(),
            tools: Arc::new(vec![ECHO.to_owned()]),
            scopes: None,
            counters: Default::default(),
        })))?;
        self.send(ToSandbox::Exec(Exec {
            leg,
            twin,
            age_micros: 0,
            code: code.to_owned(),
            language,
            restart_safe: false,
            parent: None,
        }))?;
        loop {
            let body = wire::read_frame(&mut self.frames).ok()??;
            match FromSandbox::decode(&body).unwrap() {
                FromSandbox::Result {
                    leg: answered,
                    result,
                    ..
                } => {
                    assert_eq!(answered, leg);
                    return Some(serde_json::from_str(&result.to_json()).unwrap());
                }
                FromSandbox::Dispatch { calls, .. } => {
                    let settled = calls
                        .into_iter()
                        .map(|(call, input)| {
                            let call: serde_json::Value = serde_json::from_str(&call).unwrap();
                            assert_eq!(call["name"], "echo");
                            (call["key"].as_u64().unwrap(), Ok(input))
                        })
                        .collect();
                    self.send(ToSandbox::Settle(settled))?;
                }
                _ => {}
            }
        }
    }

    fn js(&mut self, code: &str) -> Option<serde_json::Value> {
        self.cell(code, Language::Javascript, serde_json::json!({}))
    }

    /// A probe's answer (`code_mode_sandbox::probe`), or `None` when the
    /// sandbox ended.
    fn probe(&mut self, probe: &str) -> Option<String> {
        let result = self.js(&format!("//probe:{probe}"))?;
        Some(result["value"].as_str().unwrap().to_owned())
    }

    /// Whether the sandbox still runs cells.
    fn answers(&mut self) -> bool {
        self.js("return 1 + 1")
            .is_some_and(|result| result["value"] == 2)
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
    assert!(sandbox.answers());
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
    assert_eq!(
        fds,
        ["3", "4"],
        "its channel, and /proc/stat kept for the hand-off policy"
    );
    let stat = std::fs::read_link(format!("/proc/{}/fd/4", sandbox.child.id())).unwrap();
    assert_eq!(stat, Path::new("/proc/stat"));
    // Nothing of the environment but the time zone, when there is one.
    let environ = sandbox.proc("environ");
    let expected = std::env::var("TZ").map_or(String::new(), |zone| format!("TZ={zone}\0"));
    assert_eq!(environ, expected);
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
fn files_and_sockets_are_refused() {
    let mut sandbox = Running::start();
    let eacces = libc::EACCES;
    assert_eq!(
        sandbox.probe("open /etc/hostname"),
        Some(format!("open error {eacces}"))
    );
    assert_eq!(
        sandbox.probe("open /proc/self/status"),
        Some(format!("open error {eacces}"))
    );
    let target = std::env::temp_dir().join(format!("code-mode-sandbox-{}", std::process::id()));
    let answer = sandbox.probe(&format!("create {}", target.display()));
    assert_eq!(answer, Some(format!("create error {eacces}")));
    assert!(!target.exists());
    assert_eq!(
        sandbox.probe("socket"),
        Some(format!("socket error {eacces}"))
    );
    // Still serving: a refusal is an error, not the end.
    assert!(sandbox.answers());
}

#[test]
fn a_forbidden_system_call_kills_the_sandbox_and_nothing_else() {
    let mut doomed = Running::start();
    let mut neighbour = Running::start();
    assert_eq!(doomed.probe("forbidden"), None, "the channel closes");
    assert_eq!(doomed.killed_by(), Some(libc::SIGSYS));
    assert!(neighbour.answers());
}

#[test]
fn a_new_process_or_executable_memory_kills_the_sandbox() {
    for probe in ["fork", "exec-memory"] {
        let mut sandbox = Running::start();
        assert_eq!(sandbox.probe(probe), None, "{probe}");
        assert_eq!(sandbox.killed_by(), Some(libc::SIGSYS), "{probe}");
    }
}

#[test]
fn an_abort_inside_ends_the_sandbox_with_its_own_signal() {
    let mut sandbox = Running::start();
    assert_eq!(sandbox.probe("abort"), None);
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

#[test]
fn the_engine_runs_javascript_and_typescript_cells_under_the_lockdown() {
    let mut sandbox = Running::start();
    let result = sandbox
        .js("const xs = [3, 1, 2].sort(); return { xs, t: typeof Date.now(), r: Math.random() < 1 }")
        .unwrap();
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(
        result["value"],
        serde_json::json!({ "xs": [1, 2, 3], "t": "number", "r": true })
    );
    let code = "const n: number = await new Promise<number>((resolve) => setTimeout(() => resolve(41), 5)); return n + 1";
    let result = sandbox
        .cell(code, Language::Typescript, serde_json::json!({}))
        .unwrap();
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], 42);
}

#[test]
fn deadlines_and_the_memory_limit_hold_under_the_lockdown() {
    let mut sandbox = Running::start();
    let result = sandbox
        .cell(
            "while (true) {}",
            Language::Javascript,
            serde_json::json!({ "timeoutMs": 200 }),
        )
        .unwrap();
    assert_eq!(result["status"], "failed", "{result}");
    assert_eq!(result["code"], "timeout", "{result}");
    let code = "const a = []; while (true) a.push('x'.repeat(1 << 16) + a.length)";
    let result = sandbox
        .cell(
            code,
            Language::Javascript,
            serde_json::json!({ "memoryLimitBytes": 16777216 }),
        )
        .unwrap();
    assert_eq!(result["status"], "failed", "{result}");
    assert_eq!(
        result["error"], "code mode memory limit exceeded.",
        "{result}"
    );
    assert!(sandbox.answers());
}

#[test]
fn nested_calls_and_their_hand_offs_run_under_the_lockdown() {
    let mut sandbox = Running::start();
    // Sequential calls (a worker polling then sleeping for each answer, the
    // hand-off policy looking at the machine) and a burst in parallel.
    let code = "let n = 0; for (let i = 0; i < 200; i++) n += (await tools.call('echo', { i })).i; \
                const all = await Promise.all(Array.from({ length: 50 }, (_, i) => tools.call('echo', { i }))); \
                return [n, all.length]";
    let result = sandbox.js(code).unwrap();
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["value"], serde_json::json!([19900, 50]));
    assert_eq!(result["telemetry"]["callCount"], 250);
}
