//! The gRPC binding (spec §10) on the HTTP listener: an HTTP/2 request whose
//! content type is `application/grpc` is a call of the rpc its path names
//! (`/lf.a2a.v1.A2AService/GetTask`). Sharing the listener shares its TLS,
//! its client certificates and its port with the other bindings: the Agent
//! Card's GRPC interface is the listener's `host:port`.
//!
//! The one request message is transcoded to JSON and runs through the same
//! pipeline as JSON-RPC and HTTP+JSON; service parameters are the request's
//! metadata (`a2a-version`, `a2a-extensions`, `authorization`, the API-key
//! header, `last-event-id` to resume a task stream after an event sequence),
//! `grpc-timeout` bounds the call. Every refusal is a trailers-only response
//! whose status comes from the error registry, or, for what only gRPC can get
//! wrong, from gRPC's own conventions: an unknown path is `UNIMPLEMENTED`, a
//! message over the body limit `RESOURCE_EXHAUSTED`, a body that is not one
//! uncompressed message `INTERNAL`.

use super::exchange::{Refusal, A2A_VERSION_NAME};
use super::HttpState;
use crate::body::ResponseBody;
use crate::grpc_stream::{status_headers, GrpcBody};
use crate::negotiate::PROTOCOL_VERSION;
use a2a::rpc::{Error, Outcome};
use a2a::ErrorKind;
use grpc::frame::FrameError;
use grpc::{headers, Code, Rpc, Service, Status};
use http::header::{self, HeaderName, HeaderValue};
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;

/// The gRPC headers every call and answer names, built once (a lookup or
/// an insert by text parses the name each time).
static GRPC_ENCODING: HeaderName = HeaderName::from_static(headers::ENCODING);
static GRPC_TIMEOUT: HeaderName = HeaderName::from_static(headers::TIMEOUT);
static GRPC_ACCEPT_ENCODING: HeaderName = HeaderName::from_static(headers::ACCEPT_ENCODING);

/// True when `request` is a gRPC call (by its content type).
pub(super) fn is_grpc(request: &Request<Incoming>) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(grpc::is_grpc_content_type)
}

/// A gRPC response: status 200, the gRPC content type, the negotiated
/// headers, then `body`; with no body, the status's headers (trailers-only).
fn respond(body: Result<GrpcBody, Status>, echo: Vec<(HeaderName, HeaderValue)>) -> Response<ResponseBody> {
    let (mut response, status) = match body {
        Ok(body) => (Response::new(ResponseBody::Grpc(Box::new(body))), None),
        Err(status) => (Response::new(ResponseBody::empty()), Some(status)),
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(grpc::CONTENT_TYPE));
    headers.insert(GRPC_ACCEPT_ENCODING.clone(), HeaderValue::from_static("identity"));
    if let Some(name) = A2A_VERSION_NAME.clone() {
        headers.insert(name, HeaderValue::from_static(PROTOCOL_VERSION));
    }
    for (name, value) in echo {
        headers.insert(name, value);
    }
    if let Some(status) = status {
        headers.extend(status_headers(&status));
    }
    response
}

/// The status of a request the transport refused before reading it whole
/// (`limit` is the bound on its message).
fn refused(refusal: Refusal, limit: usize) -> Status {
    match refusal.status {
        StatusCode::PAYLOAD_TOO_LARGE => Status::new(
            Code::ResourceExhausted,
            format!("the request exceeds the limit of {limit} bytes for a message"),
        ),
        StatusCode::REQUEST_TIMEOUT => Status::new(Code::DeadlineExceeded, refusal.error.message),
        _ => Status::new(Code::Internal, refusal.error.message),
    }
}

/// The status of a body that is not one acceptable message.
fn malformed(error: FrameError) -> Status {
    let code = match error {
        FrameError::TooLarge { .. } => Code::ResourceExhausted,
        FrameError::Truncated(_) | FrameError::Empty | FrameError::TooMany | FrameError::Compressed => {
            Code::Internal
        }
    };
    Status::new(code, error.to_string())
}

impl HttpState {
    /// Answers a gRPC call.
    pub(super) async fn grpc(&self, request: Request<Incoming>) -> Response<ResponseBody> {
        let (parts, body) = request.into_parts();
        let mut echo = Vec::new();
        let answer = self.grpc_answer(&parts, body, &mut echo).await;
        respond(answer, echo)
    }

