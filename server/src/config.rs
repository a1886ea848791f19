//! The server's configuration: what the agent binary fills in (from a file or
//! code) before it starts a transport. Every field has a sane default so
//! `ServerConfig::default()` is a working local setup.

use crate::error::ServerError;
use a2a::rpc::Access;
use a2a::types::{AgentExtension, AgentProvider, AgentSkill, OAuthFlows};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Everything the transports need to know. Deserializable (snake_case keys) so
/// the agent binary can read it from a file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Who the agent is: the Agent Card's identity and capability flags.
    pub agent: AgentInfo,
    /// Where and how the HTTP binding listens.
    pub http: HttpConfig,
    /// Cross-origin access for browser clients.
    pub cors: CorsConfig,
    /// Resource bounds of both transports.
    pub limits: Limits,
    /// Authentication schemes and principals (HTTP only; stdio runs as the user).
    pub auth: AuthConfig,
    /// Which versions of the A2A protocol are served beyond the released ones.
    /// Not read from the `server` section: the agent's file has an `a2a`
    /// section of its own, which the command line and environment extend.
    #[serde(skip)]
    pub a2a: A2aConfig,
    /// The registry the transports record calls and open streams into, served
    /// at `GET /metrics`; the agent shares it with the application. Not read
    /// from the file: each configuration starts with an empty one.
    #[serde(skip)]
    pub metrics: std::sync::Arc<a2a::metrics::Metrics>,
}

/// The A2A protocol versions served beyond the released ones.
#[derive(Clone, Debug, Default)]
pub struct A2aConfig {
    /// Draft versions to serve (e.g. `["1.1"]`): calls may ask for them
    /// (`A2A-Version`) and the card lists their interfaces beside the
    /// released ones. Each must be a draft the schema declares; none by default.
    pub draft_versions: Vec<String>,
}

/// The agent's identity as published in the Agent Card.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentInfo {
    /// The agent's name in the Agent Card.
    pub name: String,
    /// What the agent does, in the Agent Card.
    pub description: String,
    /// Version of the agent (not of the protocol).
    pub version: String,
    /// Implementation name reported as `serverInfo.name` by stdio `initialize`.
    pub implementation_name: String,
    /// The organization that provides the agent, if the card names one.
    pub provider: Option<AgentProvider>,
    /// URL of the agent's documentation, if any.
    pub documentation_url: Option<String>,
    /// URL of the agent's icon, if any.
    pub icon_url: Option<String>,
    /// Absolute URL of the JSON-RPC endpoint as clients reach it (behind a proxy,
    /// say). Defaults to `http://<listen><path>`.
    pub public_url: Option<String>,
    /// Absolute URL of the JSON-RPC endpoint on `http.v0_3_listen` as clients
    /// reach it. Defaults to `http://<v0_3_listen><path>`; unused without that
    /// address.
    pub v0_3_public_url: Option<String>,
    /// Media types the agent accepts in messages, unless a skill says otherwise.
    pub default_input_modes: Vec<String>,
    /// Media types the agent answers with, unless a skill says otherwise.
    pub default_output_modes: Vec<String>,
    /// Skills of the public card; `None` derives one skill per extension service
    /// from the generated method table.
    pub skills: Option<Vec<AgentSkill>>,
    /// Skills shown only in the extended card (`GetExtendedAgentCard`).
    pub extended_skills: Vec<AgentSkill>,
    /// Capability flags; they also gate the methods that need them.
    pub capabilities: CapabilityFlags,
    /// Keys the Agent Card is signed with (spec §8.4); none, unsigned.
    pub card_signing_keys: Vec<CardSigningKey>,
    /// Further extensions the agent serves, declared in the card's
    /// `capabilities.extensions` after the contract's own (an extension
    /// generated downstream gives its entry as `extension::agent_extension()`).
    pub extensions: Vec<AgentExtension>,
}

/// A key that signs the Agent Card (JWS over its canonical form, spec §8.4).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardSigningKey {
    /// The JWS `kid`: verifiers find the public key by it.
    pub kid: String,
    /// `ES256` (P-256 key) or `RS256` (RSA key).
    pub algorithm: String,
    /// The private key, PEM (PKCS#8, or SEC1/PKCS#1) in this file.
    pub private_key_file: std::path::PathBuf,
    /// The JWS `jku`: where verifiers may fetch the public keys (a JWKS).
    #[serde(default)]
    pub jku: Option<String>,
}

