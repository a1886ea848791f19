//! The push outbox: rows owed to each webhook written with their events,
//! claims and leases of each target's oldest row, and rows leaving with their
//! target or task.

use super::{append, create, event, row, task};
use crate::{
    Commit, Committed, DeliveryChange, DeliveryKey, DocWrite, EventRow, Expect, Fanout, Store, StoreResult,
    TaskDelete, TaskWrite,
};
use a2a::types::{StreamResponse, TaskState};
use serde_json::json;

/// The fan-out of the outbox tests: targets are documents `t/<id>` of `hooks`.
fn hooks(task_id: &str) -> Fanout {
    Fanout {
        coll: "hooks".into(),
        prefix: format!("{task_id}/"),
    }
}

fn hook(ns: &str, key: &str) -> DocWrite {
    DocWrite::put("hooks", ns, key, Expect::Any, json!({ "url": key }))
}

/// `(target, seq, attempts)` of a task's pending deliveries.
async fn pending(store: &dyn Store, ns: &str, id: &str) -> Vec<(String, u64, u32)> {
    store
        .pending_deliveries(ns, id)
        .await
        .expect("pending deliveries")
        .into_iter()
        .map(|d| (d.key.config_id, d.key.seq, d.attempts))
        .collect()
}

/// `(task, target, seq)` of what `holder` claims at `now` until `until`, sorted.
pub async fn claim(store: &dyn Store, holder: &str, now: i64, until: i64) -> Vec<(String, String, u64)> {
    let mut claimed: Vec<_> = store
        .claim_deliveries(holder, now, until, 100)
        .await
        .expect("claim")
        .into_iter()
        .map(|d| (d.key.task_id, d.key.config_id, d.key.seq))
        .collect();
    claimed.sort();
    claimed
}

fn key(id: &str, target: &str, seq: u64) -> DeliveryKey {
    DeliveryKey {
        namespace: "ns".into(),
        task_id: id.into(),
        config_id: target.into(),
        seq,
    }
}

fn deliveries(changes: Vec<DeliveryChange>) -> Commit {
    Commit {
        deliveries: changes,
        ..Commit::default()
    }
}

pub fn triples(items: &[(&str, &str, u64)]) -> Vec<(String, String, u64)> {
    items
        .iter()
        .map(|(t, c, s)| (t.to_string(), c.to_string(), *s))
        .collect()
}

/// A task `id` created with two targets in the same commit (and documents
/// that are no targets of it: another task's, another namespace's).
pub async fn create_with_hooks(store: &dyn Store, id: &str) -> StoreResult<Committed> {
    let r = row(id, "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z");
    store
        .commit(Commit {
            task: Some(TaskWrite {
                row: r,
                create: true,
                expected_last_seq: 0,
                expected_rank: None,
                events: vec![EventRow {
                    seq: 1,
                    body: StreamResponse::Task(task(id, "first")),
                }],
            }),
            fanout: Some(hooks(id)),
            docs: vec![
                hook("ns", &format!("{id}/w1")),
                hook("ns", &format!("{id}/w2")),
                hook("ns", &format!("{id}x/w9")),
                hook("other", &format!("{id}/w9")),
            ],
            ..Commit::default()
        })
        .await
}

/// Appends events `from..=to` to task `id` in one commit that owes deliveries.
async fn append_owing(store: &dyn Store, id: &str, from: u64, to: u64) -> StoreResult<Committed> {
    store
        .commit(Commit {
            task: Some(TaskWrite {
                row: row(id, "ns", "c", TaskState::Working, "2024-01-01T00:00:01.000Z"),
                create: false,
                expected_last_seq: from - 1,
                expected_rank: None,
                events: (from..=to)
                    .map(|seq| EventRow {
                        seq,
                        body: event(id, seq),
                    })
                    .collect(),
            }),
            fanout: Some(hooks(id)),
            ..Commit::default()
        })
        .await
}

pub async fn outbox_rows_are_written_with_their_events(store: &dyn Store) {
    assert_eq!(store.has_deliveries().await, Ok(false), "an empty outbox");
    assert_eq!(
        create_with_hooks(store, "t").await.map(|c| c.deliveries_owed),
        Ok(2)
    );
    assert_eq!(store.has_deliveries().await, Ok(true));
    let rows = store.pending_deliveries("ns", "t").await.expect("pending");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].key, key("t", "w1", 1));
    assert_eq!(rows[0].body, StreamResponse::Task(task("t", "first")));
    assert_eq!((rows[0].attempts, rows[0].next_attempt_ms), (0, 0));
    assert_eq!(
        append_owing(store, "t", 2, 3).await.map(|c| c.deliveries_owed),
        Ok(4)
    );
    assert_eq!(
        pending(store, "ns", "t").await,
        vec![
            ("w1".into(), 1, 0),
            ("w1".into(), 2, 0),
            ("w1".into(), 3, 0),
            ("w2".into(), 1, 0),
            ("w2".into(), 2, 0),
            ("w2".into(), 3, 0)
        ]
    );
    assert_eq!(
        store.pending_deliveries("ns", "t").await.expect("pending")[2].body,
        event("t", 3)
    );
    // A commit refused by its checks owes nothing; one without a fan-out neither.
    assert!(append_owing(store, "t", 3, 3).await.is_err());
    append(store, "t", "ns", "c", 4).await;
    assert_eq!(pending(store, "ns", "t").await.len(), 6);
    assert_eq!(store.pending_deliveries("other", "t").await, Ok(vec![]));
    assert_eq!(store.pending_deliveries("ns", "tx").await, Ok(vec![]));
    // A task without targets owes nothing.
    create(
        store,
        row(
            "bare",
            "ns",
            "c",
            TaskState::Submitted,
            "2024-01-01T00:00:00.000Z",
        ),
    )
    .await;
    assert_eq!(
        append_owing(store, "bare", 2, 2).await.map(|c| c.deliveries_owed),
        Ok(0)
    );
}

