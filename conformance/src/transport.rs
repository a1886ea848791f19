//! Raw JSON-RPC transports for the runner. The suite must send malformed
//! envelopes byte for byte, so it cannot use the typed client stubs: each
//! transport takes the exact text of one message and returns what came back,
//! normalized into an [`Answer`] that is the same shape over HTTP and stdio.
//!
//! - [`HttpTransport`]: `POST` to the JSON-RPC endpoint; `text/event-stream`
//!   answers are read to their end and split into events.
//! - [`StdioTransport`] (module `stdio`): the `urn:cleveragents:bindings:stdio:v1`
//!   binding over any byte pipes (a spawned agent, or in-memory pipes in
//!   tests); it performs the `initialize` handshake and collects
//!   `stream/event` notifications.
//!
//! A session activates the CleverAgents extension or not ([`Activation`]): a
//! pure A2A run sends no `A2A-Extensions` header and asks `initialize` for no
//! extension. The Agent Card comes from the well-known URI over HTTP
//! ([`Connector::agent_card`]) and from `initialize` over stdio
//! ([`Transport::agent_card`]).
//!
//! The suite is a sequence of exchanges, one in flight at a time, except
//! where a case needs two at once (a long-polling call and the message that
//! wakes it, see [`crate::draft`]); every transport carries those too, each
//! answer to its own call. [`Extra`] is what such an exchange asks of the
//! binding beyond its message: the caller's wait limit, a signal when the
//! agent has begun to answer, a stream to resume.

mod stdio;

pub use stdio::{CommandConnector, StdioTransport};

use a2a::rpc::declared;
use a2a::Contract;
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use tokio::sync::oneshot;

/// The A2A protocol version the suite speaks unless a session asks for
/// another ([`Activation::Draft`]): the newest released one, which an agent
/// serves without any draft turned on. With it, the service-parameter headers
/// and extension the suite sends: the schemas' facts.
pub(crate) const PROTOCOL_VERSION: &str = declared(Contract::A2a.released_protocol_version());
pub(crate) const A2A_VERSION_HEADER: &str = declared(Contract::A2a.version_header());
pub(crate) const A2A_EXTENSIONS_HEADER: &str = declared(Contract::A2a.extensions_header());
pub(crate) const EXTENSION_VERSION_HEADER: &str = declared(Contract::Cleveragents.version_header());
pub(crate) const EXTENSION_URI: &str = declared(Contract::Cleveragents.extension_uri());
/// Where an HTTP agent serves its public Agent Card (spec §8.2), from its origin.
const WELL_KNOWN_CARD: &str = "/.well-known/agent-card.json";

/// Which extension a session activates, and which A2A version it speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation<'a> {
    /// None: pure A2A 1.0.
    Base,
    /// The CleverAgents extension, at this minor version (`None`: the agent's newest).
    Extension(Option<&'a str>),
    /// Pure A2A 0.3, as a 0.3 client speaks it: over HTTP no `A2A-Version`
    /// header at all (its absence means 0.3, spec §3.6.2), over stdio an
    /// `initialize` that asks for 0.3.
    V0_3,
    /// Pure A2A at this version, a draft the agent's card offers (`1.1`).
    Draft(&'a str),
}

impl<'a> Activation<'a> {
    /// The extension minor version asked for, if the extension is activated at one.
    pub fn ext_version(self) -> Option<&'a str> {
        match self {
            Activation::Base | Activation::V0_3 | Activation::Draft(_) => None,
            Activation::Extension(v) => v,
        }
    }

    /// True when the session activates the CleverAgents extension.
    pub fn extension(self) -> bool {
        matches!(self, Activation::Extension(_))
    }

    /// The A2A protocol version the session speaks.
    pub fn protocol_version(self) -> &'a str {
        match self {
            Activation::V0_3 => a2a::v0_3::PROTOCOL_VERSION,
            Activation::Draft(version) => version,
            Activation::Base | Activation::Extension(_) => PROTOCOL_VERSION,
        }
    }
}

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What an agent answered to one message.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The `result` of a unary response.
    Result(Value),
    /// The `error` of a response (for a streaming method: an error before any event).
    Error(Value),
    /// The events of a stream (each the `result` of an SSE event, or the `event`
    /// of a stdio `stream/event`), and the error that ended it, if any.
    Stream {
        events: Vec<Value>,
        error: Option<Value>,
    },
    /// Nothing usable came back: connection failure, unparseable bytes, a
    /// response to another id, a protocol violation of the binding.
    Broken(String),
}

