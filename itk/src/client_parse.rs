//! The kit's `tck-client-parse` behaviour: the runner hands the agent a
//! canned wire payload and the operation it answers (`send_message`,
//! `get_task`, `get_agent_card`, `get_extended_agent_card`); the agent parses
//! it with its own client — the same typed client and JSON-RPC envelope
//! handling every caller of ours uses, over a transport that answers with
//! the payload — and reports what it parsed: the typed value as JSON, or
//! `{"error": {"code", "message"}}` when the client raised an error.

use a2a::rpc::{BoxFuture, CallError, Client};
use a2a::types::{
    AgentCard, GetExtendedAgentCardRequest, GetTaskRequest, Message, PartContent, Role, SendMessageRequest,
};
use client::wire::response_outcome;
use serde_json::{json, Value};

/// The behaviour's prefix (the first text part of the message).
pub const PREFIX: &str = "tck-client-parse";

/// A transport that answers every call with one canned JSON-RPC response.
struct Canned(Value);

impl a2a::rpc::Transport for Canned {
    fn call<'a>(&'a self, _method: &'static str, _params: Value) -> BoxFuture<'a, Result<Value, CallError>> {
        let mut response = self.0.clone();
        Box::pin(async move { response_outcome(&mut response) })
    }

    fn subscribe<'a>(
        &'a self,
        method: &'static str,
        _params: Value,
    ) -> BoxFuture<'a, Result<a2a::rpc::RawEventStream, CallError>> {
        Box::pin(async move {
            Err(CallError::Transport(format!(
                "{method}: a canned payload is one answer, not a stream"
            )))
        })
    }
}

/// The request the message carries: its data part's `operation` and
/// `wire_payload`.
pub fn request_of(message: &Message) -> Option<(String, Value)> {
    message.parts.iter().find_map(|part| match &part.content {
        PartContent::Data(data) => Some((
            data.get("operation")?.as_str()?.to_string(),
            data.get("wire_payload")?.clone(),
        )),
        _ => None,
    })
}

/// What our client makes of `payload` as the answer to `operation`.
pub async fn parse(operation: &str, payload: Value) -> Value {
    let outcome = match operation {
        // A card is read as the document itself, not a JSON-RPC answer.
        "get_agent_card" => serde_json::from_value::<AgentCard>(payload.clone())
            .map_err(|e| CallError::Decode(format!("agent card: {e}")))
            .and_then(|card| encode(&card)),
        _ => {
            let client = Client::new(Canned(payload));
            match operation {
                "send_message" => client
                    .send_message(probe_message())
                    .await
                    .and_then(|r| encode(&r)),
                "get_task" => client
                    .get_task(GetTaskRequest {
                        id: "client-parse".into(),
                        history_length: None,
                        current_generation: None,
                        tenant: None,
                    })
                    .await
                    .and_then(|r| encode(&r)),
                "get_extended_agent_card" => client
                    .get_extended_agent_card(GetExtendedAgentCardRequest { tenant: None })
                    .await
                    .and_then(|r| encode(&r)),
                other => Err(CallError::Transport(format!("unknown operation `{other}`"))),
            }
        }
    };
    match outcome {
        Ok(parsed) => parsed,
        Err(CallError::Rpc(error)) => json!({"error": {"code": error.code, "message": error.message}}),
        Err(other) => json!({"error": {"message": other.to_string()}}),
    }
}

fn encode<T: serde::Serialize>(value: &T) -> Result<Value, CallError> {
    serde_json::to_value(value).map_err(|e| CallError::Decode(e.to_string()))
}

/// The request the canned answer stands for (never sent anywhere).
fn probe_message() -> SendMessageRequest {
    SendMessageRequest {
        configuration: None,
        message: Message {
            message_id: "client-parse".into(),
            context_id: None,
            task_id: None,
            role: Role::User,
            parts: vec![app::executor::text_part("client-parse")],
            metadata: None,
            extensions: vec![],
            reference_task_ids: vec![],
        },
        metadata: None,
        tenant: None,
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use serde_json::json;

    #[tokio::test]
    async fn answers_and_errors_are_parsed_by_the_typed_client() {
        let task = json!({"id": "t-1", "contextId": "c-1",
                          "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-05-25T20:00:00Z"},
                          "artifacts": [{"artifactId": "a-1", "parts": [{"text": "hello world"}]}]});
        let sent = parse(
            "send_message",
            json!({"jsonrpc": "2.0", "id": "req-1", "result": {"task": task}}),
        )
        .await;
        assert_eq!(sent, json!({"task": task}));
        let got = parse(
            "get_task",
            json!({"jsonrpc": "2.0", "id": "req-2", "result": task}),
        )
        .await;
        assert_eq!(got, task);
        let error = parse(
            "get_task",
            json!({"jsonrpc": "2.0", "id": "req-3",
                   "error": {"code": -32001, "message": "Task not found", "data": {"taskId": "x"}}}),
        )
        .await;
        assert_eq!(
            error,
            json!({"error": {"code": -32001, "message": "Task not found"}})
        );
        // A task missing its required status is not a task.
        let bad = parse(
            "get_task",
            json!({"jsonrpc": "2.0", "id": "req-4", "result": {"id": "t"}}),
        )
        .await;
        assert!(
            bad["error"]["message"].as_str().unwrap().contains("GetTask"),
            "{bad}"
        );
    }
}
