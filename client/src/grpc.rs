//! The gRPC transport (spec §10): each call one HTTP/2 request to the rpc of
//! its method, the params transcoded to the rpc's protobuf message and the
//! answer back to JSON, so callers see the same values as over JSON-RPC. The
//! service-parameter headers, credentials, TLS files and timeouts are the
//! HTTP transport's ([`HttpConfig`]); a call's timeout travels as
//! `grpc-timeout`. Idempotent reads are retried on transient failures; a
//! stream that breaks before its final event is resumed after the last event
//! sequence it delivered ([`grpc_wire::sequence`], sent back as `last-event-id`
//! metadata): the same call for an idempotent stream, else a subscription to
//! the task it was about.
//!
//! Only methods the generated proto serves have an rpc; calling another is a
//! transport error that says so.

use crate::generation::EventSource;
use crate::http::{describe, is_final_event, service_headers, stream_task_id, HttpConfig, HttpTransport};
use crate::negotiate;
use crate::policy::{self, Attempt};
use a2a::methods::markers::SubscribeToTask;
use a2a::rpc::{BoxFuture, CallError, Event, Method, RawEventStream, Transport};
use a2a::ErrorKind;
use bytes::Bytes;
use futures_util::stream;
use grpc_wire::{frame, headers, timeout, Code, Rpc, Service, Status};
use http_body_util::BodyExt;
use reqwest::header::{HeaderMap, CONTENT_TYPE};
use serde_json::{json, Value};
use std::sync::Arc;

/// `protocolBinding` of the card interface that serves gRPC (spec §10): the
/// schema's name, kept under this crate's name for the code importing it.
pub use a2a::bindings::GRPC as GRPC_PROTOCOL_BINDING;

/// The gRPC binding over HTTP/2. Cheap to clone.
#[derive(Clone)]
pub struct GrpcTransport {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    /// `scheme://host:port` of the server.
    origin: String,
    config: HttpConfig,
    headers: HeaderMap,
    service: &'static Service,
}

/// The error a non-OK status stands for: the contract error it carries, else
/// one named after its code; `UNAVAILABLE` is worth another attempt.
fn status_attempt(status: Status) -> Attempt {
    let transient = status.code == Code::Unavailable;
    let error = match (&status.error, status.code) {
        (None, Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled) => {
            CallError::Transport(format!("gRPC {}: {}", status.code.name(), status.message))
        }
        _ => CallError::Rpc(status.into_error(ErrorKind::InternalError)),
    };
    Attempt { error, transient }
}

fn transport(message: impl Into<String>) -> Attempt {
    Attempt {
        error: CallError::Transport(message.into()),
        transient: false,
    }
}

impl GrpcTransport {
    /// A transport to the server whose origin (`http://host:port`, or
    /// `https://` for TLS) `config.endpoint` names.
    pub fn new(config: HttpConfig) -> Result<Self, CallError> {
        let url = reqwest::Url::parse(&config.endpoint)
            .map_err(|e| CallError::Transport(format!("bad server URL `{}`: {e}", config.endpoint)))?;
        let builder = reqwest::Client::builder().connect_timeout(config.connect_timeout);
        // gRPC is HTTP/2 only: with prior knowledge in clear text, by ALPN over TLS.
        let builder = match url.scheme() {
            "http" => builder.http2_prior_knowledge(),
            "https" => builder,
            _ => {
                return Err(CallError::Transport(format!(
                    "bad server URL `{}`: scheme must be http or https",
                    config.endpoint
                )))
            }
        };
        let http = crate::tls::configure(builder, &config.tls)?
            .build()
            .map_err(|e| CallError::Transport(format!("HTTP/2 client: {e}")))?;
        let service = Service::contract().map_err(|e| CallError::Transport(e.to_string()))?;
        let headers = service_headers(&config)?;
        Ok(GrpcTransport {
            inner: Arc::new(Inner {
                http,
                origin: url.origin().ascii_serialization(),
                config,
                headers,
                service,
            }),
        })
    }

    /// A transport to the `GRPC` interface the Agent Card of the server at
    /// `config.endpoint` declares (its `host:port`, reached with the
    /// endpoint's scheme); an error when it declares none. It speaks the
    /// newest protocol version the card offers over gRPC (see
    /// [`negotiate::choose`]) unless `config.protocol_version` names one.
    pub async fn from_card(mut config: HttpConfig) -> Result<Self, CallError> {
        let card = HttpTransport::new(config.clone())?.agent_card().await?;
        let version = config
            .protocol_version
            .clone()
            .unwrap_or_else(|| negotiate::choose(&card, GRPC_PROTOCOL_BINDING).to_string());
        let target = negotiate::interface_url(&card, GRPC_PROTOCOL_BINDING, &version)
            .or_else(|| crate::http::declared_interface(&card, GRPC_PROTOCOL_BINDING))
            .ok_or_else(|| {
                CallError::Transport(format!(
                    "the agent's card declares no {GRPC_PROTOCOL_BINDING} interface"
                ))
            })?;
        config.protocol_version = Some(version);
        let scheme = config.endpoint.split("://").next().unwrap_or("http").to_string();
        config.endpoint = if target.contains("://") {
            target.to_string()
        } else {
            format!("{scheme}://{target}")
        };
        GrpcTransport::new(config)
    }

