//! The JSON-RPC endpoint of the HTTP binding: one `POST` is read within the
//! body limits, authenticated, parsed, negotiated from its service-parameter
//! headers into the call context, and answered as JSON or, for a streaming
//! method, as SSE within the caller's budget of open streams.
//!
//! Status codes: JSON-RPC errors are HTTP 200, except authentication (401 with
//! `WWW-Authenticate`) and authorization (403); transport limits answer 413
//! (body), 431 (headers, by hyper), 408 (slow body) and 429 (open streams), each
//! with a JSON-RPC error body.

use super::HttpState;
use crate::auth::{AuthFailure, Authenticated};
use crate::jsonrpc;
use crate::negotiate::{
    self, A2A_EXTENSIONS_HEADER, A2A_VERSION_HEADER, EXTENSION_VERSION_HEADER, PROTOCOL_VERSION,
};
use crate::sse::{ResponseBody, SlotGuard, SseBody};
use a2a::rpc::{CallContext, Error, EventStream, Outcome, RawJson};
use a2a::{find_method, ErrorKind};
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The JSON-RPC answer of a request, before headers are added.
struct Answer {
    status: StatusCode,
    body: ResponseBody,
    sse: bool,
    extra: Vec<(HeaderName, HeaderValue)>,
}

impl Answer {
    fn json(status: StatusCode, encoded: Vec<u8>) -> Answer {
        Answer {
            status,
            body: ResponseBody::full(encoded),
            sse: false,
            extra: Vec::new(),
        }
    }

    fn error(status: StatusCode, id: &Value, error: &Error) -> Answer {
        Answer::json(status, jsonrpc::failure(id, error))
    }
}

/// The HTTP status of a JSON-RPC error: 401/403 for auth, 200 otherwise.
fn status_of(error: &Error) -> StatusCode {
    if error.is(ErrorKind::ExtAuthRequired) {
        StatusCode::UNAUTHORIZED
    } else if error.is(ErrorKind::ExtAuthForbidden) {
        StatusCode::FORBIDDEN
    } else {
        StatusCode::OK
    }
}

fn too_large(limit: usize) -> Answer {
    let error = Error::new(
        ErrorKind::InvalidRequest,
        format!("Request body exceeds the limit of {limit} bytes"),
    )
    .with_metadata("limit", limit.to_string());
    Answer::error(StatusCode::PAYLOAD_TOO_LARGE, &Value::Null, &error)
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// A value of the query string (`A2A-Version` may travel there).
fn query_param<'a>(query: Option<&'a str>, name: &str) -> Option<&'a str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

impl HttpState {
    /// Answers a `POST` to the JSON-RPC path, with the content type and the
    /// `A2A-Version` every answer carries.
    pub(super) async fn rpc(&self, request: Request<Incoming>) -> Response<ResponseBody> {
        let (parts, body) = request.into_parts();
        let answer = self.rpc_answer(&parts, body).await;
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
        if let Ok(name) = HeaderName::from_bytes(A2A_VERSION_HEADER.as_bytes()) {
            headers.insert(name, HeaderValue::from_static(PROTOCOL_VERSION));
        }
        for (name, value) in answer.extra {
            headers.insert(name, value);
        }
        response
    }

