//! The engine against an in-memory store: the slots of live tasks go when
//! nothing uses them, a subscriber behind another agent's events gets them
//! before this agent's, on a catch-up and on a notice, documents are
//! written with the task change that carries them, an event owes each
//! webhook of its task a delivery, a creation's first steps follow the Task
//! in order, a change's events take the next sequence numbers, a change
//! another agent beat is made again (and given up after the last attempt),
//! and a conditional change is made only at its generation.

use super::MAX_ATTEMPTS;
use crate::push;
use crate::store::{
    Appended, Commit, DocWrite, EventRow, Expect, InlineStore, MemoryStore, Store, TaskRow, TaskWrite,
};
use crate::tasks::changes::{status_change, Change};
use crate::tasks::stream::LiveEvents;
use crate::tasks::testing::{create, engine, move_to};
use a2a::types::TaskState;
use a2a::ErrorKind;
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

/// The events a creation's first steps make follow the Task (event 1) in
/// order, in the store and in what the caller is handed; a subscriber is
/// registered only for a task that has not ended.
#[tokio::test]
async fn a_creations_steps_follow_the_task_in_order() {
    use crate::tasks::changes::status_steps;
    let store = Arc::new(MemoryStore::new());
    let engine = engine(&store);
    for (id, steps) in [
        ("running", vec![TaskState::Working]),
        ("done", vec![TaskState::Working, TaskState::Completed]),
    ] {
        let task = serde_json::from_value(serde_json::json!({
            "id": id, "contextId": "c", "status": {"state": TaskState::Submitted}
        }))
        .expect("a task");
        let steps: Vec<_> = steps.iter().map(|state| (*state, None, None)).collect();
        let created = engine
            .create_task_then("ns", task, |task| status_steps(task, steps), vec![], true)
            .await
            .expect("created");
        let seqs: Vec<u64> = (1..=created.events.len() as u64).collect();
        assert_eq!(
            created.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
            seqs.iter().map(|s| Some(*s)).collect::<Vec<_>>()
        );
        assert_eq!(created.task.generation, Some(seqs.len() as i64));
        let stored = InlineStore::events_after(&*store, "ns", id, 0).expect("the events");
        assert_eq!(stored.iter().map(|e| e.seq).collect::<Vec<_>>(), seqs);
        assert_eq!(created.rx.is_some(), id == "running", "{id}");
    }
}

/// Appends a WORKING event to task `id` straight in `store`, as another
/// agent's commit would, between this agent's read of the task and its commit.
fn append_elsewhere(store: &MemoryStore, id: &str) {
    let row = InlineStore::get_task(store, "ns", id)
        .expect("read")
        .expect("the task");
    let mut body = row.body;
    let change = status_change(&mut body, TaskState::Working, None, None).expect("a change");
    let seq = row.last_seq + 1;
    let events = change
        .events
        .into_iter()
        .map(|body| EventRow { seq, body })
        .collect();
    let commit = Commit {
        task: Some(TaskWrite {
            row: TaskRow::new("ns", body, seq),
            create: false,
            expected_last_seq: row.last_seq,
            expected_rank: Some(row.rank),
            events,
        }),
        ..Commit::default()
    };
    InlineStore::submit(store, commit, Box::new(|done| assert!(done.is_ok(), "{done:?}")));
}

/// The last event of task `id` in `store`.
fn last_seq(store: &MemoryStore, id: &str) -> Option<u64> {
    InlineStore::get_task(store, "ns", id)
        .ok()
        .flatten()
        .map(|row| row.last_seq)
}

/// A change that another agent's commit beat is made again on the task as
/// that left it; one beaten on every attempt gives up after the last, having
/// changed nothing.
#[tokio::test]
async fn a_change_beaten_by_other_agents_is_made_again_then_given_up() {
    let store = Arc::new(MemoryStore::new());
    let engine = engine(&store);
    create(&engine, "ns", "t").await;
    let mut tries = 0;
    let changed = engine
        .mutate("ns", "t", |task| {
            tries += 1;
            if tries == 1 {
                append_elsewhere(&store, "t");
            }
            status_change(task, TaskState::InputRequired, None, None)
        })
        .await;
    assert_eq!(changed.map(|task| task.generation).ok(), Some(Some(3)));
    assert_eq!(tries, 2);

    let mut tries = 0;
    let beaten = engine
        .mutate("ns", "t", |task| {
            tries += 1;
            if tries > MAX_ATTEMPTS {
                return Err(a2a::rpc::Error::new(
                    ErrorKind::InternalError,
                    "tried once too often",
                ));
            }
            append_elsewhere(&store, "t");
            status_change(task, TaskState::Completed, None, None)
        })
        .await;
    let message = beaten.err().map(|e| e.message);
    let gave_up = format!("task t changed under each of {MAX_ATTEMPTS} attempts to change it; retry");
    assert_eq!(message, Some(gave_up));
    assert_eq!(tries, MAX_ATTEMPTS);
    // Only the other agent's events stand.
    assert_eq!(last_seq(&store, "t"), Some(3 + u64::from(MAX_ATTEMPTS)));
}

/// A conditional change (A2A 1.1 `ifGenerationMatch`) is made only at the
/// generation it names; at another it is TaskGenerationMismatch and nothing
/// changes.
#[tokio::test]
async fn a_conditional_change_is_made_only_at_its_generation() {
    let store = Arc::new(MemoryStore::new());
    let engine = engine(&store);
    create(&engine, "ns", "t").await;
    move_to(&engine, "ns", "t", TaskState::Working).await;
    for stale in [1, 3] {
        let refused = engine
            .mutate_if_generation("ns", "t", stale, |task| {
                status_change(task, TaskState::Completed, None, None)
            })
            .await;
        assert_eq!(
            refused.err().and_then(|e| e.kind::<ErrorKind>()),
            Some(ErrorKind::TaskGenerationMismatch)
        );
        assert_eq!(last_seq(&store, "t"), Some(2));
    }
    let made = engine
        .mutate_if_generation("ns", "t", 2, |task| {
            status_change(task, TaskState::Completed, None, None)
        })
        .await;
    assert_eq!(made.map(|task| task.generation).ok(), Some(Some(3)));
}

/// The events of one change take the next sequence numbers in order, in the
/// store and for a subscriber.
#[tokio::test]
async fn a_changes_events_take_the_next_sequence_numbers() {
    use crate::tasks::changes::status_steps;
    let store = Arc::new(MemoryStore::new());
    let engine = engine(&store);
    create(&engine, "ns", "t").await;
    let (_, live) = engine.subscribe("ns", "t", None).await.expect("subscribed");
    let mut live = live.expect("a live task");
    let steps = vec![
        (TaskState::Working, None, None),
        (TaskState::Completed, None, None),
    ];
    let mut steps = Some(steps);
    let changed = engine
        .mutate("ns", "t", |task| {
            status_steps(task, steps.take().unwrap_or_default())
        })
        .await;
    assert_eq!(changed.map(|task| task.generation).ok(), Some(Some(3)));
    let stored = InlineStore::events_after(&*store, "ns", "t", 0).expect("the events");
    assert_eq!(stored.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(given(&mut live), [Some(2), Some(3)]);
}
