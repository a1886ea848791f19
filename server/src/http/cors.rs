//! Cross-origin access for browsers: which origin may read an answer, the
//! preflight of a request a browser will not send without asking, and the
//! headers of an answer a page may read.
//!
//! A request's origin is judged once, before routing. A request without an
//! `Origin` (any client that is not a browser) and a page of the agent's own
//! origin need no CORS. A listed origin gets its own name back, never `*`
//! when credentials are allowed. Any other origin is refused: a bare 403
//! with no CORS header and no body, so a page of that origin learns nothing,
//! not even an error's text, and the request is never run.

use crate::config::{ApiKeyLocation, AuthConfig, CorsConfig};
use crate::error::ServerError;
use crate::negotiate::{A2A_EXTENSIONS_HEADER, A2A_VERSION_HEADER, EXTENSION_VERSION_HEADER};
use http::header::{self, HeaderMap, HeaderValue};
use http::Method;

/// The methods the bindings use (HTTP+JSON reads with GET and deletes with DELETE).
const ALLOWED_METHODS: &str = "GET, POST, DELETE";

/// What a request's `Origin` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum OriginCheck {
    /// No `Origin`, or the agent's own: served as it is.
    NotCrossOrigin,
    /// A configured origin: served with CORS headers naming `allow`.
    Allowed { allow: HeaderValue },
    /// Any other origin: refused unread.
    Refused,
}

/// The CORS policy of a listener, settled from its configuration.
#[derive(Debug)]
pub(super) struct Cors {
    origins: Vec<String>,
    any_origin: bool,
    credentials: bool,
    allow_headers: HeaderValue,
    expose_headers: HeaderValue,
    max_age: HeaderValue,
}

impl Cors {
    /// The policy of `cors`, allowing the API-key header that `auth` names.
    /// An origin that is not `scheme://host[:port]`, and `*` with
    /// credentials, are configuration errors.
    pub(super) fn from_config(cors: &CorsConfig, auth: &AuthConfig) -> Result<Cors, ServerError> {
        let any_origin = cors.allowed_origins.iter().any(|o| o == "*");
        if any_origin && cors.allow_credentials {
            return Err(ServerError::Config(
                "cors.allowed_origins `*` with cors.allow_credentials would let any site act with a \
                 visitor's credentials: list the origins"
                    .into(),
            ));
        }
        for origin in cors.allowed_origins.iter().filter(|o| *o != "*") {
            if !is_serialized_origin(origin) {
                return Err(ServerError::Config(format!(
                    "cors.allowed_origins: `{origin}` is not an origin (scheme://host[:port], no path, no trailing `/`)"
                )));
            }
        }
        let mut allow = format!(
            "Content-Type, Authorization, Last-Event-ID, {A2A_VERSION_HEADER}, {A2A_EXTENSIONS_HEADER}, \
             {EXTENSION_VERSION_HEADER}"
        );
        // A key in the query string or a cookie needs no header of its own.
        if auth.api_key_location == ApiKeyLocation::Header {
            allow.push_str(", ");
            allow.push_str(&auth.api_key_name);
        }
        let header = |text: String, what: &str| {
            HeaderValue::try_from(text)
                .map_err(|_| ServerError::Config(format!("{what} is not a valid header value")))
        };
        Ok(Cors {
            origins: cors.allowed_origins.iter().filter(|o| *o != "*").cloned().collect(),
            any_origin,
            credentials: cors.allow_credentials,
            allow_headers: header(allow, "auth.api_key_name")?,
            expose_headers: header(
                format!("{A2A_VERSION_HEADER}, {A2A_EXTENSIONS_HEADER}, {EXTENSION_VERSION_HEADER}, WWW-Authenticate, ETag"),
                "the exposed headers",
            )?,
            max_age: header(cors.max_age_secs.to_string(), "cors.max_age_secs")?,
        })
    }

    /// Whether any other origin may read answers: then every answer varies
    /// by `Origin`, those without CORS headers too.
    pub(super) fn is_enabled(&self) -> bool {
        self.any_origin || !self.origins.is_empty()
    }

