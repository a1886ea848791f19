//! The HTTP listener: JSON-RPC 2.0 over `POST <path>` and the HTTP+JSON (REST)
//! binding under `<rest_path>`, SSE for streaming methods, the Agent Card at
//! `/.well-known/agent-card.json` (and the legacy `/.well-known/agent.json`),
//! service-parameter headers, authentication, CORS, limits and graceful
//! shutdown, on hyper 1.x; optionally on a second address for A2A 0.3 clients
//! (`http.v0_3_listen`), which differs only in the card it serves, and on an
//! address the card names for gRPC (`http.grpc_listen`), which serves the
//! same as the main one. With
//! `http.tls` both addresses serve HTTPS ([`crate::tls`]), HTTP/1.1 or HTTP/2
//! as the client's ALPN chooses; in clear text, HTTP/2 to a client that opens
//! with its preface (prior knowledge), HTTP/1.1 to any other. The JSON-RPC endpoint and its status codes are in
//! [`rpc`], the REST binding in [`rest`], what both share per request in
//! [`exchange`], the Prometheus metrics at `GET /metrics` in [`metrics`], the
//! check of requests forwarded by a TLS-terminating proxy in [`forwarded`].

use crate::auth::{Authenticator, ClientCertificate, RequestCredentials};
use crate::body::ResponseBody;
use crate::card::{self, Binding};
use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::negotiate::{self, Dialect, A2A_VERSION_HEADER};
use crate::pipeline::Pipeline;
use crate::signing::CardSigner;
use crate::tls::Tls;
use a2a::rpc::Dispatch;
use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

mod console;
mod copied_writes;
mod cors;
mod exchange;
mod forwarded;
mod grpc;
mod metrics;
mod rest;
mod rpc;
use cors::{Cors, OriginCheck};
use exchange::StreamSlots;
use forwarded::TrustedProxies;
pub use metrics::METRICS_PATH;

/// Where the contract's OpenRPC document is served, public like the Agent
/// Card: it describes the contract, nothing of this server's configuration.
pub const OPENRPC_PATH: &str = "/openrpc.json";

/// `GET /openrpc.json`: the document as generated.
fn openrpc() -> Response<ResponseBody> {
    let mut response = Response::new(ResponseBody::full(Bytes::from_static(
        a2a::openrpc::DOCUMENT.as_bytes(),
    )));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A bound, not yet serving, HTTP server (bind first to learn the port).
pub struct HttpServer {
    listener: TcpListener,
    /// The address for A2A 0.3 clients, when configured.
    v0_3_listener: Option<TcpListener>,
    /// The address the card names for gRPC, when configured.
    grpc_listener: Option<TcpListener>,
    state: Arc<HttpState>,
}

/// Which of the server's addresses a request came in on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Address {
    Main,
    ForV0_3,
}

