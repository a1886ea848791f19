//! The HTTP transport over either HTTP binding — JSON-RPC over `POST`, or
//! HTTP+JSON (REST, spec §11) on the routes of the generated table —, streaming
//! answers read as Server-Sent Events, with credentials, version/extension
//! headers, timeouts, retries of idempotent reads and resumption of dropped
//! streams.

use crate::policy::{self, Attempt};
use crate::sse::{read_event, status_body_error, SseRead};
use crate::tls::{self, TlsFiles};
pub use crate::wire::HttpBinding;
use crate::wire::{self, Credentials};
use a2a::methods::markers::SubscribeToTask;
use a2a::rpc::rest::render_call;
use a2a::rpc::{BoxFuture, CallError, Event, Method, RawEventStream, Transport};
use a2a::types::TaskState;
use a2a::ErrorKind;
use eventsource_stream::Eventsource;
use futures_util::stream::{self, BoxStream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// `protocolBinding` of the card interface that serves HTTP+JSON (spec §11).
pub const REST_PROTOCOL_BINDING: &str = "HTTP+JSON";

/// `protocolBinding` of the card interface that serves JSON-RPC (spec §9).
pub const JSONRPC_PROTOCOL_BINDING: &str = "JSONRPC";

/// The URL of the interface of `binding` an Agent Card declares: the one of
/// the protocol version this client speaks, else the first of the binding.
pub fn declared_interface<'a>(card: &'a Value, binding: &str) -> Option<&'a str> {
    let of_binding = || {
        card["supportedInterfaces"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(move |i| i["protocolBinding"] == binding)
    };
    of_binding()
        .find(|i| i["protocolVersion"] == wire::PROTOCOL_VERSION)
        .or_else(|| of_binding().next())
        .and_then(|i| i["url"].as_str())
}

/// How to reach and talk to a server.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// Absolute URL of the JSON-RPC endpoint (e.g. `http://127.0.0.1:8080/`),
    /// or, for [`HttpBinding::Rest`], the base URL of the routes
    /// (`http://127.0.0.1:8080/rest`).
    pub endpoint: String,
    /// JSON-RPC, or HTTP+JSON (REST) routes.
    pub binding: HttpBinding,
    /// How the client authenticates.
    pub credentials: Credentials,
    /// Minor version of the CleverAgents extension to ask for; newest when `None`.
    pub extension_version: Option<String>,
    /// Bound on one unary call (connect, send, answer) and on opening a stream.
    pub timeout: Duration,
    /// Bound on establishing the TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// Extra attempts for idempotent reads that failed in transit (see [`policy`]).
    pub retries: u32,
    /// Wait before the first retry or resume; doubled each time.
    pub backoff: Duration,
    /// Consecutive reconnections of a stream without a new event before giving up.
    pub max_resumes: u32,
    /// Largest answer body read (a card, a unary answer); a larger one is a
    /// transport error, so no server can make the client hold without end.
    pub max_answer_bytes: usize,
    /// When set, the Agent Card the transport reads must carry a signature by
    /// one of these keys that verifies (spec §8.4), or the read fails.
    pub trusted_card_keys: Option<crate::TrustedKeys>,
    /// Further headers sent with every request (name, value), e.g. the W3C
    /// `traceparent` of the trace a call belongs to.
    pub headers: Vec<(String, String)>,
    /// The CAs to trust and the certificate to show, over https.
    pub tls: TlsFiles,
}

impl HttpConfig {
    /// Defaults for `endpoint`: 30 s calls, 10 s connect, 2 retries, 3 resumes,
    /// answers up to 64 MiB.
    pub fn new(endpoint: impl Into<String>) -> Self {
        HttpConfig {
            endpoint: endpoint.into(),
            binding: HttpBinding::JsonRpc,
            credentials: Credentials::None,
            extension_version: None,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            retries: 2,
            backoff: Duration::from_millis(200),
            max_resumes: 3,
            max_answer_bytes: 64 << 20,
            trusted_card_keys: None,
            headers: Vec::new(),
            tls: TlsFiles::default(),
        }
    }
}

