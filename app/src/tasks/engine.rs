//! The live machinery of tasks: per-task serialization, sequence numbers,
//! fan-out to subscribers, and the outbox rows of push delivery written with
//! the events.
//!
//! Every change to a task runs under that task's async lock: load, apply,
//! give each event the next per-task sequence number, commit task and events
//! in one durable transaction, then deliver to the subscribers registered
//! under the same lock. A subscriber registers while holding the lock, after
//! reading the snapshot or the backlog, so it sees every later event exactly
//! once and in order. A task's slot (its lock and subscribers) lives only
//! while something uses it: it is released when the last user leaves and
//! nobody is subscribed, so finished, failed or never-existing tasks leave
//! nothing behind.
//!
//! On a store shared with other agents ([`crate::store::Store::appended`]),
//! another agent may append to a task this one has subscribers for. Each
//! subscriber knows the last sequence number it was given; on every notice
//! of appended events, and on a periodic sweep (a notice can be missed), the
//! engine reads what follows the least of them from the store, under the
//! task's lock, and gives each subscriber only what it has not had. The
//! store is the truth: a missed notice delays an event, never loses it, and
//! nobody gets one twice.

use super::changes::{artifact_change, stamp_seq, status_change, status_steps, Change, StatusStep};
use super::stream::{ends_stream, LiveEvents};
use crate::lifecycle::is_terminal;
use crate::push::PushDelivery;
use crate::store::{
    Appended, Commit, DocWrite, EventRow, Internal, StoreError, StoreHandle, TaskRow, TaskWrite,
};
use crate::util::Family;
use a2a::rpc::{Error, Event};
use a2a::types::{Artifact, Message, StreamResponse, Task, TaskState};
use a2a::ErrorKind;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

const FAMILY: Family = Family::A2a;

/// How often the tasks with subscribers are read again on a shared store,
/// in case a notice of another agent's events was missed.
const SWEEP_INTERVAL: Duration = Duration::from_millis(500);
/// How many times a change is made again when another agent's commit to
/// its task came first, before it is given up.
const MAX_ATTEMPTS: u32 = 16;

type Slot = Arc<tokio::sync::Mutex<Live>>;
type Registry = Mutex<HashMap<String, Slot>>;

/// One subscriber of a task, and the sequence number of the last event it got.
struct Sub {
    tx: mpsc::UnboundedSender<Arc<Event<StreamResponse>>>,
    seen: u64,
}

#[derive(Default)]
struct Live {
    /// The task's namespace, known once somebody subscribed.
    namespace: String,
    subscribers: Vec<Sub>,
}

impl Live {
    fn subscribe(&mut self, namespace: &str, seen: u64) -> LiveEvents {
        let (tx, rx) = mpsc::unbounded_channel();
        self.namespace = namespace.to_string();
        self.subscribers.push(Sub { tx, seen });
        rx
    }

    /// Gives each subscriber the events (in order) it has not had; a
    /// terminal one ends every subscription.
    fn fan_out(&mut self, events: &[Event<StreamResponse>]) {
        for event in events {
            let Some(seq) = event.seq else { continue };
            let mut shared: Option<Arc<Event<StreamResponse>>> = None;
            self.subscribers.retain_mut(|sub| {
                if seq <= sub.seen {
                    return true;
                }
                sub.seen = seq;
                let event = shared.get_or_insert_with(|| Arc::new(event.clone()));
                sub.tx.send(event.clone()).is_ok()
            });
            if ends_stream(&event.data, false) {
                // Nothing can follow: release the subscribers (their streams
                // end on the terminal event they already hold), and with them the slot.
                self.subscribers.clear();
            }
        }
    }

    /// The least sequence number all subscribers have had.
    fn least_seen(&self) -> Option<u64> {
        self.subscribers.iter().map(|sub| sub.seen).min()
    }

    /// The least sequence number all subscribers have had, when some
    /// subscriber has not had every event before `seq`.
    fn behind(&self, seq: u64) -> Option<u64> {
        self.least_seen().filter(|seen| *seen < seq)
    }
}

/// What a subscriber gets: the backlog, then (unless the task has ended)
/// the live events.
pub(crate) type Subscription = (VecDeque<Event<StreamResponse>>, Option<LiveEvents>);

/// A task just created ([`TaskEngine::create_task_then`]): its events in
/// order (the Task first; none unless asked for), the task after them, and the receiver of its
/// later events (none when it is already terminal).
pub(crate) struct Created {
    pub(crate) events: Vec<Event<StreamResponse>>,
    pub(crate) task: Task,
    pub(crate) rx: Option<LiveEvents>,
}

