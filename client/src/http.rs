//! The HTTP transport over either HTTP binding — JSON-RPC over `POST`, or
//! HTTP+JSON (REST, spec §11) on the routes of the generated table —, streaming
//! answers read as Server-Sent Events, with credentials, version/extension
//! headers, timeouts, retries of idempotent reads and resumption of dropped
//! streams.

mod follow;

use crate::generation::{self, EventSource};
use crate::negotiate;
use crate::policy::{self, Attempt};
use crate::sse::status_body_error;
use crate::tls::{self, TlsFiles};
pub use crate::wire::HttpBinding;
use crate::wire::{self, Credentials, KeyLocation};
use a2a::rpc::rest::render_call;
use a2a::rpc::{BoxFuture, CallError, RawEventStream, Transport};
use a2a::ErrorKind;
use eventsource_stream::Eventsource;
pub(crate) use follow::stream_task_id;
pub use follow::{event_state, is_final_event, state_class, StateClass};
use follow::{Follow, Opened};
use futures_util::stream::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, COOKIE};
use reqwest::StatusCode;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// `protocolBinding` of the card interface that serves HTTP+JSON (spec §11):
/// the schema's name, kept under this crate's name for the code importing it.
pub use a2a::bindings::HTTP_JSON as REST_PROTOCOL_BINDING;

/// `protocolBinding` of the card interface that serves JSON-RPC (spec §9):
/// the schema's name, kept under this crate's name for the code importing it.
pub use a2a::bindings::JSONRPC as JSONRPC_PROTOCOL_BINDING;

/// The URL of the interface of `binding` an Agent Card declares: the one of
/// the released protocol version, else the first of the binding.
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
    /// The A2A protocol version to speak (`A2A-Version`): when `None`, the
    /// released version, or what [`HttpTransport::from_card`] and
    /// [`HttpTransport::negotiated`] choose from the agent's card.
    pub protocol_version: Option<String>,
    /// Where every request and answer is logged as it crosses the wire.
    pub wire_log: Option<wire::WireLog>,
}

/// `protocolBinding` of the card interfaces of an HTTP binding.
fn binding_name(binding: HttpBinding) -> &'static str {
    let binding = match binding {
        HttpBinding::JsonRpc => a2a::Binding::JsonRpc,
        HttpBinding::Rest => a2a::Binding::HttpJson,
    };
    binding.as_str()
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
            protocol_version: None,
            wire_log: None,
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
    /// the endpoint as given; speaking the newest protocol version the card
    /// offers for the binding (see [`negotiate::choose`]) unless
    /// `config.protocol_version` names one.
    pub async fn from_card(mut config: HttpConfig, binding: HttpBinding) -> Result<Self, CallError> {
        config.binding = HttpBinding::JsonRpc;
        let card = HttpTransport::new(config.clone())?.agent_card().await?;
        let name = binding_name(binding);
        let version = config
            .protocol_version
            .clone()
            .unwrap_or_else(|| negotiate::choose(&card, name).to_string());
        let url = negotiate::interface_url(&card, name, &version).or_else(|| declared_interface(&card, name));
        if let Some(url) = url {
            config.endpoint = url.to_string();
        }
        config.protocol_version = Some(version);
        config.binding = binding;
        HttpTransport::new(config)
    }

    /// A transport at `config.endpoint` as given, speaking the newest protocol
    /// version the Agent Card of its server offers for `config.binding` (see
    /// [`negotiate::choose`]) unless `config.protocol_version` names one.
    pub async fn negotiated(mut config: HttpConfig) -> Result<Self, CallError> {
        if config.protocol_version.is_none() {
            let card = HttpTransport::new(config.clone())?.agent_card().await?;
            config.protocol_version =
                Some(negotiate::choose(&card, binding_name(config.binding)).to_string());
        }
        HttpTransport::new(config)
    }

    /// The A2A protocol version this transport speaks (its `A2A-Version`).
    pub fn protocol_version(&self) -> &str {
        protocol_version(&self.inner.config)
    }

    /// Opens a stream as the server sends it.
    async fn open_raw(&self, method: &'static str, params: Value) -> Result<RawEventStream, CallError> {
        let opened = self
            .inner
            .open(method, &params, None)
            .await
            .map_err(|a| a.error)?;
        Ok(Follow::start(self.inner.clone(), method, params, opened))
    }
}

