//! The JSON-RPC endpoint of the HTTP binding: one `POST` is read within the
//! body limits, authenticated, parsed, negotiated from its service-parameter
//! headers into the call context, and answered as JSON or, for a streaming
//! method, as SSE within the caller's budget of open streams.
//!
//! Status codes: JSON-RPC errors are HTTP 200, except authentication (401 with
//! `WWW-Authenticate`) and authorization (403); transport limits answer 413
//! (body), 431 (headers, by hyper), 408 (slow body) and 429 (open streams), each
//! with a JSON-RPC error body.

use super::exchange::{respond, Answer};
use super::HttpState;
use crate::auth::AuthFailure;
use crate::body::ResponseBody;
use crate::dialect;
use crate::jsonrpc;
use crate::sse::Framing;
use a2a::rpc::{Error, Outcome, RawJson};
use a2a::ErrorKind;
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use serde_json::Value;

fn error_answer(status: StatusCode, id: &Value, error: &Error) -> Answer {
    Answer::json(status, jsonrpc::failure(id, error))
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

impl HttpState {
    /// Answers a `POST` to the JSON-RPC path.
    pub(super) async fn rpc(&self, request: Request<Incoming>) -> Response<ResponseBody> {
        let (parts, body) = request.into_parts();
        respond(self.rpc_answer(&parts, body).await)
    }

    async fn rpc_answer(&self, parts: &http::request::Parts, body: Incoming) -> Answer {
        let limits = &self.config.limits;
        let bytes = match self.read_body(&parts.headers, body).await {
            Ok(bytes) => bytes,
            Err(refusal) => return error_answer(refusal.status, &Value::Null, &refusal.error),
        };

        // Authenticate before looking at the request: unauthenticated callers
        // learn nothing but that they must authenticate.
        let caller = match self.auth.authenticate(&parts.headers, parts.extensions.get()) {
            Ok(caller) => caller,
            Err(failure) => return self.unauthenticated(&failure, &bytes),
        };

        let request = match jsonrpc::parse(&bytes, limits.max_json_depth) {
            Ok(request) => request,
            Err(rejected) => return error_answer(StatusCode::OK, &rejected.id, &rejected.error),
        };
        let id = request.id.clone().unwrap_or(Value::Null);

        let (ctx, dialect, extra) =
            match self.call_context(parts, request.request_id.clone(), caller.as_ref()) {
                Ok(negotiated) => negotiated,
                Err(error) => return error_answer(StatusCode::OK, &id, &error),
            };

        // Reserve a stream slot before starting a subscription.
        let slot = match self.stream_slot(dialect, &request.method, request.id.is_some(), caller.as_ref()) {
            Ok(slot) => slot,
            Err(error) => {
                let mut answer = error_answer(StatusCode::TOO_MANY_REQUESTS, &id, &error);
                answer.extra = extra;
                return answer;
            }
        };

        let outcome = dialect::call_in(
            &self.pipeline,
            dialect,
            ctx,
            caller.as_ref(),
            &request.method,
            request.params,
        )
        .await;
        let mut answer = match (request.id.is_some(), outcome) {
            // A notification gets no answer, whatever happened.
            (false, _) => Answer::no_content(),
            (true, Outcome::Single(result)) => self.unary_answer(&id, result),
            (true, Outcome::Stream(events)) => self.sse_answer(Framing::JsonRpc(id), events, slot),
        };
        answer.extra.extend(extra);
        answer
    }

    /// The JSON answer of a unary call; an authentication error carries its
    /// challenge.
    fn unary_answer(&self, id: &Value, result: Result<RawJson, Error>) -> Answer {
        match result {
            Ok(result) => Answer::json(StatusCode::OK, jsonrpc::success(id, result)),
            Err(error) => {
                let status = status_of(&error);
                let mut answer = error_answer(status, id, &error);
                if status == StatusCode::UNAUTHORIZED {
                    self.push_challenge(&mut answer, None);
                }
                answer
            }
        }
    }

    fn unauthenticated(&self, failure: &AuthFailure, bytes: &[u8]) -> Answer {
        let id = jsonrpc::peek_id(bytes, self.config.limits.max_json_depth);
        let error = Error::new(ErrorKind::ExtAuthRequired, failure.message());
        let mut answer = error_answer(StatusCode::UNAUTHORIZED, &id, &error);
        self.push_challenge(&mut answer, Some(failure));
        answer
    }
}
