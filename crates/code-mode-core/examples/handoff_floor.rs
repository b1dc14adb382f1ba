//! The floor of a hand-off between two threads on this machine: what a
//! nested call's two crossings (worker -> Node thread -> worker) cost at
//! best, with nothing else done. Each round trip hands a turn to the other
//! thread and waits for it back, by sleeping on a futex (the way a thread
//! that blocks hands off) or by spinning (the way a polling thread does),
//! with both threads on one core or on two.
//!
//!   cargo run --profile ci -p code-mode-core --example handoff_floor [-- --busy N]
//!
//! `--busy N` starts N busy processes (`sh -c 'while :; do :; done'`) for
//! the measurement and stops them after. Linux only. See bench/PROFILING.md.

#[cfg(target_os = "linux")]
mod floor {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    use std::time::Instant;

    const ROUNDS: usize = 20_000;

    #[derive(Clone, Copy, PartialEq)]
    pub enum Wait {
        Futex,
        Spin,
    }

    fn futex_wait(word: &AtomicU32, value: u32) {
        // SAFETY: FUTEX_WAIT on a live atomic; returns at once when the
        // word no longer holds `value`.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                value,
                std::ptr::null::<libc::timespec>(),
            );
        }
    }

    fn futex_wake(word: &AtomicU32) {
        // SAFETY: FUTEX_WAKE on a live atomic.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                1,
            );
        }
    }

    fn pin(cpu: Option<usize>) {
        let Some(cpu) = cpu else { return };
        // SAFETY: `cpu_set_t` is plain data; all zeroes is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: sets one bit of a set we own (cores here are few).
        unsafe { libc::CPU_SET(cpu, &mut set) };
        // SAFETY: reads the set, for this thread only.
        unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    }

    /// Waits until `turn` holds `mine`.
    fn await_turn(turn: &AtomicU32, mine: u32, wait: Wait) {
        loop {
            let now = turn.load(Ordering::Acquire);
            if now == mine {
                return;
            }
            match wait {
                Wait::Futex => futex_wait(turn, now),
                Wait::Spin => std::hint::spin_loop(),
            }
        }
    }

    fn give_turn(turn: &AtomicU32, theirs: u32, wait: Wait) {
        turn.store(theirs, Ordering::Release);
        if wait == Wait::Futex {
            futex_wake(turn);
        }
    }

    /// Median and 90th percentile of a round trip, in microseconds; both
    /// sides on threads of their own, so no pinning outlives a case.
    pub fn measure(wait: Wait, cpus: (Option<usize>, Option<usize>)) -> (f64, f64) {
        std::thread::spawn(move || round_trips(wait, cpus))
            .join()
            .expect("the measuring thread")
    }

    fn round_trips(wait: Wait, cpus: (Option<usize>, Option<usize>)) -> (f64, f64) {
        let turn = Arc::new(AtomicU32::new(0));
        let other = {
            let turn = turn.clone();
            std::thread::spawn(move || {
                pin(cpus.1);
                for _ in 0..ROUNDS {
                    await_turn(&turn, 1, wait);
                    give_turn(&turn, 0, wait);
                }
            })
        };
        pin(cpus.0);
        let mut times = Vec::with_capacity(ROUNDS);
        for _ in 0..ROUNDS {
            let start = Instant::now();
            give_turn(&turn, 1, wait);
            await_turn(&turn, 0, wait);
            times.push(start.elapsed().as_secs_f64() * 1e6);
        }
        other.join().expect("the other thread");
        times.sort_by(f64::total_cmp);
        (times[ROUNDS / 2], times[ROUNDS * 9 / 10])
    }
}

#[cfg(target_os = "linux")]
fn main() {
    use floor::{measure, Wait};
    let args: Vec<String> = std::env::args().collect();
    let busy: usize = args
        .iter()
        .position(|a| a == "--busy")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let mut children: Vec<std::process::Child> = (0..busy)
        .filter_map(|_| {
            std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .ok()
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    println!("round trip between two threads, {busy} busy processes (median / p90, µs):");
    let cases = [
        ("sleep (futex), one core", Wait::Futex, (Some(0), Some(0))),
        ("sleep (futex), two cores", Wait::Futex, (Some(0), Some(1))),
        ("sleep (futex), unpinned", Wait::Futex, (None, None)),
        ("spin, two cores", Wait::Spin, (Some(0), Some(1))),
    ];
    for (label, wait, cpus) in cases {
        let (median, p90) = measure(wait, cpus);
        println!("  {label:<28} {median:>7.2} / {p90:>7.2}");
    }
    for child in &mut children {
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("handoff_floor measures Linux futexes; nothing to do here");
}
