//! The gRPC transport of the runner (spec §10): each JSON-RPC message the
//! suite sends is carried as the gRPC call that means the same — the rpc of
//! its method, the params as its protobuf request — and the answer is brought
//! back into the JSON-RPC shape the judges read: the response message as the
//! `result`, a non-OK status as the wire error of the registry entry its
//! ErrorInfo names, the messages of a server stream as its events. The status
//! code must be the registry's for the error.
//!
//! A message with no gRPC equivalent answers [`Answer::Broken`] saying so,
//! and [`expressible`] tells which they are: a broken envelope, a method with
//! no rpc (the extension's, today), and params protobuf cannot carry as they
//! are — a field the message lacks, a value not of its type, and a field left
//! out that protobuf would send at its default (a missing `id` reads as `""`).

use crate::cases::Message;
use crate::rest::request_parts;
use crate::transport::{
    Activation, Answer, BoxFuture, Connector, Extra, HttpConnector, ServiceParameters, Transport,
};
use a2a::ErrorKind;
use grpc::{Code, Rpc, Service};
use prost_reflect::{DeserializeOptions, DynamicMessage};
use serde_json::Value;
use std::time::Duration;

/// What the answer to a message without a gRPC equivalent starts with.
pub const NO_GRPC_EQUIVALENT: &str = "no gRPC equivalent";

/// Largest message the runner reads.
const MAX_MESSAGE: usize = 64 << 20;

/// The rpc a JSON-RPC message calls and its request's protobuf, or why it has none.
pub fn to_grpc(message: &str) -> Result<(&'static Rpc, Vec<u8>), String> {
    grpc_request(message).map_err(|why| format!("{NO_GRPC_EQUIVALENT}: {why}"))
}

fn grpc_request(message: &str) -> Result<(&'static Rpc, Vec<u8>), String> {
    let (method, params) = request_parts(message, "gRPC")?;
    let service = Service::contract().map_err(str::to_string)?;
    let rpc = service
        .rpc_of(&method)
        .ok_or_else(|| format!("`{method}` is no rpc of the gRPC services"))?;
    let params = Value::Object(params);
    // Strict here: a field the message lacks would be dropped on the wire.
    let options = DeserializeOptions::new().deny_unknown_fields(true);
    let decoded = DynamicMessage::deserialize_with_options(rpc.input.clone(), params.clone(), &options)
        .map_err(|e| format!("the params are no {}: {e}", rpc.input.full_name()))?;
    let bytes = prost::Message::encode_to_vec(&decoded);
    let carried = grpc::transcode::to_json(&rpc.input, &bytes).map_err(|e| e.message)?;
    if !same_json(&carried, &params) {
        return Err(format!(
            "protobuf carries the params as {carried}, which is not what the message says"
        ));
    }
    Ok((rpc, bytes))
}

/// Equal as JSON values, numbers by value (`1` and `1.0` are one protobuf double).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// True when the message has a gRPC equivalent ([`to_grpc`]).
pub fn expressible(message: &str) -> bool {
    to_grpc(message).is_ok()
}

/// The runner's transport over gRPC.
pub struct GrpcTransport {
    client: reqwest::Client,
    /// `http://host:port` of the agent's GRPC interface.
    origin: String,
    parameters: ServiceParameters,
}

impl GrpcTransport {
    pub fn new(
        origin: &str,
        token: Option<String>,
        activation: Activation<'_>,
        timeout: Duration,
    ) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .http2_prior_knowledge()
            .build()
            .map_err(|e| format!("cannot build the HTTP/2 client: {e}"))?;
        Ok(GrpcTransport {
            client,
            origin: origin.trim_end_matches('/').to_string(),
            parameters: ServiceParameters::new(token, activation),
        })
    }

    /// Sends `message` (with what `extra` asks: resuming after an event, a
    /// deadline) and returns the answer with each streamed message's event
    /// sequence.
    async fn send(&self, message: String, extra: Extra) -> (Answer, Vec<String>) {
        let (rpc, bytes) = match to_grpc(&message) {
            Ok(call) => call,
            Err(why) => return (Answer::Broken(why), vec![]),
        };
        let mut request = self
            .client
            .post(format!("{}{}", self.origin, rpc.path))
            .header("content-type", grpc::CONTENT_TYPE)
            .header("te", "trailers")
            .body(grpc::frame::encode(&bytes));
        if let Some(wait) = extra.wait {
            // The caller's deadline, in milliseconds (gRPC's `grpc-timeout`).
            request = request.header("grpc-timeout", format!("{}m", wait.as_millis().max(1)));
        }
        // `Last-Event-ID` travels as metadata of the same name.
        let response = match self.parameters.apply(request, extra.last_event_id).send().await {
            Ok(response) => response,
            Err(e) => return (Answer::Broken(format!("gRPC request failed: {e}")), vec![]),
        };
        if let Some(opened) = extra.opened {
            let _ = opened.send(());
        }
        if response.status() != reqwest::StatusCode::OK {
            return (
                Answer::Broken(format!("HTTP {} to a gRPC call", response.status())),
                vec![],
            );
        }
        let head = response.headers().clone();
        let body = http::Response::from(response).into_body();
        match grpc::answer::collect(&head, body, MAX_MESSAGE).await {
            Ok(answer) => {
                let ids = answer
                    .messages
                    .iter()
                    .map(|m| grpc::sequence::read(m).map(|s| s.to_string()).unwrap_or_default())
                    .collect();
                (judge(rpc, answer), ids)
            }
            Err(why) => (Answer::Broken(why), vec![]),
        }
    }
}

