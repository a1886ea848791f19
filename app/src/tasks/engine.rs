//! The live machinery of tasks: per-task serialization, sequence numbers,
//! fan-out to subscribers and the hand-off to push delivery.
//!
//! Every change to a task runs under that task's async lock: load, apply,
//! give each event the next per-task sequence number, commit task and events
//! in one durable transaction, then deliver to the subscribers registered
//! under the same lock. A subscriber registers while holding the lock, after
//! reading the snapshot or the backlog, so it sees every later event exactly
//! once and in order.

use super::changes::{artifact_change, is_terminal, stamp_seq, state_name, status_change, Change};
use crate::push::PushDelivery;
use crate::store::{Commit, DocWrite, EventRow, StoreError, StoreHandle, TaskRow, TaskWrite};
use crate::util::{self, from_json, to_json, Family};
use a2a::rpc::{Error, Event};
use a2a::types::{Artifact, Message, StreamResponse, Task, TaskState};
use a2a::ErrorKind;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

const FAMILY: Family = Family::A2a;

type Sub = mpsc::UnboundedSender<Event<StreamResponse>>;

#[derive(Default)]
struct Live {
    subscribers: Vec<Sub>,
}

/// The task engine: every task change goes through it. Clones share the
/// per-task locks and subscriber lists.
#[derive(Clone)]
pub struct TaskEngine {
    db: StoreHandle,
    push: Arc<PushDelivery>,
    live: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<Live>>>>>,
}

impl TaskEngine {
    pub fn new(db: StoreHandle, push: Arc<PushDelivery>) -> Self {
        TaskEngine {
            db,
            push,
            live: Arc::default(),
        }
    }

    fn slot(&self, task_id: &str) -> Result<Arc<tokio::sync::Mutex<Live>>, Error> {
        let mut map = self
            .live
            .lock()
            .map_err(|_| FAMILY.internal("task registry lock poisoned"))?;
        Ok(map.entry(task_id.to_string()).or_default().clone())
    }

    /// Health probe: the number of live task slots, or why the engine is broken.
    pub(crate) fn probe(&self) -> Result<usize, String> {
        self.live
            .lock()
            .map(|map| map.len())
            .map_err(|_| "the task registry lock is poisoned".to_string())
    }

    fn forget(&self, task_id: &str) {
        if let Ok(mut map) = self.live.lock() {
            map.remove(task_id);
        }
    }

    /// Loads a task the caller may read in `namespace`, else TaskNotFound.
    pub(crate) async fn load_task(&self, namespace: &str, id: &str) -> Result<(Task, TaskRow), Error> {
        let (ns, key) = (namespace.to_string(), id.to_string());
        let row = self.db.run(FAMILY, move |s| s.get_task(&ns, &key)).await?;
        match row {
            Some(row) => {
                let task: Task = from_json(row.body.clone(), FAMILY)?;
                Ok((task, row))
            }
            None => Err(Error::new(
                ErrorKind::TaskNotFound,
                format!("Task `{id}` not found"),
            )),
        }
    }

    /// Creates a task with its first event (the Task itself), registering a
    /// subscriber first so the caller misses nothing. Extra documents (e.g. a
    /// push configuration, a plan) are written in the same commit.
    pub(crate) async fn create_task(
        &self,
        namespace: &str,
        task: Task,
        docs: Vec<DocWrite>,
    ) -> Result<
        (
            Event<StreamResponse>,
            mpsc::UnboundedReceiver<Event<StreamResponse>>,
        ),
        Error,
    > {
        let slot = self.slot(&task.id)?;
        let mut live = slot.lock().await;
        let event = StreamResponse::Task(task.clone());
        let body = to_json(&task, FAMILY)?;
        let commit = Commit {
            task: Some(TaskWrite {
                row: row_of(namespace, &task, body, 1),
                create: true,
                expected_last_seq: 0,
                events: vec![EventRow {
                    seq: 1,
                    body: to_json(&event, FAMILY)?,
                }],
            }),
            docs,
        };
        self.db
            .call(move |s| s.commit(&commit))
            .await
            .map_err(|e| match e {
                StoreError::Conflict { index: Some(_), .. } => Error::new(
                    ErrorKind::ExtAlreadyExists,
                    "a document written with the task already exists",
                ),
                other => FAMILY.internal(other.to_string()),
            })?;
        let (tx, rx) = mpsc::unbounded_channel();
        live.subscribers.push(tx);
        let first = Event::with_seq(1, event.clone());
        self.push.enqueue(namespace, &task.id, 1, &event);
        Ok((first, rx))
    }

