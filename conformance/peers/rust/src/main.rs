//! A minimal A2A 1.0 agent on the official Rust SDK (a2aproject/a2a-rs:
//! `a2a-lf`, `a2a-server-lf`, `a2a-grpc`), gated by a2a-conformance as a
//! subject.
//!
//! One process, the SDK's own server pieces on every binding it has:
//! JSON-RPC at http://HOST:PORT/, HTTP+JSON under http://HOST:PORT/rest and
//! gRPC at HOST:GRPC_PORT, the Agent Card at /.well-known/agent-card.json.
//! Tasks and push configs live in the SDK's in-memory stores; push
//! notifications are sent by the SDK's sender.
//!
//! The executor follows the ACTS SUT behaviour contract (§11): the first
//! text part's prefix picks a behaviour (`tck-multi-turn`,
//! `tck-stream-basic`, ...); any other message completes its task with an
//! echo artifact.
//!
//! ```text
//! a2a-gate-peer-rust --port 7000 --grpc-port 7001 [--host 127.0.0.1]
//! ```

use std::sync::Arc;
use std::time::Duration;

use a2a::{
    AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Artifact, Message, Part,
    PartContent, Role, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent, TRANSPORT_PROTOCOL_GRPC, TRANSPORT_PROTOCOL_HTTP_JSON,
    TRANSPORT_PROTOCOL_JSONRPC,
};
use a2a::A2AError;
use a2a_grpc::GrpcHandler;
use a2a_pb::proto::a2a_service_server::A2aServiceServer;
use a2a_server::agent_card::agent_card_router;
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::rest::rest_router;
use a2a_server::{
    AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryPushConfigStore,
    InMemoryTaskStore, StaticAgentCard,
};
use futures::stream::BoxStream;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

/// The ACTS behaviours, longest first so the most specific prefix wins.
const BEHAVIOURS: &[&str] = &[
    "tck-artifact-file-url",
    "tck-message-response",
    "tck-complete-task",
    "tck-input-required",
    "tck-auth-required",
    "tck-artifact-text",
    "tck-artifact-file",
    "tck-artifact-data",
    "tck-stream-chunked",
    "tck-long-running",
    "tck-task-failure",
    "tck-stream-basic",
    "tck-reject-task",
    "tck-multi-turn",
    "tck-cancel",
];

fn first_text(message: Option<&Message>) -> &str {
    match message.and_then(|m| m.parts.first()).map(|p| &p.content) {
        Some(PartContent::Text(text)) => text.trim_start(),
        _ => "",
    }
}

fn behaviour_of(message: Option<&Message>) -> &'static str {
    let text = first_text(message);
    BEHAVIOURS.iter().copied().find(|b| text.starts_with(b)).unwrap_or("")
}

/// Sends one task's events to the stream the SDK reads.
struct Events {
    tx: mpsc::Sender<Result<StreamResponse, A2AError>>,
    task_id: String,
    context_id: String,
}

impl Events {
    async fn send(&self, event: StreamResponse) {
        let _ = self.tx.send(Ok(event)).await;
    }

    async fn status(&self, state: TaskState, note: Option<&str>) {
        let message = note.map(|text| Message {
            task_id: Some(self.task_id.clone()),
            context_id: Some(self.context_id.clone()),
            ..Message::new(Role::Agent, vec![Part::text(text)])
        });
        self.send(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            status: TaskStatus { state, message, timestamp: Some(chrono::Utc::now()) },
            metadata: None,
        }))
        .await;
    }

    async fn artifact(&self, id: Option<&str>, name: Option<&str>, parts: Vec<Part>, append: bool, last: bool) {
        self.send(StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            artifact: Artifact {
                artifact_id: id.map_or_else(a2a::new_artifact_id, str::to_string),
                name: name.map(str::to_string),
                description: None,
                parts,
                metadata: None,
                extensions: None,
            },
            append: append.then_some(true),
            last_chunk: last.then_some(true),
            metadata: None,
        }))
        .await;
    }
}

struct TckExecutor;

