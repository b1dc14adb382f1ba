//! Keeping a worker and the host's thread on different cores.
//!
//! While nested calls flow, a worker and the host's thread (the Node
//! thread) hand each call back and forth, and both poll rather than sleep.
//! When the scheduler puts the two on one core (waking a thread often
//! places it beside its waker), every hand-over waits for the other to give
//! the core up, and the kernel's balancing rarely splits a pair that takes
//! turns: nested calls then cost ten times as much for as long as it lasts.
//! So each side says where it runs. A worker that finds itself on the core
//! the host polled from within the last few milliseconds steps aside ([`Presence::step_aside`]: it leaves that core
//! through its affinity mask and restores the mask at once, so it is never
//! pinned). The host's thread yields its polling turn while a worker that
//! waits for it is on its core ([`host_turn`]), so that the worker runs and
//! steps aside; it never yields to a worker that computes, which would keep
//! the core for a whole time slice.

use crate::tuning::{HOST_CORE_FRESH, STEP_ASIDE_EVERY};
use std::cell::Cell;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// Cores counted; a worker on a higher-numbered core is not counted (the
/// host then polls as if alone, which is only slower).
const MAX_CPUS: usize = 256;

/// Workers polling for the host, per core.
static WAITING: [AtomicU16; MAX_CPUS] = [const { AtomicU16::new(0) }; MAX_CPUS];

/// The core the host's thread polled from last ([`MAX_CPUS`]: unknown).
static HOST_CPU: AtomicUsize = AtomicUsize::new(MAX_CPUS);

