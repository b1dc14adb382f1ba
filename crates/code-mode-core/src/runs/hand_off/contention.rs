//! Whether polling pays: a nested call's hand-offs poll while two cores are
//! free for them, and block when other work wants the cores.
//!
//! On an idle machine, a worker awaiting a settlement and the Node thread
//! awaiting the next call each poll on a core of their own: a hand-off then
//! costs a fraction of a microsecond, where waking a thread that slept on
//! another core costs about 20 µs on a small virtual machine (that core has
//! gone idle and must be woken). When other processes want the cores,
//! polling backfires: the two threads and the other work share the cores by
//! time slices, and a thread that polls waits out the slice of whoever
//! holds the core of the thread that should answer (a nested call then
//! costs two to five times as much, with long tails). There, each side
//! sleeps as soon as it has handed the call over: the scheduler keeps the
//! pair on one core, taking turns, and a hand-off costs one context switch
//! (2-3 µs).
//!
//! Which case holds is measured, not guessed. While nested calls flow, the
//! workers look at the machine every [`CONTENTION_WINDOW`]: the cores this process
//! used (its CPU time) plus the cores that stood idle (the machine's idle
//! time, from `/proc/stat`) are the cores it could have had. Polling needs
//! two; after two windows in a row below [`BLOCK_BELOW_CORES`] hand-offs block,
//! and from one at [`POLL_FROM_CORES`] they poll again (the gap keeps a machine
//! near the line from flapping). What the
//! process itself does, polling or not, does not change the sum, so the
//! measure holds in either mode. Elsewhere than Linux nothing is read and
//! hand-offs always poll.
//!
//! `CODE_MODE_HAND_OFFS=poll` or `=block` in the environment fixes the
//! choice for the process, for machines where the measure misleads (a
//! container whose `/proc/stat` shows a larger host's idle cores).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::cpus::micros_since_epoch;
use crate::tuning::{
    BLOCK_BELOW_CORES, CONTENTION_WINDOW, CONTENTION_WINDOW_STALE, POLL_FROM_CORES,
};

/// Whether hand-offs block now.
static BLOCKING: AtomicBool = AtomicBool::new(false);

/// Windows in a row that found fewer free cores than [`BLOCK_BELOW_CORES`]:
/// hand-offs block from the second (one alone may be a passing burst, such
/// as a compiler or another short process, and blocking on an idle machine
/// costs three times what polling does).
static SHORT_WINDOWS: AtomicU64 = AtomicU64::new(0);

/// When the machine is due to be looked at again, in microseconds since
/// [`micros_since_epoch`].
static DUE: AtomicU64 = AtomicU64::new(0);

/// The start of the current window.
static MARK: Mutex<Option<Mark>> = Mutex::new(None);

#[derive(Clone, Copy)]
struct Mark {
    at: Instant,
    usage: Usage,
}

/// CPU time so far, in microseconds: the machine's idle time over all its
/// cores, and this process's own.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Usage {
    idle: u64,
    process: u64,
}

/// What `CODE_MODE_HAND_OFFS` asks for, read once per process: `poll` or
/// `block` always, anything else (or nothing) measured.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Setting {
    Measured,
    Poll,
    Block,
}

fn setting() -> Setting {
    static SETTING: OnceLock<Setting> = OnceLock::new();
    *SETTING.get_or_init(|| parse_setting(std::env::var("CODE_MODE_HAND_OFFS").ok().as_deref()))
}

fn parse_setting(value: Option<&str>) -> Setting {
    match value.map(str::trim) {
        Some(value) if value.eq_ignore_ascii_case("poll") => Setting::Poll,
        Some(value) if value.eq_ignore_ascii_case("block") => Setting::Block,
        _ => Setting::Measured,
    }
}

/// Whether hand-offs block now (other work wants the cores, or
/// `CODE_MODE_HAND_OFFS=block`).
pub(super) fn hand_offs_block() -> bool {
    match setting() {
        Setting::Measured => BLOCKING.load(Ordering::Relaxed),
        Setting::Poll => false,
        Setting::Block => true,
    }
}

/// Called by a worker each time it waits for a settlement: looks at the
/// machine when a window has passed. Costs one clock read otherwise.
pub(super) fn observe() {
    if !cfg!(target_os = "linux") || setting() != Setting::Measured {
        return;
    }
    let now = micros_since_epoch();
    if now < DUE.load(Ordering::Relaxed) {
        return;
    }
    // One worker looks; the others go on.
    let Some(mut mark) = MARK.try_lock() else {
        return;
    };
    DUE.store(
        now + CONTENTION_WINDOW.as_micros() as u64,
        Ordering::Relaxed,
    );
    let Some(usage) = usage() else {
        // Nothing to read (no /proc): poll, as on an idle machine.
        BLOCKING.store(false, Ordering::Relaxed);
        return;
    };
    let at = Instant::now();
    if let Some(last) = *mark {
        let elapsed = at.saturating_duration_since(last.at);
        if elapsed <= CONTENTION_WINDOW_STALE {
            let free = free_cores(last.usage, usage, elapsed);
            let short = if free < BLOCK_BELOW_CORES {
                SHORT_WINDOWS.fetch_add(1, Ordering::Relaxed) + 1
            } else {
                SHORT_WINDOWS.store(0, Ordering::Relaxed);
                0
            };
            let blocking = BLOCKING.load(Ordering::Relaxed);
            BLOCKING.store(judge(blocking, free, short), Ordering::Relaxed);
        }
    }
    *mark = Some(Mark { at, usage });
}

