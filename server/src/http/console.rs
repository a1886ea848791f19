//! The web console's assets, compiled into the binary (`server/console/`):
//! a page at `/console` and the scripts and styles it loads, served when
//! `http.console` is on. The page is a client like any other: it calls the
//! agent's JSON-RPC endpoint from the same origin with the credentials its
//! user enters, so serving it grants nothing.

use crate::body::ResponseBody;
use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};

/// Where the console is served.
pub(super) const CONSOLE_PATH: &str = "/console";

/// Path, content type and bytes of each asset.
const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "/console",
        "text/html; charset=utf-8",
        include_bytes!("../../console/index.html"),
    ),
    (
        "/console/console.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../console/console.js"),
    ),
    (
        "/console/console.css",
        "text/css; charset=utf-8",
        include_bytes!("../../console/console.css"),
    ),
    (
        "/console/contract.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../console/contract.js"),
    ),
];

/// Scripts and styles of the console's own origin only, nothing inline, no
/// framing by other pages.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                      img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Whether `path` is the console's.
pub(super) fn is_console_path(path: &str) -> bool {
    path == CONSOLE_PATH || path.starts_with("/console/")
}

/// The asset at `path`, or a 404.
pub(super) fn asset(path: &str) -> Response<ResponseBody> {
    let path = if path == "/console/" { CONSOLE_PATH } else { path };
    let Some((_, content_type, bytes)) = ASSETS.iter().find(|(p, _, _)| *p == path) else {
        let mut response = Response::new(ResponseBody::full(Bytes::from_static(b"not found\n")));
        *response.status_mut() = StatusCode::NOT_FOUND;
        return response;
    };
    let mut response = Response::new(ResponseBody::full(Bytes::from_static(bytes)));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}
