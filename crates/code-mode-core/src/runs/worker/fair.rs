//! The pool's fairness rule: which waiting job starts next, and whether it
//! may start now. `docs/scheduling.md` states the rule for users.
//!
//! Jobs (execs and waits) wait per session, and sessions take turns: a
//! session that floods the pool queues behind its own work, never in front
//! of another session's. Up to the pool's size, any job starts at once.
//! Past it, a job still starts at once when its session computes nothing:
//! on a thread the pool adds for it, up to as many again. The cores are then
//! shared by the operating system, which preempts the flood for the quiet
//! session's cell, instead of the quiet cell waiting until a flood cell ends.
//!
//! A session whose calls got [`MAX_ABANDONED_PER_SESSION`] workers stuck
//! (abandoned threads still running, charged to it) starts nothing until one
//! of them gets back: its jobs wait behind its own stuck work, and the other
//! sessions' jobs go past them.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use crate::limits::MAX_ABANDONED_PER_SESSION;

/// Who a job is fair to: the session of its agent run (see
/// [`RunOwner::session`](crate::runs::RunOwner::session)).
pub(super) type Session = Arc<str>;

pub(super) struct Fair<J> {
    /// Jobs not started yet, per session, oldest first.
    waiting: HashMap<Session, VecDeque<J>>,
    /// The sessions with jobs waiting, least recently served first.
    turns: VecDeque<Session>,
    /// The session each worker was handed a job for, until it is back for
    /// more: by worker index.
    handed: HashMap<usize, Session>,
    /// How many workers compute at once before sessions share the cores:
    /// the pool's size.
    size: usize,
    /// The session each abandoned thread still running is charged to (the
    /// session of the call it got stuck in): by worker index.
    stuck: HashMap<usize, Session>,
}

/// Why a job may start now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Admission {
    /// Fewer workers are busy than the pool's size.
    Within,
    /// The pool is busy, but the job's session computes nothing: it gets a
    /// thread of its own if no worker is idle.
    Relief,
}

impl<J> Fair<J> {
    pub(super) fn new(size: usize) -> Self {
        Self {
            waiting: HashMap::new(),
            turns: VecDeque::new(),
            handed: HashMap::new(),
            size,
            stuck: HashMap::new(),
        }
    }

    /// The most threads the pool runs: its size, and as many again for
    /// sessions that would otherwise wait behind others.
    pub(super) fn max_threads(&self) -> usize {
        self.size * 2
    }

    /// Queues a job behind the others of its session.
    pub(super) fn push(&mut self, session: Session, job: J) {
        let jobs = self.waiting.entry(session.clone()).or_default();
        if jobs.is_empty() {
            self.turns.push_back(session);
        }
        jobs.push_back(job);
    }

    /// Whether any job waits.
    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    /// Takes every waiting job (at shutdown).
    pub(super) fn drain(&mut self) -> Vec<J> {
        self.turns.clear();
        self.waiting.drain().flat_map(|(_, jobs)| jobs).collect()
    }

    /// Jobs handed out for `session` and not yet back.
    fn handed_for(&self, session: &Session) -> usize {
        self.handed.values().filter(|s| *s == session).count()
    }

    /// Whether a job of `session` may start while `busy` workers compute.
    pub(super) fn admits(&self, session: &Session, busy: usize) -> Option<Admission> {
        if busy < self.size {
            Some(Admission::Within)
        } else if busy < self.max_threads() && self.handed_for(session) == 0 {
            Some(Admission::Relief)
        } else {
            None
        }
    }

    /// The session whose job goes next: the one with the fewest jobs handed
    /// out, the one served least recently among equals; never one at its
    /// limit of abandoned threads.
    fn first(&self) -> Option<usize> {
        (0..self.turns.len())
            .filter(|&i| !self.at_limit(&self.turns[i]))
            .min_by_key(|&i| self.handed_for(&self.turns[i]))
    }

    /// Charges the abandoned thread of `worker` to `session` until it gets
    /// back ([`Fair::discharge`]).
    pub(super) fn charge(&mut self, worker: usize, session: Session) {
        self.stuck.insert(worker, session);
    }

    /// The abandoned thread of `worker` got back: it no longer counts.
    pub(super) fn discharge(&mut self, worker: usize) {
        self.stuck.remove(&worker);
    }

