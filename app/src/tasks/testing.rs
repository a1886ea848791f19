//! What the task module's unit tests share: an engine on an in-memory store,
//! as an agent of its own builds it, and tasks made and moved through it.

use super::changes::{status_change, Change};
use super::TaskEngine;
use crate::push::{PushConfig, PushDelivery};
use crate::store::{MemoryStore, StoreHandle};
use a2a::metrics::Metrics;
use a2a::types::{Task, TaskState};
use std::sync::Arc;

/// A handle on `store`, as an agent of its own holds it.
pub(crate) fn handle(store: &Arc<MemoryStore>) -> StoreHandle {
    StoreHandle::new(store.clone(), Arc::new(Metrics::default()))
}

/// An engine on `store`, as an agent of its own builds it.
pub(crate) fn engine(store: &Arc<MemoryStore>) -> TaskEngine {
    let push = PushDelivery::new(store.clone(), PushConfig::default(), Arc::new(Metrics::default()));
    TaskEngine::new(handle(store), Arc::new(push))
}

/// Creates task `id` of `namespace` (event 1, SUBMITTED) through `engine`.
pub(crate) async fn create(engine: &TaskEngine, namespace: &str, id: &str) {
    let task: Task = serde_json::from_value(serde_json::json!({
        "id": id, "contextId": "c", "status": {"state": TaskState::Submitted}
    }))
    .expect("a task");
    let created = engine
        .create_task_then(namespace, task, |_| Ok(Change { events: vec![] }), vec![], false)
        .await;
    assert!(created.is_ok());
}

/// Moves task `id` of `namespace` to `state` through `engine` (one event).
pub(crate) async fn move_to(engine: &TaskEngine, namespace: &str, id: &str, state: TaskState) {
    let moved = engine
        .mutate(namespace, id, |task| status_change(task, state, None, None))
        .await;
    assert!(moved.is_ok(), "{moved:?}");
}