impl Answer {
    /// A short description for reports.
    pub fn summary(&self) -> String {
        match self {
            Answer::Result(_) => "a result".into(),
            Answer::Error(e) => format!("error {}", describe_error(e)),
            Answer::Stream { events, error: None } => format!("a stream of {} event(s)", events.len()),
            Answer::Stream {
                events,
                error: Some(e),
            } => {
                format!(
                    "a stream of {} event(s) ended by error {}",
                    events.len(),
                    describe_error(e)
                )
            }
            Answer::Broken(why) => format!("no valid answer: {why}"),
        }
    }
}

/// `code reason@domain "message"` of a wire error object.
pub fn describe_error(error: &Value) -> String {
    match serde_json::from_value::<a2a::rpc::Error>(error.clone()) {
        Ok(e) => match e.domain_reason() {
            Some((domain, reason)) => format!("{} {reason}@{domain} \"{}\"", e.code, e.message),
            None => format!("{} (no ErrorInfo) \"{}\"", e.code, e.message),
        },
        Err(_) => format!("(malformed error object {error})"),
    }
}

/// What one exchange asks of the binding beyond its message.
#[derive(Debug, Default)]
pub struct Extra {
    /// Resume a stream after this event (HTTP SSE `Last-Event-ID`).
    pub last_event_id: Option<String>,
    /// The longest the caller waits for the answer, told to the agent where
    /// the binding can say it ([`Transport::carries_wait_limit`]: HTTP
    /// `Prefer: wait=N`, gRPC `grpc-timeout`).
    pub wait: Option<Duration>,
    /// Fired once the agent has begun to answer (the response head; over
    /// stdio the first line for the request): a stream's call has been taken
    /// and its stream opened.
    pub opened: Option<oneshot::Sender<()>>,
}

/// Carries one JSON-RPC message and returns the answer.
pub trait Transport: Send + Sync {
    /// Sends `message` (the exact text of one JSON-RPC message). `expect_id` is
    /// the id the response must carry (`Value::Null` when the request's id is
    /// unreadable on purpose).
    fn exchange<'a>(&'a self, message: String, expect_id: Value) -> BoxFuture<'a, Answer> {
        self.exchange_with(message, expect_id, Extra::default())
    }
    /// Sends `message` as [`Transport::exchange`] does, with what `extra`
    /// asks (what the binding cannot say is left out). Calls may be in flight
    /// together.
    fn exchange_with<'a>(&'a self, message: String, expect_id: Value, extra: Extra) -> BoxFuture<'a, Answer>;
    /// True when the binding tells the agent the caller's wait limit
    /// ([`Extra::wait`]); false where only the agent's own limit applies (stdio).
    fn carries_wait_limit(&self) -> bool {
        false
    }
    /// `http` or `stdio`, for reports.
    fn kind(&self) -> &'static str;
    /// The Agent Card the session opened with, for bindings whose handshake
    /// returns one (stdio `initialize`).
    fn agent_card(&self) -> Option<Value> {
        None
    }
    /// For bindings that can resume a stream (HTTP SSE `Last-Event-ID`): sends
    /// `message` with `last_event_id` and returns the answer with each event's
    /// SSE `id`. `None` when the binding has no resumption (stdio, §8 of its spec).
    fn exchange_resumable<'a>(
        &'a self,
        _message: String,
        _expect_id: Value,
        _last_event_id: Option<String>,
    ) -> BoxFuture<'a, Option<(Answer, Vec<String>)>> {
        Box::pin(async { None })
    }
}

