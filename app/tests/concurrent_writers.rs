//! Two agents writing one task of a shared store: a commit of the other
//! agent's lands between this agent's read of the task and its commit, and
//! neither change is lost. The other agent's write is made in the store at
//! exactly that point (by [`Interposed`]), so the race is the same every run.

use a2a::rpc::CallContext;
use a2a::types::{
    Message, Part, PartContent, Role, StreamResponse, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use a2a::Router;
use app::store::{Commit, CommitDone, EventRow, InlineStore, MemoryStore, TaskRow, TaskWrite};
use app::{App, AppConfig, ExecutorKind};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use wrapped::{Around, Wrapped};

#[path = "common/wrapped.rs"]
mod wrapped;

/// The id of the message the other agent adds to the task's history.
const OTHER_AGENTS_MESSAGE: &str = "from-the-other-agent";

/// The task a wrapped store waits for: the next commit updating it fires
/// the other agent's change, once.
#[derive(Default)]
struct Armed(Mutex<Option<String>>);

impl Armed {
    fn arm(&self, id: &str) {
        *self.0.lock().expect("armed") = Some(id.to_string());
    }

    /// The namespace and id of the armed task when `commit` updates it,
    /// disarming it.
    fn fires_on(&self, commit: &Commit) -> Option<(String, String)> {
        let row = commit.task.as_ref().filter(|tw| !tw.create).map(|tw| &tw.row)?;
        let mut armed = self.0.lock().expect("armed");
        if armed.as_deref() != Some(row.id.as_str()) {
            return None;
        }
        armed.take().map(|_| (row.namespace.clone(), row.id.clone()))
    }
}

/// A memory store that, once armed with a task's id, makes the other
/// agent's change to it (a message added to its history, no event) just
/// before the next commit that updates that task: this agent's reply, read
/// before the other change and committed after it.
struct Interposed {
    inner: MemoryStore,
    armed: Armed,
    fired: Mutex<bool>,
}

impl Interposed {
    /// The other agent's commit: the task as stored, one message longer.
    fn other_agents_change(&self, namespace: &str, id: &str) -> Commit {
        let Ok(Some(row)) = self.inner.get_task(namespace, id) else {
            panic!("the armed task {id} is not stored");
        };
        let mut task = row.body;
        task.history.push(Message {
            message_id: OTHER_AGENTS_MESSAGE.into(),
            context_id: task.context_id.clone(),
            task_id: Some(task.id.clone()),
            role: Role::User,
            parts: vec![Part {
                content: PartContent::Text("sent through the other agent".into()),
                ..serde_json::from_value(json!({ "text": "" })).expect("a part")
            }],
            metadata: None,
            extensions: vec![],
            reference_task_ids: vec![],
        });
        Commit {
            task: Some(TaskWrite {
                row: TaskRow::new(namespace, task, row.last_seq),
                create: false,
                expected_last_seq: row.last_seq,
                expected_rank: Some(row.rank),
                events: vec![],
            }),
            ..Commit::default()
        }
    }
}

impl Around for Interposed {
    fn inner(&self) -> &MemoryStore {
        &self.inner
    }
    fn submit(&self, commit: Commit, done: CommitDone) {
        if let Some((namespace, id)) = self.armed.fires_on(&commit) {
            let other = self.other_agents_change(&namespace, &id);
            self.inner.submit(
                other,
                Box::new(|outcome| assert!(outcome.is_ok(), "the other agent's commit: {outcome:?}")),
            );
            *self.fired.lock().expect("fired") = true;
        }
        self.inner.submit(commit, done)
    }
}

/// Calls `method` in local mode.
async fn call(router: &Router<App>, method: &str, params: Value) -> Result<Value, a2a::Error> {
    router
        .dispatch(CallContext::default(), method, Some(params))
        .await
        .into_single()
}

fn message(id: &str, text: &str, task_id: Option<&str>, configuration: Value) -> Value {
    let mut message = json!({ "messageId": id, "role": "ROLE_USER", "parts": [{ "text": text }] });
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    json!({ "message": message, "configuration": configuration })
}

/// The ids of the messages of a task's history, in order.
fn history_ids(task: &Value) -> Vec<String> {
    task["history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["messageId"].as_str().map(str::to_string))
        .collect()
}

/// An application with the suites' executor over an [`Interposed`] store,
/// and a task of it waiting for input.
async fn waiting_task() -> (Router<App>, Arc<Wrapped<Interposed>>, String) {
    let store = Arc::new(Wrapped(Interposed {
        inner: MemoryStore::new(),
        armed: Armed::default(),
        fired: Mutex::new(false),
    }));
    let config = AppConfig {
        executor: ExecutorKind::Tck,
        ..Default::default()
    };
    let router = Router::new(App::with_store(store.clone(), config));
    let opened = call(
        &router,
        "SendMessage",
        message("tck-multi-turn-1", "tck-multi-turn first", None, json!({})),
    )
    .await
    .expect("the first message");
    assert_eq!(opened["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let id = opened["task"]["id"].as_str().expect("a task id").to_string();
    (router, store, id)
}

/// Replies to task `id` with `configuration` while the other agent's
/// change comes between the reply's read and its commit; the task after.
async fn reply_beaten_by_the_other_agent(
    router: &Router<App>,
    store: &Wrapped<Interposed>,
    id: &str,
    configuration: Value,
) -> Value {
    store.0.armed.arm(id);
    let replied = call(
        router,
        "SendMessage",
        message("second", "second", Some(id), configuration),
    )
    .await
    .expect("the reply");
    assert_eq!(replied["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert!(
        *store.0.fired.lock().expect("fired"),
        "the other agent's change was not made"
    );
    let task = call(router, "GetTask", json!({ "id": id }))
        .await
        .expect("the task");
    // Both messages are there, once each, the reply after the other
    // agent's: it was made again on the task that change left.
    let ids = history_ids(&task);
    let once = |id: &str| ids.iter().filter(|m| *m == id).count() == 1;
    assert!(once(OTHER_AGENTS_MESSAGE) && once("second"), "{ids:?}");
    let other = ids.iter().position(|m| m == OTHER_AGENTS_MESSAGE);
    let second = ids.iter().position(|m| m == "second");
    assert!(other < second, "{ids:?}");
    assert_eq!(ids.first().map(String::as_str), Some("tck-multi-turn-1"));
    task
}

#[tokio::test]
async fn a_reply_committed_after_another_agents_keeps_both_messages() {
    let (router, store, id) = waiting_task().await;
    reply_beaten_by_the_other_agent(&router, &store, &id, json!({})).await;
}

/// A conditional reply (A2A 1.1 `ifGenerationMatch`) whose commit finds
/// the other agent's message there: that message moved no generation, so the
/// reply still matches and is made again after it, rather than refused.
#[tokio::test]
async fn a_conditional_reply_after_another_agents_message_still_matches() {
    let (router, store, id) = waiting_task().await;
    let task = call(&router, "GetTask", json!({ "id": id }))
        .await
        .expect("the task");
    let generation = task["generation"].as_i64().expect("a generation");
    let configuration = json!({ "ifGenerationMatch": generation });
    let task = reply_beaten_by_the_other_agent(&router, &store, &id, configuration).await;
    // The reply's status event and the executor's: two generations on.
    assert_eq!(task["generation"].as_i64(), Some(generation + 2), "{task}");
}

/// A memory store that, once armed with a task's id, lets the next commit
/// that updates that task through and then commits the other agent's
/// cancel of it: the task ends between this agent's reply and the
/// subscription the reply answers from.
struct CanceledAfter {
    inner: MemoryStore,
    armed: Armed,
}

impl CanceledAfter {
    /// The other agent's cancel: the task as stored, CANCELED, with its event.
    fn other_agents_cancel(&self, namespace: &str, id: &str) -> Commit {
        let Ok(Some(row)) = self.inner.get_task(namespace, id) else {
            panic!("the armed task {id} is not stored");
        };
        let mut task = row.body;
        task.status = TaskStatus {
            state: TaskState::Canceled,
            message: None,
            timestamp: Some("2026-01-01T00:00:00.000Z".into()),
        };
        let event = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone().unwrap_or_default(),
            status: task.status.clone(),
            generation: None,
            metadata: None,
        });
        Commit {
            task: Some(TaskWrite {
                row: TaskRow::new(namespace, task, row.last_seq + 1),
                create: false,
                expected_last_seq: row.last_seq,
                expected_rank: Some(row.rank),
                events: vec![EventRow {
                    seq: row.last_seq + 1,
                    body: event,
                }],
            }),
            ..Commit::default()
        }
    }
}

impl Around for CanceledAfter {
    fn inner(&self) -> &MemoryStore {
        &self.inner
    }
    fn submit(&self, commit: Commit, done: CommitDone) {
        let due = self.armed.fires_on(&commit);
        self.inner.submit(commit, done);
        if let Some((namespace, id)) = due {
            let cancel = self.other_agents_cancel(&namespace, &id);
            self.inner.submit(
                cancel,
                Box::new(|outcome| assert!(outcome.is_ok(), "the other agent's cancel: {outcome:?}")),
            );
        }
    }
}

/// A reply committed just before another agent cancels the task is taken:
/// its sender is answered with the task as it ended, the reply in its
/// history, never with an error that says the message was refused.
#[tokio::test]
async fn a_reply_taken_just_before_another_agents_cancel_is_answered_with_the_canceled_task() {
    let store = Arc::new(Wrapped(CanceledAfter {
        inner: MemoryStore::new(),
        armed: Armed::default(),
    }));
    let config = AppConfig {
        executor: ExecutorKind::Tck,
        ..Default::default()
    };
    let router = Router::new(App::with_store(store.clone(), config));
    let opened = call(
        &router,
        "SendMessage",
        message("tck-multi-turn-1", "tck-multi-turn first", None, json!({})),
    )
    .await
    .expect("the first message");
    let id = opened["task"]["id"].as_str().expect("a task id").to_string();
    store.0.armed.arm(&id);
    let replied = call(
        &router,
        "SendMessage",
        message("second", "second", Some(&id), json!({})),
    )
    .await
    .expect("the reply is taken, so it is not refused");
    assert_eq!(
        replied["task"]["status"]["state"], "TASK_STATE_CANCELED",
        "{replied}"
    );
    assert_eq!(sent_ids(&replied["task"]), ["tck-multi-turn-1", "second"]);
    let task = call(&router, "GetTask", json!({ "id": id }))
        .await
        .expect("the task");
    assert_eq!(task["status"]["state"], "TASK_STATE_CANCELED");
    assert_eq!(sent_ids(&task), ["tck-multi-turn-1", "second"]);
}

/// The ids of the user's messages of a task's history, in order.
fn sent_ids(task: &Value) -> Vec<String> {
    task["history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "ROLE_USER")
        .filter_map(|m| m["messageId"].as_str().map(str::to_string))
        .collect()
}
