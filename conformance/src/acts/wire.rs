//! The HTTP bindings as ACTS steps use them — JSON-RPC, or HTTP+JSON (REST,
//! A2A §11) when the runner is given its base URL: unary calls, streams read
//! event by event (so a runner can hold several open, or drop one mid-way),
//! raw requests, and the Agent Card. Every reply keeps the HTTP status and
//! headers, for `expect.status` and header inspection.
//!
//! A REST answer is brought into the JSON-RPC envelope's shape (a bare
//! result as `result`, a `google.rpc.Status` body as the `error` of the
//! registry entry its ErrorInfo names, A2A §11.6), so expectations are judged
//! the same way over both bindings; the HTTP status stays the reply's own.
//!
//! Requests carry `A2A-Version` set to the document's `spec_version` (§12.4);
//! raw steps send exactly the headers they list.

use super::document::{Binding, HttpMethod, RawRequest};
use a2a::rpc::rest::render_call;
use a2a::rpc::{declared, ErrorRegistry, ERROR_INFO_TYPE};
use a2a::{Contract, ErrorKind, MethodDescriptor};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::time::Instant;

const A2A_VERSION_HEADER: &str = declared(Contract::A2a.version_header());
/// Where an HTTP agent serves its public Agent Card (A2A §8.2), from its origin.
const WELL_KNOWN_CARD: &str = "/.well-known/agent-card.json";
const SSE: &str = "text/event-stream";

/// An HTTP reply: status, headers (names lower-case) and the body, JSON when
/// it parses as JSON.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Map<String, Value>,
    pub body: Value,
}

/// The HTTP side of one agent.
pub struct Wire {
    client: reqwest::Client,
    /// The JSON-RPC endpoint; its origin serves the Agent Card.
    endpoint: reqwest::Url,
    /// The HTTP+JSON binding's base URL (no trailing `/`), when the steps
    /// travel over it.
    rest: Option<String>,
    token: Option<String>,
    version: String,
    next_id: AtomicU64,
}

fn headers_of(response: &reqwest::Response) -> Map<String, Value> {
    response
        .headers()
        .iter()
        .map(|(name, value)| {
            let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_ascii_lowercase(), Value::String(text))
        })
        .collect()
}

