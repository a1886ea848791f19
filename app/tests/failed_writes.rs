//! A run whose writes the store refuses (a full disk, say): a blocking
//! SendMessage that waits for the run's status answers with the task as it
//! is stored once the run has ended, rather than waiting forever; nothing
//! the store refused is claimed done.

use a2a::rpc::CallContext;
use a2a::Router;
use app::store::{Commit, CommitDone, InlineStore, MemoryStore, StoreError};
use app::{App, AppConfig, ExecutorKind};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use wrapped::{Around, Wrapped};

#[path = "common/wrapped.rs"]
mod wrapped;

/// A bound far beyond what an answer takes, so a call that never answers
/// fails the test instead of hanging it.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// A memory store that, once it fills, takes as many more commits changing
/// a stored task as it has room for and refuses every later one (as a store
/// whose disk filled up would); new tasks and everything else it takes.
struct Filling {
    inner: MemoryStore,
    /// Task updates still taken; negative: no limit.
    room: AtomicI64,
}

impl Filling {
    fn room_for(&self, updates: i64) {
        self.room.store(updates, Ordering::SeqCst);
    }
}

impl Around for Filling {
    fn inner(&self) -> &MemoryStore {
        &self.inner
    }
    fn submit(&self, commit: Commit, done: CommitDone) {
        let updates_a_task = commit.task.as_ref().is_some_and(|write| !write.create);
        let full = updates_a_task
            && self
                .room
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |room| {
                    (room > 0).then(|| room - 1)
                })
                .is_err_and(|room| room == 0);
        if full {
            done(Err(StoreError::Backend("database or disk is full".into())));
            return;
        }
        self.inner.submit(commit, done)
    }
}

async fn call(router: &Router<App>, method: &str, params: Value) -> Result<Value, a2a::Error> {
    let answer = router.dispatch(CallContext::default(), method, Some(params));
    tokio::time::timeout(HANG_GUARD, answer)
        .await
        .unwrap_or_else(|_| panic!("{method} did not answer within {HANG_GUARD:?}"))
        .into_single()
}

fn message(id: &str, text: &str, task_id: Option<&str>) -> Value {
    let mut message = json!({ "messageId": id, "role": "ROLE_USER", "parts": [{ "text": text }] });
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    json!({ "message": message })
}

fn router(executor: ExecutorKind) -> (Router<App>, Arc<Wrapped<Filling>>) {
    let store = Arc::new(Wrapped(Filling {
        inner: MemoryStore::new(),
        room: AtomicI64::new(-1),
    }));
    let config = AppConfig {
        executor,
        ..Default::default()
    };
    (Router::new(App::with_store(store.clone(), config)), store)
}

/// The ids of the caller's messages in a task's history, in order.
fn history_ids(task: &Value) -> Vec<&str> {
    task["history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "ROLE_USER")
        .filter_map(|m| m["messageId"].as_str())
        .collect()
}

#[tokio::test]
async fn a_blocking_send_answers_when_its_run_cannot_write() {
    let (router, store) = router(ExecutorKind::Tck);
    store.0.room_for(0);
    // The task is created (a new row); every status the run then writes is
    // refused.
    let sent = call(
        &router,
        "SendMessage",
        message("m-1", "tck-multi-turn first", None),
    )
    .await
    .expect("the task as stored");
    let task = &sent["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_SUBMITTED", "{sent}");
    assert_eq!(history_ids(task), ["m-1"]);
    let id = task["id"].as_str().expect("a task id");
    let stored = call(&router, "GetTask", json!({ "id": id }))
        .await
        .expect("the task");
    assert_eq!(stored["status"], task["status"]);
    // Once the store takes writes again, the task can be ended.
    store.0.room_for(-1);
    let canceled = call(&router, "CancelTask", json!({ "id": id }))
        .await
        .expect("canceled");
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn a_blocking_reply_answers_when_its_run_cannot_write() {
    let (router, store) = router(ExecutorKind::Tck);
    let opened = call(
        &router,
        "SendMessage",
        message("m-1", "tck-multi-turn first", None),
    )
    .await
    .expect("the first message");
    assert_eq!(opened["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let id = opened["task"]["id"].as_str().expect("a task id").to_string();
    // Room for the reply itself, none for the run's answer to it.
    store.0.room_for(1);
    let replied = call(&router, "SendMessage", message("m-2", "more", Some(&id)))
        .await
        .expect("the task as stored");
    let task = &replied["task"];
    assert_eq!(history_ids(task), ["m-1", "m-2"], "{replied}");
    // Still waiting for input, as it was: the run's answer was refused.
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let stored = call(&router, "GetTask", json!({ "id": id }))
        .await
        .expect("the task");
    assert_eq!(stored["status"], task["status"]);
    assert_eq!(history_ids(&stored), ["m-1", "m-2"]);
}
