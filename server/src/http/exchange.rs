//! What both HTTP bindings (JSON-RPC and HTTP+JSON) do alike for one request:
//! reading the body within its limits, negotiating the service-parameter
//! headers into the call context, the caller's budget of open streams, the
//! authentication challenge, and turning an answer into the response with the
//! headers every answer carries.

use super::HttpState;
use crate::auth::{AuthFailure, Authenticated};
use crate::body::ResponseBody;
use crate::negotiate::{
    self, Dialect, A2A_EXTENSIONS_HEADER, A2A_VERSION_HEADER, EXTENSION_VERSION_HEADER, PROTOCOL_VERSION,
};
use crate::pump::{EventPump, SlotGuard};
use crate::sse::{Framing, SseBody};
use a2a::metrics::StreamTransport;
use a2a::rpc::{CallContext, Error, EventStream, RawJson, RequestId};
use a2a::ErrorKind;
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Response, StatusCode};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

/// Response headers that echo a negotiation back to the client.
pub(super) type EchoHeaders = Vec<(HeaderName, HeaderValue)>;

/// The service-parameter headers' names, parsed once rather than on every
/// answer (a name outside the standard set is an allocation each time).
/// `None` only if the schema declared a name HTTP cannot carry.
pub(super) static A2A_VERSION_NAME: LazyLock<Option<HeaderName>> =
    LazyLock::new(|| header_name(A2A_VERSION_HEADER));
static A2A_EXTENSIONS_NAME: LazyLock<Option<HeaderName>> =
    LazyLock::new(|| header_name(A2A_EXTENSIONS_HEADER));
static EXTENSION_VERSION_NAME: LazyLock<Option<HeaderName>> =
    LazyLock::new(|| header_name(EXTENSION_VERSION_HEADER));

fn header_name(name: &str) -> Option<HeaderName> {
    HeaderName::from_bytes(name.as_bytes()).ok()
}

/// Request headers every call is looked at for, named once (a lookup by text
/// parses the name each time).
static LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
static PREFER: HeaderName = HeaderName::from_static("prefer");

/// The text of header `name` (one of the names above), if it is there and is text.
fn header_named<'a>(headers: &'a HeaderMap, name: Option<&HeaderName>) -> Option<&'a str> {
    headers.get(name?).and_then(|v| v.to_str().ok())
}

/// Every supported version of every extension with its header value, built
/// once from the declared texts: the echo of a negotiation clones one.
static VERSION_VALUES: LazyLock<Vec<(a2a::Contract, a2a::rpc::Version, HeaderValue)>> = LazyLock::new(|| {
    negotiate::extension_contracts()
        .flat_map(|(contract, _)| {
            contract.versions().iter().filter_map(move |text| {
                Some((
                    contract,
                    a2a::rpc::Version::parse(text)?,
                    HeaderValue::from_str(text).ok()?,
                ))
            })
        })
        .collect()
});

/// The header value naming `version` of `contract`.
fn version_value(contract: a2a::Contract, version: a2a::rpc::Version) -> Option<HeaderValue> {
    VERSION_VALUES
        .iter()
        .find(|(c, v, _)| *c == contract && *v == version)
        .map(|(_, _, value)| value.clone())
}

/// Media types a request body may be declared as: JSON-RPC's, and the one
/// spec §11.1 recommends for HTTP+JSON.
const JSON_MEDIA_TYPES: &[&str] = &["application/json", A2A_JSON];

/// The media type spec §11.1 recommends for HTTP+JSON requests and answers.
pub(super) const A2A_JSON: &str = "application/a2a+json";

/// A binding's answer to a request, before the common headers are added.
pub(super) struct Answer {
    pub status: StatusCode,
    pub body: ResponseBody,
    pub sse: bool,
    pub extra: Vec<(HeaderName, HeaderValue)>,
}

impl Answer {
    pub fn json(status: StatusCode, encoded: impl Into<Bytes>) -> Answer {
        Answer {
            status,
            body: ResponseBody::full(encoded),
            sse: false,
            extra: Vec::new(),
        }
    }

