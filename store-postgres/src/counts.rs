//! What the store has done since it opened, counted for operators and for
//! the tests that show which path a commit or a read took.

use std::sync::atomic::{AtomicU64, Ordering};

/// The counters, shared by the writer and the task reader.
#[derive(Default)]
pub(super) struct Counters {
    groups_whole: AtomicU64,
    groups_replayed: AtomicU64,
    task_reads: AtomicU64,
    task_queries: AtomicU64,
}

/// What a PostgreSQL store has done since it opened ([`crate::PgStore::counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PgCounts {
    /// Groups of commits that stood whole, sent in one round trip.
    pub groups_whole: u64,
    /// Groups in which a check failed, replayed one commit at a time.
    pub groups_replayed: u64,
    /// Reads of single tasks.
    pub task_reads: u64,
    /// The queries that answered them (several reads each when gathered).
    pub task_queries: u64,
}

impl Counters {
    pub(super) fn group(&self, whole: bool) {
        let counter = if whole {
            &self.groups_whole
        } else {
            &self.groups_replayed
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn task_query(&self, reads: usize) {
        self.task_reads.fetch_add(reads as u64, Ordering::Relaxed);
        self.task_queries.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn snapshot(&self) -> PgCounts {
        PgCounts {
            groups_whole: self.groups_whole.load(Ordering::Relaxed),
            groups_replayed: self.groups_replayed.load(Ordering::Relaxed),
            task_reads: self.task_reads.load(Ordering::Relaxed),
            task_queries: self.task_queries.load(Ordering::Relaxed),
        }
    }
}
