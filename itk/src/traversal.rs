//! Answering a traversal instruction: a text, a series of them, or a call to
//! another agent — found by its card, over the binding the instruction names
//! (JSON-RPC, HTTP+JSON or gRPC), with our own client — whose answer is the
//! callee's status-message texts. The behaviours of a call are the kit's:
//! a plain send (streamed when asked), a send with a push config whose
//! webhook is the named URL's `/notifications`, and a streaming send broken
//! after its first event and resubscribed until the callee says
//! `task-finished`, then cancelled.

use crate::instruction::{Behavior, CallAgent, Instruction, Step};
use a2a::rpc::{BoxFuture, Client, ClientStream};
use a2a::types::{Message, PartContent, SendMessageRequest, SendMessageResponse, StreamResponse};
use a2a::Binding;
use client::{AnyTransport, GrpcTransport, HttpBinding, HttpConfig, HttpTransport};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;

/// What a held task says once its answer is there.
pub const TASK_FINISHED: &str = "task-finished";

/// Bound on one call to another agent, streams included.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// The texts answering `instruction`, in order.
pub fn answer(instruction: &Instruction) -> BoxFuture<'_, Result<Vec<String>, String>> {
    Box::pin(async move {
        match &instruction.step {
            Some(Step::ReturnResponse(r)) => Ok(vec![r.response.clone()]),
            Some(Step::Steps(series)) => {
                let mut texts = Vec::new();
                for step in &series.instructions {
                    texts.extend(answer(step).await?);
                }
                Ok(texts)
            }
            Some(Step::CallAgent(call)) => tokio::time::timeout(CALL_TIMEOUT, call_agent(call))
                .await
                .map_err(|_| format!("calling {} timed out", call.agent_card_uri))?,
            None => Err("an instruction without a step".into()),
        }
    })
}

/// The kit's own spellings of the HTTP+JSON binding, beside the card's name.
const KIT_HTTP_JSON_NAMES: &[&str] = &["http_json", "rest"];

/// The binding an instruction's transport names, in any case: a card's name
/// for it (`jsonrpc`, `http+json`, `grpc`) or the kit's (`http_json`).
fn binding_of(transport: &str) -> Option<Binding> {
    Binding::from_name(transport).or_else(|| {
        KIT_HTTP_JSON_NAMES
            .iter()
            .any(|kit| kit.eq_ignore_ascii_case(transport))
            .then_some(Binding::HttpJson)
    })
}

/// A client of the agent at `origin` over the instruction's transport
/// (`jsonrpc`, `http_json` or `grpc`, any case), at the URL its card declares
/// for that binding.
async fn connect(origin: &str, transport: &str) -> Result<Client<AnyTransport>, String> {
    let config = HttpConfig::new(format!("{}/", origin.trim_end_matches('/')));
    let transport = match binding_of(transport) {
        Some(Binding::JsonRpc) => AnyTransport::Http(
            HttpTransport::from_card(config, HttpBinding::JsonRpc)
                .await
                .map_err(|e| format!("{origin}: {e}"))?,
        ),
        Some(Binding::HttpJson) => AnyTransport::Http(
            HttpTransport::rest(config)
                .await
                .map_err(|e| format!("{origin}: {e}"))?,
        ),
        Some(Binding::Grpc) => {
            let card_reader = HttpTransport::new(config.clone()).map_err(|e| e.to_string())?;
            AnyTransport::Grpc(
                GrpcTransport::from_card(config)
                    .await
                    .map_err(|e| format!("{origin}: {e}"))?,
                card_reader,
            )
        }
        None => return Err(format!("unknown transport `{transport}`")),
    };
    Ok(Client::new(transport))
}

async fn call_agent(call: &CallAgent) -> Result<Vec<String>, String> {
    let nested = call
        .instruction
        .as_deref()
        .ok_or("a call without the instruction to pass on")?;
    let client = connect(&call.agent_card_uri, &call.transport).await?;
    let message = nested.to_message();
    match &call.behavior {
        Some(Behavior::Resubscribe(_)) => resubscribe(&client, message).await,
        Some(Behavior::PushNotification(push)) => {
            let webhook = format!("{}/notifications", push.url.trim_end_matches('/'));
            let request = request(
                message,
                Some(json!({"taskPushNotificationConfig": {"url": webhook}})),
            )?;
            send(&client, request, call.streaming).await
        }
        Some(Behavior::SendMessage(_)) | None => send(&client, request(message, None)?, call.streaming).await,
    }
}

