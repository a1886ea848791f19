//! Run leases against an in-memory store: which leases count as expired,
//! a lease held exactly while its run lives, and the sweep failing the
//! tasks whose runs were abandoned, and only those.

use super::{RunLease, RunLeases, ABANDONED, COLL};
use crate::executor::text_part;
use crate::store::{Commit, DocWrite, Expect, MemoryStore, Store};
use crate::tasks::testing::{create, engine, handle, move_to};
use crate::tasks::TaskEngine;
use crate::util::now_ms;
use a2a::types::TaskState;
use std::sync::Arc;
use std::time::Duration;

const LEASE: Duration = Duration::from_secs(3);

/// Writes a lease on task `task_id` of `namespace`, as stored.
async fn lease(store: &Arc<MemoryStore>, namespace: &str, task_id: &str, value: serde_json::Value) {
    let written = store
        .commit(Commit {
            docs: vec![DocWrite::put(COLL, namespace, task_id, Expect::Any, value)],
            ..Commit::default()
        })
        .await;
    assert!(written.is_ok(), "{written:?}");
}

fn lasting_until(until_ms: i64) -> serde_json::Value {
    serde_json::to_value(RunLease {
        holder: "another agent".into(),
        until_ms,
    })
    .expect("a lease")
}

/// Task `id` of `namespace`, moved to `state`.
async fn task_in(engine: &TaskEngine, namespace: &str, id: &str, state: TaskState) {
    create(engine, namespace, id).await;
    if state != TaskState::Submitted {
        move_to(engine, namespace, id, state).await;
    }
}

async fn state_of(engine: &TaskEngine, namespace: &str, id: &str) -> TaskState {
    engine
        .load_task(namespace, id)
        .await
        .expect("the task")
        .body
        .status
        .state
}

async fn lease_of(store: &Arc<MemoryStore>, namespace: &str, id: &str) -> Option<RunLease> {
    let doc = store.get_doc(COLL, namespace, id).await.expect("a read");
    doc.map(|doc| serde_json::from_value(doc.value).expect("a lease"))
}

#[tokio::test]
async fn expired_leases_are_the_past_and_the_unreadable_ones_of_every_namespace() {
    let store = Arc::new(MemoryStore::new());
    let now = now_ms();
    lease(&store, "a", "past", lasting_until(now - 1)).await;
    lease(&store, "a", "future", lasting_until(now + 3_600_000)).await;
    lease(&store, "b", "garbled", serde_json::json!({"holder": 7})).await;
    lease(&store, "b", "long-gone", lasting_until(0)).await;
    let leases = RunLeases::new(handle(&store), LEASE);
    let mut expired = leases.expired().await.expect("a listing");
    expired.sort();
    let expected = [("a", "past"), ("b", "garbled"), ("b", "long-gone")];
    let expected: Vec<_> = expected
        .iter()
        .map(|(n, k)| (n.to_string(), k.to_string(), 1))
        .collect();
    assert_eq!(expired, expected);
}

#[tokio::test]
async fn a_lease_is_written_for_one_lease_from_now() {
    let store = Arc::new(MemoryStore::new());
    let leases = RunLeases::new(handle(&store), LEASE);
    let before = now_ms();
    let write = leases.put("ns", "t").expect("a lease write");
    let after = now_ms();
    let committed = store
        .commit(Commit {
            docs: vec![write],
            ..Commit::default()
        })
        .await;
    assert!(committed.is_ok());
    let held = lease_of(&store, "ns", "t").await.expect("the lease");
    assert_eq!(held.holder, *leases.holder);
    assert!(
        held.until_ms >= before + 3_000 && held.until_ms <= after + 3_000,
        "{}",
        held.until_ms
    );
}

#[tokio::test(start_paused = true)]
async fn a_lease_is_held_while_its_run_lives_and_goes_after() {
    let store = Arc::new(MemoryStore::new());
    let leases = RunLeases::new(handle(&store), LEASE);
    let (end, ended) = tokio::sync::oneshot::channel::<()>();
    let held = {
        let leases = leases.clone();
        tokio::spawn(async move {
            leases
                .hold_while("ns", "t", async {
                    let _ = ended.await;
                })
                .await;
        })
    };
    // Several renewals later (time is paused: each sleep passes once the
    // run and its renewals wait), the lease is this agent's.
    tokio::time::sleep(LEASE * 2).await;
    let lease = lease_of(&store, "ns", "t")
        .await
        .expect("held while the run lives");
    assert_eq!(lease.holder, *leases.holder);
    let versions = store
        .get_doc(COLL, "ns", "t")
        .await
        .expect("a read")
        .map(|doc| doc.version);
    assert!(
        versions.is_some_and(|v| v >= 3),
        "renewed every third of the lease: {versions:?}"
    );
    let _ = end.send(());
    held.await.expect("the run ends");
    assert!(
        lease_of(&store, "ns", "t").await.is_none(),
        "released when the run ends"
    );
}

#[tokio::test(start_paused = true)]
async fn the_sweep_fails_the_tasks_of_expired_leases_only() {
    let store = Arc::new(MemoryStore::new());
    let engine = engine(&store);
    let now = now_ms();
    task_in(&engine, "ns", "abandoned", TaskState::Working).await;
    lease(&store, "ns", "abandoned", lasting_until(now - 1)).await;
    task_in(&engine, "other", "queued", TaskState::Submitted).await;
    lease(&store, "other", "queued", lasting_until(now - 1)).await;
    task_in(&engine, "ns", "running", TaskState::Working).await;
    lease(&store, "ns", "running", lasting_until(now + 3_600_000)).await;
    task_in(&engine, "ns", "done", TaskState::Completed).await;
    lease(&store, "ns", "done", lasting_until(now - 1)).await;
    RunLeases::new(handle(&store), LEASE).sweep(engine.clone());
    // One sweep (a third of the lease) and then some, in paused time.
    tokio::time::sleep(LEASE).await;
    for (namespace, id) in [("ns", "abandoned"), ("other", "queued")] {
        let task = engine.load_task(namespace, id).await.expect("the task").body;
        assert_eq!(task.status.state, TaskState::Failed, "{id}");
        let said = task.status.message.map(|m| m.parts);
        assert_eq!(said, Some(vec![text_part(ABANDONED)]), "{id}");
        assert!(
            lease_of(&store, namespace, id).await.is_none(),
            "{id}'s lease goes with it"
        );
    }
    assert_eq!(state_of(&engine, "ns", "running").await, TaskState::Working);
    assert!(lease_of(&store, "ns", "running").await.is_some());
    // A task that ended keeps its state; only its stale lease goes.
    assert_eq!(state_of(&engine, "ns", "done").await, TaskState::Completed);
    assert!(lease_of(&store, "ns", "done").await.is_none());
}
