//! Which agent runs an executor's run of a task, on a store shared by
//! several agents. A run holds a lease (a document per task: the agent and
//! until when), written in the commit that creates its task, renewed every
//! third of it while the run lives and removed when it ends. An agent that
//! dies mid-run stops renewing; every agent sweeps for expired leases (every
//! third of the lease) and fails the task of each, if it is still submitted
//! or working ([`abandon`]). So no task stays working for ever because the
//! agent running it died, on any store: on a store only one process opens,
//! the next process fails such tasks at start-up instead
//! ([`super::TaskService::fail_abandoned`]).

use super::changes::{status_steps, Change};
use super::TaskEngine;
use crate::executor::{agent_message, text_part};
use crate::store::{Commit, DocWrite, Expect, Internal, StoreHandle};
use crate::util::{lease_ticks, millis, now_ms, to_json, Family};
use a2a::rpc::Error;
use a2a::types::{Task, TaskState};
use a2a::ErrorKind;
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// The status message of a task failed because the process running it
/// ended first.
pub const ABANDONED: &str = "The agent stopped before this task finished; send the message again to retry.";

/// The collection of run leases (key: the task id).
const COLL: &str = "task-run";
const FAMILY: Family = Family::A2a;

/// Fails `task` as abandoned by its run, if it is still submitted or
/// working; anything else has moved on and is refused, changing nothing.
pub(crate) fn abandon(task: &mut Task) -> Result<Change, Error> {
    if !matches!(task.status.state, TaskState::Submitted | TaskState::Working) {
        return Err(Error::new(ErrorKind::TaskNotCancelable, "the task has moved on"));
    }
    let reason = agent_message(vec![text_part(ABANDONED)]);
    status_steps(task, vec![(TaskState::Failed, Some(reason), None)])
}

/// One run's lease, as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunLease {
    holder: String,
    until_ms: i64,
}

/// This agent's leases on the runs it makes.
#[derive(Clone)]
pub(crate) struct RunLeases {
    db: StoreHandle,
    holder: Arc<str>,
    lease: Duration,
}

impl RunLeases {
    pub(crate) fn new(db: StoreHandle, lease: Duration) -> Self {
        RunLeases {
            db,
            holder: crate::util::new_id().into(),
            lease,
        }
    }

    /// The write of this agent's lease on the run of task `task_id`, valid
    /// for one lease from now.
    pub(crate) fn put(&self, namespace: &str, task_id: &str) -> Result<DocWrite, Error> {
        let lease = RunLease {
            holder: self.holder.to_string(),
            until_ms: now_ms().saturating_add(millis(self.lease)),
        };
        Ok(DocWrite::put(
            COLL,
            namespace,
            task_id,
            Expect::Any,
            to_json(&lease, FAMILY)?,
        ))
    }

    /// Commits lease writes on their own; a lease that cannot be written
    /// leaves the run unguarded, no worse.
    async fn apply(&self, docs: Vec<DocWrite>) {
        let _ = self
            .db
            .commit(Commit {
                docs,
                ..Commit::default()
            })
            .await;
    }

    /// Drives `run` of task `task_id` under this agent's lease: held and
    /// renewed while it runs, removed once it has ended.
    pub(crate) async fn hold_while(&self, namespace: &str, task_id: &str, run: impl Future<Output = ()>) {
        let renew = async {
            let mut tick = lease_ticks(self.lease).await;
            loop {
                if let Ok(write) = self.put(namespace, task_id) {
                    self.apply(vec![write]).await;
                }
                tick.tick().await;
            }
        };
        tokio::select! {
            () = run => {}
            () = renew => {}
        }
        let release = DocWrite::delete(COLL, namespace, task_id, Expect::Any);
        self.apply(vec![release]).await;
    }

    /// Fails the task of every expired lease, every third of the lease, for
    /// as long as the runtime lives.
    pub(crate) fn sweep(self, engine: TaskEngine) {
        tokio::spawn(async move {
            let mut tick = lease_ticks(self.lease).await;
            loop {
                tick.tick().await;
                // A failed sweep is tried again on the next tick.
                let Ok(expired) = self.expired().await else {
                    continue;
                };
                for (namespace, task_id, version) in expired {
                    // The task fails and its lease goes in one commit, refused
                    // if the lease was renewed meanwhile (its agent lives).
                    let dropped = DocWrite::delete(COLL, &namespace, &task_id, Expect::Version(version));
                    let failed = engine
                        .mutate_with(&namespace, &task_id, vec![dropped.clone()], abandon)
                        .await;
                    if failed.is_err() {
                        // Ended meanwhile, or gone: only the lease goes.
                        self.apply(vec![dropped]).await;
                    }
                }
            }
        });
    }

    /// The runs whose lease has expired, as (namespace, task id, version of
    /// the lease).
    async fn expired(&self) -> Result<Vec<(String, String, u64)>, Error> {
        let now = now_ms();
        let mut found = Vec::new();
        for namespace in self.db.store().namespaces().await.internal(FAMILY)? {
            let n = namespace.clone();
            let leases = self
                .db
                .store()
                .list_docs(COLL, &n, "", None, usize::MAX)
                .await
                .internal(FAMILY)?;
            for doc in leases {
                let expired =
                    serde_json::from_value::<RunLease>(doc.value).map_or(true, |l| l.until_ms <= now);
                if expired {
                    found.push((namespace.clone(), doc.key, doc.version));
                }
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests;
