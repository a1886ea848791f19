//! `GET /metrics`: the agent's Prometheus metrics ([`a2a::metrics`]) in the
//! text exposition format 0.0.4.
//!
//! Guarded like the other non-public things: with authentication configured,
//! only a principal holding the admin role in every namespace (`*`) reads it,
//! since the counts are server-wide and tell of every namespace's traffic;
//! anyone else gets 401 (with the challenge) or 403. With no authentication
//! configured, which the server allows on loopback only, it is open.

use super::{plain, HttpState};
use crate::body::ResponseBody;
use a2a::rpc::Access;
use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;

/// Where the metrics are served.
pub const METRICS_PATH: &str = "/metrics";

/// The namespace whose admin role admits a caller: the wildcard, which
/// covers every namespace.
const EVERY_NAMESPACE: &str = "*";

impl HttpState {
    /// The metrics, or why the caller may not read them.
    pub(super) fn metrics(&self, request: &Request<Incoming>) -> Response<ResponseBody> {
        match self
            .auth
            .authenticate(request.headers(), request.extensions().get())
        {
            Err(_) => {
                let mut response = plain(StatusCode::UNAUTHORIZED, "authentication required\n");
                let challenge = match self.auth.challenge() {
                    "" => "Bearer realm=\"cleveragents\"",
                    challenge => challenge,
                };
                if let Ok(value) = HeaderValue::from_str(challenge) {
                    response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
                }
                return response;
            }
            Ok(Some(caller)) if !caller.principal.can(EVERY_NAMESPACE, Access::Admin) => {
                return plain(
                    StatusCode::FORBIDDEN,
                    "the metrics need the admin role in every namespace\n",
                );
            }
            Ok(_) => {}
        }
        let mut response = Response::new(ResponseBody::full(Bytes::from(self.config.metrics.render())));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(a2a::metrics::CONTENT_TYPE),
        );
        response
    }
}