fn body_value(text: String) -> Value {
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

impl Wire {
    /// A client of the JSON-RPC endpoint `url` — or, given `rest`, of the
    /// HTTP+JSON binding at that base URL (`url` still locating the Agent
    /// Card) —, speaking A2A `version`. `timeout` bounds each unary exchange;
    /// streams are bounded by their reader.
    pub fn new(
        url: &str,
        rest: Option<&str>,
        token: Option<String>,
        version: &str,
        timeout: Duration,
    ) -> Result<Wire, String> {
        let endpoint = reqwest::Url::parse(url).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
        let rest = match rest {
            Some(base) => {
                reqwest::Url::parse(base).map_err(|e| format!("`{base}` is not a URL: {e}"))?;
                Some(base.trim_end_matches('/').to_string())
            }
            None => None,
        };
        let client = reqwest::Client::builder()
            .connect_timeout(timeout)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Wire {
            client,
            endpoint,
            rest,
            token,
            version: version.to_string(),
            next_id: AtomicU64::new(1),
        })
    }

    /// The binding operations travel over.
    pub fn binding(&self) -> Binding {
        match self.rest {
            Some(_) => Binding::Rest,
            None => Binding::Jsonrpc,
        }
    }

    fn request_text(&self, method: &str, params: &Value) -> (Value, String) {
        let id = json!(format!("acts-{}", self.next_id.fetch_add(1, Ordering::Relaxed)));
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, body.to_string())
    }

    fn post(&self, body: String, accept: &str) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(self.endpoint.clone())
            .header("Content-Type", "application/json")
            .header("Accept", accept)
            .header(A2A_VERSION_HEADER, &self.version)
            .body(body);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        request
    }

    /// A unary call of `method`; the reply's body is the JSON-RPC response
    /// envelope (over REST, the answer in that shape).
    pub async fn call(
        &self,
        method: &MethodDescriptor,
        params: &Value,
        timeout: Duration,
    ) -> Result<Reply, String> {
        let name = method.name;
        let request = match &self.rest {
            Some(base) => self.rest_request(base, method, params, "application/json")?,
            None => {
                let (_, body) = self.request_text(name, params);
                self.post(body, "application/json")
            }
        };
        let response = request
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| format!("{name}: HTTP request failed: {e}"))?;
        let status = response.status().as_u16();
        let headers = headers_of(&response);
        let text = response
            .text()
            .await
            .map_err(|e| format!("{name}: the body could not be read: {e}"))?;
        let body = body_value(text);
        Ok(Reply {
            status,
            headers,
            body: match self.rest {
                Some(_) => rest_envelope(status, body),
                None => body,
            },
        })
    }

    /// The HTTP+JSON request of a call: its route from the method table with
    /// the params in path, query and body (A2A §11.3, §11.5).
    fn rest_request(
        &self,
        base: &str,
        method: &MethodDescriptor,
        params: &Value,
        accept: &str,
    ) -> Result<reqwest::RequestBuilder, String> {
        let empty = Map::new();
        let fields = match params {
            Value::Object(fields) => fields,
            _ => &empty,
        };
        let rendered = render_call(method, fields).ok_or_else(|| {
            format!(
                "{}: no HTTP+JSON request carries these params (a path field is missing or not a string, or a query field is not of its type)",
                method.name
            )
        })?;
        let mut url = format!("{base}{}", rendered.path);
        if !rendered.query.is_empty() {
            url.push('?');
            url.push_str(&rendered.query);
        }
        let verb = reqwest::Method::from_bytes(rendered.verb.as_bytes())
            .map_err(|e| format!("{}: verb {}: {e}", method.name, rendered.verb))?;
        let mut request = self
            .client
            .request(verb, url)
            .header("Accept", accept)
            .header(A2A_VERSION_HEADER, &self.version);
        if let Some(body) = rendered.body {
            request = request
                .header("Content-Type", "application/json")
                .body(body.to_string());
        }
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        Ok(request)
    }

    /// Opens a streaming call of `method`. An answer that is not an event
    /// stream (an error before any event) comes back whole as the `Err` of
    /// the stream.
    pub async fn open_stream(
        &self,
        method: &MethodDescriptor,
        params: &Value,
        deadline: Instant,
    ) -> Result<Stream, Reply> {
        let name = method.name;
        let broken = |why: String| Reply {
            status: 0,
            headers: Map::new(),
            body: Value::String(why),
        };
        let accept = format!("{SSE}, application/json");
        let request = match &self.rest {
            Some(base) => self.rest_request(base, method, params, &accept).map_err(broken)?,
            None => {
                let (_, body) = self.request_text(name, params);
                self.post(body, &accept)
            }
        };
        let response = match tokio::time::timeout_at(deadline, request.send()).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return Err(broken(format!("{name}: HTTP request failed: {e}"))),
            Err(_) => return Err(broken(format!("{name}: no answer before the stream's deadline"))),
        };
        let status = response.status().as_u16();
        let headers = headers_of(&response);
        let is_sse = headers
            .get("content-type")
            .and_then(Value::as_str)
            .is_some_and(|c| c.starts_with(SSE));
        if !is_sse {
            let text = tokio::time::timeout_at(deadline, response.text())
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            let body = body_value(text);
            return Err(Reply {
                status,
                headers,
                body: match self.rest {
                    Some(_) => rest_envelope(status, body),
                    None => body,
                },
            });
        }
        Ok(Stream {
            status,
            headers,
            response: Some(response),
            buffer: String::new(),
            rest: self.rest.is_some(),
        })
    }

    /// A raw request (§4.4): `path` is resolved against the runner's URL —
    /// over REST, appended to the binding's base URL (`/tasks/x` is a route
    /// of the binding, wherever it is mounted).
    pub async fn raw(&self, raw: &RawRequest, timeout: Duration) -> Result<Reply, String> {
        let url = match &self.rest {
            Some(base) if raw.path.starts_with('/') => reqwest::Url::parse(&format!("{base}{}", raw.path)),
            _ => self.endpoint.join(&raw.path),
        }
        .map_err(|e| format!("raw path `{}`: {e}", raw.path))?;
        let method = match raw.method {
            HttpMethod::Get => reqwest::Method::GET,
            HttpMethod::Post => reqwest::Method::POST,
            HttpMethod::Put => reqwest::Method::PUT,
            HttpMethod::Delete => reqwest::Method::DELETE,
        };
        let mut request = self.client.request(method, url).timeout(timeout);
        for (name, value) in &raw.headers {
            request = request.header(name, value);
        }
        if let Some(text) = &raw.body_raw {
            request = request.body(text.clone());
        } else if let Some(body) = &raw.body {
            request = request.body(body.to_string());
        }
        let response = request.send().await.map_err(|e| {
            format!(
                "raw {} {}: HTTP request failed: {e}",
                method_name(raw.method),
                raw.path
            )
        })?;
        let status = response.status().as_u16();
        let headers = headers_of(&response);
        let is_sse = headers
            .get("content-type")
            .and_then(Value::as_str)
            .is_some_and(|c| c.starts_with(SSE));
        let text = response
            .text()
            .await
            .map_err(|e| format!("raw {}: the body could not be read: {e}", raw.path))?;
        // An event stream's body is the list of its events' data.
        let body = if is_sse {
            Value::Array(sse_data(&text).into_iter().map(body_value).collect())
        } else {
            body_value(text)
        };
        Ok(Reply {
            status,
            headers,
            body,
        })
    }

    /// The public Agent Card (`GET /.well-known/agent-card.json` at the origin).
    pub async fn agent_card(&self, timeout: Duration) -> Result<Reply, String> {
        let url = self
            .endpoint
            .join(WELL_KNOWN_CARD)
            .map_err(|e| format!("no Agent Card URL: {e}"))?;
        let response = self
            .client
            .get(url.clone())
            .header("Accept", "application/json")
            .header(A2A_VERSION_HEADER, &self.version)
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| format!("GET {url} failed: {e}"))?;
        let status = response.status().as_u16();
        let headers = headers_of(&response);
        let text = response
            .text()
            .await
            .map_err(|e| format!("GET {url}: the body could not be read: {e}"))?;
        Ok(Reply {
            status,
            headers,
            body: body_value(text),
        })
    }
}

