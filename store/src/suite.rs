//! The one behavioural suite of the storage API: plain async functions that
//! take any [`Store`] and assert what every backend must do, and
//! [`store_suite!`](crate::store_suite), which makes one `#[tokio::test]` of
//! each for a backend (its crate's tests invoke it). The helpers that build
//! and read back rows are public too, for the backends' own tests.

// Not a glob: the embedded backends implement [`InlineStore`](crate::InlineStore)
// too, and its synchronous methods must not shadow the API under test.
use crate::{
    Commit, Committed, DeliveryChange, DeliveryKey, Doc, DocWrite, EventRow, Expect, Fanout, Store,
    StoreError, StoreResult, TaskDelete, TaskPage, TaskQuery, TaskRow, TaskWrite,
};
use a2a::types::{StreamResponse, Task, TaskState};
use serde_json::{json, Value};

/// A typed value from its ProtoJSON form.
fn typed<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid ProtoJSON value")
}

/// A task body with `id`, told apart from others by its metadata `note`.
fn task(id: &str, note: &str) -> Task {
    task_in(id, note, TaskState::Submitted)
}

fn task_in(id: &str, note: &str, state: TaskState) -> Task {
    typed(json!({ "id": id, "status": { "state": state }, "metadata": { "note": note } }))
}

/// A status-update event of task `id`, told apart by its metadata `n`.
fn event(id: &str, n: u64) -> StreamResponse {
    typed(json!({ "statusUpdate": {
        "taskId": id, "contextId": "c", "status": { "state": TaskState::Working }, "metadata": { "n": n }
    } }))
}

pub fn row(id: &str, ns: &str, ctx: &str, state: TaskState, ts: &str) -> TaskRow {
    TaskRow {
        id: id.into(),
        namespace: ns.into(),
        context_id: ctx.into(),
        state: state.to_string(),
        status_ts: ts.into(),
        last_seq: 0,
        rank: 0,
        body: task(id, "first"),
    }
}

pub async fn create(store: &dyn Store, r: TaskRow) {
    let commit = Commit {
        task: Some(TaskWrite {
            row: r.clone(),
            create: true,
            expected_last_seq: 0,
            expected_rank: None,
            events: vec![EventRow {
                seq: 1,
                body: StreamResponse::Task(task(&r.id, "first")),
            }],
        }),
        docs: vec![],
        ..Commit::default()
    };
    assert!(store.commit(commit.clone()).await.is_ok());
}

/// Tasks `t1` and `t2` in context `c`, `t3` in context `d`, all working in
/// namespace `ns`: a context of two tasks and a context of one.
pub async fn two_contexts(store: &dyn Store) {
    for (id, ctx) in [("t1", "c"), ("t2", "c"), ("t3", "d")] {
        create(
            store,
            row(id, "ns", ctx, TaskState::Working, "2024-01-01T00:00:00.000Z"),
        )
        .await;
    }
}

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

pub async fn documents_are_versioned_and_commits_atomic(store: &dyn Store) {
    let put = |expect, v| Commit {
        task: None,
        docs: vec![DocWrite::put("actor", "ns", "k", expect, v)],
        ..Commit::default()
    };
    assert_eq!(
        store
            .commit(put(Expect::Absent, json!(1)))
            .await
            .map(|c| c.doc_versions),
        Ok(vec![1])
    );
    assert_eq!(
        store.commit(put(Expect::Absent, json!(2))).await,
        Err(StoreError::Conflict {
            index: Some(0),
            found: Some(1)
        })
    );
    assert_eq!(
        store.commit(put(Expect::Version(7), json!(2))).await,
        Err(StoreError::Conflict {
            index: Some(0),
            found: Some(1)
        })
    );
    assert_eq!(
        store
            .commit(put(Expect::Version(1), json!(2)))
            .await
            .map(|c| c.doc_versions),
        Ok(vec![2])
    );
    // A commit whose second write fails leaves the first unapplied.
    let mixed = Commit {
        task: None,
        docs: vec![
            DocWrite::put("actor", "ns", "other", Expect::Absent, json!("x")),
            DocWrite::put("actor", "ns", "k", Expect::Version(1), json!(3)),
        ],
        ..Commit::default()
    };
    assert_eq!(
        store.commit(mixed.clone()).await,
        Err(StoreError::Conflict {
            index: Some(1),
            found: Some(2)
        })
    );
    assert_eq!(store.get_doc("actor", "ns", "other").await, Ok(None));
    let doc = store.get_doc("actor", "ns", "k").await.ok().flatten();
    assert_eq!(doc.map(|d| (d.version, d.value)), Some((2, json!(2))));
    let del = Commit {
        task: None,
        docs: vec![DocWrite::delete("actor", "ns", "k", Expect::Version(2))],
        ..Commit::default()
    };
    assert_eq!(
        store.commit(del.clone()).await.map(|c| c.doc_versions),
        Ok(vec![0])
    );
    assert_eq!(store.get_doc("actor", "ns", "k").await, Ok(None));
}