    /// Abandoned threads still running that are charged to `session`.
    pub(super) fn stuck_for(&self, session: &str) -> usize {
        self.stuck.values().filter(|s| &***s == session).count()
    }

    /// Whether `session` has as many abandoned threads still running as one
    /// session may have: its jobs do not start.
    pub(super) fn at_limit(&self, session: &str) -> bool {
        self.stuck_for(session) >= MAX_ABANDONED_PER_SESSION
    }

    /// Takes out every waiting job `lapsed` says will never be worth
    /// starting (its budget is over, or it was stopped).
    pub(super) fn take_lapsed(&mut self, lapsed: impl Fn(&J) -> bool) -> Vec<J> {
        let mut taken = Vec::new();
        self.waiting.retain(|_, jobs| {
            if jobs.iter().any(&lapsed) {
                let (gone, kept): (VecDeque<J>, VecDeque<J>) = std::mem::take(jobs)
                    .into_iter()
                    .partition(|job| lapsed(job));
                taken.extend(gone);
                *jobs = kept;
            }
            !jobs.is_empty()
        });
        let waiting = &self.waiting;
        self.turns.retain(|session| waiting.contains_key(session));
        taken
    }

    /// The earliest of `deadline` over the waiting jobs.
    pub(super) fn earliest(&self, deadline: impl Fn(&J) -> Instant) -> Option<Instant> {
        self.waiting.values().flatten().map(deadline).min()
    }

    /// Whether the next job may start while `busy` workers compute, and why.
    pub(super) fn peek(&self, busy: usize) -> Option<Admission> {
        self.admits(&self.turns[self.first()?], busy)
    }

    /// The next job, if it may start while `busy` workers compute. The
    /// caller hands it to a worker and records that with [`Fair::hand`].
    pub(super) fn next(&mut self, busy: usize) -> Option<(Session, J)> {
        let position = self.first()?;
        self.admits(&self.turns[position], busy)?;
        let session = self.turns.remove(position)?;
        let jobs = self.waiting.get_mut(&session)?;
        let job = jobs.pop_front()?;
        if jobs.is_empty() {
            self.waiting.remove(&session);
        } else {
            self.turns.push_back(session.clone());
        }
        Some((session, job))
    }

    /// Puts back a job that could not be handed out, first of its session
    /// and of the turns.
    pub(super) fn push_front(&mut self, session: Session, job: J) {
        let jobs = self.waiting.entry(session.clone()).or_default();
        if jobs.is_empty() {
            self.turns.push_front(session);
        }
        jobs.push_front(job);
    }

    /// Records that `worker` was handed a job of `session`.
    pub(super) fn hand(&mut self, worker: usize, session: Session) {
        self.handed.insert(worker, session);
    }

