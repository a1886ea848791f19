//! The pluggable built-in agent: the [`Executor`] trait, the handle an
//! executor drives its task through, and the default deterministic executor
//! (the CleverAgents session workflow).
//!
//! # The default executor: messages that start plans
//!
//! A `contextId` is a session. A message (not continuing a plan's task) with
//! a data part that is a JSON object with an `"action"` member starts a plan
//! in the message's task. The first such data part counts; its shape is
//!
//! ```json
//! { "action": "<action name>",            // required, non-empty string
//!   "project": "<project name>",          // required, non-empty string
//!   "inputs": { "<name>": <value> },      // optional object (plan inputs)
//!   "automationProfile": "<profile name>",// optional string
//!   "title": "<plan title>" }             // optional string
//! ```
//!
//! i.e. the parameters of `_cleveragents/plan/use` without `namespace` (the
//! request's tenant) and `contextId` (the message's context). Other members
//! are ignored; text parts next to it are kept in the history only.
//!
//! - A malformed request (e.g. `project` missing, `inputs` not an object) is
//!   refused by [`Executor::start`] with InvalidParams (-32602) naming the
//!   field, before any task exists, so nothing changes.
//! - Otherwise a task is created and the plan is created and run inside it
//!   (`PlanService::plan_start_in_task`): the task's events are the plan's events,
//!   with the same domain-event metadata as `plan/execute`; an approval step
//!   leaves the task input-required, and a reply to the task resumes the plan.
//!   `plan/status` shows the task id; the task's metadata names the plan
//!   under the extension URI.
//! - What `plan/use` or `plan/execute` would refuse (unknown action, project
//!   or profile: ExtNotFound; inputs not matching the schema, unrunnable
//!   tools: ExtPlanError) fails the task: a `plan.error` domain event and a
//!   status message with the error text and a data part
//!   `{"code": <that JSON-RPC code>, "message": <text>}`. The check needs the
//!   registry, which [`Executor::start`] (synchronous, before the task
//!   exists) cannot consult, so it happens once the task exists.

use crate::plans::PlanService;
use crate::tasks::TaskEngine;
use a2a::rpc::{BoxFuture, Error};
use a2a::types::{Artifact, Message, Part, PartContent, Role, Task, TaskState};
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One incoming message, as the executor sees it.
#[derive(Clone, Debug)]
pub struct ExecRequest {
    pub namespace: String,
    /// The message, with `contextId` (and `taskId` once a task exists) filled in.
    pub message: Message,
    /// The task the message continues, if any.
    pub task: Option<Task>,
    pub streaming: bool,
    pub metadata: Option<Map<String, Value>>,
}

/// How the executor answers a message.
pub enum Start {
    /// A direct reply; no task is created.
    Message(Box<Message>),
    /// Track the work as a task; [`Executor::run`] drives it.
    Task,
    /// Track the work as a task that goes through these statuses (state,
    /// optional agent message) at once: a new task is created with all of
    /// them in one durable commit, each still its own event, and no run
    /// follows. For work that is decided the moment the message arrives.
    Settled(Vec<(TaskState, Option<Message>)>),
}

/// The built-in agent behind `SendMessage`.
pub trait Executor: Send + Sync + 'static {
    /// Decides, before any task exists, whether to reply directly, work on a
    /// task, or settle a task at once. An error is returned to the caller
    /// and changes nothing.
    fn start(&self, request: &ExecRequest) -> Result<Start, Error>;
    /// Drives the task to a terminal or interrupted state. Runs detached from
    /// the caller, so it completes even when the client goes away.
    fn run(&self, request: ExecRequest, task: TaskHandle) -> BoxFuture<'static, ()>;
    /// Told after a task was cancelled (e.g. to cancel the plan it runs).
    fn cancelled<'a>(&'a self, namespace: &'a str, task: &'a Task) -> BoxFuture<'a, ()> {
        let _ = (namespace, task);
        Box::pin(async {})
    }
}

/// What an executor may do to its task. Every call is persisted and fanned out
/// before it returns; once the task is terminal (e.g. cancelled) calls fail.
#[derive(Clone)]
pub struct TaskHandle {
    engine: TaskEngine,
    pub namespace: String,
    pub task_id: String,
    pub context_id: String,
    /// Set when a write through this handle (or a clone) failed: a run that
    /// ends so may have left its task short of the status a caller waits for.
    write_failed: Arc<AtomicBool>,
}

impl TaskHandle {
    pub(crate) fn new(engine: TaskEngine, namespace: String, task_id: String, context_id: String) -> Self {
        TaskHandle {
            engine,
            namespace,
            task_id,
            context_id,
            write_failed: Arc::default(),
        }
    }

    /// The flag a failed write through this handle (or a clone) sets.
    pub(crate) fn write_failed(&self) -> Arc<AtomicBool> {
        self.write_failed.clone()
    }

    /// `result`, noting a failure.
    fn noted(&self, result: Result<Task, Error>) -> Result<Task, Error> {
        if result.is_err() {
            self.write_failed.store(true, Ordering::Relaxed);
        }
        result
    }

    /// An agent message in this task's context.
    pub fn agent_message(&self, parts: Vec<Part>) -> Message {
        Message {
            context_id: Some(self.context_id.clone()),
            task_id: Some(self.task_id.clone()),
            ..agent_message(parts)
        }
    }

