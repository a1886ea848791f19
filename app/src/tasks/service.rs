//! The A2A messaging service: SendMessage (the SessionWorkflow: validation,
//! contextId/taskId rules, the executor's choice, task creation or
//! continuation, the executor run), GetTask, ListTasks, CancelTask and
//! SubscribeToTask, on the task engine.

use super::changes::{
    cancel_change, record_status_message, status_change, status_steps, trim_history, Change, StatusStep,
};
use super::engine::{generation_mismatch, not_found, TaskEngine};
use super::runs::{abandon, RunLeases};
use super::stream::LiveEvents;
use super::stream::{ends_stream, TaskEvents};
use crate::activity::Activity;
use crate::executor::{ExecRequest, Executor, Start, TaskHandle};
use crate::lifecycle::{is_interrupted, is_terminal};
use crate::limits::{exceeded, DomainLimits};
use crate::push::PushDelivery;
use crate::store::{DocWrite, Expect, Internal, StoreHandle, TaskQuery};
use crate::util::{self, namespace, to_json, Family};
use a2a::rpc::{CallContext, Error, Event, EventStream, Reply};
use a2a::types::{
    ListTasksRequest, ListTasksResponse, Message, SendMessageConfiguration, StreamResponse, Task,
    TaskPushNotificationConfig, TaskState, TaskStatus,
};
use a2a::ErrorKind;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;

const FAMILY: Family = Family::A2a;

/// The messaging service.
#[derive(Clone)]
pub struct TaskService {
    db: StoreHandle,
    engine: TaskEngine,
    executor: Arc<dyn Executor>,
    push: Arc<PushDelivery>,
    limits: DomainLimits,
    /// The media types a message's parts may name.
    input_modes: super::InputModes,
    /// The runs and detached status changes under way.
    activity: Activity,
    /// The leases of this agent's runs, on a store shared with other agents.
    leases: Option<RunLeases>,
    /// The longest a long-polling GetTask is held.
    long_poll_max: Duration,
}

fn check_history_length(value: Option<i32>, field: &str) -> Result<(), Error> {
    match value {
        Some(n) if n < 0 => Err(FAMILY.invalid_params(field, "must be zero or positive")),
        _ => Ok(()),
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
        opened: Opened,
    },
}

/// The stream of a task the send path opened or continued: its events so
/// far (the first is the Task), the receiver of the later ones (none when
/// the task was settled as it was created), the task as it ended then, and
/// word of the run the message started ending after a write of its failed.
pub struct Opened {
    backlog: VecDeque<Event<StreamResponse>>,
    rx: Option<LiveEvents>,
    settled: Option<Task>,
    run_failed: Option<oneshot::Receiver<()>>,
}

/// The write of the push config a new task's request carries, if any: stored
/// under the new task, with an id of its own when the client gave none.
fn push_config_writes(
    namespace: &str,
    task_id: &str,
    configuration: Option<&SendMessageConfiguration>,
    tenant: Option<&str>,
) -> Result<Vec<DocWrite>, Error> {
    let mut docs = vec![];
    if let Some(push) = configuration.and_then(|c| c.task_push_notification_config.clone()) {
        let config = TaskPushNotificationConfig {
            id: Some(
                push.id
                    .clone()
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(util::new_id),
            ),
            task_id: Some(task_id.to_string()),
            tenant: tenant.map(str::to_string),
            ..push
        };
        let key = crate::push::config_key(task_id, config.id.as_deref().unwrap_or_default());
        docs.push(DocWrite::put(
            crate::push::COLL,
            namespace,
            &key,
            Expect::Absent,
            to_json(&config, FAMILY)?,
        ));
    }
    Ok(docs)
}

/// An executor's settled steps as status steps, without event metadata.
fn with_no_metadata(steps: Vec<(TaskState, Option<Message>)>) -> Vec<StatusStep> {
    steps
        .into_iter()
        .map(|(state, message)| (state, message, None))
        .collect()
}