impl Default for AgentInfo {
    fn default() -> Self {
        AgentInfo {
            name: "CleverAgents".into(),
            description: "Plans and applies changes to versioned projects with registry-defined actions, tools and validations.".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            implementation_name: env!("CARGO_PKG_NAME").into(),
            provider: None,
            documentation_url: None,
            icon_url: None,
            public_url: None,
            v0_3_public_url: None,
            default_input_modes: vec!["text/plain".into(), "application/json".into()],
            default_output_modes: vec![
                "text/plain".into(),
                "application/json".into(),
                "text/markdown".into(),
            ],
            skills: None,
            extended_skills: Vec::new(),
            capabilities: CapabilityFlags::default(),
            card_signing_keys: Vec::new(),
            extensions: Vec::new(),
        }
    }
}

/// Optional protocol features. A method whose descriptor names a capability that
/// is off answers the spec's "not supported" error instead of reaching the backend.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CapabilityFlags {
    /// `SendStreamingMessage` and `SubscribeToTask`.
    pub streaming: bool,
    /// The push-notification config methods.
    pub push_notifications: bool,
    /// `GetExtendedAgentCard`; `None` means "on when authentication is configured".
    pub extended_agent_card: Option<bool>,
}

impl Default for CapabilityFlags {
    fn default() -> Self {
        CapabilityFlags {
            streaming: true,
            push_notifications: false,
            extended_agent_card: None,
        }
    }
}

/// The HTTP listener.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpConfig {
    /// Address the HTTP binding listens on (default `127.0.0.1:8080`).
    pub listen: SocketAddr,
    /// Path of the JSON-RPC endpoint (POST).
    pub path: String,
    /// Prefix of the HTTP+JSON (REST) binding's routes (`/rest` serves
    /// `POST /rest/message:send`); `""` serves no REST binding, `"/"` serves it
    /// at the root.
    pub rest_path: String,
    /// Serve the gRPC binding (spec §10) on this listener: HTTP/2 requests
    /// of content type `application/grpc` (default on).
    pub grpc: bool,
    /// Interval of SSE keep-alive comments, in seconds.
    pub keep_alive_secs: u64,
    /// How long graceful shutdown waits for in-flight requests, in seconds.
    pub shutdown_grace_secs: u64,
    /// The spec reads an absent `A2A-Version` as 0.3 (§3.6.2), and so does the
    /// server by default. Setting this (e.g. `"1.0"`) treats an absent header
    /// as that version instead, for lenient 1.0 clients that send none.
    pub assume_version_when_absent: Option<String>,
    /// A second address for A2A 0.3 clients. A 0.3 client finds its endpoint
    /// in the Agent Card of the origin it was given, and a 0.3 card's fields
    /// (`url`, `preferredTransport`, …) are not members of a 1.0 card. Without
    /// this address the one origin serves the 1.0 card with the 0.3 fields
    /// beside them to every client that does not ask for 1.0; with it, this
    /// address serves that card and the main address serves the plain 1.0
    /// card, whose 0.3 interface points here. Both addresses serve every
    /// binding and every version the same way; only the card differs.
    pub v0_3_listen: Option<SocketAddr>,
    /// A further address that serves the same as `listen` and is the one the
    /// card's GRPC interface names: for deployments (and test harnesses) that
    /// give gRPC a port of its own. Without it the GRPC interface is
    /// `listen`'s `host:port`. Needs `grpc`.
    pub grpc_listen: Option<SocketAddr>,
    /// `Cache-Control: max-age` of the Agent Card, in seconds (spec §8.6.1).
    pub card_max_age_secs: u64,
    /// Serve HTTPS with this certificate and key (both addresses).
    pub tls: Option<TlsConfig>,
    /// A TLS-terminating proxy forwards to this listener: credentials may be
    /// accepted on a network address without `tls`, the card's URLs are
    /// `agent.public_url` (which must then be an `https` URL), and only
    /// requests that a proxy of `trusted_proxies` says came over https
    /// (`X-Forwarded-Proto: https`) are served.
    pub behind_tls_proxy: bool,
    /// Addresses (`10.0.0.5`) and networks (`10.0.0.0/8`, `fd00::/8`) whose
    /// `X-Forwarded-Proto` is believed, with `behind_tls_proxy`.
    pub trusted_proxies: Vec<String>,
    /// Serve the web console at `/console` (default off): a page built on
    /// the TypeScript client that shows the card, tasks, plans and domain
    /// events, with its assets compiled into the binary. It calls the agent
    /// as any client does, with the credentials its user enters.
    pub console: bool,
}

