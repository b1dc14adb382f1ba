//! The sandbox's seccomp-bpf filters: [`ALLOWED`], each with why the engine
//! needs it (and, where it matters, what of its arguments); [`REFUSED`],
//! which fail with an error number instead of killing, so that a library
//! that tries a file or a socket reports it; any other system call kills
//! the process (`SECCOMP_RET_KILL_PROCESS`).
//!
//! Seccomp runs every installed filter and keeps the strictest answer, so a
//! refused call is let through by the allow-list filter ([`allow_rules`])
//! and answered by its own filter with its error number. The refusals are installed first: once
//! the allow-list is in, `seccomp` itself is not allowed.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use super::Error;

/// What of a call's arguments the filter checks.
#[derive(Clone, Copy, Debug)]
pub enum Only {
    /// Nothing: any arguments.
    Any,
    /// Argument `arg` (a 32-bit value) has none of the bits of `mask`.
    Without { arg: u8, mask: u64 },
    /// Argument `arg` (a 64-bit value) has every bit of `mask`.
    With { arg: u8, mask: u64 },
    /// Argument `arg` (a 32-bit value) is `value`.
    Is { arg: u8, value: u64 },
    /// Argument `arg` (a 32-bit value) is this process's id.
    OwnPid { arg: u8 },
}

/// One system call the engine may make.
#[derive(Clone, Copy, Debug)]
pub struct Allowed {
    pub name: &'static str,
    pub number: i64,
    pub only: Only,
    pub why: &'static str,
}

/// One system call answered with an error number, never made.
#[derive(Clone, Copy, Debug)]
pub struct Refused {
    pub name: &'static str,
    pub number: i64,
    pub errno: i32,
    pub why: &'static str,
}

/// An allowed call whatever its arguments.
const fn any(name: &'static str, number: i64, why: &'static str) -> Allowed {
    Allowed {
        name,
        number,
        only: Only::Any,
        why,
    }
}

/// An allowed call with a check of its arguments.
const fn only(name: &'static str, number: i64, only: Only, why: &'static str) -> Allowed {
    Allowed {
        name,
        number,
        only,
        why,
    }
}

/// `PROT_EXEC`: no mapping may become executable.
const PROT_EXEC: u64 = libc::PROT_EXEC as u64;