/// Opens transports to one agent, with or without the extension.
pub trait Connector: Send + Sync {
    /// A transport whose calls activate what `activation` says. Over stdio this
    /// is a new session.
    fn connect<'a>(&'a self, activation: Activation<'a>)
        -> BoxFuture<'a, Result<Box<dyn Transport>, String>>;
    /// `http` or `stdio`, for reports.
    fn kind(&self) -> &'static str;
    /// The agent's public Agent Card, for bindings that serve it apart from any
    /// session (HTTP: the well-known URI); `None` where a session's handshake
    /// gives it ([`Transport::agent_card`]).
    fn agent_card(&self) -> BoxFuture<'_, Option<Result<Value, String>>> {
        Box::pin(async { None })
    }
    /// The Agent Card as the binding serves it to an A2A 0.3 client, for
    /// bindings that serve it apart from any session (HTTP: the well-known URI
    /// without `A2A-Version`); `None` where a 0.3 session's handshake gives it.
    fn agent_card_v0_3(&self) -> BoxFuture<'_, Option<Result<Value, String>>> {
        Box::pin(async { None })
    }
    /// False for a message this binding has no form for (HTTP+JSON has no
    /// JSON-RPC envelope): its case does not apply to the binding and is not run.
    fn expresses(&self, _message: &crate::cases::Message) -> bool {
        true
    }
    /// True when the binding tells the JSON-RPC standard errors apart only by
    /// a status they share (HTTP+JSON: `400` for both invalid request and
    /// invalid params, §11.6; gRPC: `INVALID_ARGUMENT`), so either is the
    /// other's form there.
    fn errors_by_status(&self) -> bool {
        false
    }
    /// True when the runner can speak A2A 0.3 over this binding (JSON-RPC over
    /// HTTP and stdio; the HTTP+JSON binding of 0.3 has routes of its own).
    fn speaks_v0_3(&self) -> bool {
        true
    }
    /// True when every session it opens reaches the same backend state, so a
    /// task one session makes is another's to read (one HTTP endpoint, or
    /// stdio sessions over one dispatcher); false when each session may be an
    /// agent of its own (a spawned process per session).
    fn sessions_share_state(&self) -> bool {
        true
    }
}

// ---------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------

/// JSON-RPC over HTTP `POST`, with SSE for streams.
pub struct HttpTransport {
    client: reqwest::Client,
    url: String,
    parameters: ServiceParameters,
}

/// What every HTTP request of a session carries besides its message: the
/// credentials and the service-parameter headers of its activation.
pub(crate) struct ServiceParameters {
    token: Option<String>,
    /// Whether requests activate the extension (`A2A-Extensions`).
    extension: bool,
    ext_version: Option<String>,
    /// The `A2A-Version` header sent (`None`: none, which means 0.3).
    protocol_version: Option<String>,
}

impl ServiceParameters {
    pub(crate) fn new(token: Option<String>, activation: Activation<'_>) -> Self {
        ServiceParameters {
            token,
            extension: activation.extension(),
            ext_version: activation.ext_version().map(str::to_string),
            protocol_version: (activation != Activation::V0_3)
                .then(|| activation.protocol_version().to_string()),
        }
    }

