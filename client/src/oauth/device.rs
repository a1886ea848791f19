//! The device authorization grant (RFC 8628): the client asks for a device
//! code, shows the person a short user code and where to enter it, and polls
//! the token endpoint until the person approves or denies on another device,
//! or the code expires.
//!
//! The pace of polling is the server's: `interval` seconds between requests
//! (5 when it names none, never less than one), 5 seconds more after each
//! `slow_down`, and doubled after a request that did not reach it (§3.5). All
//! waiting goes through the [`Clock`](crate::oauth::Clock), so the loop can
//! never spin, and a test can see each wait it asked for.

use crate::oauth::error::{printable, OAuthError};
use crate::oauth::token::{oauth_error, scope_param, seconds, ClientAuth, TokenResponse};
use crate::oauth::{ErrorCode, Flow, Grant, OAuthClient, DEVICE_CODE_GRANT};
use serde_json::Value;
use std::fmt;
use std::time::{Duration, Instant};

/// Polling interval when the server names none (RFC 8628 §3.2).
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);
/// What each `slow_down` adds to the interval (RFC 8628 §3.5).
pub const SLOW_DOWN_STEP: Duration = Duration::from_secs(5);
/// The shortest interval used, whatever the server says: polling must never
/// become a busy loop.
pub const MIN_INTERVAL: Duration = Duration::from_secs(1);
/// A bound on the whole wait a caller may use when it has no better one.
pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(15 * 60);
/// Requests in a row that may fail to reach the server (or meet a 5xx)
/// before polling gives up.
const TRANSPORT_RETRIES: u32 = 3;

/// The server's answer to a device authorization request (RFC 8628 §3.2).
#[derive(Clone, PartialEq, Eq)]
pub struct DeviceAuthorization {
    /// The code the client polls with; a credential, never shown.
    pub device_code: String,
    /// The code the person enters, cut to printable text.
    pub user_code: String,
    /// Where the person enters it, cut to printable text.
    pub verification_uri: String,
    /// The same page with the code already filled in, when offered.
    pub verification_uri_complete: Option<String>,
    /// How long the codes stay valid, from the answer.
    pub expires_in: Duration,
    /// The wait between polls, at least [`MIN_INTERVAL`].
    pub interval: Duration,
}

impl fmt::Debug for DeviceAuthorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceAuthorization")
            .field("device_code", &"***")
            .field("user_code", &self.user_code)
            .field("verification_uri", &self.verification_uri)
            .field("verification_uri_complete", &self.verification_uri_complete)
            .field("expires_in", &self.expires_in)
            .field("interval", &self.interval)
            .finish()
    }
}

/// Longest user code or verification URI kept for display.
const DISPLAY_LIMIT: usize = 2048;

/// The device authorization in `answer` from `url`.
fn authorization_outcome(
    url: &str,
    status: u16,
    body: Option<serde_json::Map<String, Value>>,
) -> Result<DeviceAuthorization, OAuthError> {
    if let Some(error) = oauth_error(status, body.as_ref()) {
        return Err(error);
    }
    if !(200..300).contains(&status) {
        return Err(OAuthError::Status {
            url: url.to_string(),
            status,
        });
    }
    let malformed = |reason: String| OAuthError::Malformed {
        url: url.to_string(),
        reason,
    };
    let body = body.ok_or_else(|| malformed("not a JSON object".into()))?;
    let text = |name: &str| {
        body.get(name)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(|s| printable(s, DISPLAY_LIMIT))
    };
    let required = |name: &str| text(name).ok_or_else(|| malformed(format!("no `{name}`")));
    let device_code = body
        .get("device_code")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| malformed("no `device_code`".into()))?
        .to_string();
    // `verification_url` is the name a few servers used before the RFC.
    let verification_uri = text("verification_uri")
        .or_else(|| text("verification_url"))
        .ok_or_else(|| malformed("no `verification_uri`".into()))?;
    let expires_in = seconds(body.get("expires_in")).ok_or_else(|| malformed("no `expires_in`".into()))?;
    let interval = seconds(body.get("interval"))
        .map(Duration::from_secs)
        .unwrap_or(DEFAULT_INTERVAL)
        .max(MIN_INTERVAL);
    Ok(DeviceAuthorization {
        device_code,
        user_code: required("user_code")?,
        verification_uri,
        verification_uri_complete: text("verification_uri_complete"),
        expires_in: Duration::from_secs(expires_in),
        interval,
    })
}

impl OAuthClient {
    /// Asks `flow`'s device authorization endpoint for a device and user
    /// code for `client`, with `scopes` (none: the server's default).
    pub async fn start_device_authorization(
        &self,
        flow: &Flow,
        client: &ClientAuth,
        scopes: &[String],
    ) -> Result<DeviceAuthorization, OAuthError> {
        let Grant::DeviceCode {
            device_authorization_url: url,
        } = &flow.grant
        else {
            return Err(OAuthError::WrongGrant {
                expected: "deviceCode",
            });
        };
        let params = scope_param(scopes).map(|s| ("scope", s)).into_iter().collect();
        let method = client.method_for(flow.auth_methods.as_deref());
        let answer = self.client_post(url, client, method, params).await?;
        authorization_outcome(url, answer.status, answer.body)
    }