/// The allow-list.
pub const ALLOWED: &[Allowed] = &[
    any("read", libc::SYS_read, "reading the channel"),
    any("write", libc::SYS_write, "writing the channel"),
    any("readv", libc::SYS_readv, "reading the channel in parts"),
    any("writev", libc::SYS_writev, "writing the channel in parts"),
    any(
        "recvfrom",
        libc::SYS_recvfrom,
        "reading the channel (socket form)",
    ),
    any(
        "sendto",
        libc::SYS_sendto,
        "writing the channel (socket form)",
    ),
    any(
        "recvmsg",
        libc::SYS_recvmsg,
        "reading the channel (message form)",
    ),
    any(
        "sendmsg",
        libc::SYS_sendmsg,
        "writing the channel (message form)",
    ),
    any("close", libc::SYS_close, "dropping descriptors it holds"),
    only(
        "mmap",
        libc::SYS_mmap,
        Only::Without {
            arg: 2,
            mask: PROT_EXEC,
        },
        "memory: the allocator, VM heaps, thread stacks; never executable",
    ),
    only(
        "mprotect",
        libc::SYS_mprotect,
        Only::Without {
            arg: 2,
            mask: PROT_EXEC,
        },
        "guard pages of thread stacks; never executable",
    ),
    any("munmap", libc::SYS_munmap, "returning memory"),
    any("mremap", libc::SYS_mremap, "growing large allocations"),
    any(
        "madvise",
        libc::SYS_madvise,
        "returning freed pages to the kernel",
    ),
    any("brk", libc::SYS_brk, "the allocator's main heap"),
    any(
        "futex",
        libc::SYS_futex,
        "locks, condition variables, thread joins, sleeping hand-offs",
    ),
    only(
        "clone",
        libc::SYS_clone,
        Only::With {
            arg: 0,
            mask: libc::CLONE_THREAD as u64,
        },
        "worker and watchdog threads; a clone that is not a thread (a new process) is refused",
    ),
    any(
        "set_robust_list",
        libc::SYS_set_robust_list,
        "the C library's start of a thread",
    ),
    any("rseq", libc::SYS_rseq, "the C library's start of a thread"),
    any("exit", libc::SYS_exit, "a thread's end"),
    any("exit_group", libc::SYS_exit_group, "the process's end"),
    any(
        "rt_sigreturn",
        libc::SYS_rt_sigreturn,
        "returning from a signal handler (the stack-overflow handler)",
    ),
    any(
        "rt_sigaction",
        libc::SYS_rt_sigaction,
        "the C library installs its thread-cancel handler at the first thread's start; handlers are the process's own",
    ),
    any(
        "rt_sigprocmask",
        libc::SYS_rt_sigprocmask,
        "the C library masks signals around a thread's start",
    ),
    any(
        "sigaltstack",
        libc::SYS_sigaltstack,
        "each thread's alternate stack for the stack-overflow handler",
    ),
    any(
        "sched_yield",
        libc::SYS_sched_yield,
        "workers and hand-offs yielding the core",
    ),
    any(
        "sched_getaffinity",
        libc::SYS_sched_getaffinity,
        "the number of cores the pool may use",
    ),
    only(
        "sched_setaffinity",
        libc::SYS_sched_setaffinity,
        Only::Is { arg: 0, value: 0 },
        "a waiting worker steps off the core the host polls from (the hand-off policy); its own thread only",
    ),
    only(
        "getrusage",
        libc::SYS_getrusage,
        Only::Is { arg: 0, value: libc::RUSAGE_SELF as u64 },
        "the process's CPU time, for the hand-off policy's measure of the machine; its own only",
    ),
    any(
        "getcpu",
        libc::SYS_getcpu,
        "the core a thread runs on, for the hand-off policy (when the vDSO cannot answer)",
    ),
    any(
        "clock_gettime",
        libc::SYS_clock_gettime,
        "time, deadlines (when the vDSO cannot answer)",
    ),
    any(
        "clock_getres",
        libc::SYS_clock_getres,
        "clock resolution (when the vDSO cannot answer)",
    ),
    any(
        "gettimeofday",
        libc::SYS_gettimeofday,
        "wall-clock time for Date (when the vDSO cannot answer)",
    ),
    only(
        "pread64",
        libc::SYS_pread64,
        Only::Is {
            arg: 0,
            value: crate::STAT_FD as u64,
        },
        "the machine's idle time from /proc/stat, opened before the lockdown, for the hand-off policy; that descriptor only",
    ),
    any(
        "ppoll",
        libc::SYS_ppoll,
        "waiting for the channel to have something to read",
    ),
    any("clock_nanosleep", libc::SYS_clock_nanosleep, "timed sleeps"),
    any("nanosleep", libc::SYS_nanosleep, "timed sleeps"),
    any(
        "restart_syscall",
        libc::SYS_restart_syscall,
        "the kernel's restart of an interrupted sleep",
    ),
    any(
        "getrandom",
        libc::SYS_getrandom,
        "hash seeds, Math.random, UUIDs",
    ),
    any("gettid", libc::SYS_gettid, "thread identity for locks"),
    any(
        "getpid",
        libc::SYS_getpid,
        "process identity for the C library",
    ),
    only(
        "tgkill",
        libc::SYS_tgkill,
        Only::OwnPid { arg: 0 },
        "abort() signals its own thread; no other process",
    ),
    only(
        "prctl",
        libc::SYS_prctl,
        Only::Is {
            arg: 0,
            value: libc::PR_SET_NAME as u64,
        },
        "naming threads; no other prctl",
    ),
];

