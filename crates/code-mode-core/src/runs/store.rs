//! Parked runs and the whole protocol around them: the live VMs of suspended
//! runs kept in memory under their `cm_` ids with an owner and an expiry, the
//! "being resumed" marker a `wait` leaves while it drives a run, and what
//! happens when a leg ends ([`Store::land`]). Nothing here touches disk;
//! nothing here holds a thread while a run waits. An expiry thread frees runs
//! when their time is up, without waiting for a later call.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::agent_run::RunOwner;
use super::host::Waker;
use super::run::{stopped_result, Disposition, Job, Parking, Run, Step};
use crate::limits::MAX_PARKED_RUNS;
use crate::messages;
use crate::result::{ErrorCode, RunResult};
use crate::sandbox::Stop;

/// Why the store would not take a run in, or give one out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The engine is closed.
    Closed,
    /// [`MAX_PARKED_RUNS`] runs are parked already.
    Full,
    /// No run has that id, or it expired.
    Unavailable,
    OtherAgentRun,
    OtherSession,
    /// Another wait is driving the run now.
    BeingResumed,
}

impl Refusal {
    /// The result code and message of a call refused for this reason.
    pub fn error(self) -> (ErrorCode, &'static str) {
        match self {
            Refusal::Closed => (ErrorCode::RuntimeUnavailable, messages::CLOSED),
            Refusal::Full => (ErrorCode::InvalidInput, messages::TOO_MANY_PARKED),
            Refusal::Unavailable => (ErrorCode::InvalidInput, messages::RUN_UNAVAILABLE),
            Refusal::OtherAgentRun => (ErrorCode::InvalidInput, messages::RUN_OTHER_AGENT_RUN),
            Refusal::OtherSession => (ErrorCode::InvalidInput, messages::RUN_OTHER_SESSION),
            Refusal::BeingResumed => (ErrorCode::InvalidInput, messages::RUN_BEING_RESUMED),
        }
    }
}

/// Why `waiter` may not resume a run that `owner` parked.
fn refusal(waiter: &RunOwner, owner: &RunOwner) -> Option<Refusal> {
    if waiter.session_id != owner.session_id
        || waiter.session_key != owner.session_key
        || waiter.agent_id != owner.agent_id
    {
        return Some(Refusal::OtherSession);
    }
    if waiter.agent_run_id != owner.agent_run_id {
        return Some(Refusal::OtherAgentRun);
    }
    None
}

enum Entry {
    Parked {
        run: Box<Run>,
        expires: Instant,
    },
    /// Taken by a `wait` in progress; the owner answers a concurrent one.
    Resuming {
        owner: RunOwner,
    },
}

#[derive(Default)]
struct State {
    entries: HashMap<String, Entry>,
    /// Dropped runs whose VMs the expiry thread frees (never the caller's
    /// thread, which may be Node's).
    graveyard: Vec<Run>,
    /// Jobs holding a run that no worker started before their budget ended
    /// (or their call was stopped): the expiry thread ends their leg as a
    /// worker would have ([`Store::lapse`]).
    lapsed: Vec<Job>,
    closed: bool,
}

impl State {
    fn parked(&self) -> usize {
        self.entries
            .values()
            .filter(|entry| matches!(entry, Entry::Parked { .. }))
            .count()
    }
}

pub struct Store {
    state: Mutex<State>,
    changed: Condvar,
    expiry: Mutex<Option<JoinHandle<()>>>,
    /// Told the count of parked runs after some expired.
    on_expired: std::sync::OnceLock<Box<dyn Fn(usize) + Send + Sync>>,
}