/// JSON-RPC over HTTP + SSE. Cheap to clone.
#[derive(Clone)]
pub struct HttpTransport {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    endpoint: reqwest::Url,
    config: HttpConfig,
    headers: HeaderMap,
    next_id: AtomicU64,
}

impl HttpTransport {
    /// A transport for `config`. Fails on a malformed endpoint or credential.
    pub fn new(config: HttpConfig) -> Result<Self, CallError> {
        let endpoint = reqwest::Url::parse(&config.endpoint)
            .map_err(|e| CallError::Transport(format!("bad server URL `{}`: {e}", config.endpoint)))?;
        if !matches!(endpoint.scheme(), "http" | "https") {
            return Err(CallError::Transport(format!(
                "bad server URL `{}`: scheme must be http or https",
                config.endpoint
            )));
        }
        let http = tls::configure(
            reqwest::Client::builder().connect_timeout(config.connect_timeout),
            &config.tls,
        )?
        .build()
        .map_err(|e| CallError::Transport(format!("HTTP client: {e}")))?;
        let headers = service_headers(&config)?;
        Ok(HttpTransport {
            inner: Arc::new(Inner {
                http,
                endpoint,
                config,
                headers,
                next_id: AtomicU64::new(1),
            }),
        })
    }

    /// The public Agent Card (`/.well-known/agent-card.json` on the server's origin).
    pub async fn agent_card(&self) -> Result<Value, CallError> {
        let url = self
            .inner
            .endpoint
            .join("/.well-known/agent-card.json")
            .map_err(|e| CallError::Transport(e.to_string()))?;
        let response = self
            .inner
            .http
            .get(url)
            // The card's 1.0 form: without the version it also carries the 0.3 fields.
            .header(wire::A2A_VERSION_HEADER, wire::PROTOCOL_VERSION)
            .header(ACCEPT, "application/json")
            .timeout(self.inner.config.timeout)
            .send()
            .await
            .map_err(|e| CallError::Transport(describe(&e)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(CallError::Transport(format!("agent card: HTTP {status}")));
        }
        let bytes = read_bounded(response, self.inner.config.max_answer_bytes)
            .await
            .map_err(|attempt| attempt.error)?;
        let card: Value =
            serde_json::from_slice(&bytes).map_err(|e| CallError::Decode(format!("agent card: {e}")))?;
        if let Some(trusted) = &self.inner.config.trusted_card_keys {
            trusted
                .verify(&card)
                .map_err(|e| CallError::Decode(format!("agent card: {e}")))?;
        }
        Ok(card)
    }

    /// A REST transport to the server `config.endpoint` names: at the URL of
    /// the `HTTP+JSON` interface its Agent Card declares, else at the endpoint
    /// as given.
    pub async fn rest(config: HttpConfig) -> Result<Self, CallError> {
        Self::from_card(config, HttpBinding::Rest).await
    }

    /// A transport of `binding` to the server `config.endpoint` names: at the
    /// URL of the interface of that binding its Agent Card declares, else at
    /// the endpoint as given.
    pub async fn from_card(mut config: HttpConfig, binding: HttpBinding) -> Result<Self, CallError> {
        config.binding = HttpBinding::JsonRpc;
        let card = HttpTransport::new(config.clone())?.agent_card().await?;
        let name = match binding {
            HttpBinding::JsonRpc => JSONRPC_PROTOCOL_BINDING,
            HttpBinding::Rest => REST_PROTOCOL_BINDING,
        };
        if let Some(url) = declared_interface(&card, name) {
            config.endpoint = url.to_string();
        }
        config.binding = binding;
        HttpTransport::new(config)
    }
}

pub(crate) fn service_headers(config: &HttpConfig) -> Result<HeaderMap, CallError> {
    let bad =
        |what: &str| CallError::Transport(format!("{what} contains characters not allowed in a header"));
    // The names are the schemas' facts; `HeaderName::from_static` would need
    // them lowercase, `from_bytes` normalizes.
    let name = |name: &str| HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad(name));
    let mut headers = HeaderMap::new();
    headers.insert(
        name(wire::A2A_VERSION_HEADER)?,
        HeaderValue::from_static(wire::PROTOCOL_VERSION),
    );
    let extensions = wire::extension_uris().join(", ");
    headers.insert(
        name(wire::A2A_EXTENSIONS_HEADER)?,
        HeaderValue::from_str(&extensions).map_err(|_| bad("extension list"))?,
    );
    if let Some(version) = &config.extension_version {
        headers.insert(
            name(wire::EXTENSION_VERSION_HEADER)?,
            HeaderValue::from_str(version).map_err(|_| bad("extension version"))?,
        );
    }
    for (header, value) in &config.headers {
        let header_name = name(header)?;
        headers.insert(
            header_name,
            HeaderValue::from_str(value).map_err(|_| bad(header))?,
        );
    }
    match &config.credentials {
        Credentials::None => {}
        Credentials::Bearer(token) => {
            let mut value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| bad("token"))?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        Credentials::ApiKey { header, key } => {
            let name = HeaderName::from_bytes(header.as_bytes()).map_err(|_| bad("API key header name"))?;
            let mut value = HeaderValue::from_str(key).map_err(|_| bad("API key"))?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
    }
    Ok(headers)
}

pub(crate) fn describe(error: &reqwest::Error) -> String {
    if let Some(failure) = tls::handshake_failure(error) {
        let origin = error.url().map_or_else(
            || "the server".to_string(),
            |url| url.origin().ascii_serialization(),
        );
        return format!("TLS handshake with {origin} failed: {failure}");
    }
    // reqwest's Display stops at the outermost layer ("error sending request");
    // the cause chain says what actually went wrong.
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The body of `response`, refused once it passes `max` bytes (announced or read).
async fn read_bounded(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, Attempt> {
    let too_large = || Attempt {
        error: CallError::Transport(format!("the answer exceeds the limit of {max} bytes")),
        transient: false,
    };
    if response
        .content_length()
        .is_some_and(|length| length > u64::try_from(max).unwrap_or(u64::MAX))
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| transport_attempt(&e))? {
        if body.len() + chunk.len() > max {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn transport_attempt(error: &reqwest::Error) -> Attempt {
    Attempt {
        error: CallError::Transport(describe(error)),
        // A certificate refused now is refused on every retry.
        transient: (error.is_connect() || error.is_timeout() || error.is_request())
            && tls::handshake_failure(error).is_none(),
    }
}

/// The error an HTTP status stands for: the error its body carries in the
/// binding's shape, else one named after the status.
fn status_error(binding: HttpBinding, status: StatusCode, body: &[u8]) -> Attempt {
    if let Ok(mut value) = serde_json::from_slice::<Value>(body) {
        let carried = match binding {
            HttpBinding::JsonRpc => wire::response_outcome(&mut value).err(),
            HttpBinding::Rest => status_body_error(&value),
        };
        if let Some(error @ CallError::Rpc(_)) = carried {
            return Attempt {
                error,
                transient: false,
            };
        }
    }
    let error = match status {
        StatusCode::UNAUTHORIZED => CallError::Rpc(a2a::Error::new(
            ErrorKind::ExtAuthRequired,
            "Authentication required: pass --token or --api-key",
        )),
        StatusCode::FORBIDDEN => CallError::Rpc(a2a::Error::from_kind(ErrorKind::ExtAuthForbidden)),
        _ => CallError::Transport(format!("HTTP {status}")),
    };
    let transient = matches!(
        status,
        StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT
    );
    Attempt { error, transient }
}

impl Inner {
    /// The request of one call in the transport's binding.
    fn request(
        &self,
        method: &str,
        params: &Value,
        accept: &'static str,
        last_event_id: Option<u64>,
    ) -> Result<reqwest::RequestBuilder, Attempt> {
        let mut request = match self.config.binding {
            HttpBinding::JsonRpc => {
                let id = self.next_id.fetch_add(1, Ordering::Relaxed);
                let body = wire::request(id, method, params.clone());
                self.http
                    .post(self.endpoint.clone())
                    .header(CONTENT_TYPE, "application/json")
                    .body(body.to_string())
            }
            HttpBinding::Rest => self.rest_request(method, params)?,
        };
        request = request.headers(self.headers.clone()).header(ACCEPT, accept);
        if let Some(seq) = last_event_id {
            request = request.header("Last-Event-ID", seq.to_string());
        }
        Ok(request)
    }

    /// The HTTP+JSON request of a call: its method's route with the params
    /// in path, query and body.
    fn rest_request(&self, method: &str, params: &Value) -> Result<reqwest::RequestBuilder, Attempt> {
        let no_route = || Attempt::from(CallError::Transport(format!("`{method}` has no HTTP+JSON route")));
        let descriptor = a2a::find_method(method).ok_or_else(no_route)?;
        let empty = serde_json::Map::new();
        let rendered = render_call(descriptor, params.as_object().unwrap_or(&empty)).ok_or_else(|| {
            Attempt::from(CallError::Transport(format!(
                "`{method}`: the params lack a field its HTTP+JSON route takes from the path"
            )))
        })?;
        let mut url = format!(
            "{}{}",
            self.endpoint.as_str().trim_end_matches('/'),
            rendered.path
        );
        if !rendered.query.is_empty() {
            url.push('?');
            url.push_str(&rendered.query);
        }
        let url = reqwest::Url::parse(&url)
            .map_err(|e| Attempt::from(CallError::Transport(format!("{url}: {e}"))))?;
        let verb = reqwest::Method::from_bytes(rendered.verb.as_bytes()).map_err(|_| no_route())?;
        let request = self.http.request(verb, url);
        Ok(match rendered.body {
            Some(body) => request
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_string()),
            None => request,
        })
    }

    async fn call_once(&self, method: &str, params: &Value) -> Result<Value, Attempt> {
        let response = self
            .request(method, params, "application/json", None)?
            .timeout(self.config.timeout)
            .send()
            .await
            .map_err(|e| transport_attempt(&e))?;
        let status = response.status();
        let bytes = read_bounded(response, self.config.max_answer_bytes).await?;
        if !status.is_success() {
            return Err(status_error(self.config.binding, status, &bytes));
        }
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| Attempt::from(CallError::Decode(format!("answer is not JSON: {e}"))))?;
        crate::sse::outcome(self.config.binding, value).map_err(Attempt::from)
    }

    /// Opens a stream: SSE events, or the single JSON answer the server gave
    /// instead (an error before any event, typically).
    async fn open(
        &self,
        method: &str,
        params: &Value,
        last_event_id: Option<u64>,
    ) -> Result<Opened, Attempt> {
        let send = self
            .request(method, params, "text/event-stream", last_event_id)?
            .send();
        let response = match tokio::time::timeout(self.config.timeout, send).await {
            Err(_) => {
                return Err(Attempt {
                    error: CallError::Transport(format!("no answer within {:?}", self.config.timeout)),
                    transient: true,
                })
            }
            Ok(result) => result.map_err(|e| transport_attempt(&e))?,
        };
        let status = response.status();
        let is_sse = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if status.is_success() && is_sse {
            return Ok(Opened::Events(response.bytes_stream().eventsource().boxed()));
        }
        let bytes = read_bounded(response, self.config.max_answer_bytes).await?;
        if !status.is_success() {
            return Err(status_error(self.config.binding, status, &bytes));
        }
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| Attempt::from(CallError::Decode(format!("answer is not JSON: {e}"))))?;
        Ok(Opened::Single(
            crate::sse::outcome(self.config.binding, value).map_err(Attempt::from)?,
        ))
    }
}

type SseEvents = BoxStream<
    'static,
    Result<eventsource_stream::Event, eventsource_stream::EventStreamError<reqwest::Error>>,
>;

enum Opened {
    Events(SseEvents),
    Single(Value),
}

/// Where a stream stands between polls.
struct Follow {
    inner: Arc<Inner>,
    method: &'static str,
    params: Value,
    events: Option<SseEvents>,
    /// A single JSON answer waiting to be yielded as the only event.
    pending: Option<Value>,
    last_seq: Option<u64>,
    /// Task the stream is about, for resuming a non-repeatable stream with SubscribeToTask.
    task_id: Option<String>,
    resumes_left: u32,
    final_seen: bool,
    done: bool,
}

impl Follow {
    /// The request that resumes this stream, if any may: the same one for an
    /// idempotent stream, else a subscription to the task it was about.
    fn resume_request(&self) -> Option<(&'static str, Value)> {
        if policy::is_idempotent_read_name(self.method) {
            return Some((self.method, self.params.clone()));
        }
        let id = self.task_id.clone()?;
        let mut params = json!({ "id": id });
        if let Some(tenant) = self.params.get(wire::A2A_NAMESPACE_FIELD) {
            params[wire::A2A_NAMESPACE_FIELD] = tenant.clone();
        }
        Some((SubscribeToTask::NAME, params))
    }

    /// The stream ended without its final event or broke: reconnect from the
    /// last sequence seen, within the resume budget. `Err` carries the error to
    /// report when resuming is not possible.
    async fn reconnect(&mut self, cause: CallError) -> Result<(), CallError> {
        let Some((method, params)) = self.resume_request() else {
            return Err(cause);
        };
        if self.resumes_left == 0 {
            return Err(cause);
        }
        let attempt = self.inner.config.max_resumes - self.resumes_left;
        self.resumes_left -= 1;
        tokio::time::sleep(policy::backoff(self.inner.config.backoff, attempt)).await;
        match self.inner.open(method, &params, self.last_seq).await {
            Ok(Opened::Events(events)) => {
                self.events = Some(events);
                Ok(())
            }
            Ok(Opened::Single(value)) => {
                self.pending = Some(value);
                Ok(())
            }
            Err(attempt) if attempt.transient => {
                self.events = None;
                Ok(())
            }
            Err(attempt) => Err(attempt.error),
        }
    }

    async fn next_item(&mut self) -> Option<Result<Event<Value>, CallError>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(value) = self.pending.take() {
                self.done = true;
                return Some(Ok(Event::new(value)));
            }
            let Some(events) = self.events.as_mut() else {
                let cause = CallError::Transport("stream connection lost".into());
                if let Err(error) = self.reconnect(cause).await {
                    self.done = true;
                    return Some(Err(error));
                }
                continue;
            };
            match events.next().await {
                Some(Ok(event)) => {
                    match read_event(self.inner.config.binding, &event.id, &event.data, self.last_seq) {
                        SseRead::Skip => continue,
                        SseRead::End(error) => {
                            self.done = true;
                            return Some(Err(error));
                        }
                        SseRead::Deliver(event) => {
                            if event.seq.is_some() {
                                self.last_seq = event.seq;
                            }
                            if self.task_id.is_none() {
                                self.task_id = stream_task_id(&event.data);
                            }
                            self.final_seen = is_final_event(&event.data);
                            self.resumes_left = self.inner.config.max_resumes;
                            return Some(Ok(event));
                        }
                    }
                }
                Some(Err(error)) => {
                    self.events = None;
                    if let Err(error) = self
                        .reconnect(CallError::Transport(format!("stream broken: {error}")))
                        .await
                    {
                        self.done = true;
                        return Some(Err(error));
                    }
                }
                None => {
                    // A clean end is final unless the events say the task is
                    // still going (the server may close idle streams).
                    let knows_finality =
                        a2a::find_method(self.method).is_some_and(|d| d.result_type == "StreamResponse");
                    if self.final_seen || !knows_finality {
                        self.done = true;
                        return None;
                    }
                    self.events = None;
                    if self
                        .reconnect(CallError::Transport("stream ended early".into()))
                        .await
                        .is_err()
                    {
                        self.done = true;
                        return None;
                    }
                }
            }
        }
    }
}