/// The listener's certificate: re-read when either file changes.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// PEM certificate chain, the server's certificate first.
    pub cert_file: PathBuf,
    /// PEM private key of that certificate (PKCS#8, PKCS#1 or SEC1).
    pub key_file: PathBuf,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            path: "/".into(),
            rest_path: "/rest".into(),
            grpc: true,
            keep_alive_secs: 15,
            shutdown_grace_secs: 30,
            assume_version_when_absent: None,
            v0_3_listen: None,
            grpc_listen: None,
            card_max_age_secs: 300,
            tls: None,
            behind_tls_proxy: false,
            trusted_proxies: Vec::new(),
            console: false,
        }
    }
}

impl HttpConfig {
    /// The scheme of the listener's URLs: `https` with TLS.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() {
            "https"
        } else {
            "http"
        }
    }

    /// The REST binding's prefix without a trailing `/` (`""` at the root), or
    /// `None` when the binding is off.
    pub fn rest_prefix(&self) -> Option<&str> {
        (!self.rest_path.is_empty()).then(|| self.rest_path.trim_end_matches('/'))
    }

    /// The SSE keep-alive interval (at least one second).
    pub fn keep_alive(&self) -> Duration {
        Duration::from_secs(self.keep_alive_secs.max(1))
    }
    /// How long graceful shutdown waits for in-flight requests.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_secs(self.shutdown_grace_secs)
    }
}

/// CORS for pages of other origins. Empty `allowed_origins` lets no other
/// origin in: a browser request from one is refused with a bare 403 (pages
/// of the agent's own origin, and clients that are not browsers, send no
/// foreign `Origin` and are served as ever).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CorsConfig {
    /// Exact origins (`https://app.example.com`: scheme, host and port, no
    /// path), or `*` for any (not with `allow_credentials`).
    pub allowed_origins: Vec<String>,
    /// Send `Access-Control-Allow-Credentials: true`, for pages that send
    /// cookies or TLS client certificates; needs the origins listed.
    pub allow_credentials: bool,
    /// `Access-Control-Max-Age` of preflight answers, in seconds.
    pub max_age_secs: u64,
}

impl Default for CorsConfig {
    fn default() -> Self {
        CorsConfig {
            allowed_origins: Vec::new(),
            allow_credentials: false,
            max_age_secs: 600,
        }
    }
}

/// Resource bounds. Exceeding one is a clear error, never a crash.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest request body (HTTP) or line (stdio): 413 / -32600 beyond it.
    pub max_body_bytes: usize,
    /// Deepest JSON nesting accepted: -32600 beyond it.
    pub max_json_depth: usize,
    /// Largest request head (request line + headers): 431 beyond it.
    pub max_header_bytes: usize,
    /// Time allowed to send the request head; slow clients are disconnected.
    pub header_read_timeout_ms: u64,
    /// Time allowed to send the request body: 408 beyond it.
    pub body_read_timeout_ms: u64,
    /// Open SSE streams per principal (anonymous callers share one budget): 429 beyond it.
    pub max_streams_per_principal: usize,
    /// A stream with no event for this long is ended (the client may resume with
    /// `Last-Event-ID`).
    pub stream_idle_timeout_secs: u64,
    /// Requests one stdio session runs at once; reading pauses beyond it.
    pub max_stdio_in_flight: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 4 * 1024 * 1024,
            max_json_depth: 64,
            max_header_bytes: 16 * 1024,
            header_read_timeout_ms: 10_000,
            body_read_timeout_ms: 30_000,
            max_streams_per_principal: 16,
            stream_idle_timeout_secs: 300,
            max_stdio_in_flight: 256,
        }
    }
}

impl Limits {
    /// The time a client has to send the request head (at least 1 ms).
    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_millis(self.header_read_timeout_ms.max(1))
    }
    /// The time a client has to send the request body (at least 1 ms).
    pub fn body_read_timeout(&self) -> Duration {
        Duration::from_millis(self.body_read_timeout_ms.max(1))
    }
    /// How long a stream may go without an event before it is ended (at least one second).
    pub fn stream_idle_timeout(&self) -> Duration {
        Duration::from_secs(self.stream_idle_timeout_secs.max(1))
    }
}