    /// The A2A protocol version this transport speaks (its `A2A-Version`).
    pub fn protocol_version(&self) -> &str {
        crate::http::protocol_version(&self.inner.config)
    }

    /// Opens a stream as the server sends it.
    async fn open_raw(&self, method: &'static str, params: Value) -> Result<RawEventStream, CallError> {
        let rpc = self.inner.rpc(method).map_err(|a| a.error)?;
        let answer = self.inner.open(rpc, &params, None).await.map_err(|a| a.error)?;
        let state = Follow {
            inner: self.inner.clone(),
            rpc,
            params,
            answer: Some(answer),
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
        Ok(Box::pin(stream))
    }
}

/// A gRPC answer being read: its body's frames, the messages they carry.
struct Answer {
    body: reqwest::Body,
    decoder: frame::Decoder,
}

impl Answer {
    /// The next message of the answer; `None` at its end with `OK`; the
    /// status's error at any other end.
    async fn next_message(&mut self) -> Result<Option<Bytes>, Attempt> {
        loop {
            if let Some(message) = self
                .decoder
                .next_message()
                .map_err(|e| transport(e.to_string()))?
            {
                return Ok(Some(message));
            }
            let Some(frame) = self.body.frame().await else {
                return Err(Attempt {
                    error: CallError::Transport("the answer ended without a gRPC status".into()),
                    transient: true,
                });
            };
            let frame = frame.map_err(|e| Attempt {
                error: CallError::Transport(format!("the answer broke: {}", describe(&e))),
                transient: true,
            })?;
            match frame.into_data() {
                Ok(data) => self.decoder.push(&data),
                Err(frame) => {
                    let Some(trailers) = frame.trailers_ref() else {
                        continue;
                    };
                    let status = status_of(trailers)?;
                    if self.decoder.pending() > 0 {
                        return Err(transport("the answer ended inside a message"));
                    }
                    return match status.code {
                        Code::Ok => Ok(None),
                        _ => Err(status_attempt(status)),
                    };
                }
            }
        }
    }
}

/// The status `headers` carry (trailers, or the headers of a trailers-only answer).
fn status_of(headers: &HeaderMap) -> Result<Status, Attempt> {
    Status::from_headers(|name| headers.get(name).and_then(|v| v.to_str().ok()))
        .ok_or_else(|| transport("the answer has no valid grpc-status"))
}

impl Inner {
    fn rpc(&self, method: &str) -> Result<&'static Rpc, Attempt> {
        self.service.rpc_of(method).ok_or_else(|| {
            transport(format!(
                "`{method}` has no gRPC rpc; call it over JSON-RPC or HTTP+JSON"
            ))
        })
    }

    /// Sends one call and returns its answer to read, or the status a
    /// trailers-only answer gave.
    async fn open(&self, rpc: &Rpc, params: &Value, last_event_id: Option<u64>) -> Result<Answer, Attempt> {
        let message =
            grpc_wire::transcode::from_json(&rpc.input, &params.to_string(), ErrorKind::InvalidParams)
                .map_err(CallError::Rpc)?;
        let mut request = self
            .http
            .post(format!("{}{}", self.origin, rpc.path))
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, grpc_wire::CONTENT_TYPE)
            .header("te", "trailers")
            .body(frame::encode(&message));
        if let Some(seq) = last_event_id {
            request = request.header("last-event-id", seq.to_string());
        }
        if !rpc.server_streaming {
            request = request
                .header(headers::TIMEOUT, timeout::format(self.config.timeout))
                .timeout(self.config.timeout);
        }
        if let Some(log) = &self.config.wire_log {
            log.log(&format!(
                "> POST {}{} (gRPC {} bytes)\n> {}",
                self.origin,
                rpc.path,
                message.len(),
                params
            ));
        }
        let send = request.send();
        let response = tokio::time::timeout(self.config.timeout, send)
            .await
            .map_err(|_| Attempt {
                error: CallError::Transport(format!("no answer within {:?}", self.config.timeout)),
                transient: true,
            })?
            .map_err(|e| Attempt {
                error: CallError::Transport(describe(&e)),
                transient: e.is_connect() || e.is_timeout(),
            })?;
        let status = response.status();
        if !status.is_success() {
            return Err(Attempt {
                error: CallError::Transport(format!("HTTP {status} to a gRPC call")),
                transient: matches!(status.as_u16(), 502..=504),
            });
        }
        let grpc = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(grpc_wire::is_grpc_content_type);
        if !grpc {
            return Err(transport("the answer is not gRPC"));
        }
        if response.headers().contains_key(headers::STATUS) {
            let status = status_of(response.headers())?;
            if status.code != Code::Ok {
                return Err(status_attempt(status));
            }
        }
        let response: http::Response<reqwest::Body> = response.into();
        Ok(Answer {
            body: response.into_body(),
            decoder: frame::Decoder::new(self.config.max_answer_bytes),
        })
    }

    async fn call_once(&self, method: &str, params: &Value) -> Result<Value, Attempt> {
        let rpc = self.rpc(method)?;
        let mut answer = self.open(rpc, params, None).await?;
        let message = answer
            .next_message()
            .await?
            .ok_or_else(|| transport("the answer ended with OK but no message"))?;
        if answer.next_message().await?.is_some() {
            return Err(transport("a unary answer carried more than one message"));
        }
        let answer = grpc_wire::transcode::to_json(&rpc.output, &message).map_err(CallError::Rpc)?;
        if let Some(log) = &self.config.wire_log {
            log.log(&format!("< (gRPC {} bytes) {answer}", message.len()));
        }
        Ok(answer)
    }
}

