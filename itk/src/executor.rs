//! The participant's executor: the kit's `tck-client-parse` behaviour and its
//! traversal instructions, around the agent's own suites executor, which
//! answers every other message (the `tck-*` behaviours, and as the default
//! agent everything else).

use crate::client_parse;
use crate::instruction::Instruction;
use crate::traversal::{self, TASK_FINISHED};
use a2a::rpc::{BoxFuture, Error};
use a2a::types::{Artifact, Part, PartContent, Task, TaskState};
use app::executor::{ExecRequest, Executor, Start, TaskHandle};
use std::sync::Arc;
use std::time::Duration;

/// How long a held task keeps saying it works, and how often.
const HEARTBEATS: u32 = 5;
const HEARTBEAT_EVERY: Duration = Duration::from_secs(2);

/// What a message asks of the participant.
enum Asked {
    ClientParse,
    Instruction(Box<Instruction>),
    /// Anything else: the suites executor's.
    Other,
}

fn asked(request: &ExecRequest) -> Asked {
    let first_text = request
        .message
        .parts
        .first()
        .and_then(|part| match &part.content {
            PartContent::Text(text) => Some(text.trim_start()),
            _ => None,
        });
    match first_text {
        Some(text) if text.starts_with(client_parse::PREFIX) => Asked::ClientParse,
        // Every other behaviour prefix is the suites executor's.
        Some(text) if text.starts_with("tck-") => Asked::Other,
        _ => match Instruction::in_message(&request.message) {
            Some(instruction) => Asked::Instruction(Box::new(instruction)),
            None => Asked::Other,
        },
    }
}

/// The kit's behaviours first, `inner` for the rest.
pub struct ItkExecutor {
    inner: Arc<dyn Executor>,
}

impl ItkExecutor {
    pub fn around(inner: Arc<dyn Executor>) -> Arc<dyn Executor> {
        Arc::new(ItkExecutor { inner })
    }
}

impl Executor for ItkExecutor {
    fn start(&self, request: &ExecRequest) -> Result<Start, Error> {
        match asked(request) {
            Asked::Other => self.inner.start(request),
            Asked::ClientParse | Asked::Instruction(_) => Ok(Start::Task),
        }
    }

    fn run(&self, request: ExecRequest, task: TaskHandle) -> BoxFuture<'static, ()> {
        match asked(&request) {
            Asked::Other => self.inner.run(request, task),
            Asked::ClientParse => Box::pin(async move {
                let _ = client_parse(&request, &task).await;
            }),
            Asked::Instruction(instruction) => Box::pin(async move {
                let _ = follow(&instruction, &task).await;
            }),
        }
    }

    fn cancelled<'a>(&'a self, namespace: &'a str, task: &'a Task) -> BoxFuture<'a, ()> {
        self.inner.cancelled(namespace, task)
    }
}

/// Completes the task with what the client parsed as its first artifact's
/// data part.
async fn client_parse(request: &ExecRequest, task: &TaskHandle) -> Result<(), Error> {
    let Some((operation, payload)) = client_parse::request_of(&request.message) else {
        task.status(
            TaskState::Failed,
            Some("tck-client-parse needs a data part with `operation` and `wire_payload`"),
        )
        .await?;
        return Ok(());
    };
    let parsed = client_parse::parse(&operation, payload).await;
    let artifact = Artifact {
        artifact_id: format!("client-parse-{operation}"),
        name: Some("parsed".into()),
        description: None,
        parts: vec![Part {
            content: PartContent::Data(parsed),
            filename: None,
            media_type: None,
            metadata: None,
        }],
        metadata: None,
        extensions: vec![],
    };
    task.artifact(artifact, false, None, None).await?;
    task.status(TaskState::Completed, Some("parsed")).await?;
    Ok(())
}

/// Answers the instruction: completed with the answer's texts joined by
/// newlines (first held working a while when it says so), failed with the
/// reason when a step fails.
async fn follow(instruction: &Instruction, task: &TaskHandle) -> Result<(), Error> {
    let answer = match traversal::answer(instruction).await {
        Ok(texts) => texts.join("\n"),
        Err(why) => {
            task.status(TaskState::Failed, Some(&why)).await?;
            return Ok(());
        }
    };
    if instruction.holds_task() {
        task.status(TaskState::Working, Some(&format!("{answer}\n{TASK_FINISHED}")))
            .await?;
        // Until cancelled (a status change then fails) or the heartbeats end.
        for _ in 0..HEARTBEATS {
            tokio::time::sleep(HEARTBEAT_EVERY).await;
            task.status(TaskState::Working, None).await?;
        }
    }
    task.status(TaskState::Completed, Some(&answer)).await?;
    Ok(())
}