/// A credential or key: never printed.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// A secret with this value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    /// The secret itself; call only where it is compared or used as a key.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Authentication (server mode). With no scheme configured the HTTP binding
/// serves anonymous callers without authorization checks: a development setup,
/// so it binds only a loopback address unless `insecure_no_auth` says otherwise.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuthConfig {
    /// Where a request carries its API key: a header (the default), a query
    /// parameter of its URL, or a cookie. Declared in the card; a key in any
    /// other place is no credential.
    pub api_key_location: ApiKeyLocation,
    /// Name of the header, query parameter or cookie that carries the API key
    /// (default `X-API-Key`). Also read as `api_key_header`, its earlier name.
    #[serde(alias = "api_key_header")]
    pub api_key_name: String,
    /// Accepted API keys, each with the subject it authenticates.
    pub api_keys: Vec<CredentialConfig>,
    /// Opaque bearer tokens (`Authorization: Bearer <token>`).
    pub bearer_tokens: Vec<CredentialConfig>,
    /// JWT bearer tokens.
    pub jwt: Option<JwtConfig>,
    /// An OAuth2 declaration for the card; its access tokens are verified as JWTs
    /// with `jwt`, which must then be set.
    pub oauth2: Option<OAuth2Config>,
    /// An OpenID Connect declaration for the card; its ID and access tokens
    /// are verified as JWTs with `jwt`, which must then be set.
    pub openid_connect: Option<OpenIdConnectConfig>,
    /// Client certificates (needs `http.tls`).
    pub mtls: Option<MtlsConfig>,
    /// Roles per subject.
    pub principals: Vec<PrincipalConfig>,
    /// Serve anonymous callers with every right on a non-loopback address too.
    /// Without it, binding such an address with no scheme configured is refused.
    pub insecure_no_auth: bool,
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig {
            api_key_location: ApiKeyLocation::Header,
            api_key_name: "X-API-Key".into(),
            api_keys: Vec::new(),
            bearer_tokens: Vec::new(),
            jwt: None,
            oauth2: None,
            openid_connect: None,
            mtls: None,
            principals: Vec::new(),
            insecure_no_auth: false,
        }
    }
}

impl AuthConfig {
    /// True when at least one scheme is configured.
    pub fn is_enabled(&self) -> bool {
        !self.api_keys.is_empty()
            || !self.bearer_tokens.is_empty()
            || self.jwt.is_some()
            || self.oauth2.is_some()
            || self.openid_connect.is_some()
            || self.mtls.is_some()
    }

    /// Refuses to serve anonymous callers beyond this machine: with no scheme
    /// configured, `listen` must be a loopback address unless
    /// `insecure_no_auth` accepts the risk.
    pub fn check_exposure(&self, listen: SocketAddr) -> Result<(), ServerError> {
        if self.is_enabled() || listen.ip().is_loopback() || self.insecure_no_auth {
            return Ok(());
        }
        Err(ServerError::AnonymousOnNetwork { addr: listen })
    }
}

impl ServerConfig {
    /// Refuses what would expose callers on `listen`: anonymous callers with
    /// every right beyond this machine (see [`AuthConfig::check_exposure`]),
    /// and credentials in clear text there (an authentication scheme on a
    /// network address without TLS, unless a TLS-terminating proxy is said
    /// to be in front). Loopback addresses keep plain HTTP.
    pub fn check_exposure(&self, listen: SocketAddr) -> Result<(), ServerError> {
        self.auth.check_exposure(listen)?;
        let clear_text = self.auth.is_enabled()
            && !listen.ip().is_loopback()
            && self.http.tls.is_none()
            && !self.http.behind_tls_proxy;
        if clear_text {
            return Err(ServerError::ClearTextCredentials { addr: listen });
        }
        Ok(())
    }