impl TaskService {
    pub fn new(
        db: StoreHandle,
        engine: TaskEngine,
        executor: Arc<dyn Executor>,
        push: Arc<PushDelivery>,
        limits: DomainLimits,
        input_modes: super::InputModes,
        run_lease: Duration,
    ) -> Self {
        let shared = db.store().appended().is_some();
        TaskService {
            leases: shared.then(|| RunLeases::new(db.clone(), crate::plans::lease::clamp(run_lease))),
            db,
            engine,
            executor,
            push,
            limits,
            input_modes,
            activity: Activity::default(),
            long_poll_max: super::DEFAULT_LONG_POLL_MAX,
        }
    }

    /// The same service, holding a long-polling GetTask at most `max`.
    pub fn with_long_poll_max(mut self, max: Duration) -> Self {
        self.long_poll_max = max;
        self
    }

    /// On a store shared with other agents, fails every task whose run's
    /// agent died (its lease expired), for as long as the application lives
    /// (see [`super::runs`]).
    pub(crate) fn sweep_abandoned_runs(&self) {
        if let Some(leases) = self.leases.clone() {
            leases.sweep(self.engine.clone());
        }
    }

    /// Executor runs and detached status changes under way in this process.
    pub(crate) fn runs(&self) -> usize {
        self.activity.count()
    }

    /// Fails every task left submitted or working by a process that ended
    /// before its run did (a crash, a kill), but those in `resumed` (the
    /// tasks of plans whose runners start again). Called once at start-up on
    /// a store only this process opens: no run of an earlier process can
    /// still be under way, and nothing else would ever move such a task on.
    /// Returns how many tasks were failed.
    pub(crate) async fn fail_abandoned(&self, resumed: &HashSet<String>) -> Result<usize, Error> {
        const PAGE: usize = 500;
        let namespaces = self.db.store().namespaces().await.internal(FAMILY)?;
        let mut abandoned = Vec::new();
        for namespace in namespaces {
            for state in [TaskState::Submitted, TaskState::Working] {
                let mut before_rank = None;
                loop {
                    let query = TaskQuery {
                        namespace: namespace.clone(),
                        context_id: None,
                        state: Some(state.to_string()),
                        status_ts_from: None,
                        before_rank,
                        limit: PAGE,
                    };
                    let page = self.db.store().list_tasks(&query).await.internal(FAMILY)?;
                    before_rank = page.rows.last().map(|row| row.rank);
                    abandoned.extend(
                        page.rows
                            .into_iter()
                            .filter(|row| !resumed.contains(&row.id))
                            .map(|row| (row.namespace, row.id)),
                    );
                    if !page.more {
                        break;
                    }
                }
            }
        }
        let mut failed = 0;
        for (namespace, id) in abandoned {
            // A task another path ended meanwhile is left as it is.
            if self.engine.mutate(&namespace, &id, abandon).await.is_ok() {
                failed += 1;
            }
        }
        Ok(failed)
    }