/// The cores the process could have had over `elapsed`: those it used and
/// those that stood idle.
fn free_cores(before: Usage, after: Usage, elapsed: Duration) -> f64 {
    let micros = elapsed.as_micros().max(1) as f64;
    let idle = after.idle.saturating_sub(before.idle) as f64;
    let process = after.process.saturating_sub(before.process) as f64;
    (idle + process) / micros
}

/// Whether hand-offs block, given whether they did, the free cores, and
/// how many windows in a row had too few.
fn judge(blocking: bool, free: f64, short_windows: u64) -> bool {
    if blocking {
        free < POLL_FROM_CORES
    } else {
        short_windows >= 2
    }
}

/// The machine's idle time and this process's CPU time, now.
fn usage() -> Option<Usage> {
    Some(Usage {
        idle: machine_idle()?,
        process: process_cpu()?,
    })
}

/// `/proc/stat`, opened once by a process that may not open it later (a
/// sandbox, before its lockdown), and read again from its start each time.
static STAT: std::sync::OnceLock<std::fs::File> = std::sync::OnceLock::new();

/// Reads the machine's idle time from `stat` (an open `/proc/stat`) from
/// now on, instead of opening the file each time.
pub fn read_stat_from(stat: std::fs::File) {
    let _ = STAT.set(stat);
}

/// Idle time over all cores, in microseconds (`/proc/stat`, first line:
/// idle and iowait, in clock ticks).
fn machine_idle() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        use std::io::Read;
        use std::os::unix::fs::FileExt;
        // The first line is the sum over cores; it fits in 512 bytes.
        let mut buffer = [0u8; 512];
        let read = match STAT.get() {
            Some(stat) => stat.read_at(&mut buffer, 0).ok()?,
            None => std::fs::File::open("/proc/stat")
                .ok()?
                .read(&mut buffer)
                .ok()?,
        };
        idle_ticks(&buffer[..read]).map(|ticks| ticks.saturating_mul(1_000_000) / clock_ticks())
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Idle plus iowait ticks from the first line of `/proc/stat`.
fn idle_ticks(stat: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(stat).ok()?;
    let line = text.lines().next()?;
    let mut fields = line.split_ascii_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let numbers: Vec<u64> = fields
        .take(5)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    // user nice system idle iowait
    Some(numbers.get(3)? + numbers.get(4).copied().unwrap_or(0))
}

/// Clock ticks per second (`/proc/stat`'s unit).
#[cfg(target_os = "linux")]
fn clock_ticks() -> u64 {
    // SAFETY: `sysconf` has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|&t| t > 0).unwrap_or(100)
}

/// This process's CPU time (user and system, all threads), in microseconds.
fn process_cpu() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `rusage` is plain data; all zeroes is a valid value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: writes one `rusage` into `usage`, which we own.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
            return None;
        }
        let micros = |t: libc::timeval| {
            u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000 + u64::try_from(t.tv_usec).unwrap_or(0)
        };
        Some(micros(usage.ru_utime) + micros(usage.ru_stime))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_time_is_read_from_the_first_line_of_proc_stat() {
        let stat = b"cpu  1748189 0 126526 1307153 5474 0 957 228 0 0\ncpu0 847576 0 59024 685808 1299 0 249 113 0 0\n";
        assert_eq!(idle_ticks(stat), Some(1307153 + 5474));
        assert_eq!(idle_ticks(b"cpu  1 2 3 4\n"), Some(4));
        assert_eq!(idle_ticks(b"intr 1 2 3 4 5\n"), None);
        assert_eq!(idle_ticks(b"cpu  1 2 x 4 5\n"), None);
        assert_eq!(idle_ticks(b""), None);
        if cfg!(target_os = "linux") {
            assert!(usage().is_some(), "readable here");
        }
    }

    #[test]
    fn the_environment_can_fix_the_choice() {
        assert_eq!(parse_setting(None), Setting::Measured);
        assert_eq!(parse_setting(Some("poll")), Setting::Poll);
        assert_eq!(parse_setting(Some(" BLOCK ")), Setting::Block);
        assert_eq!(parse_setting(Some("auto")), Setting::Measured);
        assert_eq!(parse_setting(Some("")), Setting::Measured);
    }

    #[test]
    fn free_cores_are_the_idle_ones_and_those_the_process_used() {
        let window = Duration::from_millis(100);
        let before = Usage {
            idle: 1_000_000,
            process: 500_000,
        };
        // Idle machine, the pair polling on both cores.
        let polling = Usage {
            idle: 1_000_000,
            process: 700_000,
        };
        assert!((free_cores(before, polling, window) - 2.0).abs() < 1e-9);
        // Idle machine, the pair taking turns on one core.
        let turns = Usage {
            idle: 1_100_000,
            process: 600_000,
        };
        assert!((free_cores(before, turns, window) - 2.0).abs() < 1e-9);
        // Beside a busy process: a third of the cores' time went to it.
        let busy = Usage {
            idle: 1_000_000,
            process: 633_000,
        };
        assert!(free_cores(before, busy, window) < BLOCK_BELOW_CORES);
    }

    #[test]
    fn hand_offs_block_below_the_line_and_poll_again_above_the_gap() {
        assert!(!judge(false, 2.0, 0));
        assert!(!judge(false, 1.8, 0), "in the gap, polling stays");
        assert!(!judge(false, 1.5, 1), "one short window is not enough");
        assert!(judge(false, 1.5, 2));
        assert!(judge(true, 1.8, 0), "in the gap, blocking stays");
        assert!(judge(true, 1.5, 5));
        assert!(!judge(true, 1.95, 0));
    }
}