    /// Applies `f` to a task under its lock; commits the task and the events
    /// `f` returns (with their sequence numbers) and fans them out.
    pub(crate) async fn mutate<F>(&self, namespace: &str, task_id: &str, f: F) -> Result<Task, Error>
    where
        F: FnOnce(&mut Task) -> Result<Change, Error>,
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
        F: FnOnce(&mut Task) -> Result<Change, Error>,
    {
        let slot = self.slot(task_id)?;
        let mut live = slot.lock().await;
        let (mut task, row) = self.load_task(namespace, task_id).await?;
        let change = f(&mut task)?;
        let mut events = Vec::with_capacity(change.events.len());
        let mut rows = Vec::with_capacity(change.events.len());
        for (i, mut data) in change.events.into_iter().enumerate() {
            let seq = row.last_seq + 1 + i as u64;
            stamp_seq(&mut data, seq);
            rows.push(EventRow {
                seq,
                body: to_json(&data, FAMILY)?,
            });
            events.push(Event::with_seq(seq, data));
        }
        let last_seq = row.last_seq + events.len() as u64;
        let body = to_json(&task, FAMILY)?;
        let commit = Commit {
            task: Some(TaskWrite {
                row: row_of(namespace, &task, body, last_seq),
                create: false,
                expected_last_seq: row.last_seq,
                events: rows,
            }),
            docs,
        };
        self.db
            .call(move |s| s.commit(&commit))
            .await
            .map_err(|e| match e {
                StoreError::Conflict { index: Some(_), .. } => Error::new(
                    ErrorKind::ExtInvalidState,
                    "a document changed concurrently; retry",
                ),
                other => FAMILY.internal(other.to_string()),
            })?;
        for event in &events {
            live.subscribers.retain(|tx| tx.send(event.clone()).is_ok());
            if let Some(seq) = event.seq {
                self.push.enqueue(namespace, task_id, seq, &event.data);
            }
        }
        if is_terminal(task.status.state) {
            // Nothing can follow: release the subscribers (their streams end
            // on the terminal event they already hold) and the slot.
            live.subscribers.clear();
            drop(live);
            self.forget(task_id);
        }
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
            status_change(task, state, message, metadata)
        })
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
            artifact_change(task, artifact, append, last_chunk, metadata)
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
    ) -> Result<
        (
            VecDeque<Event<StreamResponse>>,
            Option<mpsc::UnboundedReceiver<Event<StreamResponse>>>,
        ),
        Error,
    > {
        let slot = self.slot(task_id)?;
        let mut live = slot.lock().await;
        let (task, row) = self.load_task(namespace, task_id).await?;
        let mut backlog = VecDeque::new();
        match after {
            Some(after) => {
                let (ns, id) = (namespace.to_string(), task_id.to_string());
                for event in self
                    .db
                    .run(FAMILY, move |s| s.events_after(&ns, &id, after))
                    .await?
                {
                    let data: StreamResponse = from_json(event.body, FAMILY)?;
                    backlog.push_back(Event::with_seq(event.seq, data));
                }
            }
            None => {
                if is_terminal(task.status.state) {
                    return Err(Error::new(
                        ErrorKind::UnsupportedOperation,
                        format!("Task `{task_id}` is in a terminal state and cannot be subscribed to"),
                    ));
                }
                backlog.push_back(Event::with_seq(row.last_seq, StreamResponse::Task(task.clone())));
            }
        }
        let rx = if is_terminal(task.status.state) {
            drop(live);
            self.forget(task_id);
            None
        } else {
            let (tx, rx) = mpsc::unbounded_channel();
            live.subscribers.push(tx);
            Some(rx)
        };
        Ok((backlog, rx))
    }
}

fn row_of(namespace: &str, task: &Task, body: serde_json::Value, last_seq: u64) -> TaskRow {
    TaskRow {
        id: task.id.clone(),
        namespace: namespace.to_string(),
        context_id: task.context_id.clone().unwrap_or_default(),
        state: state_name(task.status.state),
        status_ts: task.status.timestamp.clone().unwrap_or_else(util::now),
        last_seq,
        rank: 0,
        body,
    }
}