    async fn rpc_answer(&self, parts: &http::request::Parts, body: Incoming) -> Answer {
        let limits = &self.config.limits;
        let bytes = match self.read_body(&parts.headers, body).await {
            Ok(bytes) => bytes,
            Err(answer) => return answer,
        };

        // Authenticate before looking at the request: unauthenticated callers
        // learn nothing but that they must authenticate.
        let caller = match self.auth.authenticate(&parts.headers) {
            Ok(caller) => caller,
            Err(failure) => return self.unauthenticated(&failure, &bytes),
        };

        let request = match jsonrpc::parse(&bytes, limits.max_json_depth) {
            Ok(request) => request,
            Err(rejected) => return Answer::error(StatusCode::OK, &rejected.id, &rejected.error),
        };
        let id = request.id.clone().unwrap_or(Value::Null);

        let (ctx, extra) = match self.call_context(parts, &request, caller.as_ref()) {
            Ok(negotiated) => negotiated,
            Err(error) => return Answer::error(StatusCode::OK, &id, &error),
        };

        // Reserve a stream slot before starting a subscription.
        let slot = match self.stream_slot(&request, caller.as_ref()) {
            Ok(slot) => slot,
            Err(error) => {
                let mut answer = Answer::error(StatusCode::TOO_MANY_REQUESTS, &id, &error);
                answer.extra = extra;
                return answer;
            }
        };

        let outcome = self
            .pipeline
            .call(ctx, caller.as_ref(), &request.method, request.params)
            .await;
        let mut answer = match (request.id.is_some(), outcome) {
            // A notification gets no answer, whatever happened.
            (false, _) => Answer {
                status: StatusCode::NO_CONTENT,
                body: ResponseBody::empty(),
                sse: false,
                extra: Vec::new(),
            },
            (true, Outcome::Single(result)) => self.unary_answer(&id, result),
            (true, Outcome::Stream(events)) => self.sse_answer(id, events, slot),
        };
        answer.extra.extend(extra);
        answer
    }

