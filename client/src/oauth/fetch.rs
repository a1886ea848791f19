//! The HTTP exchanges the flows make, with the rules every one of them keeps:
//! only `https` (or `http` to this machine), answers read up to a bound and
//! parsed as JSON objects, and failures named by the URL asked.

use crate::oauth::error::OAuthError;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::Url;
use serde_json::{Map, Value};
use std::net::IpAddr;

/// Largest token or device-authorization answer read: real ones are a few
/// hundred bytes, a JWT access token a few kilobytes.
pub(crate) const TOKEN_ANSWER_LIMIT: usize = 64 * 1024;
/// Largest metadata document read; real ones are a few kilobytes.
pub(crate) const METADATA_LIMIT: usize = 256 * 1024;

/// `url` parsed, when it is absolute `https`, or `http` to a loopback host.
pub(crate) fn checked_url(url: &str) -> Result<Url, OAuthError> {
    let parsed = Url::parse(url).map_err(|e| OAuthError::InvalidUrl {
        url: url.to_string(),
        reason: e.to_string(),
    })?;
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(&parsed) => Ok(parsed),
        "http" => Err(OAuthError::InsecureUrl(url.to_string())),
        other => Err(OAuthError::InvalidUrl {
            url: url.to_string(),
            reason: format!("scheme `{other}` is not http or https"),
        }),
    }
}

/// True when `url`'s host is this machine: a loopback address or `localhost`.
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host_str() {
        None => false,
        Some(host) => {
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            match bare.parse::<IpAddr>() {
                Ok(ip) => ip.is_loopback(),
                Err(_) => bare.eq_ignore_ascii_case("localhost"),
            }
        }
    }
}

/// What a reqwest failure was, without the URL (the error names it once).
fn transport(url: &Url, error: reqwest::Error) -> OAuthError {
    let error = error.without_url();
    let mut reason = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        reason.push_str(": ");
        reason.push_str(&cause.to_string());
        source = cause.source();
    }
    OAuthError::Transport {
        url: url.to_string(),
        reason,
    }
}

/// The body of `response`, read up to `limit` bytes.
async fn read_bounded(
    mut response: reqwest::Response,
    url: &Url,
    limit: usize,
) -> Result<Vec<u8>, OAuthError> {
    let too_large = || OAuthError::TooLarge {
        url: url.to_string(),
        limit,
    };
    if response.content_length().is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| transport(url, e))? {
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `body` as a JSON object, or `None` when it is something else.
fn json_object(body: &[u8]) -> Option<Map<String, Value>> {
    match serde_json::from_slice(body) {
        Ok(Value::Object(object)) => Some(object),
        _ => None,
    }
}

/// An answer's status and its body as a JSON object, when it is one.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Option<Map<String, Value>>,
}

/// `GET url`, wanting a 200 with a JSON object (a metadata document).
pub(crate) async fn get_json(
    http: &reqwest::Client,
    url: &str,
    limit: usize,
) -> Result<Map<String, Value>, OAuthError> {
    let parsed = checked_url(url)?;
    let response = http
        .get(parsed.clone())
        .header(ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| transport(&parsed, e))?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(OAuthError::Status {
            url: parsed.to_string(),
            status,
        });
    }
    let body = read_bounded(response, &parsed, limit).await?;
    json_object(&body).ok_or_else(|| OAuthError::Malformed {
        url: parsed.to_string(),
        reason: "not a JSON object".into(),
    })
}

/// `POST url` with `form` as `application/x-www-form-urlencoded`, and HTTP
/// Basic credentials (already form-encoded, RFC 6749 §2.3.1) when given.
pub(crate) async fn post_form(
    http: &reqwest::Client,
    url: &str,
    form: &[(&str, &str)],
    basic: Option<(&str, &str)>,
) -> Result<Answer, OAuthError> {
    let parsed = checked_url(url)?;
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let mut request = http
        .post(parsed.clone())
        .header(ACCEPT, "application/json")
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body);
    if let Some((user, password)) = basic {
        request = request.basic_auth(user, Some(password));
    }
    let response = request.send().await.map_err(|e| transport(&parsed, e))?;
    let status = response.status().as_u16();
    let body = read_bounded(response, &parsed, TOKEN_ANSWER_LIMIT).await?;
    Ok(Answer {
        status,
        body: json_object(&body),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_tls_or_loopback() {
        assert!(checked_url("https://auth.example/token").is_ok());
        assert!(checked_url("http://127.0.0.1:8080/token").is_ok());
        assert!(checked_url("http://127.8.9.10/token").is_ok());
        assert!(checked_url("http://[::1]:9/token").is_ok());
        assert!(checked_url("http://localhost:9/token").is_ok());
        assert!(matches!(
            checked_url("http://auth.example/token"),
            Err(OAuthError::InsecureUrl(u)) if u == "http://auth.example/token"
        ));
        assert!(matches!(
            checked_url("http://10.0.0.1/token"),
            Err(OAuthError::InsecureUrl(_))
        ));
        assert!(matches!(
            checked_url("ftp://auth.example/token"),
            Err(OAuthError::InvalidUrl { reason, .. }) if reason == "scheme `ftp` is not http or https"
        ));
        assert!(matches!(
            checked_url("/token"),
            Err(OAuthError::InvalidUrl { .. })
        ));
    }

    #[test]
    fn json_objects_only() {
        assert_eq!(json_object(br#"{"a":1}"#).map(|o| o.len()), Some(1));
        assert!(json_object(b"[1]").is_none());
        assert!(json_object(b"{").is_none());
        assert!(json_object(b"").is_none());
    }
}
