//! What can go wrong while obtaining, keeping or refreshing a token, in words
//! a person can act on. An authorization server's own refusal keeps its OAuth
//! `error` code (RFC 6749 §5.2, RFC 8628 §3.5) so callers can switch on it.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// The OAuth `error` codes this client tells apart; others are kept as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// `invalid_request`: a parameter is missing, repeated or malformed.
    InvalidRequest,
    /// `invalid_client`: the client is unknown or its authentication failed.
    InvalidClient,
    /// `invalid_grant`: the code or refresh token is invalid, expired or revoked.
    InvalidGrant,
    /// `unauthorized_client`: the client may not use this grant.
    UnauthorizedClient,
    /// `unsupported_grant_type`: the server does not run this grant.
    UnsupportedGrantType,
    /// `invalid_scope`: a requested scope is unknown or not allowed.
    InvalidScope,
    /// `authorization_pending`: the person has not answered yet (RFC 8628).
    AuthorizationPending,
    /// `slow_down`: poll less often, 5 seconds more from now on (RFC 8628).
    SlowDown,
    /// `access_denied`: the person refused the request (RFC 8628).
    AccessDenied,
    /// `expired_token`: the device code expired unanswered (RFC 8628).
    ExpiredToken,
    /// Any other code, as the server sent it.
    Other(String),
}