    /// The request body, if its media type, size and arrival time are within
    /// bounds; otherwise the answer that refuses it.
    async fn read_body(&self, headers: &HeaderMap, body: Incoming) -> Result<Bytes, Answer> {
        let limits = &self.config.limits;
        if let Some(ct) = header_str(headers, "content-type") {
            let media = ct.split(';').next().unwrap_or("").trim();
            if !media.eq_ignore_ascii_case("application/json") {
                let error = Error::new(
                    ErrorKind::InvalidRequest,
                    format!(
                        "Content-Type must be application/json, got `{}`",
                        media.chars().take(64).collect::<String>()
                    ),
                );
                return Err(Answer::error(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    &Value::Null,
                    &error,
                ));
            }
        }
        // A declared length over the limit is refused before reading anything.
        let declared = header_str(headers, "content-length").and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|len| len > limits.max_body_bytes as u64) {
            return Err(too_large(limits.max_body_bytes));
        }
        let collected = tokio::time::timeout(
            limits.body_read_timeout(),
            Limited::new(body, limits.max_body_bytes).collect(),
        )
        .await;
        match collected {
            Err(_) => {
                let error = Error::new(ErrorKind::InvalidRequest, "Request body was not received in time");
                Err(Answer::error(StatusCode::REQUEST_TIMEOUT, &Value::Null, &error))
            }
            Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => {
                Err(too_large(limits.max_body_bytes))
            }
            Ok(Err(_)) => {
                let error = Error::new(ErrorKind::InvalidRequest, "Request body could not be read");
                Err(Answer::error(StatusCode::BAD_REQUEST, &Value::Null, &error))
            }
            Ok(Ok(collected)) => Ok(collected.to_bytes()),
        }
    }

    /// The call context negotiated from the service-parameter headers (protocol
    /// version, activated extensions, extension minor version, `Last-Event-ID`),
    /// and the headers that echo the negotiation back.
    fn call_context(
        &self,
        parts: &http::request::Parts,
        request: &jsonrpc::Request,
        caller: Option<&Authenticated>,
    ) -> Result<(CallContext, Vec<(HeaderName, HeaderValue)>), Error> {
        let version = header_str(&parts.headers, A2A_VERSION_HEADER)
            .or_else(|| query_param(parts.uri.query(), A2A_VERSION_HEADER));
        negotiate::check_protocol_version(version, self.config.http.assume_version_when_absent.as_deref())?;
        let activated = negotiate::activate(
            parts
                .headers
                .get_all(A2A_EXTENSIONS_HEADER)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(',')),
        );
        let requested_minor = header_str(&parts.headers, EXTENSION_VERSION_HEADER);
        let mut extension_versions = std::collections::BTreeMap::new();
        let mut extra = Vec::new();
        for (contract, _) in negotiate::extension_contracts() {
            let v = negotiate::negotiate_minor(contract, requested_minor)?;
            // A contract left out of the context runs at its latest version,
            // which is what the echo names when the client asked for none.
            if requested_minor.is_some() {
                extension_versions.insert(contract.name(), v);
            }
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(EXTENSION_VERSION_HEADER.as_bytes()),
                HeaderValue::from_str(&v.to_string()),
            ) {
                extra.push((name, value));
            }
        }
        if !activated.is_empty() {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(A2A_EXTENSIONS_HEADER.as_bytes()),
                HeaderValue::from_str(&activated.join(", ")),
            ) {
                extra.push((name, value));
            }
        }
        let resume_after =
            header_str(&parts.headers, "last-event-id").and_then(|v| v.trim().parse::<u64>().ok());
        let ctx = CallContext {
            request_id: request.request_id.clone(),
            principal: caller.map(|c| c.principal.clone()),
            default_namespace: caller.and_then(|c| c.default_namespace.clone()),
            namespace: None,
            extension_versions,
            activated_extensions: activated,
            resume_after,
        };
        Ok((ctx, extra))
    }

    /// A slot of the caller's stream budget, for a streaming request that is
    /// not a notification; an error when the budget is spent.
    fn stream_slot(
        &self,
        request: &jsonrpc::Request,
        caller: Option<&Authenticated>,
    ) -> Result<Option<StreamSlot>, Error> {
        let streaming = find_method(&request.method).is_some_and(|d| d.streaming && d.is_dispatched());
        if !streaming || request.id.is_none() {
            return Ok(None);
        }
        let key = caller.map(|c| c.principal.subject.clone()).unwrap_or_default();
        match self.streams.acquire(&key) {
            Some(slot) => Ok(Some(slot)),
            None => {
                let contract = a2a::rpc::contract_of_name(&request.method);
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

    /// The JSON answer of a unary call; an authentication error carries its
    /// challenge.
    fn unary_answer(&self, id: &Value, result: Result<RawJson, Error>) -> Answer {
        match result {
            Ok(result) => Answer::json(StatusCode::OK, jsonrpc::success(id, result)),
            Err(error) => {
                let status = status_of(&error);
                let mut answer = Answer::error(status, id, &error);
                if status == StatusCode::UNAUTHORIZED {
                    self.push_challenge(&mut answer, None);
                }
                answer
            }
        }
    }

    /// The SSE answer of a streaming call; the body holds the stream slot until
    /// the stream ends.
    fn sse_answer(&self, id: Value, events: EventStream<RawJson>, slot: Option<StreamSlot>) -> Answer {
        Answer {
            status: StatusCode::OK,
            body: ResponseBody::Sse(Box::new(SseBody::new(
                id,
                events,
                self.config.http.keep_alive(),
                self.config.limits.stream_idle_timeout(),
                self.shutdown.clone().cancelled_owned(),
                slot.map(|s| Box::new(s) as SlotGuard),
            ))),
            sse: true,
            extra: Vec::new(),
        }
    }

    fn push_challenge(&self, answer: &mut Answer, failure: Option<&AuthFailure>) {
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

    fn unauthenticated(&self, failure: &AuthFailure, bytes: &[u8]) -> Answer {
        let id = jsonrpc::peek_id(bytes, self.config.limits.max_json_depth);
        let error = Error::new(ErrorKind::ExtAuthRequired, failure.message());
        let mut answer = Answer::error(StatusCode::UNAUTHORIZED, &id, &error);
        self.push_challenge(&mut answer, Some(failure));
        answer
    }
}

/// Open streams per principal.
pub(super) struct StreamSlots {
    max: usize,
    open: Arc<Mutex<HashMap<String, usize>>>,
}

/// An open stream's claim on its principal's budget.
struct StreamSlot {
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