    /// Adds the headers to `request` (with what `extra` asks: `Last-Event-ID`
    /// when resuming, `Prefer: wait=N`), sends it and reads the answer: its
    /// status, whether it is an SSE stream, and its body; or why there is none.
    pub(crate) async fn exchange(
        &self,
        request: reqwest::RequestBuilder,
        extra: Extra,
    ) -> Result<(u16, bool, String), String> {
        let mut request = request.header("Accept", "application/json, text/event-stream");
        if let Some(wait) = extra.wait {
            // RFC 7240 counts whole seconds: at least one.
            request = request.header("Prefer", format!("wait={}", wait.as_secs().max(1)));
        }
        let response = self
            .apply(request, extra.last_event_id)
            .send()
            .await
            .map_err(|e| format!("HTTP request failed: {e}"))?;
        if let Some(opened) = extra.opened {
            let _ = opened.send(());
        }
        let status = response.status().as_u16();
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let body = response
            .text()
            .await
            .map_err(|e| format!("HTTP body could not be read (status {status}): {e}"))?;
        Ok((status, is_sse, body))
    }

    /// `request` with the service-parameter headers and credentials (and
    /// `Last-Event-ID` when resuming).
    pub(crate) fn apply(
        &self,
        mut request: reqwest::RequestBuilder,
        last_event_id: Option<String>,
    ) -> reqwest::RequestBuilder {
        if let Some(version) = &self.protocol_version {
            request = request.header(A2A_VERSION_HEADER, version);
        }
        if self.extension {
            request = request.header(A2A_EXTENSIONS_HEADER, EXTENSION_URI);
        }
        if let Some(version) = &self.ext_version {
            request = request.header(EXTENSION_VERSION_HEADER, version);
        }
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        request
    }
}

impl HttpTransport {
    /// A transport to `url` (the JSON-RPC endpoint). `timeout` bounds each whole
    /// exchange, stream included, so a stream that never ends cannot hang the run.
    pub fn new(
        url: &str,
        token: Option<String>,
        activation: Activation<'_>,
        timeout: Duration,
    ) -> Result<Self, String> {
        Ok(HttpTransport {
            client: http_client(timeout)?,
            url: url.to_string(),
            parameters: ServiceParameters::new(token, activation),
        })
    }

    async fn send(&self, message: String, expect_id: Value, extra: Extra) -> (Answer, Vec<String>) {
        let request = self
            .client
            .post(&self.url)
            .header("Content-Type", "application/json")
            .body(message);
        let (status, is_sse, body) = match self.parameters.exchange(request, extra).await {
            Ok(read) => read,
            Err(why) => return (Answer::Broken(why), vec![]),
        };
        if is_sse {
            return parse_sse(&body, &expect_id);
        }
        if status == 204 {
            let why = "HTTP 204: the agent treated the message as a notification".to_string();
            return (Answer::Broken(why), vec![]);
        }
        let answer = match serde_json::from_str::<Value>(&body) {
            Ok(v) => single_response(v, &expect_id),
            Err(e) => Answer::Broken(format!("HTTP {status}: body is not JSON ({e}): {}", clip(&body))),
        };
        match expected_status(&answer) {
            Some(want) if want != status => (
                Answer::Broken(format!(
                    "HTTP {status} for {}; the binding answers it with HTTP {want}",
                    answer.summary()
                )),
                vec![],
            ),
            _ => (answer, vec![]),
        }
    }
}

pub(crate) fn http_client(timeout: Duration) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// The HTTP status the binding gives an answer: 200 for results and JSON-RPC
/// errors, 401/403 for the authentication/authorization errors (§4 of the
/// design, server README).
fn expected_status(answer: &Answer) -> Option<u16> {
    match answer {
        Answer::Result(_) => Some(200),
        Answer::Error(e) => {
            let error: a2a::rpc::Error = serde_json::from_value(e.clone()).ok()?;
            match error.domain_reason() {
                Some((_, "AUTH_REQUIRED")) => Some(401),
                Some((_, "AUTH_FORBIDDEN")) => Some(403),
                _ => Some(200),
            }
        }
        _ => None,
    }
}