pub async fn list_docs_by_prefix_and_cursor(store: &dyn Store) {
    let docs = ["p/1", "p/2", "p/3", "q/1", "p"]
        .iter()
        .map(|k| DocWrite::put("c", "ns", k, Expect::Absent, json!(k)))
        .collect();
    assert!(store
        .commit(Commit {
            task: None,
            docs,
            ..Commit::default()
        })
        .await
        .is_ok());
    let keys = |docs: Vec<Doc>| docs.into_iter().map(|d| d.key).collect::<Vec<_>>();
    assert_eq!(
        store.list_docs("c", "ns", "p/", None, 10).await.map(keys),
        Ok(vec!["p/1".into(), "p/2".into(), "p/3".into()])
    );
    assert_eq!(
        store.list_docs("c", "ns", "p/", Some("p/1"), 1).await.map(keys),
        Ok(vec!["p/2".into()])
    );
    assert_eq!(
        store.list_docs("c", "ns", "", None, 10).await.map(|d| d.len()),
        Ok(5)
    );
    // No limit at all (a scan of every document) is a limit too.
    assert_eq!(
        store
            .list_docs("c", "ns", "", None, usize::MAX)
            .await
            .map(|d| d.len()),
        Ok(5)
    );
    assert_eq!(
        store.list_docs("c", "other", "", None, 10).await.map(|d| d.len()),
        Ok(0)
    );
}

pub async fn list_docs_before_pages_backwards(store: &dyn Store) {
    let docs = ["a", "b", "c", "d", "b/1"]
        .iter()
        .map(|k| DocWrite::put("c", "ns", k, Expect::Absent, json!(k)))
        .chain([
            DocWrite::put("c", "ns2", "z", Expect::Absent, json!("other namespace")),
            DocWrite::put(
                "c",
                "n",
                "y",
                Expect::Absent,
                json!("a namespace that is a prefix"),
            ),
            DocWrite::put("c2", "ns", "x", Expect::Absent, json!("other collection")),
        ])
        .collect();
    assert!(store
        .commit(Commit {
            task: None,
            docs,
            ..Commit::default()
        })
        .await
        .is_ok());
    let keys = |docs: Vec<Doc>| docs.into_iter().map(|d| d.key).collect::<Vec<_>>();
    assert_eq!(
        store.list_docs_before("c", "ns", None, 10).await.map(keys),
        Ok(vec!["d".into(), "c".into(), "b/1".into(), "b".into(), "a".into()])
    );
    // Page by page, each page starting below the last key seen.
    let mut seen = Vec::new();
    let mut before: Option<String> = None;
    for _ in 0..10 {
        let page = store
            .list_docs_before("c", "ns", before.as_deref(), 2)
            .await
            .map(keys)
            .unwrap_or_default();
        if page.is_empty() {
            break;
        }
        before = page.last().cloned();
        seen.extend(page);
    }
    assert_eq!(seen, ["d", "c", "b/1", "b", "a"]);
    assert_eq!(
        store.list_docs_before("c", "ns", Some("b"), 10).await.map(keys),
        Ok(vec!["a".into()])
    );
    assert_eq!(
        store.list_docs_before("c", "ns", Some("a"), 10).await.map(keys),
        Ok(vec![])
    );
    assert_eq!(
        store.list_docs_before("c", "ns", Some("zzz"), 1).await.map(keys),
        Ok(vec!["d".into()])
    );
    let values = store
        .list_docs_before("c", "ns", Some("b/1"), 1)
        .await
        .map(|d| d.into_iter().map(|d| (d.version, d.value)).collect::<Vec<_>>());
    assert_eq!(values, Ok(vec![(1, json!("b"))]));
    assert_eq!(
        store.list_docs_before("c", "none", None, 10).await.map(keys),
        Ok(vec![])
    );
    assert_eq!(
        store.list_docs_before("c", "ns", None, 0).await.map(keys),
        Ok(vec![])
    );
}