/// TaskGenerationMismatch (A2A 1.1): the task `id` is at generation
/// `current`, not the `expected` one a conditional send named.
pub(crate) fn generation_mismatch(id: &str, expected: i64, current: i64) -> Error {
    Error::new(
        ErrorKind::TaskGenerationMismatch,
        format!("Task generation mismatch: expected {expected} but current generation is {current}"),
    )
    .with_metadata("taskId", id)
    .with_metadata("expectedGeneration", expected.to_string())
    .with_metadata("currentGeneration", current.to_string())
}

/// A store's refusal of a commit: a document found at another version is
/// `conflict` with `message`; anything else is the store's failure.
fn refusal(e: StoreError, conflict: ErrorKind, message: &str) -> Error {
    match e {
        StoreError::Conflict { index: Some(_), .. } => Error::new(conflict, message),
        other => FAMILY.internal(other.to_string()),
    }
}

/// TaskNotFound for task `id`.
pub(crate) fn not_found(id: &str) -> Error {
    Error::new(ErrorKind::TaskNotFound, format!("Task `{id}` not found"))
}

/// The task engine: every task change goes through it. Clones share the
/// per-task locks and subscriber lists.
#[derive(Clone)]
pub struct TaskEngine {
    db: StoreHandle,
    push: Arc<PushDelivery>,
    live: Arc<Registry>,
}

impl TaskEngine {
    /// The engine on `db`; on a store shared with other agents, within a
    /// runtime, it also starts following their events (see the module docs).
    pub fn new(db: StoreHandle, push: Arc<PushDelivery>) -> Self {
        let engine = TaskEngine {
            db,
            push,
            live: Arc::default(),
        };
        if let (Some(notices), Ok(runtime)) = (
            engine.db.store().appended(),
            tokio::runtime::Handle::try_current(),
        ) {
            runtime.spawn(follow_others(
                engine.db.clone(),
                engine.push.clone(),
                Arc::downgrade(&engine.live),
                notices,
            ));
        }
        engine
    }

    fn slot(&self, task_id: &str) -> Result<Slot, Error> {
        let mut map = self
            .live
            .lock()
            .map_err(|_| FAMILY.internal("task registry lock poisoned"))?;
        Ok(map.entry(task_id.to_string()).or_default().clone())
    }

