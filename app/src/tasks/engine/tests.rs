//! The engine against an in-memory store: the slots of live tasks go when
//! nothing uses them, a subscriber behind another agent's events gets them
//! before this agent's, on a catch-up and on a notice, documents are
//! written with the task change that carries them, and an event owes each
//! webhook of its task a delivery.

use crate::push;
use crate::store::{Appended, Commit, DocWrite, Expect, InlineStore, MemoryStore, Store};
use crate::tasks::changes::{status_change, Change};
use crate::tasks::stream::LiveEvents;
use crate::tasks::testing::{create, engine, move_to};
use a2a::types::TaskState;
use std::sync::Arc;
use std::time::Duration;

#[tokio::test]
async fn a_tasks_slot_goes_once_nothing_uses_it() {
    let engine = engine(&Arc::new(MemoryStore::new()));
    create(&engine, "ns", "t").await;
    move_to(&engine, "ns", "t", TaskState::Working).await;
    let subscription = engine.subscribe("ns", "t", None).await;
    assert!(subscription.is_ok());
    assert_eq!(engine.probe(), Ok(1));
    drop(subscription);
    // The subscriber gone, the next use of the task releases the slot.
    move_to(&engine, "ns", "t", TaskState::InputRequired).await;
    assert_eq!(engine.probe(), Ok(0));
}

#[tokio::test]
async fn a_subscriber_gets_another_agents_events_before_this_ones() {
    let store = Arc::new(MemoryStore::new());
    let (here, there) = (engine(&store), engine(&store));
    create(&here, "ns", "t").await;
    let (backlog, live) = here.subscribe("ns", "t", None).await.expect("subscribed");
    assert_eq!(backlog.iter().map(|e| e.seq).collect::<Vec<_>>(), [Some(1)]);
    let mut live = live.expect("a live task");
    // Another agent's event (no notice reaches this one: the memory store
    // sends none), then this agent's.
    move_to(&there, "ns", "t", TaskState::Working).await;
    move_to(&here, "ns", "t", TaskState::InputRequired).await;
    let mut seen = Vec::new();
    while let Ok(event) = live.try_recv() {
        seen.push(event.seq);
    }
    assert_eq!(seen, [Some(2), Some(3)]);
}

#[tokio::test]
async fn an_event_of_a_task_with_a_webhook_owes_it_a_delivery() {
    let store = Arc::new(MemoryStore::new());
    let engine = engine(&store);
    create(&engine, "ns", "t").await;
    let registered = store
        .commit(Commit {
            docs: vec![webhook()],
            ..Commit::default()
        })
        .await;
    assert!(registered.is_ok());
    assert_eq!(InlineStore::has_deliveries(&*store), Ok(false));
    move_to(&engine, "ns", "t", TaskState::Working).await;
    assert_eq!(InlineStore::has_deliveries(&*store), Ok(true));
}

/// Every event a subscriber has been given so far, by sequence number.
fn given(live: &mut LiveEvents) -> Vec<Option<u64>> {
    let mut seen = Vec::new();
    while let Ok(event) = live.try_recv() {
        seen.push(event.seq);
    }
    seen
}

#[tokio::test]
async fn a_catch_up_gives_subscribers_what_they_have_not_had_once() {
    let store = Arc::new(MemoryStore::new());
    let (here, there) = (engine(&store), engine(&store));
    create(&here, "ns", "t").await;
    create(&here, "ns", "other").await;
    let (_, live) = here.subscribe("ns", "t", None).await.expect("subscribed");
    let mut live = live.expect("a live task");
    move_to(&there, "ns", "t", TaskState::Working).await;
    move_to(&there, "ns", "t", TaskState::InputRequired).await;
    // A notice older than what the subscriber has spares the read.
    here.catch_up("t", Some(1)).await;
    assert_eq!(given(&mut live), []);
    here.catch_up("t", Some(3)).await;
    assert_eq!(given(&mut live), [Some(2), Some(3)]);
    here.catch_up("t", None).await;
    assert_eq!(given(&mut live), []);
    // A task nobody here follows is not read, and leaves no slot.
    here.catch_up("other", Some(1)).await;
    assert_eq!(here.probe(), Ok(1));
}

