//! A demo agent: an in-memory handler served over HTTP (default) or stdio
//! (`--stdio`), for trying the transports with `curl` or a pipe. Not the real
//! agent binary (that one composes the application layer).
//!
//! `cargo run -p cleveragents-server --example demo_agent -- [--listen 127.0.0.1:8080] [--api-key KEY] [--stdio]`

use a2a::handlers::*;
use a2a::rpc::{CallContext, Error, Event, EventStream, Reply};
use a2a::types::*;
use a2a::{ErrorKind, Router};
use serde_json::json;
use std::sync::Arc;

struct Demo;

fn task(id: &str, state: &str) -> Result<Task, Error> {
    serde_json::from_value(json!({"id": id, "contextId": "demo-context", "status": {"state": state}}))
        .map_err(|e| Error::new(ErrorKind::InternalError, e.to_string()))
}

impl MessagingHandler for Demo {
    async fn get_task(&self, _ctx: &CallContext, params: GetTaskRequest) -> Result<Reply<Task>, Error> {
        if params.id == "demo-task" {
            task("demo-task", "TASK_STATE_COMPLETED").map(Reply::Value)
        } else {
            Err(Error::from_kind(ErrorKind::TaskNotFound))
        }
    }
    async fn send_message(
        &self,
        _ctx: &CallContext,
        _params: SendMessageRequest,
    ) -> Result<SendMessageResponse, Error> {
        Ok(SendMessageResponse::Task(task(
            "demo-task",
            "TASK_STATE_COMPLETED",
        )?))
    }
    async fn send_streaming_message(
        &self,
        _ctx: &CallContext,
        _params: SendMessageRequest,
    ) -> Result<EventStream<StreamResponse>, Error> {
        let events: Vec<Result<Event<StreamResponse>, Error>> = [
            "TASK_STATE_SUBMITTED",
            "TASK_STATE_WORKING",
            "TASK_STATE_COMPLETED",
        ]
        .iter()
        .enumerate()
        .map(|(i, state)| {
            let event = serde_json::from_value(json!({"statusUpdate": {
                "taskId": "demo-task", "contextId": "demo-context", "status": {"state": state}
            }}))
            .map_err(|e| Error::new(ErrorKind::InternalError, e.to_string()))?;
            Ok(Event::with_seq(i as u64 + 1, event))
        })
        .collect();
        Ok(Box::pin(futures_util::stream::iter(events)))
    }
}
impl PushConfigHandler for Demo {}
impl AgentCardHandler for Demo {}
impl PlanHandler for Demo {}
impl RegistryHandler for Demo {}
impl ContextHandler for Demo {}
impl SyncHandler for Demo {}
impl NamespaceHandler for Demo {}
impl HealthHandler for Demo {}
impl SessionHandler for Demo {}
impl EventsHandler for Demo {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let mut config = server::ServerConfig::default();
    if let Some(listen) = value_of("--listen") {
        config.http.listen = listen.parse()?;
    }
    if let Some(key) = value_of("--api-key") {
        config.auth.api_keys.push(server::CredentialConfig {
            secret: server::Secret::new(key),
            subject: "demo".into(),
        });
        config.auth.principals.push(server::PrincipalConfig {
            subject: "demo".into(),
            namespaces: [("*".to_string(), a2a::rpc::Access::Admin)].into(),
            default_namespace: None,
        });
    }
    let dispatch = Arc::new(Router::new(Arc::new(Demo)));
    if args.iter().any(|a| a == "--stdio") {
        server::serve_stdio(&config, dispatch, tokio::io::stdin(), tokio::io::stdout()).await?;
    } else {
        eprintln!("listening on http://{}{}", config.http.listen, config.http.path);
        server::serve_http(config, dispatch, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    }
    Ok(())
}
