//! The engine against an in-memory store: the slots of live tasks go when
//! nothing uses them, a subscriber behind another agent's events gets them
//! before this agent's, and an event owes each webhook of its task a
//! delivery.

use super::TaskEngine;
use crate::push::{self, PushConfig, PushDelivery};
use crate::store::{Commit, DocWrite, Expect, InlineStore, MemoryStore, Store, StoreHandle};
use crate::tasks::changes::{status_change, Change};
use a2a::metrics::Metrics;
use a2a::types::{Task, TaskState};
use std::sync::Arc;

/// An engine on `store`, as an agent of its own builds it.
fn engine(store: Arc<MemoryStore>) -> TaskEngine {
    let metrics = Arc::new(Metrics::default());
    let db = StoreHandle::new(store.clone(), metrics.clone());
    let push = Arc::new(PushDelivery::new(store, PushConfig::default(), metrics));
    TaskEngine::new(db, push)
}

fn task(id: &str) -> Task {
    serde_json::from_value(serde_json::json!({
        "id": id, "contextId": "c", "status": {"state": TaskState::Submitted}
    }))
    .expect("a task")
}

/// Moves task `t` of `ns` to `state` through `engine`.
async fn move_to(engine: &TaskEngine, state: TaskState) {
    let moved = engine
        .mutate("ns", "t", |task| status_change(task, state, None, None))
        .await;
    assert!(moved.is_ok(), "{moved:?}");
}

#[tokio::test]
async fn a_tasks_slot_goes_once_nothing_uses_it() {
    let engine = engine(Arc::new(MemoryStore::new()));
    let created = engine
        .create_task_then("ns", task("t"), |_| Ok(Change { events: vec![] }), vec![], false)
        .await;
    assert!(created.is_ok());
    drop(created);
    move_to(&engine, TaskState::Working).await;
    let subscription = engine.subscribe("ns", "t", None).await;
    assert!(subscription.is_ok());
    assert_eq!(engine.probe(), Ok(1));
    drop(subscription);
    // The subscriber gone, the next use of the task releases the slot.
    move_to(&engine, TaskState::InputRequired).await;
    assert_eq!(engine.probe(), Ok(0));
}

#[tokio::test]
async fn a_subscriber_gets_another_agents_events_before_this_ones() {
    let store = Arc::new(MemoryStore::new());
    let (here, there) = (engine(store.clone()), engine(store));
    let created = here
        .create_task_then("ns", task("t"), |_| Ok(Change { events: vec![] }), vec![], false)
        .await;
    assert!(created.is_ok());
    drop(created);
    let (backlog, live) = here.subscribe("ns", "t", None).await.expect("subscribed");
    assert_eq!(backlog.iter().map(|e| e.seq).collect::<Vec<_>>(), [Some(1)]);
    let mut live = live.expect("a live task");
    // Another agent's event (no notice reaches this one: the memory store
    // sends none), then this agent's.
    move_to(&there, TaskState::Working).await;
    move_to(&here, TaskState::InputRequired).await;
    let mut seen = Vec::new();
    while let Ok(event) = live.try_recv() {
        seen.push(event.seq);
    }
    assert_eq!(seen, [Some(2), Some(3)]);
}

#[tokio::test]
async fn an_event_of_a_task_with_a_webhook_owes_it_a_delivery() {
    let store = Arc::new(MemoryStore::new());
    let engine = engine(store.clone());
    let created = engine
        .create_task_then("ns", task("t"), |_| Ok(Change { events: vec![] }), vec![], false)
        .await;
    assert!(created.is_ok());
    let hook = DocWrite::put(
        push::COLL,
        "ns",
        &push::config_key("t", "h"),
        Expect::Absent,
        serde_json::json!({"url": "https://example.com/hook"}),
    );
    let registered = store
        .commit(Commit {
            docs: vec![hook],
            ..Commit::default()
        })
        .await;
    assert!(registered.is_ok());
    assert_eq!(InlineStore::has_deliveries(&*store), Ok(false));
    move_to(&engine, TaskState::Working).await;
    assert_eq!(InlineStore::has_deliveries(&*store), Ok(true));
}