pub async fn outbox_claims_lease_each_targets_oldest_row_once(store: &dyn Store) {
    assert!(create_with_hooks(store, "t").await.is_ok());
    assert!(append_owing(store, "t", 2, 2).await.is_ok());
    // Only the oldest row of each target is due.
    assert_eq!(
        claim(store, "a", 1000, 2000).await,
        triples(&[("t", "w1", 1), ("t", "w2", 1)])
    );
    assert_eq!(claim(store, "b", 1000, 2000).await, vec![], "leased to a");
    assert_eq!(claim(store, "a", 1000, 2000).await, vec![], "already in flight");
    assert!(store
        .commit(deliveries(vec![DeliveryChange::Done(key("t", "w1", 1))]))
        .await
        .is_ok());
    assert_eq!(claim(store, "b", 1500, 5000).await, triples(&[("t", "w1", 2)]));
    // A retry by anyone but the holder changes nothing.
    let retry = |holder: &str| DeliveryChange::Retry {
        key: key("t", "w2", 1),
        holder: holder.into(),
        attempts: 1,
        next_attempt_ms: 3000,
    };
    assert!(store.commit(deliveries(vec![retry("b")])).await.is_ok());
    assert_eq!(pending(store, "ns", "t").await[1], ("w2".into(), 1, 0));
    assert_eq!(claim(store, "b", 1500, 2500).await, vec![]);
    assert!(store.commit(deliveries(vec![retry("a")])).await.is_ok());
    assert_eq!(pending(store, "ns", "t").await[1], ("w2".into(), 1, 1));
    assert_eq!(claim(store, "b", 2900, 4000).await, vec![], "not due yet");
    let due = store.claim_deliveries("b", 3000, 4000, 100).await.expect("claim");
    assert_eq!(due.len(), 1);
    assert_eq!(
        (due[0].key.clone(), due[0].attempts, due[0].next_attempt_ms),
        (key("t", "w2", 1), 1, 3000)
    );
    // Renewed leases hold; expired ones are anybody's.
    assert_eq!(store.renew_deliveries("b", 10_000).await, Ok(2));
    assert_eq!(store.renew_deliveries("nobody", 10_000).await, Ok(0));
    assert_eq!(claim(store, "a", 5000, 6000).await, vec![]);
    assert_eq!(
        claim(store, "a", 10_000, 20_000).await,
        triples(&[("t", "w1", 2), ("t", "w2", 1)])
    );
    // The limit bounds a claim.
    assert!(create_with_hooks(store, "u").await.is_ok());
    assert_eq!(
        store
            .claim_deliveries("c", 10_000, 20_000, 1)
            .await
            .map(|d| d.len()),
        Ok(1)
    );
}

pub async fn outbox_rows_go_with_their_target_or_task(store: &dyn Store) {
    assert!(create_with_hooks(store, "t").await.is_ok());
    assert!(append_owing(store, "t", 2, 2).await.is_ok());
    assert!(create_with_hooks(store, "u").await.is_ok());
    let drop = |id: &str, target: Option<&str>| DeliveryChange::DropTarget {
        namespace: "ns".into(),
        task_id: id.into(),
        config_id: target.map(str::to_string),
    };
    assert!(store
        .commit(deliveries(vec![drop("t", Some("w2"))]))
        .await
        .is_ok());
    assert_eq!(
        pending(store, "ns", "t").await,
        vec![("w1".into(), 1, 0), ("w1".into(), 2, 0)]
    );
    assert!(store.commit(deliveries(vec![drop("u", None)])).await.is_ok());
    assert_eq!(pending(store, "ns", "u").await, vec![]);
    assert!(create_with_hooks(store, "v").await.is_ok());
    let delete = |id: &str| Commit {
        delete_tasks: vec![TaskDelete {
            namespace: "ns".into(),
            id: id.into(),
        }],
        ..Commit::default()
    };
    assert_eq!(store.commit(delete("t")).await.map(|c| c.deleted_tasks), Ok(1));
    assert_eq!(pending(store, "ns", "t").await, vec![]);
    // Only the deleted task's rows go: another task's stay owed.
    assert_eq!(
        pending(store, "ns", "v").await,
        vec![("w1".into(), 1, 0), ("w2".into(), 1, 0)]
    );
    assert_eq!(store.commit(delete("v")).await.map(|c| c.deleted_tasks), Ok(1));
    assert_eq!(claim(store, "a", 1000, 2000).await, vec![]);
    // Every row gone: nothing is owed any more.
    assert_eq!(store.has_deliveries().await, Ok(false));
}
