//! Task events in the store-wide order: the namespace event stream read by
//! position, and deletions of tasks taking their events and counts along.

use super::{context_totals, create, event, row, task};
use crate::{Commit, DocWrite, EventRow, Expect, Store, TaskDelete, TaskQuery, TaskWrite};
use a2a::types::{StreamResponse, TaskState};
use serde_json::json;

/// Appends event `seq` to task `id` (at `expected`) in a commit of its own.
pub async fn append(store: &dyn Store, id: &str, ns: &str, ctx: &str, seq: u64) {
    let commit = Commit {
        task: Some(TaskWrite {
            row: row(id, ns, ctx, TaskState::Working, "2024-01-01T00:00:01.000Z"),
            create: false,
            expected_last_seq: seq - 1,
            expected_rank: None,
            events: vec![EventRow {
                seq,
                body: event(id, seq),
            }],
        }),
        ..Commit::default()
    };
    assert!(store.commit(commit.clone()).await.is_ok());
}

/// `(position order, task, seq)` of a namespace's events after `after`.
pub async fn ordered(store: &dyn Store, ns: &str, after: u64, limit: usize) -> Vec<(String, u64)> {
    let events = store
        .namespace_events_after(ns, after, limit)
        .await
        .unwrap_or_default();
    assert!(
        events.windows(2).all(|w| w[0].position < w[1].position),
        "positions grow"
    );
    events.into_iter().map(|e| (e.task_id, e.event.seq)).collect()
}

pub async fn namespace_events_follow_the_order_of_appends(store: &dyn Store) {
    create(
        store,
        row("a", "ns", "c1", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    create(
        store,
        row(
            "x",
            "other",
            "c9",
            TaskState::Submitted,
            "2024-01-01T00:00:00.000Z",
        ),
    )
    .await;
    create(
        store,
        row("b", "ns", "c2", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    append(store, "a", "ns", "c1", 2).await;
    append(store, "x", "other", "c9", 2).await;
    append(store, "b", "ns", "c2", 2).await;
    append(store, "a", "ns", "c1", 3).await;
    let all = ordered(store, "ns", 0, 100).await;
    let pairs = |v: &[(&str, u64)]| v.iter().map(|(t, s)| (t.to_string(), *s)).collect::<Vec<_>>();
    assert_eq!(all, pairs(&[("a", 1), ("b", 1), ("a", 2), ("b", 2), ("a", 3)]));
    assert_eq!(
        ordered(store, "other", 0, 100).await,
        pairs(&[("x", 1), ("x", 2)])
    );
    assert_eq!(ordered(store, "nobody", 0, 100).await, vec![]);
    // Reading on from any position gives exactly the rest, page by page.
    let events = store
        .namespace_events_after("ns", 0, 100)
        .await
        .unwrap_or_default();
    let third = events[2].position;
    assert_eq!(
        ordered(store, "ns", third, 100).await,
        pairs(&[("b", 2), ("a", 3)])
    );
    assert_eq!(
        ordered(store, "ns", events[0].position, 2).await,
        pairs(&[("b", 1), ("a", 2)])
    );
    assert_eq!(events[1].context_id, "c2");
    assert_eq!(events[1].event.body, StreamResponse::Task(task("b", "first")));
    assert_eq!(ordered(store, "ns", events[4].position, 100).await, vec![]);
}

pub async fn deleted_tasks_take_their_events_and_counts_along(store: &dyn Store) {
    create(
        store,
        row("a", "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    create(
        store,
        row("b", "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    create(
        store,
        row("c", "ns", "d", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    append(store, "a", "ns", "c", 2).await;
    let newest = store
        .namespace_events_after("ns", 0, 100)
        .await
        .ok()
        .and_then(|e| e.last().map(|e| e.position))
        .unwrap_or_default();
    let doc = DocWrite::put("sessions", "ns", "c", Expect::Absent, json!({ "n": 1 }));
    assert!(store
        .commit(Commit {
            docs: vec![doc],
            ..Commit::default()
        })
        .await
        .is_ok());
    let delete = |ns: &str, id: &str| TaskDelete {
        namespace: ns.into(),
        id: id.into(),
    };
    let commit = Commit {
        docs: vec![DocWrite::delete("sessions", "ns", "c", Expect::Version(1))],
        // "b" of another namespace and "zz" are not there: left alone.
        delete_tasks: vec![
            delete("ns", "a"),
            delete("other", "b"),
            delete("ns", "b"),
            delete("ns", "zz"),
        ],
        ..Commit::default()
    };
    assert_eq!(store.commit(commit.clone()).await.map(|c| c.deleted_tasks), Ok(2));
    assert_eq!(store.get_task("ns", "a").await, Ok(None));
    assert_eq!(store.events_after("ns", "a", 0).await, Ok(vec![]));
    assert_eq!(store.get_doc("sessions", "ns", "c").await, Ok(None));
    assert_eq!(ordered(store, "ns", 0, 100).await, vec![("c".to_string(), 1)]);
    assert_eq!(context_totals(store, "c").await, Ok((0, 0, 0)));
    let page = store
        .list_tasks(&TaskQuery {
            namespace: "ns".into(),
            state: Some(TaskState::Submitted.to_string()),
            limit: 10,
            ..Default::default()
        })
        .await;
    assert_eq!(page.map(|p| (p.total, p.rows.len())), Ok((1, 1)));
    // A failed check deletes nothing.
    let refused = Commit {
        docs: vec![DocWrite::delete("sessions", "ns", "c", Expect::Version(7))],
        delete_tasks: vec![delete("ns", "c")],
        ..Commit::default()
    };
    assert!(store.commit(refused.clone()).await.is_err());
    assert!(matches!(store.get_task("ns", "c").await, Ok(Some(_))));
    // Positions are never given twice, even after the newest were deleted.
    append(store, "c", "ns", "d", 2).await;
    let after = store
        .namespace_events_after("ns", 0, 100)
        .await
        .unwrap_or_default();
    assert_eq!(after.len(), 2);
    assert!(after[1].position > newest, "{after:?} after {newest}");
}