    /// The shared SendMessage path: validation, contextId/taskId rules, the
    /// executor's choice, task creation or continuation, and the executor run.
    pub(crate) async fn send(
        &self,
        ctx: &CallContext,
        request: a2a::types::SendMessageRequest,
        streaming: bool,
    ) -> Result<Sent, Error> {
        let namespace = namespace(ctx);
        self.check_send(&request)?;
        let a2a::types::SendMessageRequest {
            mut message,
            configuration,
            metadata,
            tenant,
        } = request;
        let existing = self.referenced_task(&namespace, &mut message).await?;
        // A conditional send is refused before the executor sees it; the
        // continuation checks again, atomically with its commit.
        if let (Some(task), Some(expected)) = (
            &existing,
            configuration.as_ref().and_then(|c| c.if_generation_match),
        ) {
            let current = task.generation.unwrap_or_default();
            if current != expected {
                return Err(generation_mismatch(&task.id, expected, current));
            }
        }
        let context_id = message
            .context_id
            .clone()
            .filter(|c| !c.is_empty())
            .unwrap_or_else(util::new_id);
        message.context_id = Some(context_id.clone());
        let exec = ExecRequest {
            namespace: namespace.clone(),
            message,
            task: existing,
            streaming,
            metadata,
        };
        let decision = self.executor.start(&exec)?;
        // The request's parts back, and only a run copies them again.
        let ExecRequest {
            mut message,
            task: existing,
            metadata,
            ..
        } = exec;
        let (steps, run) = match decision {
            Start::Message(reply) => {
                let mut reply = *reply;
                reply.context_id = Some(context_id);
                if let Some(task) = &existing {
                    reply.task_id = Some(task.id.clone());
                }
                return Ok(Sent::Message(Box::new(reply)));
            }
            Start::Task => (vec![], true),
            Start::Settled(steps) => (steps, false),
        };
        let run_on = if run { existing.clone() } else { None };
        let (task_id, mut opened) = match existing {
            Some(task) => {
                let if_generation = configuration.as_ref().and_then(|c| c.if_generation_match);
                // Boxed: a continuation is the rarer send, and its future
                // would otherwise make every send's larger.
                let opened =
                    Box::pin(self.continue_task(&namespace, &task.id, message.clone(), if_generation))
                        .await?;
                if !run {
                    // Applied after the continuation is durable, detached
                    // from the caller like a run: a client gone meanwhile
                    // leaves no task half-way.
                    let (engine, namespace, id) = (self.engine.clone(), namespace.clone(), task.id.clone());
                    let running = self.activity.begin();
                    tokio::spawn(async move {
                        let _running = running;
                        engine
                            .set_statuses(&namespace, &id, with_no_metadata(steps))
                            .await
                    });
                }
                (task.id, opened)
            }
            None => {
                self.open_task(
                    &namespace,
                    &context_id,
                    &mut message,
                    (configuration.as_ref(), tenant.as_deref()),
                    steps,
                    streaming,
                )
                .await?
            }
        };
        // A continued task that ended before the run could start needs none.
        if run && opened.settled.is_none() {
            let exec = ExecRequest {
                namespace: namespace.clone(),
                message,
                task: run_on,
                streaming,
                metadata,
            };
            let (failed, run_failed) = oneshot::channel();
            opened.run_failed = Some(run_failed);
            self.spawn_run(exec, &namespace, &task_id, context_id, failed);
        }
        Ok(Sent::Task {
            task_id,
            namespace,
            opened,
        })
    }

    /// Rejects a malformed request before anything is read or written.
    fn check_send(&self, request: &a2a::types::SendMessageRequest) -> Result<(), Error> {
        let message = &request.message;
        if message.message_id.trim().is_empty() {
            return Err(FAMILY.invalid_params("message.messageId", "must not be empty"));
        }
        if message.parts.is_empty() {
            return Err(FAMILY.invalid_params("message.parts", "a message needs at least one part"));
        }
        self.limits.check_message(FAMILY, "message", message)?;
        self.input_modes.check(message)?;
        if let Some(config) = &request.configuration {
            check_history_length(config.history_length, "configuration.historyLength")?;
            if let Some(push) = &config.task_push_notification_config {
                self.push.check_url(&push.url).map_err(|why| {
                    FAMILY.invalid_params("configuration.taskPushNotificationConfig.url", &why)
                })?;
            }
        }
        Ok(())
    }

    /// The task the message continues, if it names one. A message may only
    /// continue a live task and stays in that task's context, so the task's
    /// contextId is adopted into `message`.
    async fn referenced_task(&self, namespace: &str, message: &mut Message) -> Result<Option<Task>, Error> {
        let Some(task_id) = message.task_id.as_deref().filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        let task = self.engine.load_task(namespace, task_id).await?.answer();
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
        Ok(Some(task))
    }