impl Store {
    pub fn new() -> std::io::Result<Arc<Self>> {
        let store = Arc::new(Self {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            expiry: Mutex::new(None),
            on_expired: std::sync::OnceLock::new(),
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
        self.state.lock().parked()
    }

    /// Sets what is told the count of parked runs each time some expired
    /// (once per store).
    pub fn on_expired(&self, tell: Box<dyn Fn(usize) + Send + Sync>) {
        let _ = self.on_expired.set(tell);
    }

    /// Acts on how a leg ended, on the worker that drove it: parks the run and
    /// answers `waiting`, or answers the result and frees the run. Either way
    /// the "being resumed" marker of a resumed run goes.
    pub(super) fn land(&self, disposition: Disposition) {
        match disposition {
            Disposition::Report(run, result) => {
                if let Some(id) = run.id() {
                    self.release(id);
                }
                run.report(result);
            }
            Disposition::Park(parking) => self.park(parking),
        }
    }

    /// Drops a run that a wait took but will not resume (its call was
    /// stopped, or the workers are shut down): the marker goes, its nested
    /// calls are aborted now, and its VM is freed away from this thread.
    pub(super) fn drop_taken(&self, run: Run) {
        if let Some(id) = run.id() {
            self.release(id);
        }
        self.bury(run);
    }

    /// Ends the leg of a job that holds a run, which no worker started before
    /// its budget ended or its call was stopped (every worker may be stuck):
    /// on the expiry thread, as a worker would have. A wait parks its run
    /// again untouched under the same id and answers `waiting` (results
    /// that arrived stay for the next wait); a run moved off an abandoned
    /// worker parks as at any deadline; a stopped one is dropped and its
    /// call answered. None of these runs guest code. After close the run is
    /// dropped and the call answered as closed.
    pub(super) fn lapse(&self, job: Job) {
        let mut state = self.state.lock();
        if state.closed {
            drop(state);
            let (leg, taken) = job.into_refused();
            if let Some(run) = taken {
                self.drop_taken(run);
            }
            return leg.report(stopped_result(Stop::Closed));
        }
        state.lapsed.push(job);
        drop(state);
        self.changed.notify_all();
    }

    /// Ends the leg of a lapsed job (see [`Store::lapse`]), on the expiry
    /// thread.
    fn end_lapsed(&self, job: Job) {
        let waker: Waker = Arc::new(|| {});
        match job.start(waker) {
            Step::Ended(run, end) => self.land(run.finish(end)),
            // Not reached: a leg whose budget is over or that was stopped
            // ends before it could await anything.
            Step::Awaiting(run) => {
                let internal = RunResult::failed(ErrorCode::InternalError, messages::INTERNAL);
                self.land(Disposition::Report(run, internal));
            }
        }
    }

    /// Takes the run in under its new id (replacing the marker of the id it
    /// was resumed from) and answers `waiting`; when the store is closed or
    /// full, answers that failure instead, with the output the run produced.
    fn park(&self, parking: Parking) {
        let Parking {
            mut run,
            id,
            previous,
            expires,
            waiting,
            leg,
        } = parking;
        if leg.as_ref().is_none_or(|leg| leg.reported()) {
            // The watchdog answered this call while the worker was stuck: no
            // one will ever learn the new id, so the run is not kept.
            let result = waiting.into_failure(ErrorCode::Timeout, messages::TIMEOUT);
            return self.land(Disposition::Report((*run).with_leg(leg), result));
        }
        let mut state = self.state.lock();
        if let Some(previous) = &previous {
            state.entries.remove(previous);
        }
        let refused = if state.closed {
            Some(Refusal::Closed)
        } else if state.parked() >= MAX_PARKED_RUNS {
            Some(Refusal::Full)
        } else {
            None
        };
        if let Some(refused) = refused {
            drop(state);
            let (code, message) = refused.error();
            let failure = waiting.into_failure(code, message);
            return self.land(Disposition::Report((*run).with_leg(leg), failure));
        }
        run.parked_as(id.clone());
        state.entries.insert(id, Entry::Parked { run, expires });
        drop(state);
        self.changed.notify_all();
        if let Some(leg) = leg {
            leg.report(waiting);
        }
    }

    /// Takes a parked run for `waiter`, leaving a marker so a concurrent wait is
    /// told it is being resumed. The marker goes when the leg lands.
    pub(super) fn take(&self, id: &str, waiter: &RunOwner) -> Result<Run, Refusal> {
        let mut state = self.state.lock();
        let owner = match state.entries.get(id) {
            None => return Err(Refusal::Unavailable),
            Some(Entry::Resuming { owner }) => {
                return Err(refusal(waiter, owner).unwrap_or(Refusal::BeingResumed))
            }
            Some(Entry::Parked { run, expires }) => {
                if Instant::now() >= *expires {
                    return Err(Refusal::Unavailable);
                }
                if let Some(refused) = refusal(waiter, run.owner()) {
                    return Err(refused);
                }
                run.owner().clone()
            }
        };
        match state
            .entries
            .insert(id.to_owned(), Entry::Resuming { owner })
        {
            Some(Entry::Parked { run, .. }) => Ok(*run),
            _ => Err(Refusal::Unavailable),
        }
    }

    /// Drops a run away from the caller's thread: its nested calls are aborted
    /// now, its VM is freed by the expiry thread.
    fn bury(&self, mut run: Run) {
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
    fn release(&self, id: &str) {
        let mut state = self.state.lock();
        if matches!(state.entries.get(id), Some(Entry::Resuming { .. })) {
            state.entries.remove(id);
        }
    }

    /// Drops every parked run (their nested calls are aborted) and stops the
    /// expiry thread.
    pub fn close(&self) {
        let (entries, buried, lapsed) = {
            let mut state = self.state.lock();
            state.closed = true;
            let entries: Vec<Entry> = state.entries.drain().map(|(_, entry)| entry).collect();
            let lapsed = std::mem::take(&mut state.lapsed);
            (entries, std::mem::take(&mut state.graveyard), lapsed)
        };
        self.changed.notify_all();
        discard(entries);
        buried.into_iter().for_each(Run::discard);
        for job in lapsed {
            let (leg, taken) = job.into_refused();
            if let Some(run) = taken {
                self.drop_taken(run);
            }
            leg.report(stopped_result(Stop::Closed));
        }
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
        let (expired, buried, lapsed, parked) = {
            let mut state = store.state.lock();
            if state.closed {
                return;
            }
            let buried = std::mem::take(&mut state.graveyard);
            let lapsed = std::mem::take(&mut state.lapsed);
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
            if expired.is_empty() && buried.is_empty() && lapsed.is_empty() {
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
            let parked = (!expired.is_empty()).then(|| state.parked());
            (expired, buried, lapsed, parked)
        };
        // Calls waiting for an answer first, then the freeing.
        for job in lapsed {
            store.end_lapsed(job);
        }
        discard(expired);
        if let (Some(parked), Some(tell)) = (parked, store.on_expired.get()) {
            tell(parked);
        }
        buried.into_iter().for_each(Run::discard);
    }
}