/// The JSON-RPC shape of a whole gRPC answer.
fn judge(rpc: &Rpc, answer: grpc::answer::Answer) -> Answer {
    let mut events = Vec::new();
    for message in &answer.messages {
        match grpc::transcode::to_json(&rpc.output, message) {
            Ok(json) => events.push(json),
            Err(e) => {
                return Answer::Broken(format!(
                    "a message is no {}: {}",
                    rpc.output.full_name(),
                    e.message
                ))
            }
        }
    }
    let error = match status_error(answer.status) {
        Ok(error) => error,
        Err(why) => return Answer::Broken(why),
    };
    match (rpc.server_streaming, error) {
        (false, None) if events.len() == 1 => Answer::Result(events.remove(0)),
        (false, None) => Answer::Broken(format!(
            "OK with {} messages; a unary answer has one",
            events.len()
        )),
        (false, Some(error)) if events.is_empty() => Answer::Error(error),
        (false, Some(_)) => Answer::Broken("an error after a unary answer's message".into()),
        (true, Some(error)) if events.is_empty() => Answer::Error(error),
        (true, error) => Answer::Stream { events, error },
    }
}

/// The wire error a non-OK status stands for (`None` for OK), if its code is
/// the one the registry gives its error.
fn status_error(status: grpc::Status) -> Result<Option<Value>, String> {
    if status.code == Code::Ok {
        return Ok(None);
    }
    let code = status.code;
    let error = status.into_error(ErrorKind::InternalError);
    if let Some(kind) = error.kind::<ErrorKind>() {
        let want = kind.grpc_status();
        if want != code.name() {
            return Err(format!(
                "gRPC {} for error {}; the registry gives it {want}",
                code.name(),
                error
            ));
        }
    }
    serde_json::to_value(error).map(Some).map_err(|e| e.to_string())
}

impl Transport for GrpcTransport {
    fn exchange_with<'a>(
        &'a self,
        message: String,
        _expect_id: Value,
        extra: Extra,
    ) -> BoxFuture<'a, Answer> {
        Box::pin(async move { self.send(message, extra).await.0 })
    }
    fn carries_wait_limit(&self) -> bool {
        true
    }
    fn kind(&self) -> &'static str {
        "grpc"
    }
    fn exchange_resumable<'a>(
        &'a self,
        message: String,
        _expect_id: Value,
        last_event_id: Option<String>,
    ) -> BoxFuture<'a, Option<(Answer, Vec<String>)>> {
        let extra = Extra {
            last_event_id,
            ..Extra::default()
        };
        Box::pin(async move { Some(self.send(message, extra).await) })
    }
}

/// Opens [`GrpcTransport`]s to one agent: `card` locates its Agent Card (the
/// JSON-RPC URL's origin), `origin` is its GRPC interface.
pub struct GrpcConnector {
    pub card: HttpConnector,
    pub origin: String,
}

impl Connector for GrpcConnector {
    fn connect<'a>(
        &'a self,
        activation: Activation<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn Transport>, String>> {
        Box::pin(async move {
            let t = GrpcTransport::new(
                &self.origin,
                self.card.token.clone(),
                activation,
                self.card.timeout,
            )?;
            Ok(Box::new(t) as Box<dyn Transport>)
        })
    }
    fn kind(&self) -> &'static str {
        "grpc"
    }
    fn agent_card(&self) -> BoxFuture<'_, Option<Result<Value, String>>> {
        Box::pin(async move { Some(self.card.fetch_card().await) })
    }
    fn speaks_v0_3(&self) -> bool {
        false
    }
    fn errors_by_status(&self) -> bool {
        true
    }
    fn expresses(&self, message: &Message) -> bool {
        expressible(&message.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_becomes_its_rpc_and_what_protobuf_cannot_say_has_none() {
        let (rpc, _) =
            to_grpc(r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","historyLength":2}}"#)
                .expect("expressible");
        assert_eq!(rpc.path, "/lf.a2a.v1.A2AService/GetTask");
        for (message, why) in [
            (
                r#"{"jsonrpc":"1.0","id":1,"method":"GetTask"}"#,
                "a JSON-RPC envelope error",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents/nope","params":{}}"#,
                "is no rpc",
            ),
            // A binding method (stdio's) has none either.
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
                "is no rpc",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":5}}"#,
                "the params are no",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","x":1}}"#,
                "the params are no",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}"#,
                "protobuf carries the params as",
            ),
        ] {
            let error = to_grpc(message).expect_err(message);
            assert!(
                error.starts_with(NO_GRPC_EQUIVALENT) && error.contains(why),
                "{message}: {error}"
            );
        }
    }

    #[test]
    fn a_status_is_the_wire_error_only_with_the_registrys_code() {
        let error = a2a::Error::new(ErrorKind::TaskNotFound, "gone");
        let found = status_error(grpc::Status::from_error(error.clone())).expect("the registry's code");
        assert_eq!(found, Some(serde_json::to_value(&error).unwrap()));
        let mut wrong = grpc::Status::from_error(error);
        wrong.code = Code::Internal;
        let why = status_error(wrong).expect_err("another code");
        assert!(why.starts_with("gRPC INTERNAL for error gone"), "{why}");
        assert_eq!(status_error(grpc::Status::new(Code::Ok, "")), Ok(None));
    }
}