/// The task as this turn starts: the stored one with the new message in its
/// history (the SDK passes a blocking send the snapshot it made, message
/// included; a stream the task as stored before this turn, or none).
fn task_snapshot(ctx: &ExecutorContext) -> Task {
    let mut task = ctx.stored_task.clone().unwrap_or_else(|| Task {
        id: ctx.task_id.clone(),
        context_id: ctx.context_id.clone(),
        status: TaskStatus { state: TaskState::Submitted, message: None, timestamp: Some(chrono::Utc::now()) },
        artifacts: None,
        history: None,
        metadata: None,
    });
    if let Some(message) = &ctx.message {
        let history = task.history.get_or_insert_with(Vec::new);
        if !history.iter().any(|m| m.message_id == message.message_id) {
            history.push(message.clone());
        }
    }
    task
}

async fn run(ctx: ExecutorContext, ev: Events) {
    use TaskState::*;
    let message = ctx.message.as_ref();
    let task = task_snapshot(&ctx);
    // A continuation: the task's history starts with an earlier message.
    let opened_by = match task.history.as_deref() {
        Some([first, ..]) if message.is_some_and(|m| m.message_id != first.message_id) => behaviour_of(Some(first)),
        _ => "",
    };
    let fresh = opened_by.is_empty() && ctx.stored_task.as_ref().is_none_or(|t| t.history.as_ref().is_none_or(|h| h.len() <= 1));
    let behaviour = if opened_by == "tck-multi-turn" { opened_by } else { behaviour_of(message) };
    let file = |content| Part {
        content,
        filename: Some("output.txt".into()),
        media_type: Some("text/plain".into()),
        metadata: None,
    };
    // A task's events start with the task itself (§3.1.2: a stream begins
    // with the Task); the SDK leaves that first event to the executor.
    if !(behaviour == "tck-message-response" && fresh) {
        ev.send(StreamResponse::Task(task.clone())).await;
    }
    match behaviour {
        "tck-message-response" if fresh => {
            let reply = Message {
                context_id: Some(ctx.context_id.clone()),
                ..Message::new(Role::Agent, vec![Part::text("Direct message response")])
            };
            ev.send(StreamResponse::Message(reply)).await;
        }
        "tck-multi-turn" => {
            let done = first_text(message).to_ascii_lowercase().starts_with("done");
            if opened_by == "tck-multi-turn" && done {
                ev.status(Completed, Some("Conversation complete")).await;
            } else {
                ev.status(InputRequired, Some("Please provide more input")).await;
            }
        }
        "tck-input-required" => ev.status(InputRequired, None).await,
        "tck-auth-required" => ev.status(AuthRequired, Some("Authentication required to continue")).await,
        "tck-task-failure" => {
            ev.status(Working, None).await;
            ev.status(Failed, Some("Task failed as requested")).await;
        }
        "tck-reject-task" => ev.status(Rejected, Some("rejected")).await,
        // Working until canceled.
        "tck-cancel" => ev.status(Working, None).await,
        "tck-long-running" => {
            ev.status(Working, None).await;
            tokio::time::sleep(Duration::from_secs(2)).await;
            ev.artifact(None, None, vec![Part::text("Long-running result")], false, false).await;
            ev.status(Completed, None).await;
        }
        "tck-artifact-text" => {
            ev.artifact(None, None, vec![Part::text("Generated text content")], false, false).await;
            ev.status(Completed, None).await;
        }
        "tck-artifact-file" => {
            ev.artifact(None, None, vec![file(PartContent::Raw(b"tck".to_vec()))], false, false).await;
            ev.status(Completed, None).await;
        }
        "tck-artifact-file-url" => {
            let url = PartContent::Url("https://example.com/output.txt".into());
            ev.artifact(None, None, vec![file(url)], false, false).await;
            ev.status(Completed, None).await;
        }
        "tck-artifact-data" => {
            let data = Part::data(serde_json::json!({ "key": "value", "count": 42 }));
            ev.artifact(None, None, vec![data], false, false).await;
            ev.status(Completed, None).await;
        }
        "tck-stream-basic" => {
            ev.status(Working, None).await;
            ev.artifact(None, None, vec![Part::text("Streamed content")], false, false).await;
            ev.status(Completed, None).await;
        }
        "tck-stream-chunked" => {
            ev.status(Working, None).await;
            ev.artifact(Some("chunked"), None, vec![Part::text("chunk-1 ")], false, false).await;
            ev.artifact(Some("chunked"), None, vec![Part::text("chunk-2")], true, true).await;
            ev.status(Completed, None).await;
        }
        "tck-complete-task" => ev.status(Completed, Some("Hello from TCK")).await,
        _ => {
            let echo: Vec<Part> = message
                .map(|m| m.parts.iter().filter(|p| matches!(p.content, PartContent::Text(_))).cloned().collect())
                .unwrap_or_default();
            ev.artifact(None, Some("echo"), echo, false, false).await;
            ev.status(Completed, None).await;
        }
    }
}