/// The A2A protocol version `config` speaks.
pub(crate) fn protocol_version(config: &HttpConfig) -> &str {
    config
        .protocol_version
        .as_deref()
        .unwrap_or(wire::PROTOCOL_VERSION)
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
        HeaderValue::from_str(protocol_version(config)).map_err(|_| bad("protocol version"))?,
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
        Credentials::ApiKey { header, key }
        | Credentials::ApiKeyAt {
            location: KeyLocation::Header,
            name: header,
            key,
        } => {
            let name = HeaderName::from_bytes(header.as_bytes()).map_err(|_| bad("API key header name"))?;
            let mut value = HeaderValue::from_str(key).map_err(|_| bad("API key"))?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        Credentials::ApiKeyAt {
            location: KeyLocation::Cookie,
            name,
            key,
        } => {
            let cookie = format!("{name}={key}");
            let mut value = HeaderValue::from_str(&cookie).map_err(|_| bad("API key cookie"))?;
            value.set_sensitive(true);
            headers.append(COOKIE, value);
        }
        // Added to each request's URL (see `Inner::request`).
        Credentials::ApiKeyAt {
            location: KeyLocation::Query,
            ..
        } => {}
    }
    Ok(headers)
}

/// A request as it goes on the wire, for a [`wire::WireLog`].
fn describe_request(request: &reqwest::Request) -> String {
    let mut text = format!("> {} {}\n", request.method(), request.url());
    for (name, value) in request.headers() {
        text.push_str(&format!("> {name}: {}\n", value.to_str().unwrap_or("(binary)")));
    }
    if let Some(body) = request.body().and_then(reqwest::Body::as_bytes) {
        text.push_str("> ");
        text.push_str(&String::from_utf8_lossy(body));
    }
    text
}

/// An answer as it came off the wire, for a [`wire::WireLog`].
pub(crate) fn describe_answer(status: StatusCode, headers: &HeaderMap, body: &[u8]) -> String {
    let mut text = format!("< {status}\n");
    for (name, value) in headers {
        text.push_str(&format!("< {name}: {}\n", value.to_str().unwrap_or("(binary)")));
    }
    text.push_str("< ");
    text.push_str(&String::from_utf8_lossy(body));
    text
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
            "Authentication required: the agent refused the request without valid credentials",
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
        if let Some(parameter) = self.config.credentials.query_parameter() {
            request = request.query(&[parameter]);
        }
        if params.get(generation::LONG_POLL_FIELD).is_some() {
            // A long-poll: the server answers within the time the client waits.
            request = request.header("Prefer", format!("wait={}", self.config.timeout.as_secs()));
        }
        if let Some(seq) = last_event_id {
            request = request.header("Last-Event-ID", seq.to_string());
        }
        if let Some(log) = &self.config.wire_log {
            if let Some(built) = request.try_clone().and_then(|r| r.build().ok()) {
                log.log(&describe_request(&built));
            }
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
        let headers = self.config.wire_log.as_ref().map(|_| response.headers().clone());
        let bytes = read_bounded(response, self.config.max_answer_bytes).await?;
        if let (Some(log), Some(headers)) = (&self.config.wire_log, headers) {
            log.log(&describe_answer(status, &headers, &bytes));
        }
        if !status.is_success() {
            return Err(status_error(self.config.binding, status, &bytes));
        }
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| Attempt::from(CallError::Decode(format!("answer is not JSON: {e}"))))?;
        crate::sse::outcome(self.config.binding, value).map_err(Attempt::from)
    }

    /// Opens a stream: SSE events, or the single JSON answer the server gave
    /// instead (an error before any event, typically).
    pub(crate) async fn open(
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
        if let Some(log) = &self.config.wire_log {
            log.log(&describe_answer(status, response.headers(), b"(event stream)"));
        }
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

impl EventSource for HttpTransport {
    fn open_stream<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>> {
        Box::pin(self.open_raw(method, params))
    }
}

impl Transport for HttpTransport {
    fn call<'a>(&'a self, method: &'static str, params: Value) -> BoxFuture<'a, Result<Value, CallError>> {
        Box::pin(async move {
            let config = &self.inner.config;
            let params = &params;
            let retries = policy::retries_of(config.retries, params);
            policy::with_retries(method, retries, config.backoff, || {
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
        self.subscribe_guarded(method, params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_urls_and_headers_are_errors() {
        assert!(HttpTransport::new(HttpConfig::new("not a url")).is_err());
        assert!(HttpTransport::new(HttpConfig::new("ftp://x/")).is_err());
        let mut config = HttpConfig::new("http://127.0.0.1:1/");
        config.credentials = Credentials::Bearer("bad\ntoken".into());
        assert!(HttpTransport::new(config).is_err());
    }
}