    /// Polls `flow`'s token endpoint with `authorization`'s device code
    /// until the person approves (the token), denies (`access_denied`), the
    /// code expires (`expired_token`), or the code's lifetime or `max_wait`,
    /// whichever is shorter, would be over before the next poll
    /// ([`OAuthError::TimedOut`]).
    pub async fn poll_device_token(
        &self,
        flow: &Flow,
        client: &ClientAuth,
        authorization: &DeviceAuthorization,
        max_wait: Duration,
    ) -> Result<TokenResponse, OAuthError> {
        if !matches!(flow.grant, Grant::DeviceCode { .. }) {
            return Err(OAuthError::WrongGrant {
                expected: "deviceCode",
            });
        }
        let clock = self.clock();
        let start = clock.instant();
        // No deadline only when the sum overflows: then the server's expiry ends it.
        let deadline = start.checked_add(authorization.expires_in.min(max_wait));
        let method = client.method_for(flow.auth_methods.as_deref());
        let mut interval = authorization.interval;
        let mut failures = 0;
        loop {
            let now = clock.instant();
            if past(now, interval, deadline) {
                return Err(OAuthError::TimedOut {
                    waited: now.saturating_duration_since(start),
                });
            }
            clock.sleep(interval).await;
            let params = vec![
                ("grant_type", DEVICE_CODE_GRANT.to_string()),
                ("device_code", authorization.device_code.clone()),
            ];
            match self.token_request(&flow.token_url, client, method, params).await {
                Ok(token) => return Ok(token),
                Err(OAuthError::Server {
                    code: ErrorCode::AuthorizationPending,
                    ..
                }) => failures = 0,
                Err(OAuthError::Server {
                    code: ErrorCode::SlowDown,
                    ..
                }) => {
                    failures = 0;
                    interval = interval.saturating_add(SLOW_DOWN_STEP);
                }
                Err(error) if transient(&error) && failures < TRANSPORT_RETRIES => {
                    failures += 1;
                    interval = interval.saturating_mul(2);
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// The whole device flow: asks for the codes, hands them to `show` (which
    /// tells the person where to go and what to enter), then polls as
    /// [`OAuthClient::poll_device_token`] does.
    pub async fn device_login<F>(
        &self,
        flow: &Flow,
        client: &ClientAuth,
        scopes: &[String],
        max_wait: Duration,
        show: F,
    ) -> Result<TokenResponse, OAuthError>
    where
        F: FnOnce(&DeviceAuthorization) + Send,
    {
        let authorization = self.start_device_authorization(flow, client, scopes).await?;
        show(&authorization);
        self.poll_device_token(flow, client, &authorization, max_wait)
            .await
    }
}

/// True when a poll after waiting `interval` from `now` would come after `deadline`.
fn past(now: Instant, interval: Duration, deadline: Option<Instant>) -> bool {
    match (deadline, now.checked_add(interval)) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(deadline), Some(next)) => next > deadline,
    }
}

/// A failure worth another poll later: the server was not reached, or said
/// it is in trouble without an OAuth error.
fn transient(error: &OAuthError) -> bool {
    match error {
        OAuthError::Transport { .. } => true,
        OAuthError::Status { status, .. } => *status >= 500,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome(status: u16, body: Value) -> Result<DeviceAuthorization, OAuthError> {
        authorization_outcome("u", status, body.as_object().cloned())
    }

    #[test]
    fn authorization_answer() {
        let got = outcome(
            200,
            json!({"device_code": "dc", "user_code": "WDJB-MJHT", "verification_uri": "https://ex/device",
                   "verification_uri_complete": "https://ex/device?user_code=WDJB-MJHT",
                   "expires_in": 1800, "interval": 3}),
        )
        .unwrap();
        assert_eq!(
            got,
            DeviceAuthorization {
                device_code: "dc".into(),
                user_code: "WDJB-MJHT".into(),
                verification_uri: "https://ex/device".into(),
                verification_uri_complete: Some("https://ex/device?user_code=WDJB-MJHT".into()),
                expires_in: Duration::from_secs(1800),
                interval: Duration::from_secs(3),
            }
        );
        assert!(!format!("{got:?}").contains("\"dc\""));
    }

    #[test]
    fn interval_defaults_and_floor() {
        let base = json!({"device_code": "dc", "user_code": "U", "verification_url": "https://ex/d", "expires_in": 60});
        let got = outcome(200, base.clone()).unwrap();
        assert_eq!(got.interval, DEFAULT_INTERVAL);
        assert_eq!(got.verification_uri, "https://ex/d");
        let mut zero = base;
        zero["interval"] = json!(0);
        assert_eq!(outcome(200, zero).unwrap().interval, MIN_INTERVAL);
    }

    #[test]
    fn authorization_refusals_and_malformed_answers() {
        assert!(matches!(
            outcome(401, json!({"error": "invalid_client"})),
            Err(OAuthError::Server {
                code: ErrorCode::InvalidClient,
                status: 401,
                ..
            })
        ));
        assert!(matches!(
            outcome(500, json!("x")),
            Err(OAuthError::Status { status: 500, .. })
        ));
        let full = json!({"device_code": "dc", "user_code": "U", "verification_uri": "https://ex/d", "expires_in": 60});
        for field in ["device_code", "user_code", "verification_uri", "expires_in"] {
            let mut partial = full.clone();
            partial.as_object_mut().unwrap().remove(field);
            match outcome(200, partial) {
                Err(OAuthError::Malformed { reason, .. }) => assert_eq!(reason, format!("no `{field}`")),
                other => panic!("{field}: {other:?}"),
            }
        }
        let mut wrong_type = full;
        wrong_type["user_code"] = json!(7);
        assert!(matches!(
            outcome(200, wrong_type),
            Err(OAuthError::Malformed { .. })
        ));
    }

    #[test]
    fn deadline_arithmetic() {
        let now = Instant::now();
        let second = Duration::from_secs(1);
        assert!(!past(now, second, Some(now + second)));
        assert!(past(now, second * 2, Some(now + second)));
        assert!(!past(now, Duration::MAX, None));
        assert!(past(now, Duration::MAX, Some(now)));
    }
}