    /// `worker` is back for more (or gone): its job no longer counts for its
    /// session.
    pub(super) fn back(&mut self, worker: usize) {
        self.handed.remove(&worker);
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::{Admission, Fair, Session};
    use crate::limits::MAX_ABANDONED_PER_SESSION;

    fn session(name: &str) -> Session {
        name.into()
    }

    #[test]
    fn sessions_take_turns_and_a_flood_queues_behind_its_own_jobs() {
        let mut fair = Fair::new(2);
        for i in 0..5 {
            fair.push(session("flood"), format!("flood {i}"));
        }
        fair.push(session("quiet"), "quiet 0".to_string());
        let (_, first) = fair.next(0).unwrap();
        assert_eq!(first, "flood 0");
        fair.hand(0, session("flood"));
        // The quiet session has nothing handed out: it goes before the
        // flood's second job although it came after it.
        let (_, second) = fair.next(1).unwrap();
        assert_eq!(second, "quiet 0");
        fair.hand(1, session("quiet"));
        assert!(
            fair.next(2).is_none(),
            "the pool is busy and flood computes already"
        );
        assert_eq!(fair.peek(2), None);
        fair.back(1);
        assert_eq!(fair.peek(1), Some(Admission::Within));
        let (_, third) = fair.next(1).unwrap();
        assert_eq!(third, "flood 1");
    }

    #[test]
    fn a_session_that_computes_nothing_gets_relief_up_to_twice_the_pool() {
        let mut fair: Fair<&str> = Fair::new(2);
        fair.hand(0, session("flood"));
        fair.hand(1, session("flood"));
        assert_eq!(fair.admits(&session("flood"), 2), None);
        assert_eq!(fair.admits(&session("quiet"), 2), Some(Admission::Relief));
        fair.hand(2, session("quiet"));
        assert_eq!(
            fair.admits(&session("quiet"), 3),
            None,
            "one relief per session"
        );
        assert_eq!(fair.admits(&session("third"), 3), Some(Admission::Relief));
        assert_eq!(
            fair.admits(&session("fourth"), 4),
            None,
            "never past twice the pool"
        );
    }

    #[test]
    fn the_least_recently_served_session_goes_first_among_equals() {
        let mut fair = Fair::new(1);
        fair.push(session("a"), "a0");
        fair.push(session("a"), "a1");
        fair.push(session("b"), "b0");
        fair.push(session("b"), "b1");
        let order: Vec<&str> = std::iter::from_fn(|| fair.next(0).map(|(_, job)| job)).collect();
        assert_eq!(order, ["a0", "b0", "a1", "b1"]);
        assert!(fair.is_empty());
    }

    #[test]
    fn a_job_put_back_goes_first() {
        let mut fair = Fair::new(1);
        fair.push(session("a"), "a1");
        fair.push(session("b"), "b0");
        fair.push_front(session("a"), "a0");
        let order: Vec<&str> = std::iter::from_fn(|| fair.next(0).map(|(_, job)| job)).collect();
        assert_eq!(order, ["a0", "b0", "a1"]);
    }

    #[test]
    fn drain_takes_every_job() {
        let mut fair = Fair::new(1);
        fair.push(session("a"), 1);
        fair.push(session("b"), 2);
        fair.push(session("a"), 3);
        let mut jobs = fair.drain();
        jobs.sort();
        assert_eq!(jobs, [1, 2, 3]);
        assert!(fair.is_empty());
        assert!(fair.next(0).is_none());
    }

    #[test]
    fn a_session_at_its_limit_of_stuck_threads_waits_while_others_go() {
        let mut fair = Fair::new(4);
        fair.push(session("stuck"), "stuck 0");
        fair.push(session("other"), "other 0");
        // One thread short of the limit: the session still starts cells.
        for worker in 0..MAX_ABANDONED_PER_SESSION - 1 {
            fair.charge(100 + worker, session("stuck"));
        }
        assert!(!fair.at_limit("stuck"));
        assert_eq!(fair.peek(0), Some(Admission::Within));
        let (_, first) = fair.next(0).unwrap();
        assert_eq!(first, "stuck 0");
        fair.push(session("stuck"), "stuck 1");
        // At the limit: its jobs wait, the other session's go past them.
        fair.charge(200, session("stuck"));
        assert_eq!(fair.stuck_for("stuck"), MAX_ABANDONED_PER_SESSION);
        assert!(fair.at_limit("stuck"));
        assert!(
            !fair.at_limit("other"),
            "charged to the session that caused it"
        );
        let (_, second) = fair.next(0).unwrap();
        assert_eq!(second, "other 0");
        assert!(fair.next(0).is_none(), "the stuck session's job waits");
        assert_eq!(fair.peek(0), None);
        // One of its threads got back: its job starts.
        fair.discharge(200);
        let (_, third) = fair.next(0).unwrap();
        assert_eq!(third, "stuck 1");
    }

    #[test]
    fn lapsed_jobs_are_taken_out_and_the_earliest_deadline_is_known() {
        let now = Instant::now();
        let at = |ms: u64| now + Duration::from_millis(ms);
        let mut fair = Fair::new(1);
        fair.push(session("a"), ("a0", at(100)));
        fair.push(session("a"), ("a1", at(300)));
        fair.push(session("b"), ("b0", at(200)));
        fair.push(session("c"), ("c0", at(50)));
        assert_eq!(fair.earliest(|job| job.1), Some(at(50)));
        let mut lapsed = fair.take_lapsed(|job| job.1 <= at(150));
        lapsed.sort();
        assert_eq!(lapsed, [("a0", at(100)), ("c0", at(50))]);
        assert_eq!(fair.earliest(|job| job.1), Some(at(200)));
        // The sessions left keep their turns; an emptied one has none.
        let order: Vec<&str> = std::iter::from_fn(|| fair.next(0).map(|(_, job)| job.0)).collect();
        assert_eq!(order, ["a1", "b0"]);
        assert!(fair.is_empty());
        assert_eq!(fair.earliest(|job| job.1), None);
    }
}
