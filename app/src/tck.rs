//! The conformance-suite scenario executor, selected only by configuration
//! (`ExecutorKind::Tck`); never on the default path. It behaves as two
//! suites expect:
//!
//! - the a2a-tck chooses a behaviour by the messageId prefix, exactly as its
//!   `scenarios/*.feature` describe;
//! - ACTS (the A2A project's declarative suite, its §11 "SUT behavior
//!   contract") chooses it by the prefix of the first message part's text
//!   (`tck-complete-task`, `tck-multi-turn`, `tck-long-running`, …).
//!
//! The messageId wins when both name a behaviour. A message continuing a
//! task opened by `tck-multi-turn` keeps the task input-required until its
//! text starts with `done`, which completes it.
//!
//! The v0.3 a2a-tck names no behaviour: it numbers its messages
//! `<purpose>-message-id-<uuid>` and expects the task they open to stay open,
//! to be continued, cancelled and read with its history; such a message opens
//! a `tck-multi-turn` conversation.
//!
//! A message that names no behaviour (and continues no task opened by one)
//! goes to the default executor, so the agent the suites test is the agent
//! users get: plans start from messages and sessions run as usual.

use crate::executor::{message_text, text_part, DefaultExecutor, ExecRequest, Executor, Start, TaskHandle};
use a2a::rpc::{BoxFuture, Error};
use a2a::types::{Artifact, Message, Part, PartContent, Role, Task, TaskState};
use base64::Engine as _;
use std::time::Duration;

/// The TCK's streaming timeout; the resubscribe scenario waits twice that.
const STREAMING_TIMEOUT: Duration = Duration::from_secs(2);
/// How long `tck-long-running` works before it completes: long enough for a
/// poller (ACTS polls once a second) to see it working.
const LONG_RUNNING: Duration = Duration::from_secs(2);
/// A continuation of `tck-multi-turn` starting with this ends the conversation.
const MULTI_TURN_DONE: &str = "done";

/// The suites' behaviours where a message names one; the default executor
/// for every other message.
pub struct TckExecutor {
    fallback: DefaultExecutor,
}

impl TckExecutor {
    pub(crate) fn new(fallback: DefaultExecutor) -> Self {
        TckExecutor { fallback }
    }
}

fn artifact(parts: Vec<Part>) -> Artifact {
    Artifact {
        artifact_id: crate::util::new_id(),
        name: None,
        description: None,
        parts,
        metadata: None,
        extensions: vec![],
    }
}

fn file_part() -> Part {
    Part {
        content: PartContent::Raw(base64::engine::general_purpose::STANDARD.encode(b"tck")),
        filename: Some("output.txt".into()),
        media_type: Some("text/plain".into()),
        metadata: None,
    }
}

/// The behaviour prefixes of both suites, longest first so the most specific
/// wins (`tck-artifact-file-url` over `tck-artifact-file`).
const PREFIXES: &[&str] = &[
    "tck-stream-artifact-chunked",
    "test-resubscribe-message-id",
    "tck-stream-ordering-001",
    "tck-stream-artifact-text",
    "tck-stream-artifact-file",
    "tck-artifact-file-url",
    "tck-message-response",
    "tck-input-required",
    "tck-stream-chunked",
    "tck-auth-required",
    "tck-artifact-text",
    "tck-artifact-file",
    "tck-artifact-data",
    "tck-complete-task",
    "tck-long-running",
    "tck-task-failure",
    "tck-stream-basic",
    "tck-reject-task",
    "tck-multi-turn",
    "tck-stream-001",
    "tck-stream-002",
    "tck-stream-003",
    "tck-cancel",
];

fn prefix_of(text: &str) -> Option<&'static str> {
    PREFIXES.iter().copied().find(|p| text.starts_with(p))
}

/// The text of a message's first part, if it is a text part.
fn first_text(message: &Message) -> Option<&str> {
    match &message.parts.first()?.content {
        PartContent::Text(t) => Some(t.trim_start()),
        _ => None,
    }
}

/// How the v0.3 a2a-tck numbers its messages: `…-message-id-<uuid>`.
const V0_3_TCK_MESSAGE_ID: &str = "-message-id-";

/// The behaviour one message names by itself (messageId, then text, then the
/// v0.3 TCK's numbering).
fn named_by(message: &Message) -> Option<&'static str> {
    prefix_of(&message.message_id)
        .or_else(|| first_text(message).and_then(prefix_of))
        .or_else(|| {
            message
                .message_id
                .contains(V0_3_TCK_MESSAGE_ID)
                .then_some("tck-multi-turn")
        })
}

/// The behaviour a request asks for ("" for none: the default executor's).
fn scenario(request: &ExecRequest) -> &'static str {
    let opened_by = request
        .task
        .as_ref()
        .and_then(|task| task.history.first())
        .and_then(named_by);
    if opened_by == Some("tck-multi-turn") {
        return "tck-multi-turn";
    }
    named_by(&request.message).unwrap_or("")
}