    /// Appends `message` to an existing task and subscribes to it. The task is
    /// checked again inside the mutation: it may have ended since it was read.
    ///
    /// With `if_generation` (A2A 1.1 `ifGenerationMatch`) the message is taken
    /// only while the task is at that generation, and taking it moves the
    /// task on: its status is announced again (working, for a task that
    /// waited for input), one event, so a second message sent on the same
    /// generation, here or through another agent, is refused.
    async fn continue_task(
        &self,
        namespace: &str,
        id: &str,
        message: Message,
        if_generation: Option<i64>,
    ) -> Result<Opened, Error> {
        let max_history = self.limits.max_history_per_task;
        let append = move |task: &mut Task| {
            if is_terminal(task.status.state) {
                return Err(Error::new(
                    ErrorKind::UnsupportedOperation,
                    "the task is already in a terminal state",
                ));
            }
            // The message the task waits on comes first: the reply answers it.
            // It stays the status's message too, as no status event moved it.
            // (A refusal below drops this copy of the task with the record.)
            record_status_message(task);
            if task.history.len() >= max_history {
                return Err(exceeded(
                        FAMILY,
                        "message.taskId",
                        &format!("the task holds {max_history} messages, its limit; continue in a new task of the same context"),
                        max_history,
                    ));
            }
            task.history.push(message.clone());
            Ok(Change { events: vec![] })
        };
        match if_generation {
            None => self.engine.mutate(namespace, id, append).await?,
            Some(generation) => {
                self.engine
                    .mutate_if_generation(namespace, id, generation, |task| {
                        append(task)?;
                        let state = match is_interrupted(task.status.state) {
                            true => TaskState::Working,
                            false => task.status.state,
                        };
                        status_change(task, state, None, None)
                    })
                    .await?
            }
        };
        let subscribed = self.engine.subscribe(namespace, id, None).await;
        let (backlog, rx) = match subscribed {
            Ok(subscription) => subscription,
            Err(refused) => {
                // The message is taken: a change committed since (a cancel
                // through another agent, say) may have ended the task, which
                // then is the answer, not the refusal of its subscription.
                let row = self.engine.load_task(namespace, id).await?;
                if !is_terminal(row.body.status.state) {
                    return Err(refused);
                }
                let snapshot = Event::with_seq(row.last_seq, StreamResponse::Task(row.body.clone()));
                return Ok(Opened {
                    backlog: VecDeque::from([snapshot]),
                    rx: None,
                    settled: Some(row.answer()),
                    run_failed: None,
                });
            }
        };
        if backlog.is_empty() {
            return Err(FAMILY.internal("no snapshot"));
        }
        Ok(Opened {
            backlog,
            rx: Some(rx.ok_or_else(|| FAMILY.internal("task ended"))?),
            settled: None,
            run_failed: None,
        })
    }

