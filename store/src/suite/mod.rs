//! The one behavioural suite of the storage API: plain async functions that
//! take any [`Store`] and assert what every backend must do, and
//! [`store_suite!`](crate::store_suite), which makes one `#[tokio::test]` of
//! each for a backend (its crate's tests invoke it). The helpers that build
//! and read back rows are public too, for the backends' own tests.
//!
//! One file per concern: `tasks`, `docs` (documents), `commits` (commits
//! submitted together), `events` (the store-wide event order) and `outbox`
//! (push deliveries owed); this one holds the rows they build and the macro.
//! Every function is re-exported here, so `suite::append` and the macro's
//! `$crate::suite::…` paths name them wherever they live.

mod commits;
mod docs;
mod events;
mod outbox;
mod tasks;

pub use commits::*;
pub use docs::*;
pub use events::*;
pub use outbox::*;
pub use tasks::*;

// Not a glob: the embedded backends implement [`InlineStore`](crate::InlineStore)
// too, and its synchronous methods must not shadow the API under test.
use crate::{Commit, EventRow, Store, TaskRow, TaskWrite};
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
