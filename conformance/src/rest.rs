//! The HTTP+JSON (REST) transport of the runner (spec §11): each JSON-RPC
//! message the suite sends is carried as the REST request that means the same
//! — its method's route from the generated table, the params in path, query
//! and body — and the answer is brought back into the JSON-RPC shape the
//! judges read: a bare result as the `result`, a `google.rpc.Status` body as
//! the wire error of the registry entry its ErrorInfo names, SSE events as the
//! stream. The HTTP status must be the registry's for the error.
//!
//! A message with no REST equivalent (a broken envelope, params whose path
//! fields are missing or not strings, a query field of another type) is no
//! REST request: it answers
//! [`Answer::Broken`] saying so, and [`expressible`] tells which they are.

use crate::cases::Message;
use crate::rules;
use crate::transport::{
    clip, http_client, sse_blocks, Activation, Answer, BoxFuture, Connector, Extra, HttpConnector,
    ServiceParameters, Transport,
};
use a2a::rpc::rest::{error_from_status_body, render_call, RenderedRequest};
use a2a::{Contract, ErrorKind};
use serde_json::{Map, Value};
use std::time::Duration;

/// What the answer to a message without a REST equivalent starts with.
pub const NO_REST_EQUIVALENT: &str = "no HTTP+JSON equivalent";

/// The REST request a JSON-RPC message stands for, or why it has none.
pub fn to_rest(message: &str) -> Result<RenderedRequest, String> {
    rest_request(message).map_err(|why| format!("{NO_REST_EQUIVALENT}: {why}"))
}

/// The method and params of a JSON-RPC request that another binding can
/// carry: a well-formed envelope with an id, a method name and object params
/// (or none). `binding` names the binding in the reasons a message is not.
pub(crate) fn request_parts(message: &str, binding: &str) -> Result<(String, Map<String, Value>), String> {
    let value: Value =
        serde_json::from_str(message).map_err(|e| format!("not JSON, so no {binding} request: {e}"))?;
    let object = value
        .as_object()
        .ok_or(format!("not a request object, so no {binding} request"))?;
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(format!("a JSON-RPC envelope error has no {binding} equivalent"));
    }
    let allowed = ["jsonrpc", "id", "method", "params"];
    if let Some(extra) = object.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("envelope member `{extra}` has no {binding} equivalent"));
    }
    match object.get("id") {
        Some(Value::String(_) | Value::Null) => {}
        Some(Value::Number(n)) if n.is_i64() => {}
        // A notification, or an id JSON-RPC refuses: the binding answers every request.
        _ => {
            return Err(format!(
                "a notification or a malformed id has no {binding} equivalent"
            ))
        }
    }
    let method = object
        .get("method")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .ok_or(format!("a request without a method name has no {binding} call"))?;
    let params = match object.get("params") {
        None => Map::new(),
        Some(Value::Object(params)) => params.clone(),
        Some(_) => return Err(format!("params that are not an object have no {binding} form")),
    };
    Ok((method.to_string(), params))
}

fn rest_request(message: &str) -> Result<RenderedRequest, String> {
    let (method, params) = request_parts(message, "HTTP+JSON")?;
    let method = method.as_str();
    match a2a::find_method(method) {
        Some(descriptor) if !descriptor.http.is_empty() => {
            let rendered = render_call(descriptor, &params).ok_or_else(|| {
                format!(
                    "`{method}`: a path field is missing or not a string, or a query field not of its type"
                )
            })?;
            // The routes of the same path with another verb are the same call
            // (the specification's table and the proto disagree on one verb):
            // a message is that call only if none of them would drop a field.
            let template = descriptor
                .http
                .iter()
                .find(|route| route.verb == rendered.verb && route.match_path(&rendered.path).is_some())
                .map(|route| route.path);
            let unfaithful = descriptor
                .http
                .iter()
                .filter(|route| Some(route.path) == template)
                .find(|route| route.render(&params).is_none() || !route.carries(&params));
            match unfaithful {
                Some(route) => Err(format!(
                    "`{method}`: {} {} has no faithful place for every field given",
                    route.verb, route.path
                )),
                None => Ok(rendered),
            }
        }
        // An unknown method goes where the extension rule would route it: its
        // wire name as the path, the params as the body.
        _ => Ok(RenderedRequest {
            verb: "POST",
            path: format!("/{method}"),
            query: String::new(),
            body: Some(Value::Object(params)),
        }),
    }
}

/// True when the message has an HTTP+JSON equivalent ([`to_rest`]).
pub fn expressible(message: &str) -> bool {
    to_rest(message).is_ok()
}