pub async fn integrity_is_clean(store: &dyn Store) {
    create(
        store,
        row("t", "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
    )
    .await;
    let report = store.check_integrity(true).await;
    assert_eq!(report.as_ref().map(|r| r.problems.clone()), Ok(vec![]));
    assert_eq!(report.map(|r| r.checked_objects), Ok(1));
}

/// A task creation with one document write, as one commit.
fn create_with_doc(id: &str, expect: Expect) -> Commit {
    Commit {
        task: Some(TaskWrite {
            row: row(id, "ns", "c", TaskState::Submitted, "2024-01-01T00:00:00.000Z"),
            create: true,
            expected_last_seq: 0,
            expected_rank: None,
            events: vec![EventRow {
                seq: 1,
                body: StreamResponse::Task(task(id, "first")),
            }],
        }),
        docs: vec![DocWrite::put("d", "ns", id, expect, json!(id))],
        ..Commit::default()
    }
}

/// Many commits submitted at once (a durable backend gathers them into few
/// transactions): each has its own outcome, in submission order; a commit
/// that fails its checks changes nothing, and its neighbours stand.
pub async fn submitted_commits_stand_alone(store: &dyn Store) {
    let mut answers = vec![];
    let mut expected = vec![];
    for i in 0..60 {
        let id = format!("t{i}");
        let commit = match i % 3 {
            // The document this one writes must not exist: it does not.
            0 => create_with_doc(&id, Expect::Absent),
            // Creates the task of the commit just before: a conflict.
            1 => create_with_doc(&format!("t{}", i - 1), Expect::Any),
            // A task write that is fine, with a document write that fails:
            // nothing of it may remain.
            _ => create_with_doc(&id, Expect::Version(9)),
        };
        expected.push(i % 3 == 0);
        // Submitted now, all before any is awaited.
        answers.push(store.commit(commit));
    }
    let outcomes = futures_util::future::join_all(answers).await;
    assert_eq!(outcomes.len(), 60);
    for (i, outcome) in outcomes.iter().enumerate() {
        match i % 3 {
            0 => assert!(outcome.is_ok(), "commit {i}: {outcome:?}"),
            1 => assert_eq!(
                outcome,
                &Err(StoreError::Conflict {
                    index: None,
                    found: Some(1)
                }),
                "commit {i}"
            ),
            _ => assert_eq!(
                outcome,
                &Err(StoreError::Conflict {
                    index: Some(0),
                    found: None
                }),
                "commit {i}"
            ),
        }
    }
    for (i, stored) in expected.iter().enumerate() {
        let id = format!("t{i}");
        assert_eq!(
            store.get_task("ns", &id).await.map(|t| t.is_some()),
            Ok(*stored),
            "task {id}"
        );
        assert_eq!(
            store.get_doc("d", "ns", &id).await.map(|d| d.is_some()),
            Ok(*stored),
            "doc {id}"
        );
    }
    // Ranks only grow, in commit order.
    let page = store
        .list_tasks(&TaskQuery {
            namespace: "ns".into(),
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap_or_default();
    let ids: Vec<String> = page.rows.iter().map(|r| r.id.clone()).collect();
    let newest_first: Vec<String> = (0..60)
        .rev()
        .filter(|i| i % 3 == 0)
        .map(|i| format!("t{i}"))
        .collect();
    assert_eq!(ids, newest_first);
}

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
    let commit = Commit {
        delete_tasks: vec![TaskDelete {
            namespace: "ns".into(),
            id: "t".into(),
        }],
        ..Commit::default()
    };
    assert_eq!(store.commit(commit.clone()).await.map(|c| c.deleted_tasks), Ok(1));
    assert_eq!(pending(store, "ns", "t").await, vec![]);
    assert_eq!(claim(store, "a", 1000, 2000).await, vec![]);
    // Every row gone: nothing is owed any more.
    assert_eq!(store.has_deliveries().await, Ok(false));
}

/// One `#[tokio::test]` per function of the suite, in a module `$name`, on
/// the store `$make` builds: an expression (awaited inside an async fn) of
/// type `(Box<dyn Store>, Option<tempfile::TempDir>)`, the directory being
/// what the store's files need to live.
#[macro_export]
macro_rules! store_suite {
    ($name:ident, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            async fn store() -> (Box<dyn $crate::Store>, Option<tempfile::TempDir>) {
                $make
            }
            #[tokio::test]
            async fn task_create_update_and_events() {
                let (store, _dir) = store().await;
                $crate::suite::task_create_update_and_events(&*store).await;
            }
            #[tokio::test]
            async fn a_write_expecting_a_stale_rank_is_refused() {
                let (store, _dir) = store().await;
                $crate::suite::a_write_expecting_a_stale_rank_is_refused(&*store).await;
            }
            #[tokio::test]
            async fn list_tasks_newest_first_with_filters() {
                let (store, _dir) = store().await;
                $crate::suite::list_tasks_newest_first_with_filters(&*store).await;
            }
            #[tokio::test]
            async fn documents_are_versioned_and_commits_atomic() {
                let (store, _dir) = store().await;
                $crate::suite::documents_are_versioned_and_commits_atomic(&*store).await;
            }
            #[tokio::test]
            async fn list_docs_by_prefix_and_cursor() {
                let (store, _dir) = store().await;
                $crate::suite::list_docs_by_prefix_and_cursor(&*store).await;
            }
            #[tokio::test]
            async fn list_docs_before_pages_backwards() {
                let (store, _dir) = store().await;
                $crate::suite::list_docs_before_pages_backwards(&*store).await;
            }
            #[tokio::test]
            async fn submitted_commits_stand_alone() {
                let (store, _dir) = store().await;
                $crate::suite::submitted_commits_stand_alone(&*store).await;
            }
            #[tokio::test]
            async fn namespace_events_follow_the_order_of_appends() {
                let (store, _dir) = store().await;
                $crate::suite::namespace_events_follow_the_order_of_appends(&*store).await;
            }
            #[tokio::test]
            async fn deleted_tasks_take_their_events_and_counts_along() {
                let (store, _dir) = store().await;
                $crate::suite::deleted_tasks_take_their_events_and_counts_along(&*store).await;
            }
            #[tokio::test]
            async fn outbox_rows_are_written_with_their_events() {
                let (store, _dir) = store().await;
                $crate::suite::outbox_rows_are_written_with_their_events(&*store).await;
            }
            #[tokio::test]
            async fn outbox_claims_lease_each_targets_oldest_row_once() {
                let (store, _dir) = store().await;
                $crate::suite::outbox_claims_lease_each_targets_oldest_row_once(&*store).await;
            }
            #[tokio::test]
            async fn outbox_rows_go_with_their_target_or_task() {
                let (store, _dir) = store().await;
                $crate::suite::outbox_rows_go_with_their_target_or_task(&*store).await;
            }
            #[tokio::test]
            async fn integrity_is_clean() {
                let (store, _dir) = store().await;
                $crate::suite::integrity_is_clean(&*store).await;
            }
        }
    };
}

#[cfg(test)]
mod memory {
    crate::store_suite!(suite, (Box::new(crate::MemoryStore::new()), None));
}
