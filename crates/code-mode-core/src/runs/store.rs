//! Parked runs: the live VMs of suspended runs, kept in memory under their
//! `cm_` ids with a scope and an expiry. Nothing here touches disk; nothing
//! here holds a thread while a run waits. An expiry thread frees runs when
//! their time is up, without waiting for a later call.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::run::ActiveRun;
use crate::config::MAX_PARKED_RUNS;
use crate::messages;

/// Who may resume a run: the agent run and the session that made it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RunScope {
    pub agent_run_id: String,
    pub session_id: Option<String>,
    pub session_key: Option<String>,
    pub agent_id: Option<String>,
}

impl RunScope {
    /// Why `self` (the waiter) may not resume a run parked by `owner`.
    fn refusal(&self, owner: &RunScope) -> Option<&'static str> {
        if self.session_id != owner.session_id
            || self.session_key != owner.session_key
            || self.agent_id != owner.agent_id
        {
            return Some(messages::RUN_OTHER_SESSION);
        }
        if self.agent_run_id != owner.agent_run_id {
            return Some(messages::RUN_OTHER_AGENT_RUN);
        }
        None
    }
}

enum Entry {
    Parked {
        run: Box<ActiveRun>,
        expires: Instant,
    },
    /// Taken by a `wait` in progress; the scope answers a concurrent one.
    Resuming { scope: Arc<RunScope> },
}

#[derive(Default)]
struct State {
    entries: HashMap<String, Entry>,
    /// Dropped runs whose VMs the expiry thread frees (never the caller's
    /// thread, which may be Node's).
    graveyard: Vec<ActiveRun>,
    closed: bool,
}

pub struct Store {
    state: Mutex<State>,
    changed: Condvar,
    expiry: Mutex<Option<JoinHandle<()>>>,
}

impl Store {
    pub fn new() -> std::io::Result<Arc<Self>> {
        let store = Arc::new(Self {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            expiry: Mutex::new(None),
        });
        let weak = Arc::downgrade(&store);
        let handle = std::thread::Builder::new()
            .name("code-mode-expiry".into())
            .spawn(move || expire(weak))?;
        *store.expiry.lock() = Some(handle);
        Ok(store)
    }

    /// Parked runs held now.
    pub fn parked(&self) -> usize {
        self.state
            .lock()
            .entries
            .values()
            .filter(|entry| matches!(entry, Entry::Parked { .. }))
            .count()
    }

    /// Parks `run` under `id` until `ttl` from now. `previous` is the id it was
    /// resumed under, if any (its marker is replaced). Refused, with the run
    /// back, when the store is closed or full.
    pub(super) fn park(
        &self,
        id: String,
        previous: Option<&str>,
        run: Box<ActiveRun>,
        ttl: Duration,
    ) -> Result<(), (Box<ActiveRun>, &'static str)> {
        let mut state = self.state.lock();
        if let Some(previous) = previous {
            state.entries.remove(previous);
        }
        if state.closed {
            return Err((run, messages::CLOSED));
        }
        let parked = state
            .entries
            .values()
            .filter(|entry| matches!(entry, Entry::Parked { .. }))
            .count();
        if parked >= MAX_PARKED_RUNS {
            return Err((run, messages::TOO_MANY_PARKED));
        }
        let expires = Instant::now() + ttl;
        state.entries.insert(id, Entry::Parked { run, expires });
        drop(state);
        self.changed.notify_all();
        Ok(())
    }

    /// Takes a parked run for `waiter`, leaving a marker so a concurrent wait is
    /// told it is being resumed.
    pub(super) fn take(&self, id: &str, waiter: &RunScope) -> Result<ActiveRun, &'static str> {
        let mut state = self.state.lock();
        let scope = match state.entries.get(id) {
            None => return Err(messages::RUN_UNAVAILABLE),
            Some(Entry::Resuming { scope }) => {
                return Err(waiter.refusal(scope).unwrap_or(messages::RUN_BEING_RESUMED))
            }
            Some(Entry::Parked { run, expires }) => {
                if Instant::now() >= *expires {
                    return Err(messages::RUN_UNAVAILABLE);
                }
                if let Some(refusal) = waiter.refusal(run.scope()) {
                    return Err(refusal);
                }
                run.scope_arc()
            }
        };
        match state
            .entries
            .insert(id.to_owned(), Entry::Resuming { scope })
        {
            Some(Entry::Parked { run, .. }) => Ok(*run),
            _ => Err(messages::RUN_UNAVAILABLE),
        }
    }

    /// Drops a run away from the caller's thread: its nested calls are aborted
    /// now, its VM is freed by the expiry thread.
    pub(super) fn bury(&self, mut run: ActiveRun) {
        run.abort_in_flight();
        let mut state = self.state.lock();
        if state.closed {
            drop(state);
            return run.discard();
        }
        state.graveyard.push(run);
        drop(state);
        self.changed.notify_all();
    }

    /// Forgets the marker of a run that ended while resumed.
    pub(super) fn release(&self, id: &str) {
        let mut state = self.state.lock();
        if matches!(state.entries.get(id), Some(Entry::Resuming { .. })) {
            state.entries.remove(id);
        }
    }

    /// Drops every parked run (their nested calls are aborted) and stops the
    /// expiry thread.
    pub fn close(&self) {
        let (entries, buried) = {
            let mut state = self.state.lock();
            state.closed = true;
            let entries: Vec<Entry> = state.entries.drain().map(|(_, entry)| entry).collect();
            (entries, std::mem::take(&mut state.graveyard))
        };
        self.changed.notify_all();
        discard(entries);
        buried.into_iter().for_each(ActiveRun::discard);
        if let Some(handle) = self.expiry.lock().take() {
            let _ = handle.join();
        }
    }
}

fn discard(entries: Vec<Entry>) {
    for entry in entries {
        if let Entry::Parked { run, .. } = entry {
            run.discard();
        }
    }
}

/// The expiry thread: frees runs whose time is up, as soon as it is up.
fn expire(store: Weak<Store>) {
    loop {
        let Some(store) = store.upgrade() else {
            return;
        };
        let (expired, buried) = {
            let mut state = store.state.lock();
            if state.closed {
                return;
            }
            let buried = std::mem::take(&mut state.graveyard);
            let now = Instant::now();
            let ids: Vec<String> = state
                .entries
                .iter()
                .filter(
                    |(_, entry)| matches!(entry, Entry::Parked { expires, .. } if *expires <= now),
                )
                .map(|(id, _)| id.clone())
                .collect();
            let expired: Vec<Entry> = ids
                .iter()
                .filter_map(|id| state.entries.remove(id))
                .collect();
            if expired.is_empty() && buried.is_empty() {
                let next = state
                    .entries
                    .values()
                    .filter_map(|entry| match entry {
                        Entry::Parked { expires, .. } => Some(*expires),
                        Entry::Resuming { .. } => None,
                    })
                    .min();
                // Wake at the next expiry, or now and then to notice the
                // engine going away.
                let until = next.unwrap_or(now + Duration::from_secs(1));
                store
                    .changed
                    .wait_until(&mut state, until.min(now + Duration::from_secs(1)));
            }
            (expired, buried)
        };
        discard(expired);
        buried.into_iter().for_each(ActiveRun::discard);
    }
}