    /// Settings that contradict one another around TLS.
    pub fn check_tls(&self) -> Result<(), ServerError> {
        if self.auth.mtls.is_some() && self.http.tls.is_none() {
            return Err(ServerError::Config(
                "auth.mtls needs http.tls: client certificates are asked for in the listener's TLS handshake"
                    .into(),
            ));
        }
        if self.http.behind_tls_proxy {
            let https = self
                .agent
                .public_url
                .as_deref()
                .is_some_and(|url| url.starts_with("https://"));
            if !https {
                return Err(ServerError::Config(
                    "http.behind_tls_proxy needs agent.public_url: the https URL clients reach the proxy at"
                        .into(),
                ));
            }
            if self.http.trusted_proxies.is_empty() {
                return Err(ServerError::Config(
                    "http.behind_tls_proxy needs http.trusted_proxies: the addresses of the proxies whose \
                     X-Forwarded-Proto is believed"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}

/// Client certificates as credentials: a certificate that chains to
/// `ca_file` names its holder, whose roles are those of `principals` under
/// that name. A client without a certificate still connects (the card is
/// public, and other schemes may admit it); one with a certificate that does
/// not verify is refused in the handshake.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MtlsConfig {
    /// PEM certificates of the CAs client certificates must chain to.
    pub ca_file: PathBuf,
    /// Which name of the certificate is the subject (default `common_name`).
    #[serde(default)]
    pub subject_from: CertificateName,
    /// Description of the scheme in the card.
    #[serde(default)]
    pub description: Option<String>,
}

/// A name a certificate carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CertificateName {
    /// The subject's common name (CN).
    #[default]
    CommonName,
    /// The first DNS name among the subject alternative names.
    DnsName,
    /// The first URI among the subject alternative names (a SPIFFE ID, say).
    Uri,
    /// The first e-mail address among the subject alternative names.
    Email,
}

impl CertificateName {
    /// What the name is called, in messages.
    pub fn describe(self) -> &'static str {
        match self {
            CertificateName::CommonName => "common name",
            CertificateName::DnsName => "DNS name",
            CertificateName::Uri => "URI name",
            CertificateName::Email => "e-mail name",
        }
    }
}

/// An API key or static bearer token and the subject it authenticates.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CredentialConfig {
    /// The key or token the caller presents.
    pub secret: Secret,
    /// The subject (principal) a caller presenting it is.
    pub subject: String,
}

/// JWT verification: HS256 with a shared secret and/or RS256/ES256 with the keys
/// of a local JWKS file.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JwtConfig {
    /// Shared secret of HS256 tokens.
    pub hs256_secret: Option<Secret>,
    /// Local JWKS file with the RS256/ES256 public keys tokens may be signed with.
    pub jwks_file: Option<PathBuf>,
    /// Required `iss`, when set.
    pub issuer: Option<String>,
    /// Accepted `aud` values; when non-empty the token must name one of them.
    pub audience: Vec<String>,
    /// Clock skew allowed on `exp` and `nbf`, in seconds.
    pub leeway_secs: u64,
    /// Claim holding `{namespace: role}` for subjects not listed in `principals`.
    pub namespaces_claim: String,
}

impl Default for JwtConfig {
    fn default() -> Self {
        JwtConfig {
            hs256_secret: None,
            jwks_file: None,
            issuer: None,
            audience: Vec::new(),
            leeway_secs: 30,
            namespaces_claim: "namespaces".into(),
        }
    }
}

/// The OAuth2 scheme as declared in the Agent Card.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuth2Config {
    /// The OAuth2 flows the card declares (authorization URLs, token URLs, scopes).
    pub flows: OAuthFlows,
    /// URL of the authorization server's metadata (RFC 8414), published in the card.
    #[serde(default)]
    pub metadata_url: Option<String>,
    /// Description of the scheme in the card.
    #[serde(default)]
    pub description: Option<String>,
}

/// The OpenID Connect scheme as declared in the Agent Card.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenIdConnectConfig {
    /// The provider's OpenID Connect Discovery URL
    /// (`https://issuer.example/.well-known/openid-configuration`), published
    /// in the card as `openIdConnectUrl`.
    pub url: String,
    /// Description of the scheme in the card.
    #[serde(default)]
    pub description: Option<String>,
}

/// Where a request carries its API key (the card's `location`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiKeyLocation {
    /// A request header (gRPC: a metadata entry).
    #[default]
    Header,
    /// A query parameter of the request URL: the HTTP bindings only, since a
    /// gRPC call has no query string. The listener takes it out of the URL
    /// before anything else looks at the request, so it is never logged,
    /// traced or read as a parameter.
    Query,
    /// A cookie of the `Cookie` header (gRPC: a `cookie` metadata entry).
    Cookie,
}

impl ApiKeyLocation {
    /// The card's name of the location: `header`, `query` or `cookie`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApiKeyLocation::Header => "header",
            ApiKeyLocation::Query => "query",
            ApiKeyLocation::Cookie => "cookie",
        }
    }
}

/// A subject's roles per namespace (`*` = every namespace) and the namespace its
/// requests act in when they name none.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrincipalConfig {
    /// The subject the roles belong to (an API key's or token's subject, a JWT's `sub`).
    pub subject: String,
    /// Role per namespace; `*` applies to every namespace.
    #[serde(default)]
    pub namespaces: BTreeMap<String, Access>,
    /// Namespace of the subject's requests that name none; `None` is the contract's default.
    #[serde(default)]
    pub default_namespace: Option<String>,
}