fn spawn_events<F, Fut>(ctx: ExecutorContext, body: F) -> BoxStream<'static, Result<StreamResponse, A2AError>>
where
    F: FnOnce(ExecutorContext, Events) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel(16);
    let events = Events { tx, task_id: ctx.task_id.clone(), context_id: ctx.context_id.clone() };
    tokio::spawn(body(ctx, events));
    Box::pin(ReceiverStream::new(rx))
}

impl AgentExecutor for TckExecutor {
    fn execute(&self, ctx: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        spawn_events(ctx, run)
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        spawn_events(ctx, |_, ev| async move { ev.status(TaskState::Canceled, None).await })
    }
}

fn agent_card(host: &str, port: u16, grpc_port: u16) -> AgentCard {
    let origin = format!("http://{host}:{port}");
    AgentCard {
        name: "a2a-rs peer".into(),
        description: "The official Rust SDK serving the ACTS SUT behaviours.".into(),
        version: "1.0.0".into(),
        supported_interfaces: vec![
            AgentInterface::new(format!("{origin}/"), TRANSPORT_PROTOCOL_JSONRPC),
            AgentInterface::new(format!("{origin}/rest"), TRANSPORT_PROTOCOL_HTTP_JSON),
            AgentInterface::new(format!("{host}:{grpc_port}"), TRANSPORT_PROTOCOL_GRPC),
        ],
        capabilities: AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extensions: None,
            extended_agent_card: None,
        },
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![AgentSkill {
            id: "echo".into(),
            name: "echo".into(),
            description: "Completes a task with an artifact echoing its message.".into(),
            tags: vec!["echo".into()],
            examples: None,
            input_modes: None,
            output_modes: None,
            security_requirements: None,
        }],
        provider: None,
        documentation_url: None,
        icon_url: None,
        security_schemes: None,
        security_requirements: None,
        signatures: None,
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned()
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let host = arg(&args, "--host").unwrap_or_else(|| "127.0.0.1".into());
    let port = |name| -> u16 {
        arg(&args, name).and_then(|p| p.parse().ok()).unwrap_or_else(|| {
            eprintln!("usage: a2a-gate-peer-rust --port PORT --grpc-port PORT [--host HOST]");
            std::process::exit(2)
        })
    };
    let (http_port, grpc_port) = (port("--port"), port("--grpc-port"));

    let card = agent_card(&host, http_port, grpc_port);
    let handler = Arc::new(
        DefaultRequestHandler::new(TckExecutor, InMemoryTaskStore::new())
            .with_capabilities(card.capabilities.clone())
            .with_push_config_store(InMemoryPushConfigStore::new()),
    );

    let app = agent_card_router(Arc::new(StaticAgentCard::new(card)))
        .merge(jsonrpc_router(handler.clone()))
        .nest("/rest", rest_router(handler.clone()));
    let listener = tokio::net::TcpListener::bind((host.as_str(), http_port))
        .await
        .expect("bind the HTTP listener");
    let grpc_addr = format!("{host}:{grpc_port}").parse().expect("a socket address");
    let grpc = tonic::transport::Server::builder()
        .add_service(A2aServiceServer::new(GrpcHandler::new(handler)))
        .serve(grpc_addr);

    tokio::select! {
        r = axum::serve(listener, app) => r.expect("HTTP server"),
        r = grpc => r.expect("gRPC server"),
    }
}
