//! Tasks: creation, updates checked against the log's end or the rank read,
//! listings newest first with their filters and totals, and the integrity
//! check over a task.

use super::{create, event, row, task, task_in};
use crate::{
    Commit, DocWrite, EventRow, Expect, Store, StoreError, StoreResult, TaskPage, TaskQuery, TaskWrite,
};
use a2a::types::{StreamResponse, TaskState};
use serde_json::json;

pub async fn task_create_update_and_events(store: &dyn Store) {
    create(
        store,
        row("t1", "ns", "c1", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    let again = Commit {
        task: Some(TaskWrite {
            row: row("t1", "ns", "c1", TaskState::Submitted, "x"),
            create: true,
            expected_last_seq: 0,
            expected_rank: None,
            events: vec![],
        }),
        docs: vec![],
        ..Commit::default()
    };
    assert_eq!(
        store.commit(again.clone()).await,
        Err(StoreError::Conflict {
            index: None,
            found: Some(1)
        })
    );
    // An update of a task that does not exist is refused, and creates nothing.
    let mut missing = move_t1(TaskState::Working, "ghost", 0, &[1]);
    if let Some(write) = missing.task.as_mut() {
        write.row.id = "ghost".into();
    }
    assert_eq!(
        store.commit(missing).await,
        Err(StoreError::Conflict {
            index: None,
            found: None
        })
    );
    assert_eq!(store.get_task("ns", "ghost").await, Ok(None));
    let update = move_t1(TaskState::Completed, "done", 1, &[2, 3]);
    assert!(store.commit(update.clone()).await.is_ok());
    // A stale writer (expects seq 1, the log is at 3) is refused.
    assert_eq!(
        store.commit(update.clone()).await,
        Err(StoreError::Conflict {
            index: None,
            found: Some(3)
        })
    );
    let got = store.get_task("ns", "t1").await.ok().flatten();
    assert_eq!(got.as_ref().map(|r| r.last_seq), Some(3));
    assert_eq!(
        got.as_ref().map(|r| r.state.clone()),
        Some(TaskState::Completed.to_string())
    );
    assert_eq!(
        got.map(|r| r.body),
        Some(task_in("t1", "done", TaskState::Completed))
    );
    // Encoded, the task is exactly its body's encoding, found as the task is.
    let encoded = store.get_task_encoded("ns", "t1").await.ok().flatten();
    assert_eq!(
        encoded.map(|raw| raw.get().to_string()),
        serde_json::to_string(&task_in("t1", "done", TaskState::Completed)).ok()
    );
    assert_eq!(
        store
            .get_task_encoded("ns", "nope")
            .await
            .map(|raw| raw.is_none()),
        Ok(true)
    );
    assert_eq!(
        store
            .get_task_encoded("other", "t1")
            .await
            .map(|raw| raw.is_none()),
        Ok(true)
    );
    let events = store.events_after("ns", "t1", 1).await.unwrap_or_default();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![2, 3]);
    assert_eq!(events[1].body, event("t1", 3));
    assert_eq!(store.events_after("ns", "t1", 3).await.map(|e| e.len()), Ok(0));
    assert_eq!(store.get_task("ns", "nope").await, Ok(None));
    // A task is found only in its own namespace, and so are its events.
    assert_eq!(store.get_task("other", "t1").await, Ok(None));
    assert_eq!(store.events_after("other", "t1", 0).await, Ok(vec![]));
    // Written again with another body, the task keeps every event it had, exactly.
    let append = move_t1(TaskState::InputRequired, "asked", 3, &[4]);
    assert!(store.commit(append.clone()).await.is_ok());
    let events = store.events_after("ns", "t1", 0).await.unwrap_or_default();
    let expected = [
        StreamResponse::Task(task("t1", "first")),
        event("t1", 2),
        event("t1", 3),
        event("t1", 4),
    ];
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    assert_eq!(events.into_iter().map(|e| e.body).collect::<Vec<_>>(), expected);
    let ordered = store
        .namespace_events_after("ns", 0, 10)
        .await
        .unwrap_or_default();
    assert_eq!(
        ordered.iter().map(|e| e.event.seq).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    assert_eq!(
        ordered.into_iter().map(|e| e.event.body).collect::<Vec<_>>(),
        expected
    );
    assert_eq!(store.check_integrity(true).await.map(|i| i.problems), Ok(vec![]));
}

/// Task `t1` of `ns` moved to `state` (its body noted `note`) after event
/// `expected`, appending events `seqs`.
fn move_t1(state: TaskState, note: &str, expected: u64, seqs: &[u64]) -> Commit {
    let mut moved = row("t1", "ns", "c1", state, "2024-01-01T00:00:01.000Z");
    moved.body = task_in("t1", note, state);
    Commit {
        task: Some(TaskWrite {
            row: moved,
            create: false,
            expected_last_seq: expected,
            expected_rank: None,
            events: seqs
                .iter()
                .map(|&seq| EventRow {
                    seq,
                    body: event("t1", seq),
                })
                .collect(),
        }),
        ..Commit::default()
    }
}

pub async fn list_tasks_newest_first_with_filters(store: &dyn Store) {
    create(
        store,
        row("a", "ns", "c1", TaskState::Completed, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    create(
        store,
        row("b", "ns", "c2", TaskState::Working, "2024-01-02T00:00:00.000Z"),
    )
    .await;
    create(
        store,
        row("c", "ns", "c1", TaskState::Completed, "2024-01-03T00:00:00.000Z"),
    )
    .await;
    create(
        store,
        row(
            "d",
            "other",
            "c1",
            TaskState::Completed,
            "2024-01-04T00:00:00.000Z",
        ),
    )
    .await;
    let ids = |page: &TaskPage| page.rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    let query = TaskQuery {
        namespace: "ns".into(),
        limit: 2,
        ..Default::default()
    };
    let first = store.list_tasks(&query).await.unwrap_or_default();
    assert_eq!(ids(&first), vec!["c", "b"]);
    assert_eq!((first.total, first.more), (3, true));
    let cursor = first.rows.last().map(|r| r.rank);
    let second = store
        .list_tasks(&TaskQuery {
            before_rank: cursor,
            ..query.clone()
        })
        .await
        .unwrap_or_default();
    assert_eq!(ids(&second), vec!["a"]);
    assert_eq!((second.total, second.more), (3, false));
    // Ranks start above 0, so a cursor of 0 or less is none a store gave.
    let ranks: Vec<i64> = first.rows.iter().chain(&second.rows).map(|r| r.rank).collect();
    assert!(ranks.iter().all(|rank| *rank > 0), "{ranks:?}");
    // A page exactly as long as what is left has no more after it.
    let whole = store
        .list_tasks(&TaskQuery {
            limit: 3,
            ..query.clone()
        })
        .await
        .unwrap_or_default();
    assert_eq!(ids(&whole), vec!["c", "b", "a"]);
    assert_eq!((whole.total, whole.more), (3, false));
    let by_ctx = store
        .list_tasks(&TaskQuery {
            context_id: Some("c1".into()),
            limit: 10,
            ..query.clone()
        })
        .await
        .unwrap_or_default();
    assert_eq!(ids(&by_ctx), vec!["c", "a"]);
    assert_eq!(by_ctx.total, 2);
    let by_state = store
        .list_tasks(&TaskQuery {
            state: Some(TaskState::Working.to_string()),
            limit: 10,
            ..query.clone()
        })
        .await
        .unwrap_or_default();
    assert_eq!(ids(&by_state), vec!["b"]);
    assert_eq!(by_state.total, 1);
    let by_time = store
        .list_tasks(&TaskQuery {
            status_ts_from: Some("2024-01-02T00:00:00.000Z".into()),
            limit: 10,
            ..query
        })
        .await
        .unwrap_or_default();
    assert_eq!(ids(&by_time), vec!["c", "b"]);
    assert_eq!(by_time.total, 2);
    // A change of state moves the totals of both states.
    let finish = move_task("b", "c2", TaskState::Completed, 1);
    assert!(store.commit(finish.clone()).await.is_ok());
    let total = |state: TaskState| {
        let query = TaskQuery {
            namespace: "ns".into(),
            state: Some(state.to_string()),
            limit: 10,
            ..Default::default()
        };
        async move { store.list_tasks(&query).await.map(|page| page.total) }
    };
    assert_eq!(total(TaskState::Working).await, Ok(0));
    assert_eq!(total(TaskState::Completed).await, Ok(3));
    assert_eq!(context_totals(store, "c2").await, Ok((1, 0, 1)));
    assert_eq!(context_totals(store, "c1").await, Ok((2, 0, 2)));
    // A rejected write moves no count.
    let rejected = move_task("b", "c2", TaskState::Failed, 0);
    assert!(matches!(
        store.commit(rejected.clone()).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(context_totals(store, "c2").await, Ok((1, 0, 1)));
    // A change of state in a context of several tasks moves its counts.
    assert!(store
        .commit(move_task("c", "c1", TaskState::Working, 1))
        .await
        .is_ok());
    assert_eq!(context_totals(store, "c1").await, Ok((2, 1, 1)));
    // A task written again under another context is listed under that one only.
    assert!(store
        .commit(move_task("b", "c1", TaskState::Completed, 1))
        .await
        .is_ok());
    assert_eq!(context_totals(store, "c1").await, Ok((3, 1, 2)));
    assert_eq!(context_totals(store, "c2").await, Ok((0, 0, 0)));
    // And out of a context of several tasks, into an empty one.
    assert!(store
        .commit(move_task("a", "c2", TaskState::Completed, 1))
        .await
        .is_ok());
    assert_eq!(context_totals(store, "c1").await, Ok((2, 1, 1)));
    assert_eq!(context_totals(store, "c2").await, Ok((1, 0, 1)));
    assert_eq!(
        store.namespaces().await,
        Ok(vec!["ns".to_string(), "other".to_string()])
    );
}

/// A write that appends no event leaves the log where it was, so only the
/// rank it expects tells a writer that another came first: the second of two
/// such writes read at the same rank is refused, whether it writes the task
/// alone or with a document, and changes nothing.
pub async fn a_write_expecting_a_stale_rank_is_refused(store: &dyn Store) {
    create(
        store,
        row(
            "t1",
            "ns",
            "c1",
            TaskState::InputRequired,
            "2024-01-01T00:00:00.000Z",
        ),
    )
    .await;
    let read = store.get_task("ns", "t1").await.ok().flatten();
    let Some(rank) = read.map(|r| r.rank) else {
        panic!("the task just created is not found");
    };
    let rewrite = |note: &str, doc: bool| {
        let mut commit = move_t1(TaskState::InputRequired, note, 1, &[]);
        if let Some(tw) = commit.task.as_mut() {
            tw.row.last_seq = 1;
            tw.expected_rank = Some(rank);
        }
        if doc {
            commit.docs = vec![DocWrite::put("actor", "ns", note, Expect::Absent, json!(note))];
        }
        commit
    };
    assert!(store.commit(rewrite("first writer", false)).await.is_ok());
    for doc in [false, true] {
        assert_eq!(
            store.commit(rewrite("second writer", doc)).await,
            Err(StoreError::Conflict {
                index: None,
                found: Some(1)
            })
        );
    }
    let now = store.get_task("ns", "t1").await.ok().flatten();
    assert_eq!(
        now.as_ref().map(|r| r.body.clone()),
        Some(task_in("t1", "first writer", TaskState::InputRequired))
    );
    assert_eq!(store.get_doc("actor", "ns", "second writer").await, Ok(None));
    // Read again, the row's new rank is the one to expect.
    let Some(fresh) = now.map(|r| r.rank) else {
        panic!("the task is gone");
    };
    assert!(fresh > rank, "a rewrite takes a newer rank: {fresh} after {rank}");
    let mut again = rewrite("second writer", true);
    if let Some(tw) = again.task.as_mut() {
        tw.expected_rank = Some(fresh);
    }
    assert!(store.commit(again).await.is_ok());
    assert_eq!(
        store.get_task("ns", "t1").await.ok().flatten().map(|r| r.body),
        Some(task_in("t1", "second writer", TaskState::InputRequired))
    );
    assert_eq!(store.events_after("ns", "t1", 0).await.map(|e| e.len()), Ok(1));
}

/// A commit moving task `id` of context `ctx` in namespace `ns` to `state`
/// (its log unchanged at one event), expecting its log to end at `expected`.
fn move_task(id: &str, ctx: &str, state: TaskState, expected: u64) -> Commit {
    let mut moved = row(id, "ns", ctx, state, "2024-01-05T00:00:00.000Z");
    moved.last_seq = 1;
    Commit {
        task: Some(TaskWrite {
            row: moved,
            create: false,
            expected_last_seq: expected,
            expected_rank: None,
            events: vec![],
        }),
        ..Commit::default()
    }
}

/// The totals of a listing of `context` in namespace `ns`: in any state,
/// WORKING, COMPLETED.
pub async fn context_totals(store: &dyn Store, context: &str) -> StoreResult<(u64, u64, u64)> {
    let total = |state: Option<TaskState>| {
        let query = TaskQuery {
            namespace: "ns".into(),
            context_id: Some(context.into()),
            state: state.map(|s| s.to_string()),
            limit: 1,
            ..Default::default()
        };
        async move { store.list_tasks(&query).await.map(|page| page.total) }
    };
    Ok((
        total(None).await?,
        total(Some(TaskState::Working)).await?,
        total(Some(TaskState::Completed)).await?,
    ))
}

pub async fn integrity_is_clean(store: &dyn Store) {
    for id in ["t", "u"] {
        create(
            store,
            row(id, "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
        )
        .await;
    }
    let report = store.check_integrity(true).await;
    assert_eq!(report.as_ref().map(|r| r.problems.clone()), Ok(vec![]));
    // Each task is counted once.
    assert_eq!(report.map(|r| r.checked_objects), Ok(2));
}
