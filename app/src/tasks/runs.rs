//! Which agent runs an executor's run of a task, on a store shared by
//! several agents. A run holds a lease (a document per task: the agent and
//! until when), renewed every third of it while the run lives and removed
//! when it ends. An agent that dies mid-run stops renewing; every agent
//! sweeps for expired leases (every third of the lease) and fails the task
//! of each, if it is still submitted or working, with the status message of
//! [`super::service::ABANDONED`]. So no task stays working for ever because
//! the agent running it died, on any store: on a store only one process
//! opens, the next process fails such tasks at start-up instead
//! ([`super::TaskService::fail_abandoned`]).

use crate::store::{Commit, DocWrite, Expect, StoreHandle};
use crate::util::{to_json, Family};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The collection of run leases (key: the task id).
const COLL: &str = "task-run";
const FAMILY: Family = Family::A2a;

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

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl RunLeases {
    pub(crate) fn new(db: StoreHandle, lease: Duration) -> Self {
        RunLeases {
            db,
            holder: crate::util::new_id().into(),
            lease,
        }
    }

    /// How long a lease lasts without renewal.
    pub(crate) fn lease(&self) -> Duration {
        self.lease
    }

    /// The write of this agent's lease on the run of task `task_id`, valid
    /// for one lease from now.
    pub(crate) fn put(&self, namespace: &str, task_id: &str) -> Result<DocWrite, a2a::rpc::Error> {
        let until_ms = now_ms().saturating_add(i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX));
        let lease = RunLease {
            holder: self.holder.to_string(),
            until_ms,
        };
        Ok(DocWrite::put(
            COLL,
            namespace,
            task_id,
            Expect::Any,
            to_json(&lease, FAMILY)?,
        ))
    }

    /// Takes (or renews) the lease of the run of task `task_id`.
    pub(crate) async fn hold(&self, namespace: &str, task_id: &str) {
        let Ok(write) = self.put(namespace, task_id) else {
            return;
        };
        // A lease that cannot be written leaves the run unguarded, no worse.
        let _ = self.db.commit(docs(vec![write])).await;
    }

    /// Removes the lease of the run of task `task_id`, which has ended.
    pub(crate) async fn release(&self, namespace: &str, task_id: &str) {
        let _ = self
            .db
            .commit(docs(vec![DocWrite::delete(
                COLL,
                namespace,
                task_id,
                Expect::Any,
            )]))
            .await;
    }

    /// The runs whose lease has expired, as (namespace, task id, version of
    /// the lease).
    pub(crate) fn expired(&self) -> Result<Vec<(String, String, u64)>, a2a::rpc::Error> {
        let now = now_ms();
        let mut found = Vec::new();
        for namespace in self.db.run(FAMILY, |s| s.namespaces())? {
            let n = namespace.clone();
            let leases = self
                .db
                .run(FAMILY, move |s| s.list_docs(COLL, &n, "", None, usize::MAX))?;
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

    /// The removal of an expired lease, refused if it was renewed or
    /// removed meanwhile (its version moved on).
    pub(crate) fn drop_expired(&self, namespace: &str, task_id: &str, version: u64) -> DocWrite {
        DocWrite::delete(COLL, namespace, task_id, Expect::Version(version))
    }

    /// Commits one lease write on its own.
    pub(crate) async fn apply(&self, write: DocWrite) {
        let _ = self.db.commit(docs(vec![write])).await;
    }
}

fn docs(docs: Vec<DocWrite>) -> Commit {
    Commit {
        docs,
        ..Commit::default()
    }
}
