//! The lockdown's process steps on Linux: parent death, descriptors,
//! resource limits, no new privileges.

use std::io;

use super::{Error, Policy, MAX_OPEN_FILES};
use crate::{CHANNEL_FD, STAT_FD};

/// `SIGKILL` when the parent dies; stops now if it has died already (the
/// process was then re-parented, and `getppid` no longer names it).
pub(super) fn die_with_parent(parent: Option<u32>) -> Result<(), Error> {
    // SAFETY: `prctl(PR_SET_PDEATHSIG, sig)` reads its integer arguments only.
    let set = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    if set != 0 {
        return Err(Error::new(
            "parent death signal",
            io::Error::last_os_error(),
        ));
    }
    if let Some(parent) = parent {
        // SAFETY: `getppid` has no arguments and cannot fail.
        let now = unsafe { libc::getppid() };
        if u32::try_from(now).ok() != Some(parent) {
            return Err(Error::new("parent death signal", "the parent is gone"));
        }
    }
    Ok(())
}

/// Closes every descriptor but the channel and the kept `/proc/stat`
/// ([`STAT_FD`]): the standard streams too (the launcher made them
/// `/dev/null`; nothing here writes to them).
pub(super) fn close_inherited() -> Result<(), Error> {
    let (channel, stat) = (CHANNEL_FD as u32, STAT_FD as u32);
    for (from, to) in [(0, channel - 1), (stat + 1, u32::MAX)] {
        // SAFETY: `close_range` reads its integer arguments only; closing a
        // descriptor that is not open is not an error.
        let closed = unsafe { libc::syscall(libc::SYS_close_range, from, to, 0) };
        if closed != 0 {
            return Err(Error::new(
                "closing inherited descriptors",
                io::Error::last_os_error(),
            ));
        }
    }
    Ok(())
}

/// No file may be written, no core dumped (it would hold cells' data), at
/// most [`MAX_OPEN_FILES`] descriptors, and the address space the policy
/// gives. Processes are not limited here: `RLIMIT_NPROC` counts every
/// process of the user, the gateway's included; the seccomp filter refuses
/// any `clone` that is not a thread instead.
pub(super) fn limit(policy: &Policy) -> Result<(), Error> {
    set_limit(libc::RLIMIT_FSIZE, 0, "RLIMIT_FSIZE")?;
    set_limit(libc::RLIMIT_CORE, 0, "RLIMIT_CORE")?;
    set_limit(libc::RLIMIT_NOFILE, MAX_OPEN_FILES, "RLIMIT_NOFILE")?;
    if let Some(bytes) = policy.address_space_bytes {
        set_limit(libc::RLIMIT_AS, bytes, "RLIMIT_AS")?;
    }
    Ok(())
}

fn set_limit(
    resource: libc::__rlimit_resource_t,
    value: u64,
    name: &'static str,
) -> Result<(), Error> {
    let limit = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    // SAFETY: `limit` is a valid `rlimit` for the call's duration.
    let set = unsafe { libc::setrlimit(resource, &limit) };
    if set != 0 {
        return Err(Error::new(name, io::Error::last_os_error()));
    }
    Ok(())
}

/// `PR_SET_NO_NEW_PRIVS`: execve can no longer grant privileges (set-user-id
/// bits, file capabilities); also what lets an unprivileged process install
/// a seccomp filter and a Landlock ruleset.
pub(super) fn no_new_privileges() -> Result<(), Error> {
    // SAFETY: `prctl(PR_SET_NO_NEW_PRIVS, 1)` reads its integer arguments only.
    let set = unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
    if set != 0 {
        return Err(Error::new("no new privileges", io::Error::last_os_error()));
    }
    Ok(())
}