/// The task id a StreamResponse event is about.
pub(crate) fn stream_task_id(event: &Value) -> Option<String> {
    let id = event
        .pointer("/task/id")
        .or_else(|| event.pointer("/statusUpdate/taskId"))
        .or_else(|| event.pointer("/artifactUpdate/taskId"))?;
    id.as_str().map(str::to_string)
}

/// True when a StreamResponse event is the last of its stream: a direct
/// message, or a task state that is terminal or waits for the client.
pub fn is_final_event(event: &Value) -> bool {
    if event.get("message").is_some() {
        return true;
    }
    let state = event
        .pointer("/statusUpdate/status/state")
        .or_else(|| event.pointer("/task/status/state"))
        .and_then(Value::as_str)
        .and_then(|state| state.parse::<TaskState>().ok());
    matches!(
        state,
        Some(
            TaskState::Completed
                | TaskState::Failed
                | TaskState::Canceled
                | TaskState::Rejected
                | TaskState::InputRequired
                | TaskState::AuthRequired
        )
    )
}

impl Transport for HttpTransport {
    fn call<'a>(&'a self, method: &'static str, params: Value) -> BoxFuture<'a, Result<Value, CallError>> {
        Box::pin(async move {
            let config = &self.inner.config;
            let params = &params;
            policy::with_retries(method, config.retries, config.backoff, || {
                self.inner.call_once(method, params)
            })
            .await
        })
    }

