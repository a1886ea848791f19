#![cfg(test)]
//! The parts of the task service that are plain functions: the push
//! config a new task's request carries, as it is stored, and an executor's
//! steps as status steps; the tasks a process that ended left under way,
//! failed and counted at start-up; and on a shared store, the sweep that
//! fails a task whose run's agent died.

use super::{push_config_writes, with_no_metadata};
use a2a::types::{Message, SendMessageConfiguration, TaskState};
use serde_json::{json, Value};

/// The documents `push_config_writes` makes for task `t` of namespace `ns`
/// from a request configuration, as (key, stored value).
fn written(configuration: Value, tenant: Option<&str>) -> Vec<(String, Value)> {
    let configuration: SendMessageConfiguration =
        serde_json::from_value(configuration).expect("a configuration");
    let docs = push_config_writes("ns", "t", Some(&configuration), tenant).expect("the writes");
    docs.into_iter()
        .map(|doc| {
            assert_eq!(
                (doc.coll.as_str(), doc.namespace.as_str()),
                (crate::push::COLL, "ns")
            );
            (doc.key, doc.value.unwrap_or_default())
        })
        .collect()
}

/// A new task's push config is stored under the task, naming it and the
/// call's tenant whatever the client put there, with the client's id, or
/// one of its own when the client gave none or an empty one.
#[test]
fn a_new_tasks_push_config_is_stored_under_it() {
    let given = json!({"taskPushNotificationConfig": {
        "id": "mine", "taskId": "another", "url": "https://example.com/hook"
    }});
    let stored = written(given, Some("acme"));
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].0, "t/mine");
    assert_eq!(stored[0].1["id"], "mine");
    assert_eq!(stored[0].1["taskId"], "t");
    assert_eq!(stored[0].1["tenant"], "acme");
    assert_eq!(stored[0].1["url"], "https://example.com/hook");

    for id in [json!(null), json!("")] {
        let given = json!({"taskPushNotificationConfig": {"id": id, "url": "https://example.com/hook"}});
        let stored = written(given, None);
        let made = stored[0].1["id"].as_str().unwrap_or_default().to_string();
        assert!(!made.is_empty(), "an id is made");
        assert_eq!(stored[0].0, format!("t/{made}"));
        assert_eq!(stored[0].1["taskId"], "t");
        assert_eq!(stored[0].1.get("tenant"), None);
    }
    assert_eq!(written(json!({}), None), vec![]);
}

/// An executor's settled steps become status steps one for one, in order,
/// each with its message and no event metadata.
#[test]
fn an_executors_steps_become_status_steps_in_order() {
    let answer: Message = serde_json::from_value(json!({
        "messageId": "a", "role": a2a::types::Role::Agent, "parts": [{"text": "done"}]
    }))
    .expect("a message");
    let steps = with_no_metadata(vec![
        (TaskState::Working, None),
        (TaskState::Completed, Some(answer)),
    ]);
    let seen: Vec<(TaskState, Option<String>, bool)> = steps
        .into_iter()
        .map(|(state, message, metadata)| (state, message.map(|m| m.message_id), metadata.is_some()))
        .collect();
    assert_eq!(
        seen,
        [
            (TaskState::Working, None, false),
            (TaskState::Completed, Some("a".into()), false)
        ]
    );
}

/// At start-up on a store only this process opens, every task an ended
/// process left SUBMITTED or WORKING, in every namespace, is failed and
/// counted; tasks that ended or wait on their client are left as they are.
#[tokio::test]
async fn tasks_an_ended_process_left_under_way_are_failed_and_counted() {
    use crate::store::{InlineStore, MemoryStore};
    use crate::tasks::testing::{create, engine, move_to};
    use std::sync::Arc;
    let store = Arc::new(MemoryStore::new());
    let before = engine(&store);
    let left = [
        ("ns", "submitted", None),
        ("ns", "working", Some(TaskState::Working)),
        ("other", "elsewhere", Some(TaskState::Working)),
        ("ns", "asking", Some(TaskState::InputRequired)),
        ("ns", "done", Some(TaskState::Completed)),
    ];
    for (namespace, id, state) in left {
        create(&before, namespace, id).await;
        if let Some(state) = state {
            move_to(&before, namespace, id, state).await;
        }
    }
    let app = crate::App::with_store(store.clone(), crate::AppConfig::default());
    let resumed = app.resume_work().await.map(|r| r.failed_tasks);
    assert_eq!(resumed.ok(), Some(3));
    let states: Vec<String> = left
        .iter()
        .map(|(namespace, id, _)| InlineStore::get_task(&*store, namespace, id))
        .map(|row| row.ok().flatten().map(|row| row.state).unwrap_or_default())
        .collect();
    let expected: Vec<String> = [
        TaskState::Failed,
        TaskState::Failed,
        TaskState::Failed,
        TaskState::InputRequired,
        TaskState::Completed,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(states, expected);
}

/// On a store shared with other agents, the service's sweep fails a task
/// whose run's lease has expired (its agent died mid-run), for as long as
/// the runtime lives.
#[tokio::test(start_paused = true)]
async fn the_services_sweep_fails_a_task_whose_run_was_abandoned() {
    use crate::store::{Commit, MemoryStore};
    use crate::tasks::runs::{RunLeases, ABANDONED};
    use crate::tasks::testing::{create, engine, handle, move_to};
    use std::sync::Arc;
    use std::time::Duration;
    const LEASE: Duration = Duration::from_secs(3);
    let store = Arc::new(MemoryStore::new());
    let engine = engine(&store);
    create(&engine, "ns", "t").await;
    move_to(&engine, "ns", "t", TaskState::Working).await;
    // The lease of an agent that died: it lasted no time at all.
    let dead = RunLeases::new(handle(&store), Duration::ZERO).put("ns", "t");
    let written = crate::store::Store::commit(
        &*store,
        Commit {
            docs: dead.into_iter().collect(),
            ..Commit::default()
        },
    )
    .await;
    assert!(written.is_ok(), "{written:?}");
    let app = crate::App::with_store(store.clone(), crate::AppConfig::default());
    let mut tasks = app.tasks.clone();
    tasks.leases = Some(RunLeases::new(handle(&store), LEASE));
    tasks.sweep_abandoned_runs();
    // One sweep (a third of the lease) and then some, in paused time.
    tokio::time::sleep(LEASE).await;
    let task = engine.load_task("ns", "t").await.expect("the task").body;
    assert_eq!(task.status.state, TaskState::Failed);
    let said = task.status.message.map(|m| m.parts);
    assert_eq!(said, Some(vec![crate::executor::text_part(ABANDONED)]));
}