impl Executor for TckExecutor {
    fn start(&self, request: &ExecRequest) -> Result<Start, Error> {
        match scenario(request) {
            "" => self.fallback.start(request),
            "tck-message-response" => Ok(Start::Message(Box::new(Message {
                message_id: crate::util::new_id(),
                context_id: request.message.context_id.clone(),
                task_id: None,
                role: Role::Agent,
                parts: vec![text_part("Direct message response")],
                metadata: None,
                extensions: vec![],
                reference_task_ids: vec![],
            }))),
            _ => Ok(Start::Task),
        }
    }

    fn run(&self, request: ExecRequest, task: TaskHandle) -> BoxFuture<'static, ()> {
        if scenario(&request).is_empty() {
            return self.fallback.run(request, task);
        }
        Box::pin(async move {
            let _ = run_scenario(&request, &task).await;
        })
    }

    fn cancelled<'a>(&'a self, namespace: &'a str, task: &'a Task) -> BoxFuture<'a, ()> {
        self.fallback.cancelled(namespace, task)
    }
}

async fn streamed(task: &TaskHandle, parts: Vec<Part>) -> Result<(), Error> {
    task.status(TaskState::Working, None).await?;
    task.artifact(artifact(parts), false, None, None).await?;
    task.status(TaskState::Completed, None).await?;
    Ok(())
}

async fn run_scenario(request: &ExecRequest, task: &TaskHandle) -> Result<(), Error> {
    match scenario(request) {
        "tck-artifact-text" => {
            task.artifact(
                artifact(vec![text_part("Generated text content")]),
                false,
                None,
                None,
            )
            .await?;
            task.status(TaskState::Completed, None).await?;
        }
        "tck-artifact-file" => {
            task.artifact(artifact(vec![file_part()]), false, None, None)
                .await?;
            task.status(TaskState::Completed, None).await?;
        }
        "tck-artifact-file-url" => {
            let part = Part {
                content: PartContent::Url("https://example.com/output.txt".into()),
                filename: Some("output.txt".into()),
                media_type: Some("text/plain".into()),
                metadata: None,
            };
            task.artifact(artifact(vec![part]), false, None, None).await?;
            task.status(TaskState::Completed, None).await?;
        }
        "tck-artifact-data" => {
            let part = Part {
                content: PartContent::Data(serde_json::json!({ "key": "value", "count": 42 })),
                filename: None,
                media_type: None,
                metadata: None,
            };
            task.artifact(artifact(vec![part]), false, None, None).await?;
            task.status(TaskState::Completed, None).await?;
        }
        "tck-input-required" => {
            task.status(TaskState::InputRequired, None).await?;
        }
        "tck-multi-turn" => {
            let continuing = request.task.is_some();
            let done = message_text(&request.message)
                .trim_start()
                .to_ascii_lowercase()
                .starts_with(MULTI_TURN_DONE);
            if continuing && done {
                task.status(TaskState::Completed, Some("Conversation complete"))
                    .await?;
            } else {
                task.status(TaskState::InputRequired, Some("Please provide more input"))
                    .await?;
            }
        }
        "tck-auth-required" => {
            task.status(
                TaskState::AuthRequired,
                Some("Authentication required to continue"),
            )
            .await?;
        }
        "tck-task-failure" => {
            task.status(TaskState::Working, None).await?;
            task.status(TaskState::Failed, Some("Task failed as requested"))
                .await?;
        }
        // Working until canceled: the run ends and leaves the task as it is.
        "tck-cancel" => {
            task.status(TaskState::Working, None).await?;
        }
        "tck-long-running" => {
            task.status(TaskState::Working, None).await?;
            tokio::time::sleep(LONG_RUNNING).await;
            task.artifact(
                artifact(vec![text_part("Long-running result")]),
                false,
                None,
                None,
            )
            .await?;
            task.status(TaskState::Completed, None).await?;
        }
        "tck-reject-task" => {
            task.status(TaskState::Rejected, Some("rejected")).await?;
        }
        "tck-stream-001" => streamed(task, vec![text_part("Stream hello from TCK")]).await?,
        "tck-stream-002" => {
            task.status(TaskState::Completed, None).await?;
        }
        "tck-stream-003" => streamed(task, vec![text_part("Stream task lifecycle")]).await?,
        "tck-stream-ordering-001" => streamed(task, vec![text_part("Ordered output")]).await?,
        "tck-stream-artifact-text" => streamed(task, vec![text_part("Streamed text content")]).await?,
        "tck-stream-artifact-file" => streamed(task, vec![file_part()]).await?,
        "tck-stream-basic" => streamed(task, vec![text_part("Streamed content")]).await?,
        "tck-stream-artifact-chunked" | "tck-stream-chunked" => {
            task.status(TaskState::Working, None).await?;
            let mut chunk = artifact(vec![text_part("chunk-1 ")]);
            task.artifact(chunk.clone(), false, None, None).await?;
            chunk.parts = vec![text_part("chunk-2")];
            task.artifact(chunk, true, Some(true), None).await?;
            task.status(TaskState::Completed, None).await?;
        }
        "test-resubscribe-message-id" => {
            task.status(TaskState::Working, None).await?;
            tokio::time::sleep(STREAMING_TIMEOUT * 2).await;
            task.status(TaskState::Completed, None).await?;
        }
        // `tck-complete-task`: complete with a message.
        _ => {
            task.status(TaskState::Completed, Some("Hello from TCK")).await?;
        }
    }
    Ok(())
}