fn request(message: Message, configuration: Option<Value>) -> Result<SendMessageRequest, String> {
    let mut request = json!({ "message": message });
    if let Some(configuration) = configuration {
        request["configuration"] = configuration;
    }
    serde_json::from_value(request).map_err(|e| e.to_string())
}

async fn send(
    client: &Client<AnyTransport>,
    request: SendMessageRequest,
    streaming: bool,
) -> Result<Vec<String>, String> {
    if !streaming {
        return match client.send_message(request).await.map_err(|e| e.to_string())? {
            SendMessageResponse::Task(task) => {
                Ok(task.status.message.as_ref().map(texts).unwrap_or_default())
            }
            SendMessageResponse::Message(message) => Ok(texts(&message)),
        };
    }
    let mut stream = client
        .send_streaming_message(request)
        .await
        .map_err(|e| e.to_string())?;
    let mut all = Vec::new();
    while let Some(event) = stream.next().await {
        all.extend(event_texts(&event.map_err(|e| e.to_string())?.data));
    }
    Ok(all)
}

/// A streaming send whose stream is dropped after the first event; the task
/// is followed again by a subscription until it says `task-finished`, and
/// then cancelled.
async fn resubscribe(client: &Client<AnyTransport>, message: Message) -> Result<Vec<String>, String> {
    let mut first: ClientStream<StreamResponse> = client
        .send_streaming_message(request(message, None)?)
        .await
        .map_err(|e| e.to_string())?;
    let opening = first
        .next()
        .await
        .ok_or("the stream ended before its first event")?
        .map_err(|e| e.to_string())?;
    drop(first);
    let task_id = task_id_of(&opening.data).ok_or("the first event names no task")?;
    let subscription = serde_json::from_value(json!({ "id": task_id })).map_err(|e| e.to_string())?;
    let mut stream = client
        .subscribe_to_task(subscription)
        .await
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    'events: while let Some(event) = stream.next().await {
        for text in event_texts(&event.map_err(|e| e.to_string())?.data) {
            if text.contains(TASK_FINISHED) {
                answer.push(text.replace(TASK_FINISHED, ""));
                break 'events;
            }
        }
    }
    drop(stream);
    let cancel = serde_json::from_value(json!({ "id": task_id })).map_err(|e| e.to_string())?;
    client.cancel_task(cancel).await.map_err(|e| e.to_string())?;
    Ok(answer)
}

fn task_id_of(event: &StreamResponse) -> Option<String> {
    match event {
        StreamResponse::Task(task) => Some(task.id.clone()),
        StreamResponse::StatusUpdate(update) => Some(update.task_id.clone()),
        StreamResponse::ArtifactUpdate(update) => Some(update.task_id.clone()),
        StreamResponse::Message(message) => message.task_id.clone(),
    }
}

/// The texts of the status messages (or the message) an event carries.
fn event_texts(event: &StreamResponse) -> Vec<String> {
    match event {
        StreamResponse::Task(task) => task.status.message.as_ref().map(texts).unwrap_or_default(),
        StreamResponse::StatusUpdate(update) => update.status.message.as_ref().map(texts).unwrap_or_default(),
        StreamResponse::Message(message) => texts(message),
        StreamResponse::ArtifactUpdate(_) => Vec::new(),
    }
}

fn texts(message: &Message) -> Vec<String> {
    message
        .parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instructions_transport_is_read_in_any_case() {
        for (transport, binding) in [
            ("jsonrpc", Binding::JsonRpc),
            ("JSONRPC", Binding::JsonRpc),
            ("http_json", Binding::HttpJson),
            ("HTTP_JSON", Binding::HttpJson),
            ("http+json", Binding::HttpJson),
            ("rest", Binding::HttpJson),
            ("grpc", Binding::Grpc),
            ("GRPC", Binding::Grpc),
        ] {
            assert_eq!(binding_of(transport), Some(binding), "{transport}");
        }
        assert_eq!(binding_of("soap"), None);
    }
}