/// Calls answered with an error number.
pub const REFUSED: &[Refused] = &[
    Refused {
        name: "openat",
        number: libc::SYS_openat,
        errno: libc::EACCES,
        why: "no file may be opened; a library that tries gets an error it can report",
    },
    Refused {
        name: "socket",
        number: libc::SYS_socket,
        errno: libc::EACCES,
        why: "no socket may be made",
    },
    Refused {
        name: "socketpair",
        number: libc::SYS_socketpair,
        errno: libc::EACCES,
        why: "no socket may be made",
    },
    Refused {
        name: "clone3",
        number: libc::SYS_clone3,
        errno: libc::ENOSYS,
        why: "its flags are in memory the filter cannot read; the C library then uses clone",
    },
];

#[cfg(target_arch = "x86_64")]
const ARCH: TargetArch = TargetArch::x86_64;
#[cfg(target_arch = "aarch64")]
const ARCH: TargetArch = TargetArch::aarch64;

fn condition(only: Only, pid: u64) -> Result<Option<SeccompCondition>, seccompiler::BackendError> {
    let (arg, len, op, value) = match only {
        Only::Any => return Ok(None),
        Only::Without { arg, mask } => (
            arg,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(mask),
            0,
        ),
        Only::With { arg, mask } => (
            arg,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(mask),
            mask,
        ),
        Only::Is { arg, value } => (arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value),
        Only::OwnPid { arg } => (arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, pid),
    };
    SeccompCondition::new(arg, len, op, value).map(Some)
}

fn fail(error: seccompiler::BackendError) -> Error {
    Error::new("seccomp", error)
}

/// The allow-list filter's rules: every entry of [`ALLOWED`] with its
/// argument check, and every [`REFUSED`] call unconditionally (its own
/// filter answers it).
fn allow_rules(pid: u64) -> Result<BTreeMap<i64, Vec<SeccompRule>>, Error> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for allowed in ALLOWED {
        let rule = match condition(allowed.only, pid).map_err(fail)? {
            Some(condition) => vec![SeccompRule::new(vec![condition]).map_err(fail)?],
            None => Vec::new(),
        };
        rules.insert(allowed.number, rule);
    }
    for refused in REFUSED {
        rules.insert(refused.number, Vec::new());
    }
    Ok(rules)
}

/// The allow-list filter: what [`allow_rules`] lets through passes;
/// anything else kills the process.
fn allow_list(pid: u64) -> Result<BpfProgram, Error> {
    let rules = allow_rules(pid)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::KillProcess,
        SeccompAction::Allow,
        ARCH,
    )
    .map_err(fail)?;
    filter.try_into().map_err(fail)
}

/// A filter answering the refused calls with `errno`; any other passes (to
/// the allow-list).
fn refusals(errno: i32) -> Result<BpfProgram, Error> {
    let rules = REFUSED
        .iter()
        .filter(|refused| refused.errno == errno)
        .map(|refused| (refused.number, Vec::new()))
        .collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        ARCH,
    )
    .map_err(fail)?;
    filter.try_into().map_err(fail)
}

/// Installs the filters on this thread (threads made later inherit them).
pub(super) fn install() -> Result<(), Error> {
    // SAFETY: `getpid` has no arguments and cannot fail.
    let pid = unsafe { libc::getpid() } as u64;
    let mut errnos: Vec<i32> = REFUSED.iter().map(|refused| refused.errno).collect();
    errnos.sort_unstable();
    errnos.dedup();
    let mut programs = Vec::new();
    for errno in errnos {
        programs.push(refusals(errno)?);
    }
    programs.push(allow_list(pid)?);
    for program in &programs {
        seccompiler::apply_filter(program).map_err(|error| Error::new("seccomp", error))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refused_call_is_let_through_by_the_allow_list_to_its_refusal() {
        let rules = allow_rules(1).unwrap();
        for refused in REFUSED {
            assert!(
                rules.get(&refused.number).is_some_and(Vec::is_empty),
                "{} is refused but the allow-list would kill it first",
                refused.name
            );
        }
    }

    #[test]
    fn the_filters_compile_for_this_architecture() {
        assert!(!allow_list(1).unwrap().is_empty());
        assert!(!refusals(libc::EACCES).unwrap().is_empty());
        assert!(!refusals(libc::ENOSYS).unwrap().is_empty());
    }
}
