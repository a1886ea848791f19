//! The HTTP+JSON (REST) binding (spec §11) under the configured prefix: the
//! verb and path find the method in the generated route table, the params are
//! the JSON body with the path fields (and, without a body, the query fields)
//! added, and the call runs through the same pipeline as JSON-RPC. A result is
//! the bare JSON object, a stream SSE of bare `StreamResponse`s with the same
//! event ids, an error a `google.rpc.Status` body whose HTTP status and
//! `status` come from the error registry (§11.6). JSON answers are
//! `application/a2a+json` (§11.1) to a client whose `Accept` names it,
//! `application/json` to others.

use super::exchange::{respond, Answer, A2A_JSON};
use super::HttpState;
use crate::jsonrpc;

use crate::body::ResponseBody;
use crate::sse::Framing;
use a2a::rpc::rest::{find_route, status_body, RouteLookup};
use a2a::rpc::{Error, Outcome};
use a2a::{ErrorKind, METHODS};
use http::header::{self, HeaderValue};
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use serde_json::{Map, Value};

/// The Status answer of an error, with the registry's HTTP status unless the
/// transport's own refusal (413, 415, 429…) says otherwise.
fn error_answer(error: &Error, status: Option<StatusCode>) -> Answer {
    let (registry_status, mut body) = status_body::<ErrorKind>(error);
    let status = status
        .or_else(|| StatusCode::from_u16(registry_status).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    // The Status `code` is the HTTP status the answer carries.
    if let Some(code) = body.get_mut("error").and_then(|e| e.get_mut("code")) {
        *code = Value::from(status.as_u16());
    }
    Answer::json(status, serde_json::to_vec(&body).unwrap_or_default())
}

/// True when the request's `Accept` names `application/a2a+json` (with a
/// quality above zero).
fn accepts_a2a_json(headers: &http::HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|range| {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("");
            let refused = parts.any(|p| p.replace(' ', "").eq_ignore_ascii_case("q=0"));
            media.eq_ignore_ascii_case(A2A_JSON) && !refused
        })
}

/// The contract a path belongs to, as a method name would: extension routes
/// are their methods' wire names, so a path under the extension's prefix that
/// is no route is the extension's method-not-found.
fn contract_of_path(path: &str) -> a2a::Contract {
    a2a::rpc::contract_of_name(path.trim_start_matches('/'))
}

impl HttpState {
    /// Answers a request whose path is under the REST prefix; `path` is the
    /// part after it.
    pub(super) async fn rest(&self, request: Request<Incoming>, path: String) -> Response<ResponseBody> {
        let (parts, body) = request.into_parts();
        let a2a_json = accepts_a2a_json(&parts.headers);
        let mut response = respond(self.rest_answer(&parts, &path, body).await);
        // Spec §11.1 recommends application/a2a+json; clients that ask for it
        // get it, the others the application/json they know (SSE streams
        // stay text/event-stream).
        let headers = response.headers_mut();
        if a2a_json
            && headers
                .get(header::CONTENT_TYPE)
                .is_some_and(|t| t == "application/json")
        {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(A2A_JSON));
        }
        response
    }

    async fn rest_answer(&self, parts: &http::request::Parts, path: &str, body: Incoming) -> Answer {
        let found = match find_route(METHODS, parts.method.as_str(), path) {
            RouteLookup::Found(found) => found,
            RouteLookup::WrongVerb(verbs) => {
                let error = Error::new(
                    contract_of_path(path).method_not_found(),
                    format!(
                        "`{} {path}` is not a route; the path takes {}",
                        parts.method,
                        verbs.join(", ")
                    ),
                );
                let mut answer = error_answer(&error, Some(StatusCode::METHOD_NOT_ALLOWED));
                if let Ok(allow) = HeaderValue::from_str(&verbs.join(", ")) {
                    answer.extra.push((header::ALLOW, allow));
                }
                return answer;
            }
            RouteLookup::NotFound => {
                if let Some(segment) = a2a::rpc::route::malformed_segment(path) {
                    let shown: String = segment.chars().take(64).collect();
                    let error = Error::new(
                        ErrorKind::InvalidRequest,
                        format!("path segment `{shown}` is not valid percent-encoded UTF-8"),
                    );
                    return error_answer(&error, None);
                }
                // A path that is no route names no method: the method-not-found
                // JSON-RPC gives the name (extension routes are wire names).
                return error_answer(&a2a::rpc::method_not_found(path.trim_start_matches('/')), None);
            }
        };

        let bytes = match self.read_body(&parts.headers, body).await {
            Ok(bytes) => bytes,
            Err(refusal) => return error_answer(&refusal.error, Some(refusal.status)),
        };
        // Authenticate before looking at the request: unauthenticated callers
        // learn nothing but that they must authenticate.
        let caller = match self.auth.authenticate(&parts.headers, parts.extensions.get()) {
            Ok(caller) => caller,
            Err(failure) => {
                let error = Error::new(ErrorKind::ExtAuthRequired, failure.message());
                let mut answer = error_answer(&error, None);
                self.push_challenge(&mut answer, Some(&failure));
                return answer;
            }
        };

        let mut params = match self.rest_body(found.route.body, &bytes) {
            Ok(params) => params,
            Err(error) => return error_answer(&error, None),
        };
        // The path names the resource: its fields win over the body's.
        for (field, value) in found.path_fields {
            params.insert(field.to_string(), Value::String(value));
        }
        if !found.route.body {
            found
                .route
                .read_query(parts.uri.query().unwrap_or(""), &mut params);
        }

        let (ctx, dialect, extra) = match self.call_context(parts, None, caller.as_ref()) {
            Ok(negotiated) => negotiated,
            Err(error) => return error_answer(&error, None),
        };
        if let Err(error) = Self::only_v1_0(dialect, a2a::Binding::HttpJson) {
            return error_answer(&error, None);
        }
        let method = found.method.name;
        let slot = match self.stream_slot(dialect, method, true, caller.as_ref()) {
            Ok(slot) => slot,
            Err(error) => {
                let mut answer = error_answer(&error, Some(StatusCode::TOO_MANY_REQUESTS));
                answer.extra = extra;
                return answer;
            }
        };
        let outcome = self
            .pipeline
            .call(ctx, caller.as_ref(), method, Value::Object(params).into())
            .await;
        let mut answer = match outcome {
            Outcome::Single(Ok(result)) => Answer::json(StatusCode::OK, result.get().as_bytes().to_vec()),
            Outcome::Single(Err(error)) => {
                let mut answer = error_answer(&error, None);
                if answer.status == StatusCode::UNAUTHORIZED {
                    self.push_challenge(&mut answer, None);
                }
                answer
            }
            Outcome::Stream(events) => self.sse_answer(Framing::Bare, events, slot),
        };
        answer.extra.extend(extra);
        answer
    }

    /// The params a body carries: a JSON object, or none at all (an empty
    /// body, and every route without one, read as `{}`).
    fn rest_body(&self, has_body: bool, bytes: &[u8]) -> Result<Map<String, Value>, Error> {
        if !has_body || bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Map::new());
        }
        match jsonrpc::parse_json::<Value>(bytes, self.config.limits.max_json_depth)? {
            Value::Object(params) => Ok(params),
            _ => Err(Error::new(
                ErrorKind::InvalidRequest,
                "The request body must be a JSON object",
            )),
        }
    }
}
