//! The store as async code uses it. Reads run in line: they are short and
//! never wait on the disk's durability, so a thread hop would cost more than
//! it saves. Commits are submitted and awaited: the backend answers once the
//! commit is durable (SQLite from its writer thread), so an `fsync` never
//! stalls the async workers. Long scans (integrity checks) go to tokio's
//! blocking pool. Every service owns a clone of the handle.

use super::{Commit, Committed, Store, StoreError, StoreResult};
use crate::util::Family;
use a2a::metrics::Metrics;
use a2a::rpc::Error;
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

    /// The store itself (for diagnostics and tests).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Runs store reads; a failure is an internal error of `family`.
    ///
    /// `f` must only read: a commit inside it would block the async worker
    /// until the disk has it. Use [`StoreHandle::commit`] for writes.
    pub fn run<T, F>(&self, family: Family, f: F) -> Result<T, Error>
    where
        F: FnOnce(&dyn Store) -> StoreResult<T>,
    {
        f(&*self.store).map_err(|e| family.internal(e.to_string()))
    }

    /// Commits and waits until the commit is durable; the store error is
    /// kept, so callers can map conflicts.
    pub async fn commit(&self, commit: Commit) -> StoreResult<Committed> {
        let appends = commit.task.as_ref().is_some_and(|t| !t.events.is_empty());
        // Every backend's commits pass here, so the latency is measured alike:
        // from submission (queueing for the group commit included) to the
        // durable outcome, as the caller waits for it.
        let started = Instant::now();
        let span = tracing::info_span!("store.commit", store = self.store.backend());
        let outcome = self.commit_quietly(commit).instrument(span).await;
        self.metrics
            .record_store_commit(self.store.backend(), started.elapsed());
        if appends && outcome.is_ok() {
            self.appended.send_modify(|n| *n = n.wrapping_add(1));
        }
        outcome
    }

    async fn commit_quietly(&self, commit: Commit) -> StoreResult<Committed> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.store.submit(
            commit,
            Box::new(move |outcome| {
                // The waiter may have gone (its request was dropped); the
                // commit stands either way.
                let _ = tx.send(outcome);
            }),
        );
        rx.await.unwrap_or_else(|_| {
            Err(StoreError::Backend(
                "the store dropped a commit unanswered".into(),
            ))
        })
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
        self.commit(commit)
            .await
            .map_err(|e| family.internal(e.to_string()))
    }

    /// Runs a long store call (a full scan) on tokio's blocking pool.
    pub async fn blocking<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> StoreResult<T> + Send + 'static,
    {
        let store = self.store.clone();
        match tokio::task::spawn_blocking(move || f(&*store)).await {
            Ok(result) => result,
            Err(e) => Err(StoreError::Backend(format!("storage task failed: {e}"))),
        }
    }
}