    /// Moves the task to `state`, with an optional agent text.
    pub async fn status(&self, state: TaskState, text: Option<&str>) -> Result<Task, Error> {
        let message = text.map(|t| self.agent_message(vec![text_part(t)]));
        let result = self
            .engine
            .set_status(&self.namespace, &self.task_id, state, message, None)
            .await;
        self.noted(result)
    }

    /// Moves the task through `steps` (state, optional agent text) in one
    /// commit: each step is still its own event.
    pub async fn statuses(&self, steps: &[(TaskState, Option<&str>)]) -> Result<Task, Error> {
        let steps = steps
            .iter()
            .map(|(state, text)| (*state, text.map(|t| self.agent_message(vec![text_part(t)])), None))
            .collect();
        let result = self
            .engine
            .set_statuses(&self.namespace, &self.task_id, steps)
            .await;
        self.noted(result)
    }

    /// Moves the task to `state` with a message and event metadata.
    pub async fn status_with(
        &self,
        state: TaskState,
        message: Option<Message>,
        metadata: Option<Map<String, Value>>,
    ) -> Result<Task, Error> {
        let result = self
            .engine
            .set_status(&self.namespace, &self.task_id, state, message, metadata)
            .await;
        self.noted(result)
    }

    /// Publishes an artifact (or a chunk of one).
    pub async fn artifact(
        &self,
        artifact: Artifact,
        append: bool,
        last_chunk: Option<bool>,
        metadata: Option<Map<String, Value>>,
    ) -> Result<Task, Error> {
        let result = self
            .engine
            .add_artifact(
                &self.namespace,
                &self.task_id,
                artifact,
                append,
                last_chunk,
                metadata,
            )
            .await;
        self.noted(result)
    }
}

/// An agent message with a fresh id; the task it is a status of gives it
/// its `taskId` and `contextId`.
pub fn agent_message(parts: Vec<Part>) -> Message {
    Message {
        message_id: crate::util::new_id(),
        context_id: None,
        task_id: None,
        role: Role::Agent,
        parts,
        metadata: None,
        extensions: vec![],
        reference_task_ids: vec![],
    }
}

/// A text part.
pub fn text_part(text: &str) -> Part {
    Part {
        content: PartContent::Text(text.to_string()),
        filename: None,
        media_type: None,
        metadata: None,
    }
}

/// The text of a message's text parts, joined by newlines.
pub fn message_text(message: &Message) -> String {
    message
        .parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The default executor's reply to a message that starts no plan.
fn echo(message: &Message) -> String {
    let text = message_text(message);
    if text.is_empty() {
        "Received a message without text.".to_string()
    } else {
        format!("Received: {text}")
    }
}

/// The deterministic session executor.
///
/// - A message continuing a plan's task resumes that plan (the reply answers
///   its pending approval).
/// - A data part naming an action starts a plan in this task (see the
///   module documentation for its shape and errors).
/// - Anything else completes with an agent message echoing the text.
pub struct DefaultExecutor {
    /// The plans the sessions run.
    plans: PlanService,
}

impl DefaultExecutor {
    pub(crate) fn new(plans: PlanService) -> Self {
        DefaultExecutor { plans }
    }
}

impl Executor for DefaultExecutor {
    fn start(&self, request: &ExecRequest) -> Result<Start, Error> {
        let continues_plan = request
            .task
            .as_ref()
            .is_some_and(|t| crate::plans::plan_of_task(t).is_some());
        if continues_plan {
            return Ok(Start::Task);
        }
        match crate::plans::plan_request(&request.message) {
            Some(Err((field, why))) => {
                Err(crate::util::Family::A2a.invalid_params(&format!("message.parts.data.{field}"), &why))
            }
            Some(Ok(_)) => Ok(Start::Task),
            // Nothing happens between the two: the task is created with both.
            None => Ok(Start::Settled(vec![
                (TaskState::Working, None),
                (
                    TaskState::Completed,
                    Some(agent_message(vec![text_part(&echo(&request.message))])),
                ),
            ])),
        }
    }

    fn run(&self, request: ExecRequest, task: TaskHandle) -> BoxFuture<'static, ()> {
        let plans = self.plans.clone();
        Box::pin(async move {
            // Errors after the task exists end it as failed, with the reason.
            let outcome = async {
                if let Some(existing) = &request.task {
                    if let Some(plan_id) = crate::plans::plan_of_task(existing) {
                        return plans.plan_reply(&task, &plan_id, &request.message).await;
                    }
                }
                match crate::plans::plan_request(&request.message) {
                    Some(Ok(start)) => plans.plan_start_in_task(&task, start).await,
                    // `start` settles every other message; a run of one echoes it too.
                    _ => task
                        .statuses(&[
                            (TaskState::Working, None),
                            (TaskState::Completed, Some(&echo(&request.message))),
                        ])
                        .await
                        .map(|_| ()),
                }
            }
            .await;
            if let Err(error) = outcome {
                // A task already terminal (e.g. cancelled meanwhile) stays as it is.
                let _ = task.status(TaskState::Failed, Some(&error.message)).await;
            }
        })
    }

    fn cancelled<'a>(&'a self, namespace: &'a str, task: &'a Task) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(plan_id) = crate::plans::plan_of_task(task) {
                self.plans.plan_task_cancelled(namespace, &plan_id).await;
            }
        })
    }
}