    fn subscribe<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>> {
        Box::pin(async move {
            let opened = self
                .inner
                .open(method, &params, None)
                .await
                .map_err(|a| a.error)?;
            let (events, pending) = match opened {
                Opened::Events(events) => (Some(events), None),
                Opened::Single(value) => (None, Some(value)),
            };
            let state = Follow {
                inner: self.inner.clone(),
                method,
                params,
                events,
                pending,
                last_seq: None,
                task_id: None,
                resumes_left: self.inner.config.max_resumes,
                final_seen: false,
                done: false,
            };
            let stream = stream::unfold(state, |mut state| async move {
                let item = state.next_item().await?;
                Some((item, state))
            });
            Ok(Box::pin(stream) as RawEventStream)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finality() {
        assert!(is_final_event(&json!({"message": {}})));
        assert!(is_final_event(
            &json!({"statusUpdate": {"status": {"state": "TASK_STATE_COMPLETED"}}})
        ));
        assert!(!is_final_event(
            &json!({"statusUpdate": {"status": {"state": "TASK_STATE_WORKING"}}})
        ));
        assert!(!is_final_event(&json!({"artifactUpdate": {}})));
        assert_eq!(
            stream_task_id(&json!({"task": {"id": "t1"}})).as_deref(),
            Some("t1")
        );
    }

    #[test]
    fn bad_urls_and_headers_are_errors() {
        assert!(HttpTransport::new(HttpConfig::new("not a url")).is_err());
        assert!(HttpTransport::new(HttpConfig::new("ftp://x/")).is_err());
        let mut config = HttpConfig::new("http://127.0.0.1:1/");
        config.credentials = Credentials::Bearer("bad\ntoken".into());
        assert!(HttpTransport::new(config).is_err());
    }
}
