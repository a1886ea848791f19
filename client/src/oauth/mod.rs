//! OAuth 2.1 and OpenID Connect for a client of an agent: what an Agent Card
//! offers, how a token is obtained, and where it is kept until it is sent.
//!
//! An agent that wants bearer tokens from an authorization server says so in
//! its card (`securitySchemes`): an OAuth2 scheme lists its flows directly, an
//! OpenID Connect scheme names a discovery document that lists them. This
//! module turns both into the same [`Flow`] values ([`card`], [`discovery`]),
//! runs the two grants a command-line client can run unattended or with a
//! person at another device — the device authorization grant (RFC 8628) and
//! the client credentials grant (RFC 6749 §4.4) — ([`device`], [`token`]), and
//! keeps what it gets per agent in private files ([`store`]) so that later
//! calls find a current token with [`TokenStore::token_for`], refreshing it
//! when it has expired.
//!
//! The implicit and password grants are not offered: OAuth 2.1 removed both.
//! The authorization code grant needs a browser redirect to a local listener
//! and is reported as declared but not run here.
//!
//! Every URL this module sends a request to must be `https`, or `http` to a
//! loopback address (a development server on this machine): client secrets,
//! device codes and refresh tokens must not cross a network in clear text.
//! Token values never appear in `Debug` output or in error messages.

pub mod card;
mod clock;
pub mod device;
pub mod discovery;
mod error;
mod fetch;
pub mod store;
pub mod token;

pub use card::{
    oauth_schemes, resolve_flows, usable_flows, CardScheme, CardSchemeKind, ResolvedFlows, SchemeFlow,
};
pub use clock::{Clock, SystemClock};
pub use device::DeviceAuthorization;
pub use discovery::ServerMetadata;
pub use error::{ErrorCode, OAuthError};
pub use store::{default_dir, AgentKey, StoreError, StoredToken, TokenStore};
pub use token::{ClientAuth, ClientAuthMethod, Secret, TokenResponse};

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The `grant_type` of the device authorization grant (RFC 8628 §3.4).
pub const DEVICE_CODE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";
/// The `grant_type` of the client credentials grant (RFC 6749 §4.4.2).
pub const CLIENT_CREDENTIALS_GRANT: &str = "client_credentials";
/// The `grant_type` of a refresh (RFC 6749 §6).
pub const REFRESH_TOKEN_GRANT: &str = "refresh_token";

/// One way of obtaining a token from one authorization server, whether the
/// card declared it or a discovery document did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flow {
    /// The grant, with what only that grant needs.
    pub grant: Grant,
    /// The token endpoint.
    pub token_url: String,
    /// Where refresh tokens are redeemed, when not at `token_url`.
    pub refresh_url: Option<String>,
    /// The scopes the server offers, each with its description (empty when
    /// the source gives none, as discovery documents do).
    pub scopes: BTreeMap<String, String>,
    /// The issuer identifier, when a metadata document named (and proved) it.
    pub issuer: Option<String>,
    /// `token_endpoint_auth_methods_supported` of the server's metadata, when
    /// known: it decides how a confidential client authenticates.
    pub auth_methods: Option<Vec<String>>,
}

impl Flow {
    /// Where a refresh token is redeemed: `refresh_url`, else the token endpoint.
    pub fn refresh_endpoint(&self) -> &str {
        self.refresh_url.as_deref().unwrap_or(&self.token_url)
    }
}

/// The grants this client runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grant {
    /// Device authorization (RFC 8628): a person approves the request on
    /// another device while the client polls.
    DeviceCode {
        /// The device authorization endpoint.
        device_authorization_url: String,
    },
    /// Client credentials (RFC 6749 §4.4): the client acts as itself.
    ClientCredentials,
}

impl Grant {
    /// The card's name of the flow: `deviceCode` or `clientCredentials`.
    pub fn card_name(&self) -> &'static str {
        match self {
            Grant::DeviceCode { .. } => "deviceCode",
            Grant::ClientCredentials => "clientCredentials",
        }
    }

    /// The `grant_type` sent to the token endpoint.
    pub fn grant_type(&self) -> &'static str {
        match self {
            Grant::DeviceCode { .. } => DEVICE_CODE_GRANT,
            Grant::ClientCredentials => CLIENT_CREDENTIALS_GRANT,
        }
    }
}

/// What talks to authorization servers: an HTTP client and the clock the
/// flows wait and date tokens by.
#[derive(Clone)]
pub struct OAuthClient {
    http: reqwest::Client,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient").finish_non_exhaustive()
    }
}

impl OAuthClient {
    /// Requests go through `http` (configure its TLS roots there) and waits
    /// use the system clock. `http` should not follow redirects: a token
    /// request that is redirected is resent without its body or to another
    /// host, neither of which is wanted; [`OAuthClient::with_defaults`]
    /// builds such a client.
    pub fn new(http: reqwest::Client) -> Self {
        OAuthClient {
            http,
            clock: Arc::new(SystemClock),
        }
    }

    /// A client with bounded connect and request times, no redirects and the
    /// built-in web roots.
    pub fn with_defaults() -> Result<Self, OAuthError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("cleveragents-client/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| OAuthError::Setup(e.to_string()))?;
        Ok(OAuthClient::new(http))
    }

    /// The same client, waiting and dating tokens by `clock` (tests pass one
    /// that does not really wait).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The clock waits and expiry times are taken from.
    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.http
    }
}