struct HttpState {
    config: ServerConfig,
    pipeline: Pipeline,
    auth: Authenticator,
    card_json: Bytes,
    /// Validators of the card (spec §8.6.1): a strong ETag of its exact bytes and
    /// the time it was built.
    card_etag: HeaderValue,
    /// The card as served to clients that do not ask for 1.0 (see
    /// [`card::agent_card_for_v0_3_clients`]), with its own entity tag.
    card_v0_3_json: Bytes,
    card_v0_3_etag: HeaderValue,
    card_last_modified: HeaderValue,
    streams: StreamSlots,
    shutdown: CancellationToken,
    /// With `http.tls`: what accepts the connections.
    tls: Option<Tls>,
    /// With `http.behind_tls_proxy`: whose word on the client's scheme counts.
    proxies: Option<TrustedProxies>,
    /// Which browser origins may read the answers.
    cors: Cors,
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
        if !config.http.rest_path.is_empty() && !config.http.rest_path.starts_with('/') {
            return Err(ServerError::Config(format!(
                "http.rest_path must be empty or start with `/`, got `{}`",
                config.http.rest_path
            )));
        }
        let auth = Authenticator::from_config(&config.auth)?;
        let cors = Cors::from_config(&config.cors, &config.auth)?;
        config.check_tls()?;
        config.check_exposure(config.http.listen)?;
        let proxies = config
            .http
            .behind_tls_proxy
            .then(|| TrustedProxies::parse(&config.http.trusted_proxies))
            .transpose()?;
        let tls = config
            .http
            .tls
            .as_ref()
            .map(|tls| Tls::from_config(tls, config.auth.mtls.as_ref()))
            .transpose()?;
        if !auth.is_enabled() {
            tracing::warn!(
                listen = %config.http.listen,
                "no authentication scheme configured: serving anonymous callers without authorization"
            );
        }
        let listener = bind_listener(config.http.listen).await?;
        let v0_3_listener = match config.http.v0_3_listen {
            Some(addr) => {
                config.check_exposure(addr)?;
                Some(bind_listener(addr).await?)
            }
            None => None,
        };
        let grpc_listener = match config.http.grpc_listen {
            Some(_) if !config.http.grpc => {
                return Err(ServerError::Config(
                    "http.grpc_listen names an address for gRPC, which http.grpc turns off".into(),
                ))
            }
            Some(addr) => {
                config.check_exposure(addr)?;
                Some(bind_listener(addr).await?)
            }
            None => None,
        };
        // Advertise the ports actually bound (port 0 in tests).
        let mut config = config;
        if let Some(grpc) = &grpc_listener {
            config.http.grpc_listen = Some(grpc.local_addr()?);
        }
        let scheme = config.http.scheme();
        if config.agent.public_url.is_none() {
            let addr = listener.local_addr()?;
            config.agent.public_url = Some(format!("{scheme}://{addr}{}", config.http.path));
        }
        if let (None, Some(v0_3)) = (&config.agent.v0_3_public_url, &v0_3_listener) {
            let addr = v0_3.local_addr()?;
            config.agent.v0_3_public_url = Some(format!("{scheme}://{addr}{}", config.http.path));
        }
        let signer = CardSigner::from_config(&config.agent.card_signing_keys)?;
        let mut public_card = card::agent_card(&config, Binding::Http);
        signer.sign(&mut public_card)?;
        let card_json = Bytes::from(
            serde_json::to_vec(&public_card).map_err(|e| ServerError::Config(format!("agent card: {e}")))?,
        );
        let card_etag = HeaderValue::try_from(format!("\"{:016x}\"", fnv1a64(&card_json)))
            .map_err(|e| ServerError::Config(format!("agent card etag: {e}")))?;
        // Signed over its own content, the 0.3 fields included.
        let mut card_v0_3 = card::agent_card_for_v0_3_clients(&public_card)
            .map_err(|e| ServerError::Config(format!("agent card for A2A 0.3 clients: {e}")))?;
        signer.sign_json(&mut card_v0_3)?;
        let card_v0_3_json = Bytes::from(
            serde_json::to_vec(&card_v0_3)
                .map_err(|e| ServerError::Config(format!("agent card for A2A 0.3 clients: {e}")))?,
        );
        let card_v0_3_etag = HeaderValue::try_from(format!("\"{:016x}\"", fnv1a64(&card_v0_3_json)))
            .map_err(|e| ServerError::Config(format!("agent card etag: {e}")))?;
        let card_last_modified = HeaderValue::try_from(httpdate::fmt_http_date(std::time::SystemTime::now()))
            .map_err(|e| ServerError::Config(format!("agent card date: {e}")))?;
        let state = HttpState {
            pipeline: Pipeline::new(&config, dispatch, Binding::Http, &signer)?,
            auth,
            card_json,
            card_etag,
            card_v0_3_json,
            card_v0_3_etag,
            card_last_modified,
            streams: StreamSlots::new(config.limits.max_streams_per_principal),
            shutdown: CancellationToken::new(),
            tls,
            proxies,
            cors,
            config,
        };
        Ok(HttpServer {
            listener,
            v0_3_listener,
            grpc_listener,
            state: Arc::new(state),
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> Result<SocketAddr, ServerError> {
        Ok(self.listener.local_addr()?)
    }

    /// The address for A2A 0.3 clients, when one is configured.
    pub fn v0_3_local_addr(&self) -> Result<Option<SocketAddr>, ServerError> {
        Ok(self
            .v0_3_listener
            .as_ref()
            .map(TcpListener::local_addr)
            .transpose()?)
    }

    /// The address the card names for gRPC, when one is configured.
    pub fn grpc_local_addr(&self) -> Result<Option<SocketAddr>, ServerError> {
        Ok(self
            .grpc_listener
            .as_ref()
            .map(TcpListener::local_addr)
            .transpose()?)
    }

    /// Serves until `shutdown` completes, then stops accepting, ends open
    /// streams, and waits (up to `http.shutdown_grace_secs`) for in-flight
    /// requests to finish.
    pub async fn serve(self, shutdown: impl Future<Output = ()> + Send) -> Result<(), ServerError> {
        let HttpServer {
            listener,
            v0_3_listener,
            grpc_listener,
            state,
        } = self;
        let graceful = GracefulShutdown::new();
        let builders = Arc::new(Builders::new(&state.config.limits));
        tokio::pin!(shutdown);
        loop {
            let (accepted, address) = tokio::select! {
                accepted = listener.accept() => (accepted, Address::Main),
                accepted = accept_if_any(v0_3_listener.as_ref()) => (accepted, Address::ForV0_3),
                accepted = accept_if_any(grpc_listener.as_ref()) => (accepted, Address::Main),
                () = &mut shutdown => break,
            };
            let (stream, peer) = match accepted {
                Ok(pair) => pair,
                Err(error) => {
                    // Per-connection accept errors (e.g. EMFILE) must not stop the server.
                    tracing::warn!(%error, "accept failed");
                    tokio::task::yield_now().await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let connection = Connection {
                state: state.clone(),
                peer,
                address,
            };
            let builders = builders.clone();
            let watcher = graceful.watcher();
            // The handshake (or the look at the first bytes) runs in the
            // connection's task, so a client slow to send them holds up no
            // one else.
            tokio::spawn(async move {
                let within = connection.state.config.limits.header_read_timeout();
                let Some(tls) = &connection.state.tls else {
                    return match opens_with_h2_preface(&stream, within).await {
                        Some(h2) => {
                            connection
                                .serve(TokioIo::new(stream), h2, None, &builders, watcher)
                                .await
                        }
                        None => {
                            tracing::debug!(%peer, "connection closed or silent before its first request")
                        }
                    };
                };
                match tls.accept(stream, within).await {
                    Ok(accepted) => {
                        let io = TokioIo::new(accepted.stream);
                        connection
                            .serve(io, accepted.h2, accepted.client, &builders, watcher)
                            .await;
                    }
                    Err(error) => tracing::debug!(%error, %peer, "TLS handshake failed"),
                }
            });
        }
        drop(listener);
        drop(v0_3_listener);
        drop(grpc_listener);
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

/// HTTP/2's connection preface (RFC 9113 §3.4), which a client speaking
/// HTTP/2 in clear text with prior knowledge opens with.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Whether the client of a clear-text connection opens with the HTTP/2
/// preface (`true`) or something else (`false`, HTTP/1.1), looked at without
/// consuming it; `None` when it closes, or sends nothing that tells within
/// `within`, which bounds this look as it bounds a request head.
async fn opens_with_h2_preface(stream: &tokio::net::TcpStream, within: std::time::Duration) -> Option<bool> {
    let deadline = tokio::time::Instant::now() + within;
    let mut first = [0u8; H2_PREFACE.len()];
    let mut pause = std::time::Duration::from_millis(1);
    loop {
        let seen = tokio::time::timeout_at(deadline, stream.peek(&mut first))
            .await
            .ok()?
            .ok()?;
        if seen == 0 {
            return None;
        }
        if !H2_PREFACE.starts_with(&first[..seen]) {
            return Some(false);
        }
        if seen == H2_PREFACE.len() {
            return Some(true);
        }
        // A beginning of the preface: wait for more. A peek does not
        // consume, so the socket stays readable; pause instead, longer each
        // time (an HTTP/1.1 request tells at its second byte at the latest).
        // The timeout above cannot end this: a peek of waiting bytes is
        // ready at once, and a ready future beats its deadline.
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep_until((tokio::time::Instant::now() + pause).min(deadline)).await;
        pause = (pause * 2).min(std::time::Duration::from_millis(50));
    }
}

/// The HTTP/1.1 and HTTP/2 connection settings, from the limits.
struct Builders {
    http1: hyper::server::conn::http1::Builder,
    http2: hyper::server::conn::http2::Builder<TokioExecutor>,
}

impl Builders {
    fn new(limits: &crate::config::Limits) -> Builders {
        let mut http1 = hyper::server::conn::http1::Builder::new();
        http1
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout())
            .max_buf_size(limits.max_header_bytes.max(8192))
            .keep_alive(true);
        let mut http2 = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
        http2
            .timer(TokioTimer::new())
            .max_header_list_size(u32::try_from(limits.max_header_bytes).unwrap_or(u32::MAX))
            .max_concurrent_streams(MAX_H2_STREAMS);
        Builders { http1, http2 }
    }
}

/// Requests one HTTP/2 connection may have open at once (its streams each
/// hold a request, an SSE stream among them, as an HTTP/1.1 connection does).
const MAX_H2_STREAMS: u32 = 256;

/// One accepted connection: where it came from and on which address.
struct Connection {
    state: Arc<HttpState>,
    peer: SocketAddr,
    address: Address,
}

impl Connection {
    /// Serves the connection's requests until it closes or shutdown ends it.
    async fn serve<I>(
        self,
        io: TokioIo<I>,
        h2: bool,
        client: Option<ClientCertificate>,
        builders: &Builders,
        watcher: hyper_util::server::graceful::Watcher,
    ) where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let Connection { state, peer, address } = self;
        let service = service_fn(move |mut request: Request<Incoming>| {
            let state = state.clone();
            request
                .extensions_mut()
                .insert(RequestCredentials::of_connection(client.clone()));
            // An API key declared to travel in the query string leaves the
            // URL first, before any span, log or binding sees the URL.
            state.auth.take_query_key(&mut request);
            // Boxed: the connection then holds a pointer to the request
            // in flight, not its whole future, for as long as it lives
            // (an idle stream's connection most of all).
            Box::pin(async move { Ok::<_, Infallible>(state.handle(request, peer, address).await) })
        });
        let ended = if h2 {
            let io = copied_writes::CopiedWrites(io);
            watcher.watch(builders.http2.serve_connection(io, service)).await
        } else {
            watcher.watch(builders.http1.serve_connection(io, service)).await
        };
        if let Err(error) = ended {
            tracing::debug!(%error, %peer, "connection ended with an error");
        }
    }
}

async fn bind_listener(addr: SocketAddr) -> Result<TcpListener, ServerError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| ServerError::Bind { addr, source })
}

/// The next connection on `listener`; never, without one.
async fn accept_if_any(
    listener: Option<&TcpListener>,
) -> std::io::Result<(tokio::net::TcpStream, SocketAddr)> {
    match listener {
        Some(listener) => listener.accept().await,
        None => std::future::pending().await,
    }
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
    fn card(&self, request: &Request<Incoming>, address: Address) -> Response<ResponseBody> {
        // The card's form follows the version the client speaks, by the rule
        // every call follows (absent means 0.3 unless configured otherwise):
        // 1.0 gets the 1.0 card, anyone else the card with the 0.3 fields too —
        // unless 0.3 clients have an address of their own, whose card that is;
        // the main address then serves only the 1.0 card.
        let version = request
            .headers()
            .get(A2A_VERSION_HEADER)
            .and_then(|v| v.to_str().ok());
        let asks_v1_0 = matches!(
            negotiate::protocol_dialect(
                version,
                self.config.http.assume_version_when_absent.as_deref(),
                &self.config.a2a.draft_versions,
            ),
            Ok(Dialect::V1(_))
        );
        let v0_3_has_its_own_address = self.config.http.v0_3_listen.is_some();
        let plain = asks_v1_0 || (v0_3_has_its_own_address && address == Address::Main);
        let (card_json, card_etag) = if plain {
            (&self.card_json, &self.card_etag)
        } else {
            (&self.card_v0_3_json, &self.card_v0_3_etag)
        };
        let fresh = request
            .headers()
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|tag| {
                let tag = tag.trim();
                tag == "*" || tag.trim_start_matches("W/") == card_etag.to_str().unwrap_or_default()
            });
        let mut response = if fresh {
            let mut response = Response::new(ResponseBody::full(Bytes::new()));
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        } else {
            let mut response = Response::new(ResponseBody::full(card_json.clone()));
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
        headers.insert(header::ETAG, card_etag.clone());
        headers.insert(header::VARY, HeaderValue::from_static(A2A_VERSION_HEADER));
        headers.insert(header::LAST_MODIFIED, self.card_last_modified.clone());
        response
    }

    /// Answers one request inside its transport span, which continues the
    /// caller's trace when the request carries a W3C `traceparent`.
    async fn handle(
        &self,
        request: Request<Incoming>,
        peer: SocketAddr,
        address: Address,
    ) -> Response<ResponseBody> {
        let span = tracing::info_span!(
            "http.request",
            otel.kind = "server",
            http.request.method = %request.method(),
            url.path = %request.uri().path(),
        );
        if !span.is_disabled() {
            let headers = request.headers();
            let parent = telemetry::TraceContext::from_carrier(|name| {
                headers.get(name).and_then(|value| value.to_str().ok())
            });
            if let Some(parent) = parent {
                telemetry::set_parent(&span, &parent);
            }
        }
        self.route(request, peer, address).instrument(span).await
    }

    async fn route(
        &self,
        request: Request<Incoming>,
        peer: SocketAddr,
        address: Address,
    ) -> Response<ResponseBody> {
        if let Some(proxies) = &self.proxies {
            if !proxies.came_over_https(peer.ip(), request.headers()) {
                return plain(
                    StatusCode::FORBIDDEN,
                    "this agent serves requests that reach it through its TLS-terminating proxy over https\n",
                );
            }
        }
        let origin = self.cors.check(request.headers());
        if origin == OriginCheck::Refused {
            let mut response = Response::new(ResponseBody::empty());
            *response.status_mut() = StatusCode::FORBIDDEN;
            return response;
        }
        if Cors::is_preflight(request.method(), request.headers()) {
            let mut response = Response::new(ResponseBody::empty());
            *response.status_mut() = StatusCode::NO_CONTENT;
            if let OriginCheck::Allowed { allow } = origin {
                self.cors.preflight_headers(allow, response.headers_mut());
            }
            return response;
        }
        if self.config.http.grpc && self::grpc::is_grpc(&request) {
            return self.grpc(request).await;
        }
        let path = request.uri().path();
        // The JSON-RPC path wins where the two bindings' paths meet.
        let rest_route = (path != self.config.http.path)
            .then(|| self.rest_route(path))
            .flatten()
            .map(str::to_string);
        let mut response = match (request.method(), path) {
            (&Method::OPTIONS, _) => {
                let mut response = Response::new(ResponseBody::empty());
                *response.status_mut() = StatusCode::NO_CONTENT;
                response
            }
            (&Method::GET | &Method::HEAD, "/.well-known/agent-card.json" | "/.well-known/agent.json") => {
                self.card(&request, address)
            }
            (&Method::GET | &Method::HEAD, OPENRPC_PATH) => openrpc(),
            (&Method::GET | &Method::HEAD, p) if self.config.http.console && console::is_console_path(p) => {
                console::asset(p)
            }
            (&Method::GET | &Method::HEAD, METRICS_PATH) => self.metrics(&request),
            (&Method::POST, p) if p == self.config.http.path => self.rpc(request).await,
            _ if rest_route.is_some() => self.rest(request, rest_route.unwrap_or_default()).await,
            (_, p) if p == self.config.http.path => {
                let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "use POST for JSON-RPC requests\n");
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("POST, OPTIONS"));
                response
            }
            _ => plain(StatusCode::NOT_FOUND, "not found\n"),
        };
        match origin {
            OriginCheck::Allowed { allow } => self.cors.response_headers(allow, response.headers_mut()),
            // A cache must not hand this answer, without CORS headers, to a
            // page of another origin (nor one with them to this page).
            _ if self.cors.is_enabled() => {
                response
                    .headers_mut()
                    .append(header::VARY, HeaderValue::from_static("Origin"));
            }
            _ => {}
        }
        response
    }

    /// The path under the REST binding's prefix, when `path` is under it.
    fn rest_route<'p>(&self, path: &'p str) -> Option<&'p str> {
        let rest = path.strip_prefix(self.config.http.rest_prefix()?)?;
        rest.starts_with('/').then_some(rest)
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