fn method_name(method: HttpMethod) -> &'static str {
    match method {
        HttpMethod::Get => "GET",
        HttpMethod::Post => "POST",
        HttpMethod::Put => "PUT",
        HttpMethod::Delete => "DELETE",
    }
}

/// The `data` of each complete SSE event in `text`.
fn sse_data(text: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in text.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            if let Some(d) = data.take() {
                events.push(d);
            }
        } else if let Some(rest) = line.strip_prefix("data:") {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(rest);
                }
                None => data = Some(rest.to_string()),
            }
        }
    }
    events
}

/// The JSON-RPC envelope an HTTP+JSON answer stands for: a success's body
/// as its `result` (an empty body, as of a delete, as `{}`), a
/// `google.rpc.Status` body (A2A §11.6) as the `error` of the registry entry
/// its ErrorInfo names, with the body's message and details. A Status body
/// without a recognized ErrorInfo is an error without a code, saying so.
pub fn rest_envelope(status: u16, body: Value) -> Value {
    let envelope = |member: &str, value: Value| json!({"jsonrpc": "2.0", "id": null, member: value});
    if (200..300).contains(&status) {
        let result = match body {
            Value::String(s) if s.trim().is_empty() => json!({}),
            other => other,
        };
        return envelope("result", result);
    }
    match rest_error(&body) {
        Some(error) => envelope("error", error),
        None => json!({ "notAJsonRpcResponse": {"httpStatus": status, "body": body} }),
    }
}

/// The wire error of a `google.rpc.Status` body (`{"error": {code, message,
/// details}}`), or `None` when the body is no Status.
fn rest_error(body: &Value) -> Option<Value> {
    let status = body.get("error")?;
    status.get("code")?;
    let details = status.get("details").cloned().unwrap_or_else(|| json!([]));
    let kind = details
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d.get("@type").and_then(Value::as_str) == Some(ERROR_INFO_TYPE))
        .and_then(|info| {
            ErrorKind::from_reason(info.get("domain")?.as_str()?, info.get("reason")?.as_str()?)
        });
    let message = status.get("message").cloned().unwrap_or(Value::Null);
    Some(match kind {
        Some(kind) => json!({"code": kind.code(), "message": message, "data": details}),
        None => json!({
            "message": message,
            "data": details,
            "restStatus": status,
            "note": "the google.rpc.Status carries no ErrorInfo of a2a-protocol.org naming the error (A2A §11.6)",
        }),
    })
}