    pub fn no_content() -> Answer {
        Answer {
            status: StatusCode::NO_CONTENT,
            body: ResponseBody::empty(),
            sse: false,
            extra: Vec::new(),
        }
    }

    pub fn sse(body: ResponseBody) -> Answer {
        Answer {
            status: StatusCode::OK,
            body,
            sse: true,
            extra: Vec::new(),
        }
    }
}

/// A request the transport refuses before any method runs: the HTTP status
/// and the error to say why, which each binding shapes its own way.
pub(super) struct Refusal {
    pub status: StatusCode,
    pub error: Error,
}

impl Refusal {
    fn new(status: StatusCode, error: Error) -> Self {
        Refusal { status, error }
    }
}

pub(super) fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// How long the caller waits for an answer, from `Prefer: wait=N` (RFC 7240:
/// seconds; the first valid `wait` preference counts).
fn prefer_wait(headers: &HeaderMap) -> Option<std::time::Duration> {
    headers
        .get_all(&PREFER)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split([',', ';']))
        .filter_map(|preference| preference.trim().split_once('='))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("wait"))
        .and_then(|(_, seconds)| seconds.trim().trim_matches('"').parse::<u64>().ok())
        .map(std::time::Duration::from_secs)
}

/// A value of the query string (`A2A-Version` may travel there).
fn query_param<'a>(query: Option<&'a str>, name: &str) -> Option<&'a str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

/// The response of an answer: its content type, SSE's no-caching headers, the
/// `A2A-Version` served, and the answer's own headers.
pub(super) fn respond(answer: Answer) -> Response<ResponseBody> {
    let mut response = Response::new(answer.body);
    *response.status_mut() = answer.status;
    let headers = response.headers_mut();
    if answer.status != StatusCode::NO_CONTENT {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(if answer.sse {
                "text/event-stream"
            } else {
                "application/json"
            }),
        );
    }
    if answer.sse {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        headers.insert(
            HeaderName::from_static("x-accel-buffering"),
            HeaderValue::from_static("no"),
        );
    }
    if let Some(name) = A2A_VERSION_NAME.clone() {
        headers.insert(name, HeaderValue::from_static(PROTOCOL_VERSION));
    }
    for (name, value) in answer.extra {
        headers.insert(name, value);
    }
    response
}

fn too_large(limit: usize) -> Refusal {
    let error = Error::new(
        ErrorKind::InvalidRequest,
        format!("Request body exceeds the limit of {limit} bytes"),
    )
    .with_metadata("limit", limit.to_string());
    Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, error)
}

