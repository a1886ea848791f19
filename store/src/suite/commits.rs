//! Commits submitted together: a durable backend gathers them into few
//! transactions, and each still stands or fails on its own.

use super::{row, task};
use crate::{Commit, DocWrite, EventRow, Expect, Store, StoreError, TaskQuery, TaskWrite};
use a2a::types::{StreamResponse, TaskState};
use serde_json::json;

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
