//! The a2a-tck scenario executor, selected only by configuration
//! (`ExecutorKind::Tck`): behaviour is chosen by the messageId prefix exactly
//! as the TCK's `scenarios/*.feature` describe. Never on the default path.

use crate::executor::{text_part, ExecRequest, Executor, Start, TaskHandle};
use a2a::rpc::{BoxFuture, Error};
use a2a::types::{Artifact, Message, Part, PartContent, Role, TaskState};
use base64::Engine as _;
use std::time::Duration;

/// The TCK's streaming timeout; the resubscribe scenario waits twice that.
const STREAMING_TIMEOUT: Duration = Duration::from_secs(2);

pub struct TckExecutor;

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

/// The messageId prefixes the TCK uses, longest first so the most specific wins.
const PREFIXES: &[&str] = &[
    "tck-stream-artifact-chunked",
    "test-resubscribe-message-id",
    "tck-stream-ordering-001",
    "tck-stream-artifact-text",
    "tck-stream-artifact-file",
    "tck-artifact-file-url",
    "tck-message-response",
    "tck-input-required",
    "tck-artifact-text",
    "tck-artifact-file",
    "tck-artifact-data",
    "tck-complete-task",
    "tck-reject-task",
    "tck-stream-001",
    "tck-stream-002",
    "tck-stream-003",
];

fn scenario(message_id: &str) -> &'static str {
    PREFIXES
        .iter()
        .copied()
        .find(|p| message_id.starts_with(p))
        .unwrap_or("")
}

impl Executor for TckExecutor {
    fn start(&self, request: &ExecRequest) -> Result<Start, Error> {
        if scenario(&request.message.message_id) == "tck-message-response" {
            return Ok(Start::Message(Box::new(Message {
                message_id: crate::util::new_id(),
                context_id: request.message.context_id.clone(),
                task_id: None,
                role: Role::Agent,
                parts: vec![text_part("Direct message response")],
                metadata: None,
                extensions: vec![],
                reference_task_ids: vec![],
            })));
        }
        Ok(Start::Task)
    }

    fn run(&self, request: ExecRequest, task: TaskHandle) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            let _ = run_scenario(&request, &task).await;
        })
    }
}

async fn streamed(task: &TaskHandle, parts: Vec<Part>) -> Result<(), Error> {
    task.status(TaskState::Working, None).await?;
    task.artifact(artifact(parts), false, None, None).await?;
    task.status(TaskState::Completed, None).await?;
    Ok(())
}

async fn run_scenario(request: &ExecRequest, task: &TaskHandle) -> Result<(), Error> {
    let id = request.message.message_id.as_str();
    match scenario(id) {
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
        "tck-stream-artifact-chunked" => {
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
        // `tck-complete-task` and every unknown prefix: complete with a message.
        _ => {
            task.status(TaskState::Completed, Some("Hello from TCK")).await?;
        }
    }
    Ok(())
}