impl HttpState {
    /// The request body, if its media type, size and arrival time are within
    /// bounds; otherwise why it is refused.
    pub(super) async fn read_body(&self, headers: &HeaderMap, body: Incoming) -> Result<Bytes, Refusal> {
        if let Some(ct) = header_str(headers, "content-type") {
            let media = ct.split(';').next().unwrap_or("").trim();
            if !JSON_MEDIA_TYPES.iter().any(|m| media.eq_ignore_ascii_case(m)) {
                // Refused before the body is read: the registry's
                // ContentTypeNotSupported, in the binding's error shape, with
                // HTTP's own status for a media type it does not take.
                let error = Error::new(
                    ErrorKind::ContentTypeNotSupported,
                    format!(
                        "Content-Type must be application/json, got `{}`",
                        media.chars().take(64).collect::<String>()
                    ),
                );
                return Err(Refusal::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, error));
            }
        }
        self.collect_body(headers, body, self.config.limits.max_body_bytes)
            .await
    }

    /// The whole request body, if it is at most `limit` bytes and arrives in time.
    pub(super) async fn collect_body(
        &self,
        headers: &HeaderMap,
        body: Incoming,
        limit: usize,
    ) -> Result<Bytes, Refusal> {
        let limits = &self.config.limits;
        // A declared length over the limit is refused before reading anything.
        let declared = header_str(headers, "content-length").and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|len| len > limit as u64) {
            return Err(too_large(limit));
        }
        let collected =
            tokio::time::timeout(limits.body_read_timeout(), Limited::new(body, limit).collect()).await;
        match collected {
            Err(_) => {
                let error = Error::new(ErrorKind::InvalidRequest, "Request body was not received in time");
                Err(Refusal::new(StatusCode::REQUEST_TIMEOUT, error))
            }
            Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => Err(too_large(limit)),
            Ok(Err(_)) => {
                let error = Error::new(ErrorKind::InvalidRequest, "Request body could not be read");
                Err(Refusal::new(StatusCode::BAD_REQUEST, error))
            }
            Ok(Ok(collected)) => Ok(collected.to_bytes()),
        }
    }

    /// The call context negotiated from the service-parameter headers (protocol
    /// version, activated extensions, extension minor version, `Last-Event-ID`),
    /// the dialect the caller speaks, and the headers that echo the negotiation back.
    pub(super) fn call_context(
        &self,
        parts: &http::request::Parts,
        request_id: Option<RequestId>,
        caller: Option<&Authenticated>,
    ) -> Result<(CallContext, Dialect, EchoHeaders), Error> {
        let version = header_named(&parts.headers, A2A_VERSION_NAME.as_ref())
            .or_else(|| query_param(parts.uri.query(), A2A_VERSION_HEADER));
        let dialect = negotiate::protocol_dialect(
            version,
            self.config.http.assume_version_when_absent.as_deref(),
            &self.config.a2a.draft_versions,
        )?;
        let activated = negotiate::activate(
            A2A_EXTENSIONS_NAME
                .iter()
                .flat_map(|name| parts.headers.get_all(name))
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(',')),
        );
        let requested_minor = header_named(&parts.headers, EXTENSION_VERSION_NAME.as_ref());
        let mut extension_versions = std::collections::BTreeMap::new();
        let mut extra = Vec::new();
        for (contract, _) in negotiate::extension_contracts() {
            let v = negotiate::negotiate_minor(contract, requested_minor)?;
            // A contract left out of the context runs at its latest version,
            // which is what the echo names when the client asked for none.
            if requested_minor.is_some() {
                extension_versions.insert(contract.name(), v);
            }
            if let (Some(name), Some(value)) = (EXTENSION_VERSION_NAME.clone(), version_value(contract, v)) {
                extra.push((name, value));
            }
        }
        if !activated.is_empty() {
            if let (Some(name), Ok(value)) = (
                A2A_EXTENSIONS_NAME.clone(),
                HeaderValue::from_str(&activated.join(", ")),
            ) {
                extra.push((name, value));
            }
        }
        // A call in a version other than the one every answer names (a
        // draft turned on) hears its own version back.
        if let (Dialect::V1(version), Some(name)) = (dialect, A2A_VERSION_NAME.clone()) {
            if version != PROTOCOL_VERSION {
                extra.push((name, HeaderValue::from_static(version)));
            }
        }
        let resume_after =
            header_named(&parts.headers, Some(&LAST_EVENT_ID)).and_then(|v| v.trim().parse::<u64>().ok());
        let mut ctx = CallContext {
            request_id,
            principal: caller.map(|c| c.principal.clone()),
            default_namespace: caller.and_then(|c| c.default_namespace.clone()),
            namespace: None,
            extension_versions,
            activated_extensions: activated,
            resume_after,
            wait_limit: prefer_wait(&parts.headers),
        };
        dialect.fit(&mut ctx);
        Ok((ctx, dialect, extra))
    }

    /// The refusal of a call in a dialect other than 1.0, on a binding that
    /// serves 1.0 only (0.3 is served over JSON-RPC).
    pub(super) fn only_v1_0(dialect: Dialect, binding: a2a::Binding) -> Result<(), Error> {
        if let Dialect::V1(_) = dialect {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::VersionNotSupported,
            format!(
                "A2A {} is served over JSON-RPC only; the {binding} binding serves {PROTOCOL_VERSION}: send the header `{A2A_VERSION_HEADER}: {PROTOCOL_VERSION}`",
                dialect.version()
            ),
        )
        .with_metadata("supportedVersions", PROTOCOL_VERSION))
    }

    /// A slot of the caller's stream budget when `method` streams and an answer
    /// is expected; an error when the budget is spent.
    pub(super) fn stream_slot(
        &self,
        dialect: Dialect,
        method: &str,
        answered: bool,
        caller: Option<&Authenticated>,
    ) -> Result<Option<StreamSlot>, Error> {
        let streaming = dialect.streams(method);
        if !streaming || !answered {
            return Ok(None);
        }
        let key = caller.map(|c| c.principal.subject.clone()).unwrap_or_default();
        match self.streams.acquire(&key) {
            Some(slot) => Ok(Some(slot)),
            None => {
                let contract = a2a::rpc::contract_of_name(method);
                Err(Error::new(
                    contract.invalid_request(),
                    format!(
                        "Too many open streams: at most {} per caller; close one first",
                        self.config.limits.max_streams_per_principal
                    ),
                )
                .with_metadata("limit", self.config.limits.max_streams_per_principal.to_string()))
            }
        }
    }

    /// The SSE answer of a streaming call; the body holds the stream slot until
    /// the stream ends.
    pub(super) fn sse_answer(
        &self,
        framing: Framing,
        events: EventStream<RawJson>,
        slot: Option<StreamSlot>,
    ) -> Answer {
        let pump = self.event_pump(events, Some(self.config.http.keep_alive()), slot);
        Answer::sse(ResponseBody::Sse(Box::new(SseBody::new(framing, pump))))
    }

    /// The pump of a stream's events, within the server's idle limit and
    /// shutdown; it holds the stream slot until the stream ends.
    pub(super) fn event_pump(
        &self,
        events: EventStream<RawJson>,
        keep_alive: Option<std::time::Duration>,
        slot: Option<StreamSlot>,
    ) -> EventPump {
        EventPump::new(
            events,
            keep_alive,
            self.config.limits.stream_idle_timeout(),
            self.shutdown.clone().cancelled_owned(),
            // Held by the pump: the stream counts as open until it is dropped.
            Some(Box::new((slot, self.config.metrics.stream_opened(StreamTransport::Http))) as SlotGuard),
        )
    }

    /// The `WWW-Authenticate` challenge of an answer refusing an unauthenticated caller.
    pub(super) fn push_challenge(&self, answer: &mut Answer, failure: Option<&AuthFailure>) {
        let mut challenge = self.auth.challenge().to_string();
        if matches!(failure, Some(AuthFailure::Invalid(_))) && challenge.starts_with("Bearer") {
            challenge = challenge.replacen(
                "Bearer realm=\"cleveragents\"",
                "Bearer realm=\"cleveragents\", error=\"invalid_token\"",
                1,
            );
        }
        if challenge.is_empty() {
            challenge = "Bearer realm=\"cleveragents\"".into();
        }
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            answer.extra.push((header::WWW_AUTHENTICATE, value));
        }
    }
}

/// Open streams per principal.
pub(super) struct StreamSlots {
    max: usize,
    open: Arc<Mutex<HashMap<String, usize>>>,
}

/// An open stream's claim on its principal's budget.
pub(super) struct StreamSlot {
    key: String,
    open: Arc<Mutex<HashMap<String, usize>>>,
}

impl StreamSlots {
    pub(super) fn new(max: usize) -> Self {
        StreamSlots {
            max,
            open: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    fn acquire(&self, key: &str) -> Option<StreamSlot> {
        // A poisoned lock only means another thread panicked mid-update of a
        // counter; the map is still usable.
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let count = open.entry(key.to_string()).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(StreamSlot {
            key: key.to_string(),
            open: self.open.clone(),
        })
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = open.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}