impl Transport for HttpTransport {
    fn exchange_with<'a>(&'a self, message: String, expect_id: Value, extra: Extra) -> BoxFuture<'a, Answer> {
        Box::pin(async move { self.send(message, expect_id, extra).await.0 })
    }
    fn carries_wait_limit(&self) -> bool {
        true
    }
    fn kind(&self) -> &'static str {
        "http"
    }
    fn exchange_resumable<'a>(
        &'a self,
        message: String,
        expect_id: Value,
        last_event_id: Option<String>,
    ) -> BoxFuture<'a, Option<(Answer, Vec<String>)>> {
        let extra = Extra {
            last_event_id,
            ..Extra::default()
        };
        Box::pin(async move { Some(self.send(message, expect_id, extra).await) })
    }
}

/// Opens [`HttpTransport`]s to one URL.
pub struct HttpConnector {
    pub url: String,
    pub token: Option<String>,
    pub timeout: Duration,
    /// Where the Agent Card is (`None`: the well-known URI at the URL's origin).
    pub card_url: Option<String>,
}

impl HttpConnector {
    /// The URL of the Agent Card.
    fn card_location(&self) -> Result<String, String> {
        if let Some(url) = &self.card_url {
            return Ok(url.clone());
        }
        let base = reqwest::Url::parse(&self.url).map_err(|e| format!("`{}` is not a URL: {e}", self.url))?;
        base.join(WELL_KNOWN_CARD)
            .map(|u| u.to_string())
            .map_err(|e| format!("no Agent Card URL for `{}`: {e}", self.url))
    }

    pub(crate) async fn fetch_card(&self) -> Result<Value, String> {
        // A 1.0 client says so on every request (spec §3.6.1); without it
        // the card also carries its A2A 0.3 fields.
        self.fetch_card_as(Some(PROTOCOL_VERSION)).await
    }

    /// GETs the Agent Card with `A2A-Version: version` (`None`: no header,
    /// as a 0.3 client asks).
    async fn fetch_card_as(&self, version: Option<&str>) -> Result<Value, String> {
        self.fetch_card_at(self.card_location()?, version).await
    }

    /// The card a 0.3 client reads: at the origin of the interface the 1.0
    /// card lists at 0.3 when that is another origin (an agent may give 0.3
    /// clients an address of their own), else here; asked without
    /// `A2A-Version`. With `--card`, that URL.
    async fn fetch_card_v0_3(&self) -> Result<Value, String> {
        if self.card_url.is_none() {
            if let Some(location) = self.v0_3_card_location().await {
                return self.fetch_card_at(location, None).await;
            }
        }
        self.fetch_card_as(None).await
    }

    /// The well-known card URL of the origin of the HTTP interface the card
    /// lists at A2A 0.3, when that origin is not this URL's.
    async fn v0_3_card_location(&self) -> Option<String> {
        let card = self.fetch_card().await.ok()?;
        let ours = reqwest::Url::parse(&self.url).ok()?;
        let version = a2a::v0_3::PROTOCOL_VERSION;
        let at_v0_3 =
            |v: &str| v == version || v.strip_prefix(version).is_some_and(|rest| rest.starts_with('.'));
        let theirs = card
            .get("supportedInterfaces")?
            .as_array()?
            .iter()
            .filter(|i| {
                i.get("protocolVersion")
                    .and_then(Value::as_str)
                    .is_some_and(at_v0_3)
            })
            .filter_map(|i| reqwest::Url::parse(i.get("url")?.as_str()?).ok())
            .find(|u| matches!(u.scheme(), "http" | "https"))?;
        if theirs.origin() == ours.origin() {
            return None;
        }
        theirs.join(WELL_KNOWN_CARD).ok().map(String::from)
    }

    async fn fetch_card_at(&self, url: String, version: Option<&str>) -> Result<Value, String> {
        let mut request = http_client(self.timeout)?
            .get(&url)
            .header("Accept", "application/json");
        if let Some(version) = version {
            request = request.header(A2A_VERSION_HEADER, version);
        }
        let response = request
            .send()
            .await
            .map_err(|e| format!("GET {url} failed: {e}"))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("GET {url} answered HTTP {}", status.as_u16()));
        }
        let body = response
            .text()
            .await
            .map_err(|e| format!("GET {url}: the body could not be read: {e}"))?;
        serde_json::from_str(&body)
            .map_err(|e| format!("GET {url}: the body is not JSON ({e}): {}", clip(&body)))
    }
}