    /// Judges the request's `Origin` against its `Host` and the policy.
    pub(super) fn check(&self, headers: &HeaderMap) -> OriginCheck {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return OriginCheck::NotCrossOrigin;
        };
        let Ok(text) = origin.to_str() else {
            return OriginCheck::Refused;
        };
        // A browser says so itself (a page cannot forge Sec-Fetch-Site), or
        // the origin names the host the request was sent to.
        let same_site = headers
            .get("sec-fetch-site")
            .is_some_and(|site| site == "same-origin");
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let same_host =
            host.is_some_and(|host| authority_of(text).is_some_and(|a| a.eq_ignore_ascii_case(host)));
        if same_site || same_host {
            return OriginCheck::NotCrossOrigin;
        }
        if self.origins.iter().any(|o| o == text) {
            return OriginCheck::Allowed {
                allow: origin.clone(),
            };
        }
        if self.any_origin && text != "null" {
            return OriginCheck::Allowed {
                allow: HeaderValue::from_static("*"),
            };
        }
        OriginCheck::Refused
    }

    /// Whether `method` with these headers is a CORS preflight (RFC: an
    /// OPTIONS naming the method it asks for).
    pub(super) fn is_preflight(method: &Method, headers: &HeaderMap) -> bool {
        method == Method::OPTIONS && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
    }

    /// The headers of a preflight's answer for an allowed origin.
    pub(super) fn preflight_headers(&self, allow: HeaderValue, headers: &mut HeaderMap) {
        self.common(allow, headers);
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(ALLOWED_METHODS),
        );
        headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, self.allow_headers.clone());
        headers.insert(header::ACCESS_CONTROL_MAX_AGE, self.max_age.clone());
        for varies in ["Access-Control-Request-Method", "Access-Control-Request-Headers"] {
            headers.append(header::VARY, HeaderValue::from_static(varies));
        }
    }

    /// The headers of an answer to an allowed origin's request.
    pub(super) fn response_headers(&self, allow: HeaderValue, headers: &mut HeaderMap) {
        self.common(allow, headers);
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, self.expose_headers.clone());
    }

    fn common(&self, allow: HeaderValue, headers: &mut HeaderMap) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allow);
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
        if self.credentials {
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
                HeaderValue::from_static("true"),
            );
        }
    }
}

/// The `host[:port]` of a serialized origin, `None` for anything else.
fn authority_of(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    (matches!(scheme, "http" | "https") && !rest.is_empty() && !rest.contains(['/', '?', '#', '@']))
        .then_some(rest)
}

fn is_serialized_origin(origin: &str) -> bool {
    authority_of(origin).is_some_and(|authority| !authority.chars().any(char::is_whitespace))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(origins: &[&str], credentials: bool) -> Result<Cors, ServerError> {
        let cors = CorsConfig {
            allowed_origins: origins.iter().map(|o| o.to_string()).collect(),
            allow_credentials: credentials,
            max_age_secs: 600,
        };
        Cors::from_config(&cors, &AuthConfig::default())
    }

    fn request(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn any_origin_with_credentials_is_a_configuration_error() {
        assert!(policy(&["*"], true).is_err());
        assert!(policy(&["*"], false).is_ok());
    }

    #[test]
    fn an_origin_with_a_path_is_a_configuration_error() {
        assert!(policy(&["https://app.example/"], false).is_err());
        assert!(policy(&["app.example"], false).is_err());
        assert!(policy(&["https://app.example:8443"], false).is_ok());
    }

    #[test]
    fn a_page_of_the_agents_own_origin_is_not_cross_origin() {
        let cors = policy(&[], false).unwrap();
        let headers = request(&[("origin", "http://127.0.0.1:7420"), ("host", "127.0.0.1:7420")]);
        assert_eq!(cors.check(&headers), OriginCheck::NotCrossOrigin);
        let headers = request(&[("origin", "http://127.0.0.1:9999"), ("host", "127.0.0.1:7420")]);
        assert_eq!(cors.check(&headers), OriginCheck::Refused);
    }

    #[test]
    fn the_null_origin_is_refused_even_with_any_origin() {
        let cors = policy(&["*"], false).unwrap();
        let headers = request(&[("origin", "null"), ("host", "127.0.0.1:7420")]);
        assert_eq!(cors.check(&headers), OriginCheck::Refused);
    }
}
