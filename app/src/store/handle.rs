//! The store as the services share it: reads go straight to the store
//! ([`StoreHandle::store`], awaited, with [`Internal`] mapping a failure onto
//! a method's error); commits pass through [`StoreHandle::commit`], which
//! measures them and wakes the namespace event streams. Every service owns a
//! clone of the handle.

use super::{Commit, Committed, Store, StoreResult};
use crate::util::Family;
use a2a::metrics::Metrics;
use a2a::rpc::Error;
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::watch;
use tracing::Instrument;

/// A shared, cloneable handle on the store.
#[derive(Clone)]
pub struct StoreHandle {
    store: Arc<dyn Store>,
    /// Counts the durable commits that appended task events, so a namespace
    /// event stream wakes when there is something new to read.
    appended: Arc<watch::Sender<u64>>,
    /// Where each commit's latency is recorded.
    metrics: Arc<Metrics>,
}

impl StoreHandle {
    /// A handle on `store` recording its commits into `metrics`.
    pub fn new(store: Arc<dyn Store>, metrics: Arc<Metrics>) -> Self {
        StoreHandle {
            store,
            appended: Arc::new(watch::channel(0).0),
            metrics,
        }
    }

    /// Changes after every durable commit that appended task events through
    /// this handle (or a clone of it).
    pub fn appended(&self) -> watch::Receiver<u64> {
        self.appended.subscribe()
    }

    /// The store, which the services read directly (commits go through
    /// [`StoreHandle::commit`]).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Commits and waits until the commit is durable; the store error is
    /// kept, so callers can map conflicts.
    ///
    /// The commit is handed to the store before the returned future is
    /// polled, so that future holds the store's and not the commit again
    /// (every task write's future is the smaller by the commit's size).
    pub fn commit(&self, commit: Commit) -> impl Future<Output = StoreResult<Committed>> + Send + '_ {
        let appends = commit.task.as_ref().is_some_and(|t| !t.events.is_empty());
        // Every backend's commits pass here, so the latency is measured alike:
        // from submission (queueing for the group commit included) to the
        // durable outcome, as the caller waits for it.
        let started = Instant::now();
        let span = tracing::info_span!("store.commit", store = self.store.backend());
        let committing = self.store.commit(commit).instrument(span);
        async move {
            let outcome = committing.await;
            self.metrics
                .record_store_commit(self.store.backend(), started.elapsed());
            if appends && outcome.is_ok() {
                self.appended.send_modify(|n| *n = n.wrapping_add(1));
            }
            outcome
        }
    }

    /// Deletes the tasks `ids` of `namespace` with their events, and applies
    /// `docs`, in one commit; how many tasks were deleted.
    pub async fn delete_tasks(
        &self,
        namespace: &str,
        ids: Vec<String>,
        docs: Vec<super::DocWrite>,
    ) -> StoreResult<u64> {
        let delete_tasks = ids
            .into_iter()
            .map(|id| super::TaskDelete {
                namespace: namespace.to_string(),
                id,
            })
            .collect();
        let commit = Commit {
            docs,
            delete_tasks,
            ..Commit::default()
        };
        Ok(self.commit(commit).await?.deleted_tasks)
    }

    /// Commits like [`StoreHandle::commit`]; a failure is an internal error of `family`.
    pub async fn commit_run(&self, family: Family, commit: Commit) -> Result<Committed, Error> {
        self.commit(commit).await.internal(family)
    }
}

/// A store failure as a method's internal error.
pub trait Internal<T> {
    /// The failure as an internal error of `family`.
    fn internal(self, family: Family) -> Result<T, Error>;
}

impl<T> Internal<T> for StoreResult<T> {
    fn internal(self, family: Family) -> Result<T, Error> {
        self.map_err(|e| family.internal(e.to_string()))
    }
}