impl ErrorCode {
    /// The code as it travels.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidClient => "invalid_client",
            ErrorCode::InvalidGrant => "invalid_grant",
            ErrorCode::UnauthorizedClient => "unauthorized_client",
            ErrorCode::UnsupportedGrantType => "unsupported_grant_type",
            ErrorCode::InvalidScope => "invalid_scope",
            ErrorCode::AuthorizationPending => "authorization_pending",
            ErrorCode::SlowDown => "slow_down",
            ErrorCode::AccessDenied => "access_denied",
            ErrorCode::ExpiredToken => "expired_token",
            ErrorCode::Other(code) => code,
        }
    }

    /// The code named by `code`.
    pub fn parse(code: &str) -> Self {
        match code {
            "invalid_request" => ErrorCode::InvalidRequest,
            "invalid_client" => ErrorCode::InvalidClient,
            "invalid_grant" => ErrorCode::InvalidGrant,
            "unauthorized_client" => ErrorCode::UnauthorizedClient,
            "unsupported_grant_type" => ErrorCode::UnsupportedGrantType,
            "invalid_scope" => ErrorCode::InvalidScope,
            "authorization_pending" => ErrorCode::AuthorizationPending,
            "slow_down" => ErrorCode::SlowDown,
            "access_denied" => ErrorCode::AccessDenied,
            "expired_token" => ErrorCode::ExpiredToken,
            other => ErrorCode::Other(other.to_string()),
        }
    }

    /// What the code means for the person running the client.
    fn meaning(&self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "the authorization server rejected the request as malformed",
            ErrorCode::InvalidClient => "the authorization server did not accept the client id or secret",
            ErrorCode::InvalidGrant => {
                "the authorization server did not accept the grant (expired, revoked or already used)"
            }
            ErrorCode::UnauthorizedClient => "this client is not allowed to use this grant",
            ErrorCode::UnsupportedGrantType => "the authorization server does not support this grant",
            ErrorCode::InvalidScope => "a requested scope is unknown or not allowed",
            ErrorCode::AuthorizationPending => "the request has not been approved yet",
            ErrorCode::SlowDown => "the authorization server asked to poll less often",
            ErrorCode::AccessDenied => "the login was denied",
            ErrorCode::ExpiredToken => {
                "the code expired before the login was approved; start the login again"
            }
            ErrorCode::Other(_) => "the authorization server refused the request",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a token could not be obtained, kept or refreshed.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// The authorization server refused with an OAuth error.
    #[error("{}: {code}{}", code.meaning(), description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Server {
        /// The OAuth `error` code.
        code: ErrorCode,
        /// The server's `error_description`, cut to printable text.
        description: Option<String>,
        /// The HTTP status it came with.
        status: u16,
    },
    /// No approval came before the device code's lifetime or the caller's
    /// bound ran out.
    #[error("gave up waiting for the login to be approved after {} s", waited.as_secs())]
    TimedOut {
        /// How long the flow waited in all.
        waited: Duration,
    },
    /// The HTTP client could not be built (its TLS setup, say).
    #[error("cannot set up the HTTP client: {0}")]
    Setup(String),
    /// The server could not be reached, or the exchange broke off.
    #[error("cannot reach {url}: {reason}")]
    Transport {
        /// The URL asked.
        url: String,
        /// What failed.
        reason: String,
    },
    /// An HTTP status that carries no OAuth error.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL asked.
        url: String,
        /// The status.
        status: u16,
    },
    /// An answer that is not what the specification says it must be.
    #[error("malformed answer from {url}: {reason}")]
    Malformed {
        /// The URL asked.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// An answer larger than anything legitimate; not read further.
    #[error("the answer from {url} is larger than {limit} bytes")]
    TooLarge {
        /// The URL asked.
        url: String,
        /// The bound.
        limit: usize,
    },
    /// A URL that is not absolute `http(s)`.
    #[error("`{url}` is not a usable URL: {reason}")]
    InvalidUrl {
        /// The URL.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// An `http` URL to a host that is not this machine: credentials would
    /// travel in clear text.
    #[error("refusing `{0}`: OAuth endpoints must use https (plain http only on a loopback address)")]
    InsecureUrl(String),
    /// A metadata document names another issuer than the one it was fetched
    /// for: it may be an impostor's (OpenID Connect Discovery 1.0 §4.3,
    /// RFC 8414 §3.3).
    #[error("the metadata at {url} names issuer `{found}`, but it must be `{expected}`")]
    IssuerMismatch {
        /// The document's URL.
        url: String,
        /// The issuer the URL implies.
        expected: String,
        /// The issuer the document names.
        found: String,
    },
    /// A token of a type other than `Bearer`, which this client cannot present.
    #[error("the authorization server issued a `{0}` token; only Bearer tokens are supported")]
    UnsupportedTokenType(String),
    /// A flow handed to a grant it does not describe.
    #[error("this flow is not a {expected} flow")]
    WrongGrant {
        /// The card's name of the flow wanted.
        expected: &'static str,
    },
    /// Keeping or reading the token failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl OAuthError {
    /// The OAuth error code, when the server refused with one.
    pub fn code(&self) -> Option<&ErrorCode> {
        match self {
            OAuthError::Server { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// `text` as it may be shown: printable characters only (a server's words
/// must not drive the terminal), at most `max` of them.
pub(crate) fn printable(text: &str, max: usize) -> String {
    let mut out: String = text.chars().filter(|c| !c.is_control()).take(max).collect();
    if text.chars().filter(|c| !c.is_control()).nth(max).is_some() {
        out.push('…');
    }
    out
}

/// Why a token could not be kept or read back.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Neither `XDG_CONFIG_HOME` nor `HOME` names a directory.
    #[error("no configuration directory: set XDG_CONFIG_HOME or HOME")]
    NoConfigDir,
    /// The agent's URL has no origin tokens could be kept under.
    #[error("`{url}` is not an http(s) URL of an agent")]
    InvalidAgent {
        /// The URL given.
        url: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// A file that is not a token file of this format.
    #[error("{} is not a readable token file: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong (never its content).
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for code in [
            "invalid_request",
            "invalid_client",
            "invalid_grant",
            "unauthorized_client",
            "unsupported_grant_type",
            "invalid_scope",
            "authorization_pending",
            "slow_down",
            "access_denied",
            "expired_token",
            "server_error",
        ] {
            assert_eq!(ErrorCode::parse(code).as_str(), code);
        }
        assert_eq!(
            ErrorCode::parse("server_error"),
            ErrorCode::Other("server_error".into())
        );
    }

    #[test]
    fn messages_carry_code_and_description() {
        let error = OAuthError::Server {
            code: ErrorCode::AccessDenied,
            description: Some("The user said no".into()),
            status: 400,
        };
        assert_eq!(
            error.to_string(),
            "the login was denied: access_denied (The user said no)"
        );
        assert_eq!(error.code(), Some(&ErrorCode::AccessDenied));
        let bare = OAuthError::Server {
            code: ErrorCode::InvalidClient,
            description: None,
            status: 401,
        };
        assert_eq!(
            bare.to_string(),
            "the authorization server did not accept the client id or secret: invalid_client"
        );
    }

    #[test]
    fn printable_drops_controls_and_bounds_length() {
        assert_eq!(printable("a\u{1b}[31mb\nc", 10), "a[31mbc");
        assert_eq!(printable("abcdef", 3), "abc…");
        assert_eq!(printable("abc", 3), "abc");
    }
}