impl Connector for HttpConnector {
    fn connect<'a>(
        &'a self,
        activation: Activation<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn Transport>, String>> {
        Box::pin(async move {
            let t = HttpTransport::new(&self.url, self.token.clone(), activation, self.timeout)?;
            Ok(Box::new(t) as Box<dyn Transport>)
        })
    }
    fn kind(&self) -> &'static str {
        "http"
    }
    fn agent_card(&self) -> BoxFuture<'_, Option<Result<Value, String>>> {
        Box::pin(async move { Some(self.fetch_card().await) })
    }
    fn agent_card_v0_3(&self) -> BoxFuture<'_, Option<Result<Value, String>>> {
        Box::pin(async move { Some(self.fetch_card_v0_3().await) })
    }
}

/// Splits an SSE body into JSON-RPC responses (results are events, an error
/// ends it), with the SSE `id` of each event carrying data.
fn parse_sse(body: &str, expect_id: &Value) -> (Answer, Vec<String>) {
    let (blocks, ids) = sse_blocks(body);
    (sse_answer(&blocks, expect_id), ids)
}

/// The `data` of each SSE event of a body, and each event's `id` (empty when
/// it has none).
pub(crate) fn sse_blocks(body: &str) -> (Vec<String>, Vec<String>) {
    let mut data = String::new();
    let mut id = String::new();
    let mut blocks = Vec::new();
    let mut ids = Vec::new();
    for line in body.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            if !data.is_empty() {
                blocks.push(std::mem::take(&mut data));
                ids.push(std::mem::take(&mut id));
            }
        } else if let Some(rest) = line.strip_prefix("id:") {
            id = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    (blocks, ids)
}

fn sse_answer(blocks: &[String], expect_id: &Value) -> Answer {
    let mut events = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let value: Value = match serde_json::from_str(block) {
            Ok(v) => v,
            Err(e) => {
                return Answer::Broken(format!("SSE event {} is not JSON ({e}): {}", i + 1, clip(block)))
            }
        };
        match single_response(value, expect_id) {
            Answer::Result(r) => events.push(r),
            Answer::Error(e) => {
                if i + 1 != blocks.len() {
                    return Answer::Broken("an SSE error response is followed by more events".into());
                }
                if events.is_empty() {
                    return Answer::Error(e);
                }
                return Answer::Stream {
                    events,
                    error: Some(e),
                };
            }
            other => return other,
        }
    }
    Answer::Stream { events, error: None }
}

/// Interprets one JSON-RPC response object.
pub(crate) fn single_response(value: Value, expect_id: &Value) -> Answer {
    let Some(obj) = value.as_object() else {
        return Answer::Broken(format!(
            "the response is not a JSON object: {}",
            clip(&value.to_string())
        ));
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return Answer::Broken(format!(
            "the response lacks \"jsonrpc\":\"2.0\": {}",
            clip(&value.to_string())
        ));
    }
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    // An envelope error may not know the id (JSON-RPC answers `null` then).
    let id_ok = &id == expect_id || (id.is_null() && obj.contains_key("error"));
    if !id_ok {
        return Answer::Broken(format!("the response carries id {id}, expected {expect_id}"));
    }
    match (obj.get("result"), obj.get("error")) {
        (Some(r), None) => Answer::Result(r.clone()),
        (None, Some(e)) => Answer::Error(e.clone()),
        _ => Answer::Broken(format!(
            "a response needs exactly one of result and error: {}",
            clip(&value.to_string())
        )),
    }
}

pub(crate) fn clip(text: &str) -> String {
    let mut s: String = text.chars().take(300).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}