    async fn grpc_answer(
        &self,
        parts: &http::request::Parts,
        body: Incoming,
        echo: &mut Vec<(HeaderName, HeaderValue)>,
    ) -> Result<GrpcBody, Status> {
        if parts.version != http::Version::HTTP_2 {
            return Err(Status::new(Code::Internal, "gRPC needs HTTP/2"));
        }
        let service = Service::contract().map_err(|e| Status::new(Code::Internal, e))?;
        let rpc = service.find(parts.uri.path()).ok_or_else(|| {
            let shown: String = parts.uri.path().chars().take(128).collect();
            Status::new(Code::Unimplemented, format!("no rpc at `{shown}`"))
        })?;
        if let Some(encoding) = parts.headers.get(&GRPC_ENCODING) {
            if encoding.as_bytes() != b"identity" {
                return Err(Status::new(
                    Code::Unimplemented,
                    "messages are accepted uncompressed only (grpc-accept-encoding: identity)",
                ));
            }
        }
        let deadline = match parts.headers.get(&GRPC_TIMEOUT) {
            Some(value) => Some(
                value
                    .to_str()
                    .ok()
                    .and_then(grpc::timeout::parse)
                    .ok_or_else(|| Status::new(Code::Internal, "the grpc-timeout header is malformed"))?,
            ),
            None => None,
        };
        let limit = self.config.limits.max_body_bytes;
        let bytes = self
            .collect_body(&parts.headers, body, limit + grpc::frame::PREFIX_LEN)
            .await
            .map_err(|refusal| refused(refusal, limit))?;
        let message = grpc::frame::single(&bytes, limit).map_err(malformed)?;
        // Authenticate before looking at the message: unauthenticated callers
        // learn nothing but that they must authenticate.
        let caller = self
            .auth
            .authenticate(&parts.headers, parts.extensions.get())
            .map_err(|failure| {
                Status::from_error(Error::new(ErrorKind::ExtAuthRequired, failure.message()))
            })?;
        let params = grpc::transcode::to_json(&rpc.input, message).map_err(Status::from_error)?;
        let (mut ctx, dialect, extra) = self
            .call_context(parts, None, caller.as_ref())
            .map_err(Status::from_error)?;
        // The deadline is how long the caller waits: a call that may hold its
        // answer back (a long poll) answers within it.
        ctx.wait_limit = deadline.or(ctx.wait_limit);
        echo.extend(extra);
        Self::only_v1_0(dialect, a2a::Binding::Grpc).map_err(Status::from_error)?;
        let slot = self
            .stream_slot(dialect, rpc.method.name, true, caller.as_ref())
            .map_err(|error| Status::with_code(Code::ResourceExhausted, error))?;
        let call = self
            .pipeline
            .call(ctx, caller.as_ref(), rpc.method.name, params.into());
        let outcome = match deadline {
            Some(within) => tokio::time::timeout(within, call).await.map_err(|_| {
                Status::new(
                    Code::DeadlineExceeded,
                    "the call's deadline (grpc-timeout) passed",
                )
            })?,
            None => call.await,
        };
        self.grpc_body(rpc, outcome, deadline, slot)
    }

    /// The body of a call's outcome: its one message, or its stream.
    fn grpc_body(
        &self,
        rpc: &Rpc,
        outcome: Outcome,
        deadline: Option<std::time::Duration>,
        slot: Option<super::exchange::StreamSlot>,
    ) -> Result<GrpcBody, Status> {
        match outcome {
            Outcome::Single(Ok(result)) => {
                grpc::transcode::from_json(&rpc.output, result.get(), ErrorKind::InternalError)
                    .map(GrpcBody::one)
                    .map_err(|error| {
                        tracing::error!(rpc = %rpc.path, %error, "an answer did not fit its message");
                        Status::from_error(error)
                    })
            }
            Outcome::Single(Err(error)) => Err(Status::from_error(error)),
            Outcome::Stream(events) => {
                let pump = self.event_pump(events, None, slot);
                let cut = deadline.map(tokio::time::sleep);
                Ok(GrpcBody::events(pump, rpc.output.clone(), cut))
            }
        }
    }
}
