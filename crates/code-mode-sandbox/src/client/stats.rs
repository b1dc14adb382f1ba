//! The diagnostics of every sandbox process of this addon process: those
//! running now, as each last told them, plus what the ended ones counted.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use super::conn::Conn;
use crate::wire::Stats;

static LIVE: Mutex<Vec<Weak<Conn>>> = Mutex::new(Vec::new());
static ENDED: Mutex<Stats> = Mutex::new(Stats {
    abandoned_workers: 0,
    abandoned_workers_running: 0,
    retired_vms: 0,
    answered_in_queue: 0,
    typescript_initialized: false,
    problems_recorded: 0,
    problems: Vec::new(),
});

pub(super) fn live(conn: &Arc<Conn>) {
    let mut live = LIVE.lock();
    live.retain(|conn| conn.strong_count() > 0);
    live.push(Arc::downgrade(conn));
}

/// A sandbox ended: its counts stay, its threads are gone.
pub(super) fn ended(conn: &Conn) {
    let mut live = LIVE.lock();
    live.retain(|live| !std::ptr::eq(live.as_ptr(), conn));
    let mut stats = conn.stats.lock().clone();
    stats.abandoned_workers_running = 0;
    add(&mut ENDED.lock(), &stats);
}

fn add(total: &mut Stats, stats: &Stats) {
    total.abandoned_workers += stats.abandoned_workers;
    total.abandoned_workers_running += stats.abandoned_workers_running;
    total.retired_vms += stats.retired_vms;
    total.answered_in_queue += stats.answered_in_queue;
    total.typescript_initialized |= stats.typescript_initialized;
}

/// On the Node thread's keep-hot turn: every sandbox's short frames that
/// wait, handled now (`Conn::pump_light`).
pub fn pump_light() {
    let live: Vec<Arc<Conn>> = LIVE.lock().iter().filter_map(Weak::upgrade).collect();
    for conn in live {
        conn.pump_light();
    }
}

/// Every sandbox's counts, summed (no problems: those are recorded in
/// this process's list as they come).
pub fn sandbox_stats() -> Stats {
    let live = LIVE.lock();
    let mut total = ENDED.lock().clone();
    for conn in live.iter().filter_map(Weak::upgrade) {
        add(&mut total, &conn.stats.lock());
    }
    total
}
