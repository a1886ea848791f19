//! The HTTP binding: JSON-RPC 2.0 over `POST <path>`, SSE for streaming methods,
//! the Agent Card at `/.well-known/agent-card.json` (and the legacy
//! `/.well-known/agent.json`), service-parameter headers, authentication, CORS,
//! limits and graceful shutdown, on hyper 1.x.
//!
//! Status codes: JSON-RPC errors are HTTP 200, except authentication (401 with
//! `WWW-Authenticate`) and authorization (403); transport limits answer 413
//! (body), 431 (headers, by hyper), 408 (slow body) and 429 (open streams), each
//! with a JSON-RPC error body.

use crate::auth::{AuthFailure, Authenticator};
use crate::card::{self, Binding};
use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::jsonrpc;
use crate::negotiate::{
    self, A2A_EXTENSIONS_HEADER, A2A_VERSION_HEADER, EXTENSION_VERSION_HEADER, PROTOCOL_VERSION,
};
use crate::pipeline::Pipeline;
use crate::sse::{ResponseBody, SlotGuard, SseBody};
use a2a::rpc::{CallContext, Dispatch, Error, Outcome};
use a2a::{find_method, ErrorKind};
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use serde_json::Value;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// A bound, not yet serving, HTTP server (bind first to learn the port).
pub struct HttpServer {
    listener: TcpListener,
    state: Arc<HttpState>,
}

struct HttpState {
    config: ServerConfig,
    pipeline: Pipeline,
    auth: Authenticator,
    card_json: Bytes,
    /// Validators of the card (spec §8.6.1): a strong ETag of its exact bytes and
    /// the time it was built.
    card_etag: HeaderValue,
    card_last_modified: HeaderValue,
    streams: StreamSlots,
    shutdown: CancellationToken,
}

impl HttpServer {
    /// Validates the configuration, builds the card and the authenticator, and
    /// binds the listener.
    pub async fn bind(config: ServerConfig, dispatch: Arc<dyn Dispatch>) -> Result<HttpServer, ServerError> {
        if !config.http.path.starts_with('/') {
            return Err(ServerError::Config(format!(
                "http.path must start with `/`, got `{}`",
                config.http.path
            )));
        }
        let auth = Authenticator::from_config(&config.auth)?;
        if !auth.is_enabled() {
            tracing::warn!(
                "no authentication scheme configured: serving anonymous callers without authorization"
            );
        }
        let listener = TcpListener::bind(config.http.listen)
            .await
            .map_err(|source| ServerError::Bind {
                addr: config.http.listen,
                source,
            })?;
        // Advertise the port actually bound (port 0 in tests).
        let mut config = config;
        if config.agent.public_url.is_none() {
            let addr = listener.local_addr()?;
            config.agent.public_url = Some(format!("http://{addr}{}", config.http.path));
        }
        let card_json = Bytes::from(
            serde_json::to_vec(&card::agent_card(&config, Binding::Http))
                .map_err(|e| ServerError::Config(format!("agent card: {e}")))?,
        );
        let card_etag = HeaderValue::try_from(format!("\"{:016x}\"", fnv1a64(&card_json)))
            .map_err(|e| ServerError::Config(format!("agent card etag: {e}")))?;
        let card_last_modified = HeaderValue::try_from(httpdate::fmt_http_date(std::time::SystemTime::now()))
            .map_err(|e| ServerError::Config(format!("agent card date: {e}")))?;
        let state = HttpState {
            pipeline: Pipeline::new(&config, dispatch, Binding::Http),
            auth,
            card_json,
            card_etag,
            card_last_modified,
            streams: StreamSlots::new(config.limits.max_streams_per_principal),
            shutdown: CancellationToken::new(),
            config,
        };
        Ok(HttpServer {
            listener,
            state: Arc::new(state),
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> Result<SocketAddr, ServerError> {
        Ok(self.listener.local_addr()?)
    }

    /// Serves until `shutdown` completes, then stops accepting, ends open
    /// streams, and waits (up to `http.shutdown_grace_secs`) for in-flight
    /// requests to finish.
    pub async fn serve(self, shutdown: impl Future<Output = ()> + Send) -> Result<(), ServerError> {
        let HttpServer { listener, state } = self;
        let graceful = GracefulShutdown::new();
        let limits = &state.config.limits;
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout())
            .max_buf_size(limits.max_header_bytes.max(8192))
            .keep_alive(true);
        tokio::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(pair) => pair,
                    Err(error) => {
                        // Per-connection accept errors (e.g. EMFILE) must not stop the server.
                        tracing::warn!(%error, "accept failed");
                        tokio::task::yield_now().await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            let _ = stream.set_nodelay(true);
            let state = state.clone();
            let service = service_fn(move |request| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(state.handle(request, peer).await) }
            });
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            let watched = graceful.watch(connection);
            tokio::spawn(async move {
                if let Err(error) = watched.await {
                    tracing::debug!(%error, %peer, "connection ended with an error");
                }
            });
        }
        drop(listener);
        state.shutdown.cancel();
        let grace = state.config.http.shutdown_grace();
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(grace) => tracing::warn!("shutdown grace period elapsed with connections still open"),
        }
        Ok(())
    }
}