    /// Creates a SUBMITTED task for `message` (which is given the new task's
    /// id), together with the push config the request carries, in one
    /// commit; the task goes through `steps` in that commit too. Its events
    /// so far are kept for a stream only.
    async fn open_task(
        &self,
        namespace: &str,
        context_id: &str,
        message: &mut Message,
        (configuration, tenant): (Option<&SendMessageConfiguration>, Option<&str>),
        steps: Vec<(TaskState, Option<Message>)>,
        streaming: bool,
    ) -> Result<(String, Opened), Error> {
        let id = util::new_id();
        message.task_id = Some(id.clone());
        let task = Task {
            generation: None,
            id: id.clone(),
            context_id: Some(context_id.to_string()),
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: Some(util::now()),
            },
            artifacts: vec![],
            history: vec![message.clone()],
            metadata: None,
        };
        let mut docs = push_config_writes(namespace, &id, configuration, tenant)?;
        let settles = !steps.is_empty();
        // A run follows: its lease comes into being with the task, so an
        // agent dying right after the commit leaves a lease to expire.
        if let (false, Some(leases)) = (settles, &self.leases) {
            docs.push(leases.put(namespace, &id)?);
        }
        let created = self
            .engine
            .create_task_then(
                namespace,
                task,
                |task| status_steps(task, with_no_metadata(steps)),
                docs,
                streaming,
            )
            .await?;
        let opened = Opened {
            backlog: created.events.into(),
            rx: created.rx,
            settled: settles.then_some(created.task),
            run_failed: None,
        };
        Ok((id, opened))
    }

    /// Runs the executor on the task in the background; the caller answers
    /// from the task's events, not from the run. `failed` hears when the run
    /// ended after one of its writes failed (the store refused it, the disk
    /// being full, say): the status a caller waits for may then never come.
    fn spawn_run(
        &self,
        exec: ExecRequest,
        namespace: &str,
        task_id: &str,
        context_id: String,
        failed: oneshot::Sender<()>,
    ) {
        let handle = TaskHandle::new(
            self.engine.clone(),
            namespace.to_string(),
            task_id.to_string(),
            context_id,
        );
        let write_failed = handle.write_failed();
        let executor = self.executor.clone();
        let running = self.activity.begin();
        let leases = self.leases.clone();
        let (namespace, task_id) = (namespace.to_string(), task_id.to_string());
        tokio::spawn(async move {
            let _running = running;
            let run = executor.run(exec, handle);
            match leases {
                Some(leases) => leases.hold_while(&namespace, &task_id, run).await,
                None => run.await,
            }
            if write_failed.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = failed.send(());
            }
        });
    }

    pub(crate) async fn send_message(
        &self,
        ctx: &CallContext,
        request: a2a::types::SendMessageRequest,
    ) -> Result<a2a::types::SendMessageResponse, Error> {
        let config = request.configuration.clone().unwrap_or_default();
        match self.send(ctx, request, false).await? {
            Sent::Message(m) => Ok(a2a::types::SendMessageResponse::Message(*m)),
            Sent::Task {
                task_id,
                namespace,
                opened,
            } => {
                let mut task = match opened.settled {
                    Some(task) => task,
                    // Boxed: most sends settle in their own commit, and a
                    // future that holds the wait and the read inline would
                    // make every send's future (copied whole as it is
                    // boxed for dispatch) larger by both.
                    None => {
                        let blocking = !config.return_immediately.unwrap_or(false);
                        Box::pin(self.when_settled(&namespace, &task_id, opened, blocking)).await?
                    }
                };
                trim_history(&mut task, config.history_length);
                Ok(a2a::types::SendMessageResponse::Task(task))
            }
        }
    }

    /// The task `send` opened or continued (as `opened`), once it settles
    /// when `blocking`: a terminal or interrupted status after the first
    /// event (the task as it was opened or continued, which may be waiting
    /// for this very message); at once otherwise.
    async fn when_settled(
        &self,
        namespace: &str,
        task_id: &str,
        opened: Opened,
        blocking: bool,
    ) -> Result<Task, Error> {
        if blocking {
            let ended = opened
                .backlog
                .iter()
                .skip(1)
                .any(|event| ends_stream(&event.data, true));
            if let (false, Some(rx)) = (ended, opened.rx) {
                until_settled(rx, opened.run_failed).await;
            }
        }
        Ok(self.engine.load_task(namespace, task_id).await?.answer())
    }

    pub(crate) async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: a2a::types::SendMessageRequest,
    ) -> Result<EventStream<StreamResponse>, Error> {
        match self.send(ctx, request, true).await? {
            Sent::Message(m) => {
                let stream = TaskEvents {
                    backlog: VecDeque::from([Event::new(StreamResponse::Message(*m))]),
                    rx: None,
                    stop_when_interrupted: true,
                    at_first: true,
                    done: false,
                };
                Ok(Box::pin(stream))
            }
            Sent::Task { opened, .. } => Ok(Box::pin(TaskEvents {
                backlog: opened.backlog,
                rx: opened.rx,
                stop_when_interrupted: true,
                at_first: true,
                done: false,
            })),
        }
    }

    pub(crate) async fn get_task(
        &self,
        ctx: &CallContext,
        request: a2a::types::GetTaskRequest,
    ) -> Result<Reply<Task>, Error> {
        let namespace = namespace(ctx);
        check_history_length(request.history_length, "historyLength")?;
        if let Some(seen) = request.current_generation {
            let within = super::long_poll::patience(ctx, self.long_poll_max);
            let row = self
                .engine
                .await_generation(&namespace, &request.id, seen, within)
                .await?;
            let mut task = row.answer();
            trim_history(&mut task, request.history_length);
            return Ok(Reply::Value(task));
        }
        // The store keeps the body without its generation: as it is, it is
        // the whole answer only to a caller of a version that has none.
        let sees_generation = ctx
            .version_of(a2a::Contract::A2a)
            .is_none_or(|version| version >= Task::NEWEST_MEMBER_SINCE);
        if request.history_length.is_none() && !sees_generation {
            // The whole task: as the store keeps it, neither decoded nor encoded again.
            return match self
                .db
                .store()
                .get_task_encoded(&namespace, &request.id)
                .await
                .internal(FAMILY)?
            {
                Some(encoded) => Ok(Reply::Encoded(encoded)),
                None => Err(not_found(&request.id)),
            };
        }
        let mut task = self.engine.load_task(&namespace, &request.id).await?.answer();
        trim_history(&mut task, request.history_length);
        Ok(Reply::Value(task))
    }

    pub(crate) async fn list_tasks(
        &self,
        ctx: &CallContext,
        request: ListTasksRequest,
    ) -> Result<ListTasksResponse, Error> {
        let namespace = namespace(ctx);
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
            .map(|state| state.to_string());
        let query = TaskQuery {
            namespace,
            context_id: request.context_id.clone().filter(|c| !c.is_empty()),
            state,
            status_ts_from,
            before_rank,
            limit: page_size as usize,
        };
        let page = self.db.store().list_tasks(&query).await.internal(FAMILY)?;
        let next_page_token = match (page.more, page.rows.last()) {
            (true, Some(last)) => last.rank.to_string(),
            _ => String::new(),
        };
        let mut tasks = Vec::with_capacity(page.rows.len());
        for row in page.rows {
            let mut task = row.answer();
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
        let namespace = namespace(ctx);
        let metadata = request.metadata.clone();
        let task = self
            .engine
            .mutate(&namespace, &request.id, |task| {
                cancel_change(task, metadata.clone())
            })
            .await?;
        self.executor.cancelled(&namespace, &task).await;
        Ok(task)
    }

    pub(crate) async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: a2a::types::SubscribeToTaskRequest,
    ) -> Result<EventStream<StreamResponse>, Error> {
        let namespace = namespace(ctx);
        let (backlog, rx) = self
            .engine
            .subscribe(&namespace, &request.id, ctx.resume_after)
            .await?;
        Ok(Box::pin(TaskEvents {
            backlog,
            rx,
            stop_when_interrupted: false,
            at_first: true,
            done: false,
        }))
    }
}

/// Waits on `rx` for a terminal or interrupted status; or, once `run_failed`
/// says the run ended after a failed write, no longer: the task is then
/// answered as it stands rather than waited on forever.
async fn until_settled(mut rx: LiveEvents, mut run_failed: Option<oneshot::Receiver<()>>) {
    loop {
        tokio::select! {
            // The events already there first: a run that settled the task
            // and then failed a later write still answers with that status.
            biased;
            event = rx.recv() => match event {
                Some(event) if !ends_stream(&event.data, true) => {}
                _ => return,
            },
            failed = async { run_failed.as_mut().expect("only while waiting").await }, if run_failed.is_some() => {
                match failed {
                    Ok(()) => return,
                    // The run ended with every write made: its events tell.
                    Err(_) => run_failed = None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