    /// Takes the lock of task `task_id`'s slot (creating the slot); the slot
    /// is released when the returned guard drops.
    async fn hold(&self, task_id: &str) -> Result<Held<'_>, Error> {
        let slot = self.slot(task_id)?;
        Ok(Held {
            live: slot.clone().lock_owned().await,
            _release: Release {
                engine: self,
                task_id: task_id.to_string(),
                slot,
            },
        })
    }

    /// Gives up one use of `slot` (its lock already released): the slot goes
    /// when no other use holds it and nobody is subscribed. Slots are only
    /// handed out under the registry lock, so the count read under it is exact.
    fn release(&self, task_id: &str, slot: &Slot) {
        let Ok(mut map) = self.live.lock() else {
            return;
        };
        // Ours and the registry's: nobody else holds or waits for the lock.
        if Arc::strong_count(slot) == 2 {
            let idle = slot.try_lock().is_ok_and(|mut live| {
                live.subscribers.retain(|sub| !sub.tx.is_closed());
                live.subscribers.is_empty()
            });
            if idle {
                map.remove(task_id);
            }
        }
    }

    /// Health probe: the number of live task slots, or why the engine is broken.
    pub(crate) fn probe(&self) -> Result<usize, String> {
        self.live
            .lock()
            .map(|map| map.len())
            .map_err(|_| "the task registry lock is poisoned".to_string())
    }

    /// Loads a task the caller may read in `namespace`, else TaskNotFound.
    pub(crate) async fn load_task(&self, namespace: &str, id: &str) -> Result<TaskRow, Error> {
        match self.db.store().get_task(namespace, id).await.internal(FAMILY)? {
            Some(row) => Ok(row),
            None => Err(not_found(id)),
        }
    }

    /// Creates a task with its first event (the Task itself), and applies
    /// `then` to the task after it: the events `then` returns follow the
    /// Task in the same commit (a plan announces itself as its task begins,
    /// a settled task goes through all its statuses), with their sequence
    /// numbers stamped as [`TaskEngine::mutate_with`] does. Extra documents
    /// (e.g. a push configuration, a plan) are written in the same commit. A
    /// subscriber is registered under the task's lock unless `then` left the
    /// task terminal, so the caller misses nothing that follows. The events
    /// are handed back only when `keep_events` (a stream answers them).
    pub(crate) async fn create_task_then<F>(
        &self,
        namespace: &str,
        mut task: Task,
        then: F,
        docs: Vec<DocWrite>,
        keep_events: bool,
    ) -> Result<Created, Error>
    where
        F: FnOnce(&mut Task) -> Result<Change, Error>,
    {
        let id = task.id.clone();
        let mut live = self.hold(&id).await?;
        let mut rows = vec![EventRow {
            seq: 1,
            body: StreamResponse::Task(task.clone()),
        }];
        for (i, mut body) in then(&mut task)?.events.into_iter().enumerate() {
            let seq = 2 + i as u64;
            stamp_seq(&mut body, seq);
            rows.push(EventRow { seq, body });
        }
        let last_seq = rows.len() as u64;
        let events = match keep_events {
            true => rows
                .iter()
                .map(|row| Event::with_seq(row.seq, row.body.clone()))
                .collect(),
            false => vec![],
        };
        let commit = Commit {
            task: Some(TaskWrite {
                row: TaskRow::new(namespace, task.clone(), last_seq),
                create: true,
                expected_last_seq: 0,
                expected_rank: None,
                events: rows,
            }),
            fanout: Some(crate::push::fanout(&id)),
            docs,
            ..Commit::default()
        };
        self.commit(
            commit,
            ErrorKind::ExtAlreadyExists,
            "a document written with the task already exists",
        )
        .await?;
        let rx = (!is_terminal(task.status.state)).then(|| live.subscribe(namespace, last_seq));
        task.generation = Some(crate::store::generation(last_seq));
        Ok(Created { events, task, rx })
    }

    /// Commits a task change; a conflicting document write is `conflict`
    /// with `message`, and changes nothing. The deliveries its events owe are
    /// in the outbox with them; the deliverer hears of them at once.
    fn commit<'a>(
        &'a self,
        commit: Commit,
        conflict: ErrorKind,
        message: &'a str,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'a {
        let committing = self.try_commit(commit);
        async move { committing.await.map_err(|e| refusal(e, conflict, message)) }
    }

    /// Commits a task change, the store's refusal as it is. The commit goes
    /// to the store before the returned future is polled, so that future
    /// does not hold it again.
    fn try_commit(&self, commit: Commit) -> impl Future<Output = Result<(), StoreError>> + Send + '_ {
        // Before the commit: once it is durable the deliverer may claim its
        // rows at any moment, and should find the trace they belong to.
        if commit.fanout.is_some() {
            if let Some(task) = &commit.task {
                self.push.note_trace(&task.row.id);
            }
        }
        let committing = self.db.commit(commit);
        async move {
            if committing.await?.deliveries_owed > 0 {
                self.push.wake();
            }
            Ok(())
        }
    }

    /// Applies `f` to a task under its lock; commits the task and the events
    /// `f` returns (with their sequence numbers) and fans them out. The
    /// commit expects the task as it was read; when another agent's commit
    /// to it came first, `f` is applied again to the task as that left it.
    pub(crate) async fn mutate<F>(&self, namespace: &str, task_id: &str, f: F) -> Result<Task, Error>
    where
        F: FnMut(&mut Task) -> Result<Change, Error>,
    {
        self.mutate_with(namespace, task_id, vec![], f).await
    }

    /// Like [`TaskEngine::mutate`], and writes `docs` in the same atomic commit (a
    /// plan's state travels with the task event that announces it). A
    /// conflicting document write is ExtInvalidState and changes nothing.
    /// Events whose metadata carries a plan domain event under the extension
    /// URI get its `seq` filled in with the event's sequence number.
    pub(crate) async fn mutate_with<F>(
        &self,
        namespace: &str,
        task_id: &str,
        docs: Vec<DocWrite>,
        f: F,
    ) -> Result<Task, Error>
    where
        F: FnMut(&mut Task) -> Result<Change, Error>,
    {
        self.mutate_at(namespace, task_id, docs, None, f).await
    }

    /// Like [`TaskEngine::mutate`], only while the task's generation is
    /// `generation` (A2A 1.1 `ifGenerationMatch`): else, and when another
    /// agent's commit that moves the generation comes first,
    /// TaskGenerationMismatch, and nothing changes. The check and the commit
    /// are one: the commit expects the log to end where it ended when the
    /// generation was read, so of two racing changes (on this agent or any
    /// other) exactly one lands. A commit that came first without moving the
    /// generation (a message added to the history) is not a mismatch: the
    /// change is made again after it.
    pub(crate) async fn mutate_if_generation<F>(
        &self,
        namespace: &str,
        task_id: &str,
        generation: i64,
        f: F,
    ) -> Result<Task, Error>
    where
        F: FnMut(&mut Task) -> Result<Change, Error>,
    {
        self.mutate_at(namespace, task_id, vec![], Some(generation), f)
            .await
    }

    async fn mutate_at<F>(
        &self,
        namespace: &str,
        task_id: &str,
        docs: Vec<DocWrite>,
        if_generation: Option<i64>,
        mut f: F,
    ) -> Result<Task, Error>
    where
        F: FnMut(&mut Task) -> Result<Change, Error>,
    {
        let mut live = self.hold(task_id).await?;
        let mut attempts = 0;
        let (task, events, expected_last_seq, last_seq) = loop {
            attempts += 1;
            let row = self.load_task(namespace, task_id).await?;
            let expected_last_seq = row.last_seq;
            if let Some(expected) = if_generation {
                let current = crate::store::generation(expected_last_seq);
                if expected != current {
                    return Err(generation_mismatch(task_id, expected, current));
                }
            }
            let expected_rank = Some(row.rank);
            let mut task = row.body;
            let change = f(&mut task)?;
            let mut events = Vec::with_capacity(change.events.len());
            let mut rows = Vec::with_capacity(change.events.len());
            for (i, mut data) in change.events.into_iter().enumerate() {
                let seq = expected_last_seq + 1 + i as u64;
                stamp_seq(&mut data, seq);
                rows.push(EventRow {
                    seq,
                    body: data.clone(),
                });
                events.push(Event::with_seq(seq, data));
            }
            let last_seq = expected_last_seq + events.len() as u64;
            let commit = Commit {
                task: Some(TaskWrite {
                    row: TaskRow::new(namespace, task.clone(), last_seq),
                    create: false,
                    expected_last_seq,
                    expected_rank,
                    events: rows,
                }),
                fanout: Some(crate::push::fanout(task_id)),
                docs: docs.clone(),
                ..Commit::default()
            };
            match self.try_commit(commit).await {
                Ok(()) => break (task, events, expected_last_seq, last_seq),
                // Another agent's commit to the task came first (this agent's
                // own are kept apart by the task's lock): the change is made
                // again on the task as that commit left it, so neither is
                // lost. A conditional change hears of a generation moved on
                // from the check above.
                Err(StoreError::Conflict { index: None, .. }) if attempts < MAX_ATTEMPTS => continue,
                Err(StoreError::Conflict { index: None, .. }) => {
                    return Err(FAMILY.internal(format!(
                        "task {task_id} changed under each of {MAX_ATTEMPTS} attempts to change it; retry"
                    )))
                }
                Err(e) => {
                    return Err(refusal(
                        e,
                        ErrorKind::ExtInvalidState,
                        "a document changed concurrently; retry",
                    ))
                }
            }
        };
        // A subscriber behind the events just committed (another agent
        // appended before them, and its notice is not handled yet) first
        // gets what it missed, from the store.
        let behind = live.behind(expected_last_seq);
        let missed = match behind {
            Some(seen) => self
                .db
                .store()
                .events_after(namespace, task_id, seen)
                .await
                .internal(FAMILY)
                .ok()
                .map(|rows| {
                    rows.into_iter()
                        .map(|e| Event::with_seq(e.seq, e.body))
                        .collect::<Vec<_>>()
                }),
            None => None,
        };
        if let Some(missed) = &missed {
            live.fan_out(missed);
        }
        live.fan_out(&events);
        if is_terminal(task.status.state) {
            live.subscribers.clear();
        }
        let mut task = task;
        task.generation = Some(crate::store::generation(last_seq));
        Ok(task)
    }

    /// Sets a task's status; refused (InvalidState-like) once terminal.
    pub(crate) async fn set_status(
        &self,
        namespace: &str,
        task_id: &str,
        state: TaskState,
        message: Option<Message>,
        metadata: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<Task, Error> {
        self.mutate(namespace, task_id, |task| {
            status_change(task, state, message.clone(), metadata.clone())
        })
        .await
    }

    /// Moves a task through several statuses in one commit (e.g. working,
    /// then completed): each step is its own event, all durable at once.
    pub(crate) async fn set_statuses(
        &self,
        namespace: &str,
        task_id: &str,
        steps: Vec<StatusStep>,
    ) -> Result<Task, Error> {
        self.mutate(namespace, task_id, |task| status_steps(task, steps.clone()))
            .await
    }

    /// Adds (or, with `append`, extends) an artifact.
    pub(crate) async fn add_artifact(
        &self,
        namespace: &str,
        task_id: &str,
        artifact: Artifact,
        append: bool,
        last_chunk: Option<bool>,
        metadata: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<Task, Error> {
        self.mutate(namespace, task_id, |task| {
            artifact_change(task, artifact.clone(), append, last_chunk, metadata.clone())
        })
        .await
    }

    /// Subscribes to a live task: the snapshot (or the backlog after `after`)
    /// then every later event.
    pub(crate) async fn subscribe(
        &self,
        namespace: &str,
        task_id: &str,
        after: Option<u64>,
    ) -> Result<Subscription, Error> {
        let mut live = self.hold(task_id).await?;
        let row = self.load_task(namespace, task_id).await?;
        let terminal = is_terminal(row.body.status.state);
        let mut backlog = VecDeque::new();
        match after {
            Some(after) => {
                for event in self
                    .db
                    .store()
                    .events_after(namespace, task_id, after)
                    .await
                    .internal(FAMILY)?
                {
                    backlog.push_back(Event::with_seq(event.seq, event.body));
                }
            }
            None => {
                if terminal {
                    return Err(Error::new(
                        ErrorKind::UnsupportedOperation,
                        format!("Task `{task_id}` is in a terminal state and cannot be subscribed to"),
                    ));
                }
                backlog.push_back(Event::with_seq(row.last_seq, StreamResponse::Task(row.body)));
            }
        }
        let seen = backlog
            .back()
            .and_then(|event| event.seq)
            .unwrap_or_else(|| after.unwrap_or(row.last_seq));
        let rx = if terminal {
            None
        } else {
            Some(live.subscribe(namespace, seen))
        };
        Ok((backlog, rx))
    }
}

/// Follows the events other agents append to the shared store, until the
/// engine is gone: on each notice for a task with subscribers here, and on
/// every sweep for all of them, reads what they have not had.
async fn follow_others(
    db: StoreHandle,
    push: Arc<PushDelivery>,
    live: Weak<Registry>,
    mut notices: broadcast::Receiver<Appended>,
) {
    let mut sweep = tokio::time::interval(SWEEP_INTERVAL);
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let notice = tokio::select! {
            notice = notices.recv() => match notice {
                Ok(notice) => notice,
                // Notices were dropped: read everything again.
                Err(broadcast::error::RecvError::Lagged(_)) => Appended::everything(),
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = sweep.tick() => Appended::everything(),
        };
        let Some(registry) = live.upgrade() else {
            return;
        };
        let engine = TaskEngine {
            db: db.clone(),
            push: push.clone(),
            live: registry,
        };
        match &notice.task_id {
            Some(task_id) => engine.catch_up(task_id, Some(notice.last_seq)).await,
            None => {
                let followed: Vec<String> = match engine.live.lock() {
                    Ok(map) => map.keys().cloned().collect(),
                    Err(_) => return,
                };
                for task_id in followed {
                    engine.catch_up(&task_id, None).await;
                }
            }
        }
    }
}

impl TaskEngine {
    /// Gives the subscribers of task `task_id` the stored events they have
    /// not had; `last_seq`, when known, spares the read if none is behind it.
    async fn catch_up(&self, task_id: &str, last_seq: Option<u64>) {
        let followed = self.live.lock().is_ok_and(|map| map.contains_key(task_id));
        if !followed {
            return;
        }
        let Ok(mut live) = self.hold(task_id).await else {
            return;
        };
        let Some(seen) = live.least_seen() else {
            return;
        };
        if last_seq.is_some_and(|last| last <= seen) {
            return;
        }
        let namespace = live.namespace.clone();
        if let Ok(rows) = self
            .db
            .store()
            .events_after(&namespace, task_id, seen)
            .await
            .internal(FAMILY)
        {
            let events: Vec<_> = rows.into_iter().map(|e| Event::with_seq(e.seq, e.body)).collect();
            live.fan_out(&events);
        }
    }
}

/// The lock of a task's slot, held for one operation. Dropping it frees the
/// lock, then releases the slot if nothing else uses it, on every path out
/// of an operation (an error included).
struct Held<'a> {
    // Fields drop in order: the lock is free before the slot is released.
    live: tokio::sync::OwnedMutexGuard<Live>,
    _release: Release<'a>,
}

struct Release<'a> {
    engine: &'a TaskEngine,
    task_id: String,
    slot: Slot,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.engine.release(&self.task_id, &self.slot);
    }
}

impl std::ops::Deref for Held<'_> {
    type Target = Live;
    fn deref(&self) -> &Live {
        &self.live
    }
}

impl std::ops::DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut Live {
        &mut self.live
    }
}

#[cfg(test)]
mod tests;
