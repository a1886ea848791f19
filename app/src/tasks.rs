//! A2A tasks: the live machinery (per-task serialization, sequence numbers,
//! fan-out to subscribers, push hand-off) and the messaging service
//! operations built on it (send, get, list, cancel, subscribe).
//!
//! Every change to a task runs under that task's async lock: load, apply,
//! give each event the next per-task sequence number, commit task and events
//! in one durable transaction, then deliver to the subscribers registered
//! under the same lock. A subscriber registers while holding the lock, after
//! reading the snapshot or the backlog, so it sees every later event exactly
//! once and in order.

use crate::app::App;
use crate::executor::{ExecRequest, Start, TaskHandle};
use crate::store::{Commit, DocWrite, EventRow, Expect, TaskQuery, TaskRow, TaskWrite};
use crate::util::{self, from_json, namespace_of, require, to_json, Family};
use a2a::rpc::{Access, CallContext, Error, Event, EventStream, Stream};
use a2a::types::{
    Artifact, ListTasksRequest, ListTasksResponse, Message, StreamResponse, Task, TaskArtifactUpdateEvent,
    TaskPushNotificationConfig, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use a2a::ErrorKind;
use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::sync::mpsc;

const FAMILY: Family = Family::A2a;

/// Terminal states: no further change is possible.
pub fn is_terminal(state: TaskState) -> bool {
    matches!(
        state,
        TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
    )
}

/// Interrupted states: the task waits for the client.
pub fn is_interrupted(state: TaskState) -> bool {
    matches!(state, TaskState::InputRequired | TaskState::AuthRequired)
}

/// The wire name of a state (the stores index it).
pub fn state_name(state: TaskState) -> String {
    serde_json::to_value(state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

type Sub = mpsc::UnboundedSender<Event<StreamResponse>>;

#[derive(Default)]
struct Live {
    subscribers: Vec<Sub>,
}

/// Per-task locks and subscriber lists.
#[derive(Default)]
pub struct Engine {
    live: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Live>>>>,
}

impl Engine {
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
}

/// What a change to a task produced.
pub struct Change {
    pub events: Vec<StreamResponse>,
}

/// Moves `task` to `state` (refused once terminal) and describes the event.
pub(crate) fn status_change(
    task: &mut Task,
    state: TaskState,
    message: Option<Message>,
    metadata: Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<Change, Error> {
    if is_terminal(task.status.state) {
        return Err(Error::new(
            ErrorKind::UnsupportedOperation,
            "the task is already in a terminal state",
        ));
    }
    let message = message.map(|mut m| {
        m.task_id = Some(task.id.clone());
        m.context_id = task.context_id.clone();
        m
    });
    // The previous status message becomes history when superseded.
    if let Some(previous) = task.status.message.take() {
        task.history.push(previous);
    }
    task.status = TaskStatus {
        state,
        message,
        timestamp: Some(util::now()),
    };
    Ok(Change {
        events: vec![StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone().unwrap_or_default(),
            status: task.status.clone(),
            metadata,
        })],
    })
}

/// Adds (or, with `append`, extends) an artifact of `task` (refused once terminal).
pub(crate) fn artifact_change(
    task: &mut Task,
    artifact: Artifact,
    append: bool,
    last_chunk: Option<bool>,
    metadata: Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<Change, Error> {
    if is_terminal(task.status.state) {
        return Err(Error::new(
            ErrorKind::UnsupportedOperation,
            "the task is already in a terminal state",
        ));
    }
    match task
        .artifacts
        .iter_mut()
        .find(|a| a.artifact_id == artifact.artifact_id)
    {
        Some(existing) if append => existing.parts.extend(artifact.parts.iter().cloned()),
        Some(existing) => *existing = artifact.clone(),
        None => task.artifacts.push(artifact.clone()),
    }
    Ok(Change {
        events: vec![StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone().unwrap_or_default(),
            artifact,
            append: append.then_some(true),
            last_chunk,
            metadata,
        })],
    })
}

/// Fills in the `seq` of a plan domain event carried in an event's metadata.
fn stamp_seq(event: &mut StreamResponse, seq: u64) {
    let metadata = match event {
        StreamResponse::StatusUpdate(e) => e.metadata.as_mut(),
        StreamResponse::ArtifactUpdate(e) => e.metadata.as_mut(),
        _ => None,
    };
    if let Some(domain) = metadata
        .and_then(|m| m.get_mut(util::EXTENSION_URI))
        .and_then(serde_json::Value::as_object_mut)
    {
        if domain.contains_key("seq") {
            domain.insert("seq".into(), serde_json::json!(seq));
        }
    }
}

/// Keeps the last `n` messages of the history (A2A §3.2.4); `None` keeps all.
pub fn trim_history(task: &mut Task, history_length: Option<i32>) {
    if let Some(n) = history_length {
        let n = usize::try_from(n.max(0)).unwrap_or(0);
        let len = task.history.len();
        if len > n {
            task.history.drain(..len - n);
        }
    }
}

fn check_history_length(value: Option<i32>, field: &str) -> Result<(), Error> {
    match value {
        Some(n) if n < 0 => Err(FAMILY.invalid_params(field, "must be zero or positive")),
        _ => Ok(()),
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

/// A stream of task events that ends after a terminal (or, for message
/// streams, an interrupted) status.
struct TaskEvents {
    backlog: VecDeque<Event<StreamResponse>>,
    rx: Option<mpsc::UnboundedReceiver<Event<StreamResponse>>>,
    stop_when_interrupted: bool,
    done: bool,
}

fn ends_stream(event: &StreamResponse, stop_when_interrupted: bool) -> bool {
    let state = match event {
        StreamResponse::Task(t) => t.status.state,
        StreamResponse::StatusUpdate(s) => s.status.state,
        _ => return false,
    };
    is_terminal(state) || (stop_when_interrupted && is_interrupted(state))
}

impl Stream for TaskEvents {
    type Item = Result<Event<StreamResponse>, Error>;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let next = match this.backlog.pop_front() {
            Some(event) => Some(event),
            None => match this.rx.as_mut() {
                Some(rx) => match rx.poll_recv(cx) {
                    Poll::Ready(item) => item,
                    Poll::Pending => return Poll::Pending,
                },
                None => None,
            },
        };
        match next {
            Some(event) => {
                if ends_stream(&event.data, this.stop_when_interrupted) {
                    this.done = true;
                    this.rx = None;
                }
                Poll::Ready(Some(Ok(event)))
            }
            None => {
                this.done = true;
                Poll::Ready(None)
            }
        }
    }
}

/// Result of the shared send path.
// A short-lived return value, moved once: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub enum Sent {
    Message(Box<Message>),
    Task {
        task_id: String,
        namespace: String,
        first: Event<StreamResponse>,
        rx: mpsc::UnboundedReceiver<Event<StreamResponse>>,
    },
}

impl App {
    /// Loads a task the caller may read in `namespace`, else TaskNotFound.
    pub(crate) async fn load_task(&self, namespace: &str, id: &str) -> Result<(Task, TaskRow), Error> {
        let key = id.to_string();
        let row = self.db(FAMILY, move |s| s.get_task(&key)).await?;
        match row {
            Some(row) if row.namespace == namespace => {
                let task: Task = from_json(row.body.clone(), FAMILY)?;
                Ok((task, row))
            }
            _ => Err(Error::new(
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
        let slot = self.engine.slot(&task.id)?;
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
        self.db_raw(move |s| s.commit(&commit))
            .await
            .map_err(|e| match e {
                crate::store::StoreError::Conflict { index: Some(_), .. } => Error::new(
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

    /// Like [`App::mutate`], and writes `docs` in the same atomic commit (a
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
        let slot = self.engine.slot(task_id)?;
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
        self.db_raw(move |s| s.commit(&commit))
            .await
            .map_err(|e| match e {
                crate::store::StoreError::Conflict { index: Some(_), .. } => Error::new(
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
            self.engine.forget(task_id);
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
    async fn subscribe(
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
        let slot = self.engine.slot(task_id)?;
        let mut live = slot.lock().await;
        let (task, row) = self.load_task(namespace, task_id).await?;
        let mut backlog = VecDeque::new();
        match after {
            Some(after) => {
                let id = task_id.to_string();
                for event in self.db(FAMILY, move |s| s.events_after(&id, after)).await? {
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
            self.engine.forget(task_id);
            None
        } else {
            let (tx, rx) = mpsc::unbounded_channel();
            live.subscribers.push(tx);
            Some(rx)
        };
        Ok((backlog, rx))
    }

    /// The shared SendMessage path: validation, contextId/taskId rules, the
    /// executor's choice, task creation or continuation, and the executor run.
    pub(crate) async fn send(
        self: &Arc<Self>,
        ctx: &CallContext,
        request: a2a::types::SendMessageRequest,
        streaming: bool,
    ) -> Result<Sent, Error> {
        let namespace = namespace_of(request.tenant.as_deref());
        require(ctx, &namespace, Access::Writer, FAMILY, "Task")?;
        let mut message = request.message.clone();
        if message.message_id.trim().is_empty() {
            return Err(FAMILY.invalid_params("message.messageId", "must not be empty"));
        }
        if message.parts.is_empty() {
            return Err(FAMILY.invalid_params("message.parts", "a message needs at least one part"));
        }
        if let Some(config) = &request.configuration {
            check_history_length(config.history_length, "configuration.historyLength")?;
            if let Some(push) = &config.task_push_notification_config {
                self.push.check_url(&push.url).map_err(|why| {
                    FAMILY.invalid_params("configuration.taskPushNotificationConfig.url", &why)
                })?;
            }
        }
        let existing = match message.task_id.as_deref().filter(|s| !s.is_empty()) {
            Some(task_id) => {
                let (task, _) = self.load_task(&namespace, task_id).await?;
                if is_terminal(task.status.state) {
                    return Err(Error::new(
                        ErrorKind::UnsupportedOperation,
                        format!("Task `{task_id}` is in a terminal state and accepts no further messages"),
                    ));
                }
                match (&message.context_id, &task.context_id) {
                    (Some(given), Some(actual)) if !given.is_empty() && given != actual => {
                        return Err(FAMILY.invalid_params(
                            "message.contextId",
                            "does not match the context of the referenced task",
                        ))
                    }
                    _ => {}
                }
                message.context_id = task.context_id.clone();
                Some(task)
            }
            None => None,
        };
        let context_id = message
            .context_id
            .clone()
            .filter(|c| !c.is_empty())
            .unwrap_or_else(util::new_id);
        message.context_id = Some(context_id.clone());
        let exec = ExecRequest {
            namespace: namespace.clone(),
            message: message.clone(),
            task: existing.clone(),
            streaming,
            metadata: request.metadata.clone(),
        };
        match self.executor.start(self, &exec)? {
            Start::Message(reply) => {
                let mut reply = *reply;
                reply.context_id = Some(context_id);
                if let Some(task) = &existing {
                    reply.task_id = Some(task.id.clone());
                }
                Ok(Sent::Message(Box::new(reply)))
            }
            Start::Task => {
                let (task_id, first, rx) = match existing {
                    Some(task) => {
                        let id = task.id.clone();
                        let msg = message.clone();
                        self.mutate(&namespace, &id, |task| {
                            if is_terminal(task.status.state) {
                                return Err(Error::new(
                                    ErrorKind::UnsupportedOperation,
                                    "the task is already in a terminal state",
                                ));
                            }
                            task.history.push(msg);
                            Ok(Change { events: vec![] })
                        })
                        .await?;
                        let (mut backlog, rx) = self.subscribe(&namespace, &id, None).await?;
                        let first = backlog
                            .pop_front()
                            .ok_or_else(|| FAMILY.internal("no snapshot"))?;
                        (id, first, rx.ok_or_else(|| FAMILY.internal("task ended"))?)
                    }
                    None => {
                        let id = util::new_id();
                        message.task_id = Some(id.clone());
                        let task = Task {
                            id: id.clone(),
                            context_id: Some(context_id.clone()),
                            status: TaskStatus {
                                state: TaskState::Submitted,
                                message: None,
                                timestamp: Some(util::now()),
                            },
                            artifacts: vec![],
                            history: vec![message.clone()],
                            metadata: None,
                        };
                        let mut docs = vec![];
                        if let Some(push) = request
                            .configuration
                            .as_ref()
                            .and_then(|c| c.task_push_notification_config.clone())
                        {
                            let config = TaskPushNotificationConfig {
                                id: Some(
                                    push.id
                                        .clone()
                                        .filter(|s| !s.is_empty())
                                        .unwrap_or_else(util::new_id),
                                ),
                                task_id: Some(id.clone()),
                                tenant: request.tenant.clone(),
                                ..push
                            };
                            let key = crate::push::config_key(&id, config.id.as_deref().unwrap_or_default());
                            docs.push(DocWrite::put(
                                crate::push::COLL,
                                &namespace,
                                &key,
                                Expect::Absent,
                                to_json(&config, FAMILY)?,
                            ));
                        }
                        let (first, rx) = self.create_task(&namespace, task, docs).await?;
                        (id, first, rx)
                    }
                };
                let mut exec = exec;
                exec.message = message;
                let handle = TaskHandle::new(self.clone(), namespace.clone(), task_id.clone(), context_id);
                let executor = self.executor.clone();
                tokio::spawn(async move { executor.run(exec, handle).await });
                Ok(Sent::Task {
                    task_id,
                    namespace,
                    first,
                    rx,
                })
            }
        }
    }

    pub(crate) async fn send_message(
        self: &Arc<Self>,
        ctx: &CallContext,
        request: a2a::types::SendMessageRequest,
    ) -> Result<a2a::types::SendMessageResponse, Error> {
        let config = request.configuration.clone().unwrap_or_default();
        match self.send(ctx, request, false).await? {
            Sent::Message(m) => Ok(a2a::types::SendMessageResponse::Message(*m)),
            Sent::Task {
                task_id,
                namespace,
                mut rx,
                ..
            } => {
                if !config.return_immediately.unwrap_or(false) {
                    // Blocking: wait for a terminal or interrupted status.
                    while let Some(event) = rx.recv().await {
                        if ends_stream(&event.data, true) {
                            break;
                        }
                    }
                }
                drop(rx);
                let (mut task, _) = self.load_task(&namespace, &task_id).await?;
                trim_history(&mut task, config.history_length);
                Ok(a2a::types::SendMessageResponse::Task(task))
            }
        }
    }

    pub(crate) async fn send_streaming_message(
        self: &Arc<Self>,
        ctx: &CallContext,
        request: a2a::types::SendMessageRequest,
    ) -> Result<EventStream<StreamResponse>, Error> {
        match self.send(ctx, request, true).await? {
            Sent::Message(m) => {
                let stream = TaskEvents {
                    backlog: VecDeque::from([Event::new(StreamResponse::Message(*m))]),
                    rx: None,
                    stop_when_interrupted: true,
                    done: false,
                };
                Ok(Box::pin(stream))
            }
            Sent::Task { first, rx, .. } => Ok(Box::pin(TaskEvents {
                backlog: VecDeque::from([first]),
                rx: Some(rx),
                stop_when_interrupted: true,
                done: false,
            })),
        }
    }

    pub(crate) async fn get_task(
        &self,
        ctx: &CallContext,
        request: a2a::types::GetTaskRequest,
    ) -> Result<Task, Error> {
        let namespace = namespace_of(request.tenant.as_deref());
        check_history_length(request.history_length, "historyLength")?;
        if !util::can_read(ctx, &namespace) {
            return Err(Error::new(
                ErrorKind::TaskNotFound,
                format!("Task `{}` not found", request.id),
            ));
        }
        let (mut task, _) = self.load_task(&namespace, &request.id).await?;
        trim_history(&mut task, request.history_length);
        Ok(task)
    }

    pub(crate) async fn list_tasks(
        &self,
        ctx: &CallContext,
        request: ListTasksRequest,
    ) -> Result<ListTasksResponse, Error> {
        let namespace = namespace_of(request.tenant.as_deref());
        let page_size = match request.page_size {
            None => 50,
            Some(n) if (1..=100).contains(&n) => n,
            Some(_) => return Err(FAMILY.invalid_params("pageSize", "must be between 1 and 100")),
        };
        check_history_length(request.history_length, "historyLength")?;
        let before_rank = match request.page_token.as_deref().filter(|t| !t.is_empty()) {
            None => None,
            Some(token) => match token.parse::<i64>() {
                Ok(rank) if rank > 0 => Some(rank),
                _ => return Err(FAMILY.invalid_params("pageToken", "is not a token this server issued")),
            },
        };
        let status_ts_from = match request.status_timestamp_after.as_deref() {
            None => None,
            Some(text) => Some(util::normalize_ts(text).ok_or_else(|| {
                FAMILY.invalid_params("statusTimestampAfter", "is not an RFC 3339 timestamp")
            })?),
        };
        let state = request
            .status
            .filter(|s| *s != TaskState::Unspecified)
            .map(state_name);
        if !util::can_read(ctx, &namespace) {
            // Nothing of a namespace the caller cannot read is visible.
            return Ok(ListTasksResponse {
                tasks: vec![],
                next_page_token: String::new(),
                page_size,
                total_size: 0,
            });
        }
        let query = TaskQuery {
            namespace,
            context_id: request.context_id.clone().filter(|c| !c.is_empty()),
            state,
            status_ts_from,
            before_rank,
            limit: page_size as usize,
        };
        let page = self.db(FAMILY, move |s| s.list_tasks(&query)).await?;
        let next_page_token = match (page.more, page.rows.last()) {
            (true, Some(last)) => last.rank.to_string(),
            _ => String::new(),
        };
        let mut tasks = Vec::with_capacity(page.rows.len());
        for row in page.rows {
            let mut task: Task = from_json(row.body, FAMILY)?;
            if !request.include_artifacts.unwrap_or(false) {
                task.artifacts.clear();
            }
            trim_history(&mut task, request.history_length);
            tasks.push(task);
        }
        Ok(ListTasksResponse {
            tasks,
            next_page_token,
            page_size,
            total_size: i32::try_from(page.total).unwrap_or(i32::MAX),
        })
    }

    pub(crate) async fn cancel_task(
        &self,
        ctx: &CallContext,
        request: a2a::types::CancelTaskRequest,
    ) -> Result<Task, Error> {
        let namespace = namespace_of(request.tenant.as_deref());
        require(ctx, &namespace, Access::Writer, FAMILY, "Task")?;
        let metadata = request.metadata.clone();
        let task = self
            .mutate(&namespace, &request.id, |task| {
                if is_terminal(task.status.state) {
                    return Err(Error::new(
                        ErrorKind::TaskNotCancelable,
                        format!("Task `{}` is already in a terminal state", task.id),
                    ));
                }
                if let Some(previous) = task.status.message.take() {
                    task.history.push(previous);
                }
                task.status = TaskStatus {
                    state: TaskState::Canceled,
                    message: None,
                    timestamp: Some(util::now()),
                };
                Ok(Change {
                    events: vec![StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                        task_id: task.id.clone(),
                        context_id: task.context_id.clone().unwrap_or_default(),
                        status: task.status.clone(),
                        metadata,
                    })],
                })
            })
            .await?;
        self.executor.cancelled(self, &namespace, &task).await;
        Ok(task)
    }

    pub(crate) async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: a2a::types::SubscribeToTaskRequest,
    ) -> Result<EventStream<StreamResponse>, Error> {
        let namespace = namespace_of(request.tenant.as_deref());
        if !util::can_read(ctx, &namespace) {
            return Err(Error::new(
                ErrorKind::TaskNotFound,
                format!("Task `{}` not found", request.id),
            ));
        }
        let (backlog, rx) = self.subscribe(&namespace, &request.id, ctx.resume_after).await?;
        Ok(Box::pin(TaskEvents {
            backlog,
            rx,
            stop_when_interrupted: false,
            done: false,
        }))
    }
}