/// Well inside the sweep's interval (500 ms).
const SOON: Duration = Duration::from_millis(100);

/// The next event's sequence number if it comes within [`SOON`].
async fn next_soon(live: &mut LiveEvents) -> Option<Option<u64>> {
    let next = tokio::time::timeout(SOON, live.recv()).await;
    next.ok().flatten().map(|event| event.seq)
}

#[tokio::test(start_paused = true)]
async fn notices_bring_other_agents_events_before_the_sweep() {
    let store = Arc::new(MemoryStore::new());
    let (here, there) = (engine(&store), engine(&store));
    create(&here, "ns", "t").await;
    let (_, live) = here.subscribe("ns", "t", None).await.expect("subscribed");
    let mut live = live.expect("a live task");
    // The memory store sends no notices: this test sends them, on a
    // channel that holds one.
    let (notify, notices) = tokio::sync::broadcast::channel(1);
    let following = tokio::spawn(super::follow_others(
        here.db.clone(),
        here.push.clone(),
        Arc::downgrade(&here.live),
        notices,
    ));
    // The following starts with a sweep. Time is paused (only the timers
    // move it), so what arrives within SOON of a notice, before the next
    // sweep, was brought by the notice.
    tokio::time::sleep(SOON).await;
    move_to(&there, "ns", "t", TaskState::Working).await;
    let sent = notify.send(Appended {
        task_id: Some("t".into()),
        last_seq: 2,
    });
    assert!(sent.is_ok());
    assert_eq!(next_soon(&mut live).await, Some(Some(2)));
    // Notices dropped (two sent into room for one): everything is read.
    move_to(&there, "ns", "t", TaskState::InputRequired).await;
    for task_id in ["x", "y"] {
        let sent = notify.send(Appended {
            task_id: Some(task_id.into()),
            last_seq: 1,
        });
        assert!(sent.is_ok());
    }
    assert_eq!(next_soon(&mut live).await, Some(Some(3)));
    // No more notices: the following ends.
    drop(notify);
    assert!(tokio::time::timeout(SOON, following).await.is_ok());
}

/// A push configuration of task `t` of `ns`, to write in a commit.
fn webhook() -> DocWrite {
    DocWrite::put(
        push::COLL,
        "ns",
        &push::config_key("t", "h"),
        Expect::Absent,
        serde_json::json!({"url": "https://example.com/hook"}),
    )
}

#[tokio::test]
async fn a_task_is_created_with_its_documents_and_owes_their_webhook_event_1() {
    let store = Arc::new(MemoryStore::new());
    let engine = engine(&store);
    let task = serde_json::from_value(serde_json::json!({
        "id": "t", "contextId": "c", "status": {"state": TaskState::Submitted}
    }))
    .expect("a task");
    let created = engine
        .create_task_then(
            "ns",
            task,
            |_| Ok(Change { events: vec![] }),
            vec![webhook()],
            false,
        )
        .await;
    assert!(created.is_ok());
    let hook = InlineStore::get_doc(&*store, push::COLL, "ns", &push::config_key("t", "h"));
    assert!(hook.is_ok_and(|doc| doc.is_some()));
    assert_eq!(InlineStore::has_deliveries(&*store), Ok(true));
}

#[tokio::test]
async fn a_change_writes_its_documents_with_it() {
    let store = Arc::new(MemoryStore::new());
    let engine = engine(&store);
    create(&engine, "ns", "t").await;
    let changed = engine
        .mutate_with("ns", "t", vec![webhook()], |task| {
            status_change(task, TaskState::Working, None, None)
        })
        .await;
    assert!(changed.is_ok(), "{changed:?}");
    let hook = InlineStore::get_doc(&*store, push::COLL, "ns", &push::config_key("t", "h"));
    assert!(hook.is_ok_and(|doc| doc.is_some()));
}