/// The HTTP status A2A §5.4 gives an error over HTTP+JSON (from the registry).
pub fn rest_status_of(kind: ErrorKind) -> u16 {
    ErrorRegistry::http_status(kind)
}

/// An HTTP+JSON stream event in the JSON-RPC envelope: a StreamResponse as
/// the `result`, a Status body as the `error`.
fn rest_event(event: Value) -> Value {
    match rest_error(&event) {
        Some(error) => json!({"jsonrpc": "2.0", "id": null, "error": error}),
        None => json!({"jsonrpc": "2.0", "id": null, "result": event}),
    }
}

/// An open event stream, read one event at a time.
pub struct Stream {
    pub status: u16,
    pub headers: Map<String, Value>,
    response: Option<reqwest::Response>,
    buffer: String,
    /// HTTP+JSON events are bare StreamResponses (or a Status ending the
    /// stream, A2A §11.7): each is handed out in the JSON-RPC envelope.
    rest: bool,
}

/// What reading a stream gave.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// One event's data, parsed (the JSON-RPC response envelope).
    Event(Value),
    /// The server ended the stream.
    End,
    /// The deadline passed first.
    Timeout,
    /// The connection or an event broke.
    Broken(String),
}

impl Stream {
    /// The next event, waiting until `deadline` at most.
    pub async fn next(&mut self, deadline: Instant) -> Next {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(data) = sse_data(&block).into_iter().next() {
                    return match serde_json::from_str::<Value>(&data) {
                        Ok(v) if self.rest => Next::Event(rest_event(v)),
                        Ok(v) => Next::Event(v),
                        Err(e) => Next::Broken(format!("an SSE event is not JSON ({e}): {data}")),
                    };
                }
                // A comment (keep-alive) or an event without data.
                continue;
            }
            let Some(response) = self.response.as_mut() else {
                return Next::End;
            };
            match tokio::time::timeout_at(deadline, response.chunk()).await {
                Err(_) => return Next::Timeout,
                Ok(Err(e)) => return Next::Broken(format!("the stream broke: {e}")),
                Ok(Ok(None)) => {
                    self.response = None;
                    // A last event without its blank line still counts.
                    if !self.buffer.trim().is_empty() {
                        self.buffer.push_str("\n\n");
                        continue;
                    }
                    return Next::End;
                }
                Ok(Ok(Some(bytes))) => {
                    self.buffer
                        .push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n"));
                }
            }
        }
    }

    /// Closes the connection (a client disconnect).
    pub fn disconnect(&mut self) {
        self.response = None;
        self.buffer.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rest_answers_take_the_envelopes_shape() {
        let ok = rest_envelope(200, json!({"id": "t"}));
        assert_eq!(ok["result"], json!({"id": "t"}));
        assert_eq!(
            rest_envelope(200, Value::String(String::new()))["result"],
            json!({})
        );
        let status = json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "no task",
            "details": [{"@type": ERROR_INFO_TYPE, "reason": ErrorKind::TaskNotFound.reason(),
                         "domain": ErrorKind::TaskNotFound.domain()}]}});
        let error = &rest_envelope(404, status)["error"];
        assert_eq!(error["code"], ErrorKind::TaskNotFound.code());
        assert_eq!(error["message"], "no task");
        assert_eq!(rest_status_of(ErrorKind::TaskNotFound), 404);
        // Without an ErrorInfo the error cannot be told from others of its
        // HTTP status: it has no code.
        let bare = rest_envelope(400, json!({"error": {"code": 400, "message": "bad"}}));
        assert!(bare["error"].get("code").is_none(), "{bare}");
        // A body that is no Status is no answer of the binding.
        assert!(rest_envelope(500, json!("oops"))
            .get("notAJsonRpcResponse")
            .is_some());
        let event = rest_event(json!({"task": {"id": "t"}}));
        assert_eq!(event["result"]["task"]["id"], "t");
    }

    #[test]
    fn sse_data_joins_lines_and_skips_comments() {
        let text = ": keep-alive\n\nid: 1\ndata: {\"a\":\ndata: 1}\n\ndata: 2\n";
        assert_eq!(sse_data(text), vec!["{\"a\":\n1}".to_string(), "2".to_string()]);
    }
}