/// When it last polled, in microseconds since [`epoch`].
static HOST_SEEN: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Microseconds since the first call in this process (a monotonic clock
/// that fits an atomic): also `contention.rs`'s.
pub(super) fn micros_since_epoch() -> u64 {
    u64::try_from(epoch().elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// The host's core, if it polled within [`HOST_CORE_FRESH`].
fn host_cpu() -> Option<usize> {
    let cpu = HOST_CPU.load(Ordering::Relaxed);
    let seen = HOST_SEEN.load(Ordering::Relaxed);
    let fresh = micros_since_epoch().saturating_sub(seen) < HOST_CORE_FRESH.as_micros() as u64;
    (cpu < MAX_CPUS && fresh).then_some(cpu)
}

/// The core this thread runs on now, if the platform says.
fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sched_getcpu` has no preconditions; it reads the CPU
        // number (through the vDSO) and returns -1 on failure.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok().filter(|&cpu| cpu < MAX_CPUS)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Called by the host's thread on each polling turn: records its core, and
/// says whether a worker waiting for it shares that core (the host then
/// yields the turn).
pub(super) fn host_turn() -> bool {
    let Some(cpu) = current_cpu() else {
        return false;
    };
    HOST_CPU.store(cpu, Ordering::Relaxed);
    HOST_SEEN.store(micros_since_epoch(), Ordering::Relaxed);
    WAITING[cpu].load(Ordering::Relaxed) > 0
}

/// Where one worker runs: counted in [`WAITING`] while it polls for the
/// host, and when it last stepped aside.
#[derive(Default)]
pub(super) struct Presence {
    waiting_on: Cell<Option<usize>>,
    stepped_aside: Cell<Option<Instant>>,
}

impl Presence {
    /// The worker starts polling for the host: counted where it runs.
    pub(super) fn wait_begin(&self) {
        self.wait_end();
        if let Some(cpu) = current_cpu() {
            WAITING[cpu].fetch_add(1, Ordering::Relaxed);
            self.waiting_on.set(Some(cpu));
        }
    }

    /// The worker stops polling for the host.
    pub(super) fn wait_end(&self) {
        if let Some(cpu) = self.waiting_on.take() {
            WAITING[cpu].fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// When the worker runs on the host's core, moves it to another core it
    /// may run on (at most once per [`STEP_ASIDE_EVERY`]); a waiting worker
    /// is counted where it ends up.
    pub(super) fn step_aside(&self) {
        let Some(cpu) = current_cpu() else {
            return;
        };
        if host_cpu() == Some(cpu)
            && self
                .stepped_aside
                .get()
                .is_none_or(|at| at.elapsed() >= STEP_ASIDE_EVERY)
        {
            self.stepped_aside.set(Some(Instant::now()));
            leave_cpu(cpu);
        }
        if self.waiting_on.get().is_some_and(|counted| counted != cpu) {
            self.wait_begin();
        }
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        self.wait_end();
    }
}

/// Moves this thread off `cpu` when its affinity allows another core, and
/// gives it back the affinity it had: the kernel migrates a thread whose
/// core leaves its mask at once, and restoring the mask does not move it
/// back.
fn leave_cpu(cpu: usize) {
    #[cfg(target_os = "linux")]
    {
        let Some(allowed) = affinity() else {
            return;
        };
        if cpus_in(&allowed) < 2 || !cpu_in(cpu, &allowed) {
            return;
        }
        let mut elsewhere = allowed;
        // SAFETY: plain bit manipulation on a set we own; `cpu` is below
        // `MAX_CPUS`, within the set's 1024 bits.
        unsafe { libc::CPU_CLR(cpu, &mut elsewhere) };
        if set_affinity(&elsewhere) {
            set_affinity(&allowed);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

/// This thread's affinity mask.
#[cfg(target_os = "linux")]
fn affinity() -> Option<libc::cpu_set_t> {
    // SAFETY: `cpu_set_t` is plain data; all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: writes at most `size` bytes into `set`, for this thread (0).
    let status = unsafe { libc::sched_getaffinity(0, size, &mut set) };
    (status == 0).then_some(set)
}

/// Sets this thread's affinity mask; whether it took.
#[cfg(target_os = "linux")]
fn set_affinity(set: &libc::cpu_set_t) -> bool {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: reads `size` bytes of `set`, for this thread (0).
    unsafe { libc::sched_setaffinity(0, size, set) == 0 }
}

#[cfg(target_os = "linux")]
fn cpus_in(set: &libc::cpu_set_t) -> u32 {
    // SAFETY: counts the bits of an initialised set.
    unsafe { libc::CPU_COUNT(set) as u32 }
}

#[cfg(target_os = "linux")]
fn cpu_in(cpu: usize, set: &libc::cpu_set_t) -> bool {
    // SAFETY: reads one bit of an initialised set; `cpu` is below
    // `MAX_CPUS`, within its 1024 bits.
    unsafe { libc::CPU_ISSET(cpu, set) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiting_worker_is_counted_where_it_runs_until_it_stops() {
        if current_cpu().is_none() {
            return;
        }
        // Other tests' workers count themselves in the same table, so this
        // checks only what this presence adds.
        let presence = Presence::default();
        presence.wait_begin();
        let counted = presence.waiting_on.get().expect("a core on Linux");
        assert!(WAITING[counted].load(Ordering::Relaxed) >= 1);
        presence.wait_end();
        assert_eq!(presence.waiting_on.get(), None);
        presence.wait_end();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_worker_on_the_hosts_core_moves_off_it_and_keeps_its_affinity() {
        let allowed = affinity().expect("this thread's affinity");
        if cpus_in(&allowed) < 2 {
            return;
        }
        let Some(cpu) = current_cpu() else {
            return;
        };
        HOST_CPU.store(cpu, Ordering::Relaxed);
        HOST_SEEN.store(micros_since_epoch(), Ordering::Relaxed);
        Presence::default().step_aside();
        let moved = current_cpu().expect("a core on Linux");
        HOST_CPU.store(MAX_CPUS, Ordering::Relaxed);
        assert_ne!(moved, cpu, "it left the host's core");
        let after = affinity().expect("this thread's affinity");
        let same = (0..MAX_CPUS).all(|c| cpu_in(c, &allowed) == cpu_in(c, &after));
        assert!(same, "the affinity it had is given back");
    }
}