/// The runner's transport over HTTP+JSON.
pub struct RestTransport {
    client: reqwest::Client,
    /// The base URL the routes hang off (`http://host:port/rest`), no trailing `/`.
    base: String,
    parameters: ServiceParameters,
}

impl RestTransport {
    pub fn new(
        base: &str,
        token: Option<String>,
        activation: Activation<'_>,
        timeout: Duration,
    ) -> Result<Self, String> {
        Ok(RestTransport {
            client: http_client(timeout)?,
            base: base.trim_end_matches('/').to_string(),
            parameters: ServiceParameters::new(token, activation),
        })
    }

    async fn send(&self, message: String, extra: Extra) -> (Answer, Vec<String>) {
        let rendered = match to_rest(&message) {
            Ok(rendered) => rendered,
            Err(why) => return (Answer::Broken(why), vec![]),
        };
        let mut url = format!("{}{}", self.base, rendered.path);
        if !rendered.query.is_empty() {
            url.push('?');
            url.push_str(&rendered.query);
        }
        let verb = match reqwest::Method::from_bytes(rendered.verb.as_bytes()) {
            Ok(verb) => verb,
            Err(e) => return (Answer::Broken(format!("verb {}: {e}", rendered.verb)), vec![]),
        };
        let mut request = self.client.request(verb, &url);
        if let Some(body) = rendered.body {
            request = request
                .header("Content-Type", "application/json")
                .body(body.to_string());
        }
        let (status, is_sse, body) = match self.parameters.exchange(request, extra).await {
            Ok(read) => read,
            Err(why) => return (Answer::Broken(why), vec![]),
        };
        if is_sse {
            let (blocks, ids) = sse_blocks(&body);
            return (stream_answer(&blocks), ids);
        }
        (answer(status, &body), vec![])
    }
}

/// The answer an HTTP status and body (not an SSE stream) stand for: a 2xx
/// body is the result (an empty one `null`, a confirmation with nothing to
/// say); anything else is an error ([`error_answer`]).
fn answer(status: u16, body: &str) -> Answer {
    let parsed = serde_json::from_str::<Value>(body);
    if (200..300).contains(&status) {
        return match parsed {
            Ok(value) => Answer::Result(value),
            Err(_) if body.trim().is_empty() => Answer::Result(Value::Null),
            Err(e) => Answer::Broken(format!("HTTP {status}: body is not JSON ({e}): {}", clip(body))),
        };
    }
    error_answer(status, parsed.ok().as_ref(), body)
}

/// The JSON-RPC standard error the binding answers with HTTP `status`: §11.6
/// names A2A errors by their ErrorInfo, the others by status alone. Of the
/// standard errors sharing `400`, invalid params: over HTTP+JSON a request's
/// params are all there is of it.
fn standard_error_of_status(status: u16) -> Option<ErrorKind> {
    rules::jsonrpc_errors(Contract::A2a)
        .into_iter()
        .rev()
        .find(|kind| kind.http_status() == status)
}

/// The wire error a `google.rpc.Status` body stands for, when it is one: the
/// error its ErrorInfo names, else the standard error of its `code`.
fn status_error(value: &Value) -> Option<Value> {
    let code = value.get("error")?.get("code")?;
    let fallback = code
        .as_u64()
        .and_then(|c| u16::try_from(c).ok())
        .and_then(standard_error_of_status)
        .unwrap_or(ErrorKind::InternalError);
    serde_json::to_value(error_from_status_body(value, fallback)).ok()
}

/// An error answer: the Status body as the wire error, if the HTTP status is
/// the one the registry gives its error. Without a Status body, the standard
/// error of the status (no ErrorInfo, so short of its rule) when there is one.
fn error_answer(status: u16, value: Option<&Value>, body: &str) -> Answer {
    let Some(error) = value.and_then(status_error) else {
        let bare = format!("HTTP {status} without a google.rpc.Status body: {}", clip(body));
        // Without ErrorInfo, as the agent sent none: the judge holds that to its rule.
        let error = standard_error_of_status(status).map(|kind| a2a::Error {
            data: None,
            ..a2a::Error::new(kind, bare.clone())
        });
        return match error {
            Some(error) => serde_json::to_value(error).map_or(Answer::Broken(bare), Answer::Error),
            None => Answer::Broken(bare),
        };
    };
    let want = serde_json::from_value::<a2a::rpc::Error>(error.clone())
        .ok()
        .and_then(|e| e.kind::<ErrorKind>())
        .map(ErrorKind::http_status);
    match want {
        Some(want) if want != status => Answer::Broken(format!(
            "HTTP {status} for error {}; the registry gives it HTTP {want}",
            crate::transport::describe_error(&error)
        )),
        _ => Answer::Error(error),
    }
}