/// Binds and serves until `shutdown` completes.
pub async fn serve_http(
    config: ServerConfig,
    dispatch: Arc<dyn Dispatch>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServerError> {
    HttpServer::bind(config, dispatch).await?.serve(shutdown).await
}

/// The JSON-RPC answer of a request, before headers are added.
struct Answer {
    status: StatusCode,
    body: ResponseBody,
    sse: bool,
    extra: Vec<(HeaderName, HeaderValue)>,
}

impl Answer {
    fn json(status: StatusCode, value: &Value) -> Answer {
        Answer {
            status,
            body: ResponseBody::full(jsonrpc::to_bytes(value)),
            sse: false,
            extra: Vec::new(),
        }
    }

    fn error(status: StatusCode, id: &Value, error: &Error) -> Answer {
        Answer::json(status, &jsonrpc::failure(id, error))
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

/// FNV-1a, 64 bit: a stable digest of the card for its ETag (no security role).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl HttpState {
    /// The public Agent Card with caching headers; `If-None-Match` with the
    /// current ETag answers 304 without a body.
    fn card(&self, request: &Request<Incoming>) -> Response<ResponseBody> {
        let fresh = request
            .headers()
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|tag| {
                let tag = tag.trim();
                tag == "*" || tag.trim_start_matches("W/") == self.card_etag.to_str().unwrap_or_default()
            });
        let mut response = if fresh {
            let mut response = Response::new(ResponseBody::full(Bytes::new()));
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        } else {
            let mut response = Response::new(ResponseBody::full(self.card_json.clone()));
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        };
        let headers = response.headers_mut();
        let max_age = format!("public, max-age={}", self.config.http.card_max_age_secs);
        if let Ok(value) = HeaderValue::try_from(max_age) {
            headers.insert(header::CACHE_CONTROL, value);
        }
        headers.insert(header::ETAG, self.card_etag.clone());
        headers.insert(header::LAST_MODIFIED, self.card_last_modified.clone());
        response
    }

    async fn handle(&self, request: Request<Incoming>, _peer: SocketAddr) -> Response<ResponseBody> {
        let origin = request.headers().get(header::ORIGIN).cloned();
        let path = request.uri().path();
        let mut response = match (request.method(), path) {
            (&Method::OPTIONS, _) => self.preflight(origin.as_ref()),
            (&Method::GET | &Method::HEAD, "/.well-known/agent-card.json" | "/.well-known/agent.json") => {
                self.card(&request)
            }
            (&Method::POST, p) if p == self.config.http.path => self.rpc(request).await,
            (_, p) if p == self.config.http.path => {
                let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "use POST for JSON-RPC requests\n");
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("POST, OPTIONS"));
                response
            }
            _ => plain(StatusCode::NOT_FOUND, "not found\n"),
        };
        self.cors(origin.as_ref(), response.headers_mut());
        response
    }

    fn allowed_origin(&self, origin: Option<&HeaderValue>) -> Option<HeaderValue> {
        let cors = &self.config.cors;
        let origin = origin?;
        let text = origin.to_str().ok()?;
        if cors.allowed_origins.iter().any(|o| o == text) {
            Some(origin.clone())
        } else if cors.allowed_origins.iter().any(|o| o == "*") {
            // With credentials, `*` is not allowed by browsers: echo the origin.
            Some(if cors.allow_credentials {
                origin.clone()
            } else {
                HeaderValue::from_static("*")
            })
        } else {
            None
        }
    }

    fn cors(&self, origin: Option<&HeaderValue>, headers: &mut HeaderMap) {
        let Some(allowed) = self.allowed_origin(origin) else {
            return;
        };
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allowed);
        headers.insert(header::VARY, HeaderValue::from_static("Origin"));
        let exposed = format!(
            "{A2A_VERSION_HEADER}, {A2A_EXTENSIONS_HEADER}, {EXTENSION_VERSION_HEADER}, WWW-Authenticate"
        );
        if let Ok(exposed) = HeaderValue::from_str(&exposed) {
            headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, exposed);
        }
        if self.config.cors.allow_credentials {
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
                HeaderValue::from_static("true"),
            );
        }
    }

    fn preflight(&self, origin: Option<&HeaderValue>) -> Response<ResponseBody> {
        let mut response = Response::new(ResponseBody::empty());
        *response.status_mut() = StatusCode::NO_CONTENT;
        if self.allowed_origin(origin).is_some() {
            let headers = response.headers_mut();
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("GET, POST, OPTIONS"),
            );
            let allow_headers = format!(
                "Content-Type, Authorization, Last-Event-ID, {A2A_VERSION_HEADER}, {A2A_EXTENSIONS_HEADER}, {EXTENSION_VERSION_HEADER}, {}",
                self.config.auth.api_key_header
            );
            if let Ok(value) = HeaderValue::from_str(&allow_headers) {
                headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, value);
            }
            if let Ok(value) = HeaderValue::from_str(&self.config.cors.max_age_secs.to_string()) {
                headers.insert(header::ACCESS_CONTROL_MAX_AGE, value);
            }
        }
        response
    }

    async fn rpc(&self, request: Request<Incoming>) -> Response<ResponseBody> {
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
        if let Some(ct) = header_str(&parts.headers, "content-type") {
            let media = ct.split(';').next().unwrap_or("").trim();
            if !media.eq_ignore_ascii_case("application/json") {
                let error = Error::new(
                    ErrorKind::InvalidRequest,
                    format!(
                        "Content-Type must be application/json, got `{}`",
                        media.chars().take(64).collect::<String>()
                    ),
                );
                return Answer::error(StatusCode::UNSUPPORTED_MEDIA_TYPE, &Value::Null, &error);
            }
        }
        let too_large = || {
            let error = Error::new(
                ErrorKind::InvalidRequest,
                format!(
                    "Request body exceeds the limit of {} bytes",
                    limits.max_body_bytes
                ),
            )
            .with_metadata("limit", limits.max_body_bytes.to_string());
            Answer::error(StatusCode::PAYLOAD_TOO_LARGE, &Value::Null, &error)
        };
        let declared =
            header_str(&parts.headers, "content-length").and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|len| len > limits.max_body_bytes as u64) {
            return too_large();
        }
        let collected = tokio::time::timeout(
            limits.body_read_timeout(),
            Limited::new(body, limits.max_body_bytes).collect(),
        )
        .await;
        let bytes = match collected {
            Err(_) => {
                let error = Error::new(ErrorKind::InvalidRequest, "Request body was not received in time");
                return Answer::error(StatusCode::REQUEST_TIMEOUT, &Value::Null, &error);
            }
            Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => return too_large(),
            Ok(Err(_)) => {
                let error = Error::new(ErrorKind::InvalidRequest, "Request body could not be read");
                return Answer::error(StatusCode::BAD_REQUEST, &Value::Null, &error);
            }
            Ok(Ok(collected)) => collected.to_bytes(),
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

        let version = header_str(&parts.headers, A2A_VERSION_HEADER)
            .or_else(|| query_param(parts.uri.query(), A2A_VERSION_HEADER));
        if let Err(error) =
            negotiate::check_protocol_version(version, self.config.http.assume_version_when_absent.as_deref())
        {
            return Answer::error(StatusCode::OK, &id, &error);
        }
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
            match negotiate::negotiate_minor(contract, requested_minor) {
                Ok(v) => {
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
                Err(error) => return Answer::error(StatusCode::OK, &id, &error),
            }
        }
        if !activated.is_empty() {
            if let Ok(value) = HeaderValue::from_str(&activated.join(", ")) {
                extra.push((HeaderName::from_static("a2a-extensions"), value));
            }
        }
        let resume_after =
            header_str(&parts.headers, "last-event-id").and_then(|v| v.trim().parse::<u64>().ok());
        let ctx = CallContext {
            request_id: request.request_id.clone(),
            principal: caller.as_ref().map(|c| c.principal.clone()),
            default_namespace: caller.as_ref().and_then(|c| c.default_namespace.clone()),
            namespace: None,
            extension_versions,
            activated_extensions: activated,
            resume_after,
        };

        // Reserve a stream slot before starting a subscription.
        let streaming = find_method(&request.method).is_some_and(|d| d.streaming && d.is_dispatched());
        let slot = if streaming && request.id.is_some() {
            let key = caller
                .as_ref()
                .map(|c| c.principal.subject.clone())
                .unwrap_or_default();
            match self.streams.acquire(&key) {
                Some(slot) => Some(slot),
                None => {
                    let contract = a2a::rpc::contract_of_name(&request.method);
                    let error = Error::new(
                        contract.invalid_request(),
                        format!(
                            "Too many open streams: at most {} per caller; close one first",
                            self.config.limits.max_streams_per_principal
                        ),
                    )
                    .with_metadata("limit", self.config.limits.max_streams_per_principal.to_string());
                    let mut answer = Answer::error(StatusCode::TOO_MANY_REQUESTS, &id, &error);
                    answer.extra = extra;
                    return answer;
                }
            }
        } else {
            None
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
            (true, Outcome::Single(Ok(result))) => {
                Answer::json(StatusCode::OK, &jsonrpc::success(&id, result))
            }
            (true, Outcome::Single(Err(error))) => {
                let status = status_of(&error);
                let mut answer = Answer::error(status, &id, &error);
                if status == StatusCode::UNAUTHORIZED {
                    self.push_challenge(&mut answer, None);
                }
                answer
            }
            (true, Outcome::Stream(events)) => Answer {
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
            },
        };
        answer.extra.extend(extra);
        answer
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

fn plain(status: StatusCode, text: &'static str) -> Response<ResponseBody> {
    let mut response = Response::new(ResponseBody::full(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Open streams per principal.
struct StreamSlots {
    max: usize,
    open: Arc<Mutex<HashMap<String, usize>>>,
}

/// An open stream's claim on its principal's budget.
struct StreamSlot {
    key: String,
    open: Arc<Mutex<HashMap<String, usize>>>,
}

impl StreamSlots {
    fn new(max: usize) -> Self {
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
