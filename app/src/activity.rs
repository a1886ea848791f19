//! Work the application carries on by itself after the call that started it
//! was answered: an executor's run of a task, the statuses a settled
//! continuation applies, a plan's runner, a webhook delivery. A process that
//! may end when nobody uses it (the local background agent) asks
//! [`crate::App::work`] before it does, so no acknowledged work is cut short.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A count of detached jobs under way; cloned into every service that
/// starts one.
#[derive(Clone, Debug, Default)]
pub(crate) struct Activity(Arc<AtomicUsize>);

impl Activity {
    /// Counts one job until the returned guard is dropped (when the job's
    /// future ends, however it ends).
    pub(crate) fn begin(&self) -> Running {
        self.0.fetch_add(1, Ordering::AcqRel);
        Running(self.0.clone())
    }

    /// Jobs under way now.
    pub(crate) fn count(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// One job of an [`Activity`], counted while it lives.
#[derive(Debug)]
pub(crate) struct Running(Arc<AtomicUsize>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What the application is doing by itself, as [`crate::App::work`] reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Executor runs of tasks and status changes applied after an answer.
    pub task_runs: usize,
    /// Plans a runner of this process drives.
    pub plan_runs: usize,
    /// Webhook deliveries in flight, plus one when the store's outbox still
    /// owes any (due now or retried later).
    pub deliveries: usize,
}

impl Work {
    /// True when nothing is under way or owed.
    pub fn is_idle(&self) -> bool {
        *self == Work::default()
    }
}