/// Where a stream stands between polls.
struct Follow {
    inner: Arc<Inner>,
    rpc: &'static Rpc,
    params: Value,
    answer: Option<Answer>,
    last_seq: Option<u64>,
    task_id: Option<String>,
    resumes_left: u32,
    final_seen: bool,
    done: bool,
}

impl Follow {
    /// Opens the stream again after `cause` broke it: the same call for an
    /// idempotent stream, else a subscription to the task it was about.
    async fn resume(&mut self, cause: Attempt) -> Result<(), CallError> {
        if !cause.transient || self.resumes_left == 0 || self.final_seen {
            return Err(cause.error);
        }
        let (rpc, params) = if policy::is_idempotent_read_name(self.rpc.method.name) {
            (self.rpc, self.params.clone())
        } else {
            let Some(id) = self.task_id.clone() else {
                return Err(cause.error);
            };
            let rpc = self.inner.rpc(SubscribeToTask::NAME).map_err(|a| a.error)?;
            (rpc, json!({ "id": id }))
        };
        let attempt = self.inner.config.max_resumes - self.resumes_left;
        self.resumes_left -= 1;
        tokio::time::sleep(policy::backoff(self.inner.config.backoff, attempt)).await;
        match self.inner.open(rpc, &params, self.last_seq).await {
            Ok(answer) => {
                self.answer = Some(answer);
                Ok(())
            }
            Err(attempt) if attempt.transient => Ok(()),
            Err(attempt) => Err(attempt.error),
        }
    }

    async fn next_item(&mut self) -> Option<Result<Event<Value>, CallError>> {
        loop {
            if self.done {
                return None;
            }
            let read = match self.answer.as_mut() {
                Some(answer) => answer.next_message().await,
                None => Err(Attempt {
                    error: CallError::Transport("stream connection lost".into()),
                    transient: true,
                }),
            };
            match read {
                Ok(Some(message)) => {
                    let event = match grpc_wire::transcode::to_json(&self.rpc.output, &message) {
                        Ok(event) => event,
                        Err(error) => {
                            self.done = true;
                            return Some(Err(CallError::Rpc(error)));
                        }
                    };
                    if self.task_id.is_none() {
                        self.task_id = stream_task_id(&event);
                    }
                    self.final_seen = is_final_event(&event);
                    self.resumes_left = self.inner.config.max_resumes;
                    return Some(Ok(match grpc_wire::sequence::read(&message) {
                        Some(seq) => {
                            self.last_seq = Some(seq);
                            Event::with_seq(seq, event)
                        }
                        None => Event::new(event),
                    }));
                }
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(cause) => {
                    self.answer = None;
                    if let Err(error) = self.resume(cause).await {
                        self.done = true;
                        return Some(Err(error));
                    }
                }
            }
        }
    }
}

impl EventSource for GrpcTransport {
    fn open_stream<'a>(
        &'a self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'a, Result<RawEventStream, CallError>> {
        Box::pin(self.open_raw(method, params))
    }
}

impl Transport for GrpcTransport {
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
    fn statuses_become_the_errors_callers_switch_on() {
        let error = a2a::Error::new(ErrorKind::TaskNotFound, "Task `t` not found");
        let attempt = status_attempt(Status::from_error(error.clone()));
        assert!(!attempt.transient);
        assert!(matches!(attempt.error, CallError::Rpc(e) if e == error));
        let attempt = status_attempt(Status::new(Code::Unavailable, "shutting down"));
        assert!(attempt.transient);
        assert!(matches!(attempt.error, CallError::Transport(m) if m == "gRPC UNAVAILABLE: shutting down"));
        let attempt = status_attempt(Status::new(Code::ResourceExhausted, "too big"));
        assert!(
            matches!(attempt.error, CallError::Rpc(e) if e.metadata("grpcStatus") == Some("RESOURCE_EXHAUSTED"))
        );
    }

    #[test]
    fn bad_urls_are_errors() {
        assert!(GrpcTransport::new(HttpConfig::new("not a url")).is_err());
        assert!(GrpcTransport::new(HttpConfig::new("ftp://x/")).is_err());
        assert!(GrpcTransport::new(HttpConfig::new("http://127.0.0.1:1/")).is_ok());
    }
}