/// The SSE events of a REST stream: bare events, a Status body the error that ends it.
fn stream_answer(blocks: &[String]) -> Answer {
    let mut events = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let value: Value = match serde_json::from_str(block) {
            Ok(v) => v,
            Err(e) => {
                return Answer::Broken(format!("SSE event {} is not JSON ({e}): {}", i + 1, clip(block)))
            }
        };
        match status_error(&value) {
            None => events.push(value),
            Some(_) if i + 1 != blocks.len() => {
                return Answer::Broken("an SSE error is followed by more events".into())
            }
            Some(error) if events.is_empty() => return Answer::Error(error),
            Some(error) => {
                return Answer::Stream {
                    events,
                    error: Some(error),
                }
            }
        }
    }
    Answer::Stream { events, error: None }
}

impl Transport for RestTransport {
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
        "rest"
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

/// Opens [`RestTransport`]s to one agent: `card` locates its Agent Card
/// (the JSON-RPC URL's origin), `base` is the REST binding's base URL.
pub struct RestConnector {
    pub card: HttpConnector,
    pub base: String,
}

impl Connector for RestConnector {
    fn connect<'a>(
        &'a self,
        activation: Activation<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn Transport>, String>> {
        Box::pin(async move {
            let t = RestTransport::new(&self.base, self.card.token.clone(), activation, self.card.timeout)?;
            Ok(Box::new(t) as Box<dyn Transport>)
        })
    }
    fn kind(&self) -> &'static str {
        "rest"
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
    fn a_request_becomes_its_route_and_a_broken_envelope_has_none() {
        let get =
            to_rest(r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","historyLength":2}}"#)
                .expect("expressible");
        assert_eq!(
            (get.verb, get.path.as_str(), get.query.as_str()),
            ("GET", "/tasks/t", "historyLength=2")
        );
        let unknown = to_rest(r#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents/nope","params":{}}"#)
            .expect("expressible");
        assert_eq!(
            (unknown.verb, unknown.path.as_str()),
            ("POST", "/_cleveragents/nope")
        );
        assert!(!expressible(r#"{"jsonrpc":"1.0","id":1,"method":"GetTask"}"#));
        assert!(!expressible(
            r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":5}}"#
        ));
        assert!(!expressible(
            r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}"#
        ));
        assert!(!expressible("[1]"));
        // A GET has no place for a field outside its path and query.
        assert!(!expressible(
            r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","metadata":{}}}"#
        ));
        // SubscribeToTask is POST in the specification's table and GET in the
        // proto: a field only the POST body could carry is neither's call.
        assert!(expressible(
            r#"{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"t"}}"#
        ));
        assert!(!expressible(
            r#"{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"t","tenant":true}}"#
        ));
        // A POST carries what its path does not in its body.
        assert!(expressible(
            r#"{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":"t","tenant":true}}"#
        ));
    }

    #[test]
    fn a_status_body_is_the_wire_error_only_with_the_registrys_http_status() {
        let body = serde_json::json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "gone", "details": [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]}});
        match error_answer(404, Some(&body), "") {
            Answer::Error(e) => assert_eq!(
                (e["code"].clone(), e["message"].clone()),
                (serde_json::json!(-32001), serde_json::json!("gone"))
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(error_answer(400, Some(&body), ""), Answer::Broken(_)));
    }

    #[test]
    fn an_error_status_without_a_status_body_is_the_standard_error_of_that_status() {
        let Answer::Error(e) = answer(404, "Not Found") else {
            panic!("a bare 404 is an error")
        };
        assert_eq!(
            (e["code"].clone(), e["message"].clone(), e.get("data")),
            (
                serde_json::json!(-32601),
                serde_json::json!("HTTP 404 without a google.rpc.Status body: Not Found"),
                None
            )
        );
        let Answer::Error(e) = answer(400, r#"{"error":{"code":400,"message":"bad"}}"#) else {
            panic!("a Status body is an error")
        };
        assert_eq!(e["code"], serde_json::json!(-32602));
        assert!(matches!(answer(302, ""), Answer::Broken(_)));
        assert_eq!(answer(200, ""), Answer::Result(Value::Null));
        assert!(matches!(answer(200, "<html>"), Answer::Broken(_)));
    }
}
