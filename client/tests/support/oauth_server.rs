//! A loopback OAuth 2.1 / OpenID Connect authorization server for tests.
//!
//! It binds `127.0.0.1:0` and serves, over plain HTTP (loopback only):
//!
//! | path | what |
//! | --- | --- |
//! | `/.well-known/openid-configuration` | OpenID Connect Discovery 1.0 document |
//! | `/.well-known/oauth-authorization-server` | RFC 8414 metadata (same endpoints) |
//! | `/device_authorization` | RFC 8628 §3.1 device authorization endpoint |
//! | `/token` | token endpoint: `device_code`, `client_credentials`, `refresh_token` grants |
//! | `/jwks` | the public signing keys (RS256 only: an HS256 secret is never published) |
//! | `/device` | the verification page: `GET` shows it, `POST` (`user_code`, `decision=approve\|deny`, optional `subject`) answers as a person would |
//!
//! Access tokens are JWTs with `iss`, `sub`, `aud` (when set), `exp`, `iat`,
//! `scope`, `client_id` and `jti`, signed HS256 with a secret the test
//! chooses (or RS256 with a fixed test key), so an agent configured with
//! `auth.jwt` (`hs256_secret`, `issuer`, `audience`) accepts them. Every
//! request is recorded for tests to assert on, and nothing here depends on
//! timing: a test decides when a code is approved, denied or expired, and
//! `slow_down` is answered to a set number of polls.
//!
//! The file is self-contained so any crate's tests can include it:
//!
//! ```ignore
//! #[path = "../../client/tests/support/oauth_server.rs"]
//! mod oauth_server;
//! ```
//!
//! with these dev-dependencies: `tokio` (`rt`, `net`, `macros`, `sync`,
//! `time`), `hyper` 1 (`server`, `http1`), `hyper-util` (`tokio`),
//! `http-body-util`, `serde_json`, `jsonwebtoken` 9, `base64` 0.22 and
//! `form_urlencoded`.

#![allow(dead_code)]

use base64::Engine as _;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Map, Value};
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::convert::Infallible;
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The device authorization grant's `grant_type`.
pub const DEVICE_CODE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";
/// The `kid` of the fixed RS256 test key.
pub const TEST_RSA_KID: &str = "oauth-test-rs256";
/// Largest request body read.
const BODY_LIMIT: usize = 64 * 1024;

/// How access tokens are signed.
#[derive(Clone, Debug)]
pub enum Signing {
    /// HS256 with this shared secret (the agent's `auth.jwt.hs256_secret`).
    Hs256(String),
    /// RS256 with the fixed test key, published at `/jwks` under [`TEST_RSA_KID`].
    Rs256,
}

/// A misbehaviour, to see that clients survive it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The metadata, device and token endpoints answer 200 with a body that is not JSON.
    NotJson,
    /// The same endpoints answer 200 with this many bytes of JSON-looking filler.
    HugeBody(usize),
}

/// What the server says and signs; [`Default`] is a plain, permissive server.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// The issuer it names (`iss`, metadata `issuer`); `None`: its own base
    /// URL, as a genuine server's would be.
    pub issuer: Option<String>,
    /// The `aud` claim; `None` leaves it out.
    pub audience: Option<String>,
    /// The `sub` of every token; `None`: the client id for client
    /// credentials, the approver's subject (default `user`) for the device grant.
    pub subject: Option<String>,
    /// Seconds an access token lives (`exp - iat`, and `expires_in`).
    pub token_lifetime: u64,
    /// How tokens are signed.
    pub signing: Signing,
    /// Further claims put in every access token (`namespaces`, say).
    pub extra_claims: Map<String, Value>,
    /// The `interval` of device authorization answers, in seconds.
    pub device_interval: u64,
    /// Seconds a device code lives (`expires_in`; also enforced).
    pub device_code_lifetime: u64,
    /// The first this many polls of each device code, while it is pending,
    /// are answered `slow_down` instead of `authorization_pending`.
    pub slow_down_polls: u32,
    /// Whether the device and refresh grants issue refresh tokens.
    pub refresh_tokens: bool,
    /// `token_endpoint_auth_methods_supported`: how confidential clients may
    /// authenticate (`client_secret_basic`, `client_secret_post`); others are refused.
    pub auth_methods: Vec<String>,
    /// `grant_types_supported`, as published (every grant is served regardless).
    pub grant_types: Vec<String>,
    /// `scopes_supported`; a request for any other scope is `invalid_scope`.
    /// Empty: any scope is granted.
    pub scopes: Vec<String>,
    /// A misbehaviour to put on.
    pub fault: Option<Fault>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            issuer: None,
            audience: Some("agent".into()),
            subject: None,
            token_lifetime: 3600,
            signing: Signing::Hs256("test-secret-of-at-least-32-bytes!!".into()),
            extra_claims: Map::new(),
            device_interval: 1,
            device_code_lifetime: 600,
            slow_down_polls: 0,
            refresh_tokens: true,
            auth_methods: vec!["client_secret_basic".into(), "client_secret_post".into()],
            grant_types: vec![
                DEVICE_CODE_GRANT.into(),
                "client_credentials".into(),
                "refresh_token".into(),
            ],
            scopes: Vec::new(),
            fault: None,
        }
    }
}

/// A registered client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestClient {
    /// Its `client_id`.
    pub client_id: String,
    /// Its secret; `None` for a public client.
    pub secret: Option<String>,
}

impl TestClient {
    /// A public client (the usual device-grant client).
    pub fn public(client_id: &str) -> Self {
        TestClient {
            client_id: client_id.into(),
            secret: None,
        }
    }

    /// A confidential client with `secret`.
    pub fn confidential(client_id: &str, secret: &str) -> Self {
        TestClient {
            client_id: client_id.into(),
            secret: Some(secret.into()),
        }
    }
}

/// The endpoint a request went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// `/.well-known/openid-configuration`.
    OpenIdConfiguration,
    /// `/.well-known/oauth-authorization-server`.
    AuthorizationServerMetadata,
    /// `/device_authorization`.
    DeviceAuthorization,
    /// `/token`.
    Token,
    /// `/jwks`.
    Jwks,
    /// `/device`, the verification page.
    Verification,
    /// Anything else (answered 404).
    Unknown,
}

/// One request the server received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// Where it went.
    pub endpoint: Endpoint,
    /// Its HTTP method.
    pub method: String,
    /// The form's `grant_type`, if any.
    pub grant_type: Option<String>,
    /// The client it authenticated as or named, if any.
    pub client_id: Option<String>,
    /// How the client authenticated: `client_secret_basic`,
    /// `client_secret_post` or `none`.
    pub client_auth: Option<String>,
    /// The form's `scope`, if any.
    pub scope: Option<String>,
    /// `ok`, or the OAuth error code (or HTTP status) it was answered with.
    pub outcome: String,
}

/// Where a device code stands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Decision {
    Pending,
    Approved {
        subject: String,
    },
    Denied,
    Expired,
    /// A token was issued; the code may not be used again.
    Redeemed,
}

#[derive(Debug)]
struct DeviceGrant {
    client_id: String,
    user_code: String,
    scope: Option<String>,
    expires_at: SystemTime,
    decision: Decision,
    polls: u32,
}

#[derive(Debug)]
struct RefreshGrant {
    client_id: String,
    subject: String,
    scope: Option<String>,
}

#[derive(Debug, Default)]
struct State {
    /// By device code.
    devices: HashMap<String, DeviceGrant>,
    /// By refresh token.
    refresh: HashMap<String, RefreshGrant>,
    requests: Vec<Recorded>,
}

struct Shared {
    options: ServerOptions,
    base_url: String,
    clients: Vec<TestClient>,
    state: Mutex<State>,
    counter: AtomicU64,
    random: RandomState,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // A test that panicked while holding the lock has failed already;
        // the state is still worth reading.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn issuer(&self) -> String {
        self.options
            .issuer
            .clone()
            .unwrap_or_else(|| self.base_url.clone())
    }

    /// An unguessable-enough value for a test: a keyed hash of a counter.
    fn random(&self) -> u64 {
        let mut hasher = self.random.build_hasher();
        hasher.write_u64(self.counter.fetch_add(1, Ordering::Relaxed));
        hasher.finish()
    }

    fn opaque(&self, prefix: &str) -> String {
        format!("{prefix}-{:016x}{:016x}", self.random(), self.random())
    }

    /// A user code as RFC 8628 §6.1 suggests: eight consonants, no vowels
    /// (no words), shown as `XXXX-XXXX`.
    fn user_code(&self) -> String {
        const ALPHABET: &[u8] = b"BCDFGHJKLMNPQRSTVWXZ";
        let mut value = self.random();
        let mut code = String::new();
        for i in 0..8 {
            if i == 4 {
                code.push('-');
            }
            code.push(ALPHABET[(value % ALPHABET.len() as u64) as usize] as char);
            value /= ALPHABET.len() as u64;
        }
        code
    }
}

/// A running server; stopped when dropped.
pub struct OAuthServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl OAuthServer {
    /// Starts a server on `127.0.0.1:0` with `options`, knowing `clients`.
    pub async fn start(options: ServerOptions, clients: Vec<TestClient>) -> std::io::Result<OAuthServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            options,
            base_url: format!("http://{addr}"),
            clients,
            state: Mutex::new(State::default()),
            counter: AtomicU64::new(0),
            random: RandomState::new(),
        });
        let accepting = shared.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let shared = accepting.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| handle(shared.clone(), request));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(OAuthServer { addr, shared, task })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// The issuer it names.
    pub fn issuer(&self) -> String {
        self.shared.issuer()
    }

    /// The OpenID Connect discovery URL.
    pub fn openid_configuration_url(&self) -> String {
        format!("{}/.well-known/openid-configuration", self.shared.base_url)
    }

    /// The RFC 8414 metadata URL.
    pub fn metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-authorization-server", self.shared.base_url)
    }

    /// The device authorization endpoint.
    pub fn device_authorization_url(&self) -> String {
        format!("{}/device_authorization", self.shared.base_url)
    }

    /// The token endpoint.
    pub fn token_url(&self) -> String {
        format!("{}/token", self.shared.base_url)
    }

    /// The JWKS endpoint.
    pub fn jwks_url(&self) -> String {
        format!("{}/jwks", self.shared.base_url)
    }

    /// The verification page (`verification_uri`); `POST` to it approves or denies.
    pub fn verification_url(&self) -> String {
        format!("{}/device", self.shared.base_url)
    }

    /// Approves the pending request of `user_code` for `subject` (else the
    /// configured one, else `user`), as the verification page would; false
    /// when no such request is pending.
    pub fn approve(&self, user_code: &str, subject: Option<&str>) -> bool {
        let subject = subject
            .map(str::to_string)
            .or_else(|| self.shared.options.subject.clone())
            .unwrap_or_else(|| "user".into());
        decide(&self.shared, user_code, Decision::Approved { subject })
    }

    /// Denies the pending request of `user_code`; false when none is pending.
    pub fn deny(&self, user_code: &str) -> bool {
        decide(&self.shared, user_code, Decision::Denied)
    }

    /// Makes the pending request of `user_code` expire now; false when none is pending.
    pub fn expire(&self, user_code: &str) -> bool {
        decide(&self.shared, user_code, Decision::Expired)
    }

    /// The user codes of the requests still pending, oldest first is not
    /// promised: sort if order matters.
    pub fn pending_user_codes(&self) -> Vec<String> {
        self.shared
            .state()
            .devices
            .values()
            .filter(|d| d.decision == Decision::Pending)
            .map(|d| d.user_code.clone())
            .collect()
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.state().requests.clone()
    }

    /// The requests received at `endpoint`, in order.
    pub fn requests_to(&self, endpoint: Endpoint) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.endpoint == endpoint)
            .collect()
    }

    /// The outcomes of the token requests of `grant_type`, in order
    /// (`authorization_pending`, `slow_down`, …, `ok`).
    pub fn token_outcomes(&self, grant_type: &str) -> Vec<String> {
        self.requests_to(Endpoint::Token)
            .into_iter()
            .filter(|r| r.grant_type.as_deref() == Some(grant_type))
            .map(|r| r.outcome)
            .collect()
    }

    /// The public JWK Set `/jwks` serves.
    pub fn jwks(&self) -> Value {
        jwks(&self.shared.options.signing)
    }

    /// The agent's `auth.jwt` settings that accept this server's tokens:
    /// its issuer, its audience, and the HS256 secret (for RS256, write
    /// [`OAuthServer::jwks`] to a file and set `jwks_file` to it).
    pub fn agent_jwt_config(&self) -> Value {
        let options = &self.shared.options;
        let mut config = json!({
            "issuer": self.shared.issuer(),
            "audience": options.audience.iter().collect::<Vec<_>>(),
        });
        if let Signing::Hs256(secret) = &options.signing {
            config["hs256_secret"] = json!(secret);
        }
        config
    }

    /// A token as this server would issue it to `client_id` for `subject`
    /// with `scope`, without a request (for tests of the agent alone).
    pub fn mint(&self, client_id: &str, subject: &str, scope: Option<&str>) -> String {
        access_token(&self.shared, client_id, subject, scope).unwrap_or_default()
    }
}

/// Normalizes a user code as typed: case and dashes or spaces do not matter
/// (RFC 8628 §6.1).
fn normalize(user_code: &str) -> String {
    user_code
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

fn decide(shared: &Shared, user_code: &str, decision: Decision) -> bool {
    let wanted = normalize(user_code);
    let mut state = shared.state();
    let found = state
        .devices
        .values_mut()
        .find(|d| normalize(&d.user_code) == wanted && d.decision == Decision::Pending);
    match found {
        Some(device) => {
            device.decision = decision;
            true
        }
        None => false,
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn access_token(shared: &Shared, client_id: &str, subject: &str, scope: Option<&str>) -> Option<String> {
    let options = &shared.options;
    let now = now_secs();
    let mut claims = options.extra_claims.clone();
    claims.insert("iss".into(), json!(shared.issuer()));
    claims.insert("sub".into(), json!(subject));
    if let Some(audience) = &options.audience {
        claims.insert("aud".into(), json!(audience));
    }
    claims.insert("iat".into(), json!(now));
    claims.insert("exp".into(), json!(now + options.token_lifetime));
    claims.insert("client_id".into(), json!(client_id));
    claims.insert("jti".into(), json!(shared.opaque("jti")));
    if let Some(scope) = scope {
        claims.insert("scope".into(), json!(scope));
    }
    let (header, key) = match &options.signing {
        Signing::Hs256(secret) => (
            Header::new(Algorithm::HS256),
            EncodingKey::from_secret(secret.as_bytes()),
        ),
        Signing::Rs256 => {
            let der = base64::engine::general_purpose::STANDARD
                .decode(TEST_RSA_DER_B64)
                .ok()?;
            let mut header = Header::new(Algorithm::RS256);
            header.kid = Some(TEST_RSA_KID.into());
            (header, EncodingKey::from_rsa_der(&der))
        }
    };
    jsonwebtoken::encode(&header, &Value::Object(claims), &key).ok()
}

fn jwks(signing: &Signing) -> Value {
    match signing {
        // A symmetric key is a secret: it is never published.
        Signing::Hs256(_) => json!({"keys": []}),
        Signing::Rs256 => json!({"keys": [{
            "kty": "RSA", "use": "sig", "alg": "RS256", "kid": TEST_RSA_KID,
            "n": TEST_RSA_N, "e": "AQAB"
        }]}),
    }
}

/// A request's form fields (the last of a repeated name is kept).
fn form(body: &[u8]) -> HashMap<String, String> {
    form_urlencoded::parse(body).into_owned().collect()
}

/// One component of Basic credentials, form-decoded (RFC 6749 §2.3.1).
fn form_decode(text: &str) -> String {
    form_urlencoded::parse(format!("v={text}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// The client a request authenticates as, and how; or the OAuth error.
fn authenticate(
    shared: &Shared,
    authorization: Option<&str>,
    fields: &HashMap<String, String>,
) -> Result<(TestClient, &'static str), (StatusCode, &'static str)> {
    let basic = authorization
        .and_then(|h| h.strip_prefix("Basic "))
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b.trim()).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|pair| {
            let (id, secret) = pair.split_once(':')?;
            Some((form_decode(id), form_decode(secret)))
        });
    let in_form = fields.get("client_secret");
    // RFC 6749 §2.3: one authentication method per request.
    if basic.is_some() && in_form.is_some() {
        return Err((StatusCode::BAD_REQUEST, "invalid_request"));
    }
    let (id, secret, method) = match (&basic, in_form) {
        (Some((id, secret)), _) => (id.clone(), Some(secret.clone()), "client_secret_basic"),
        (None, Some(secret)) => match fields.get("client_id") {
            Some(id) => (id.clone(), Some(secret.clone()), "client_secret_post"),
            None => return Err((StatusCode::BAD_REQUEST, "invalid_request")),
        },
        (None, None) => match fields.get("client_id") {
            Some(id) => (id.clone(), None, "none"),
            None => return Err((StatusCode::BAD_REQUEST, "invalid_request")),
        },
    };
    let client = shared
        .clients
        .iter()
        .find(|c| c.client_id == id)
        .ok_or((StatusCode::UNAUTHORIZED, "invalid_client"))?;
    let accepted = match (&client.secret, &secret) {
        (None, None) => true,
        (Some(expected), Some(given)) => {
            expected == given && shared.options.auth_methods.iter().any(|m| m == method)
        }
        _ => false,
    };
    if accepted {
        Ok((client.clone(), method))
    } else {
        Err((StatusCode::UNAUTHORIZED, "invalid_client"))
    }
}

/// A JSON answer that must not be cached (RFC 6749 §5.1).
fn json_answer(status: StatusCode, body: Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert("content-type", "application/json".parse().expect("static header"));
    headers.insert("cache-control", "no-store".parse().expect("static header"));
    response
}

fn oauth_error(status: StatusCode, code: &str, description: &str) -> Response<Full<Bytes>> {
    let mut response = json_answer(status, json!({"error": code, "error_description": description}));
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            "www-authenticate",
            "Basic realm=\"oauth\"".parse().expect("static header"),
        );
    }
    response
}

fn text_answer(status: StatusCode, content_type: &'static str, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert("content-type", content_type.parse().expect("static header"));
    response
}

/// The faulty answer `fault` calls for.
fn faulty(fault: Fault) -> Response<Full<Bytes>> {
    match fault {
        Fault::NotJson => text_answer(StatusCode::OK, "application/json", "<html>not json</html>".into()),
        Fault::HugeBody(size) => {
            let mut body = String::with_capacity(size);
            body.push_str("{\"pad\":\"");
            body.extend(std::iter::repeat_n('x', size.saturating_sub(10)));
            body.push_str("\"}");
            text_answer(StatusCode::OK, "application/json", body)
        }
    }
}

async fn handle(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let query = request.uri().query().unwrap_or_default().to_string();
    let authorization = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = match Limited::new(request.into_body(), BODY_LIMIT).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return Ok(text_answer(
                StatusCode::PAYLOAD_TOO_LARGE,
                "text/plain",
                "too large".into(),
            ))
        }
    };
    let endpoint = match path.as_str() {
        "/.well-known/openid-configuration" => Endpoint::OpenIdConfiguration,
        "/.well-known/oauth-authorization-server" => Endpoint::AuthorizationServerMetadata,
        "/device_authorization" => Endpoint::DeviceAuthorization,
        "/token" => Endpoint::Token,
        "/jwks" => Endpoint::Jwks,
        "/device" => Endpoint::Verification,
        _ => Endpoint::Unknown,
    };
    let fields = if method == Method::POST {
        form(&body)
    } else {
        form(query.as_bytes())
    };
    let mut record = Recorded {
        endpoint,
        method: method.to_string(),
        grant_type: fields.get("grant_type").cloned(),
        client_id: fields.get("client_id").cloned(),
        client_auth: None,
        scope: fields.get("scope").cloned(),
        outcome: String::new(),
    };
    let fault = shared.options.fault;
    let response = match (endpoint, &method) {
        (Endpoint::OpenIdConfiguration | Endpoint::AuthorizationServerMetadata, &Method::GET) => {
            match fault {
                Some(fault) => faulty(fault),
                None => json_answer(
                    StatusCode::OK,
                    metadata(&shared, endpoint == Endpoint::OpenIdConfiguration),
                ),
            }
        }
        (Endpoint::Jwks, &Method::GET) => json_answer(StatusCode::OK, jwks(&shared.options.signing)),
        (Endpoint::DeviceAuthorization, &Method::POST) => match fault {
            Some(fault) => faulty(fault),
            None => device_authorization(&shared, authorization.as_deref(), &fields, &mut record),
        },
        (Endpoint::Token, &Method::POST) => match fault {
            Some(fault) => faulty(fault),
            None => token(&shared, authorization.as_deref(), &fields, &mut record),
        },
        (Endpoint::Verification, &Method::GET) => verification_page(&fields),
        (Endpoint::Verification, &Method::POST) => verification(&shared, &fields),
        (Endpoint::Unknown, _) => text_answer(StatusCode::NOT_FOUND, "text/plain", "not found".into()),
        _ => text_answer(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain",
            "method not allowed".into(),
        ),
    };
    if record.outcome.is_empty() {
        record.outcome = if response.status() == StatusCode::OK {
            "ok".into()
        } else {
            response.status().as_u16().to_string()
        };
    }
    shared.state().requests.push(record);
    Ok(response)
}

fn metadata(shared: &Shared, openid: bool) -> Value {
    let base = &shared.base_url;
    let options = &shared.options;
    let mut document = json!({
        "issuer": shared.issuer(),
        "token_endpoint": format!("{base}/token"),
        "device_authorization_endpoint": format!("{base}/device_authorization"),
        "jwks_uri": format!("{base}/jwks"),
        "grant_types_supported": options.grant_types,
        "token_endpoint_auth_methods_supported": options.auth_methods,
        "response_types_supported": ["code"],
    });
    if !options.scopes.is_empty() {
        document["scopes_supported"] = json!(options.scopes);
    }
    if openid {
        document["subject_types_supported"] = json!(["public"]);
        let alg = match options.signing {
            Signing::Hs256(_) => "HS256",
            Signing::Rs256 => "RS256",
        };
        document["id_token_signing_alg_values_supported"] = json!([alg]);
    }
    document
}

/// The requested scope, when every scope in it is offered.
fn checked_scope(shared: &Shared, fields: &HashMap<String, String>) -> Result<Option<String>, ()> {
    let Some(scope) = fields.get("scope") else {
        return Ok(None);
    };
    let offered = &shared.options.scopes;
    if offered.is_empty() || scope.split(' ').all(|s| offered.iter().any(|o| o == s)) {
        Ok(Some(scope.clone()))
    } else {
        Err(())
    }
}

fn refuse(record: &mut Recorded, status: StatusCode, code: &str, description: &str) -> Response<Full<Bytes>> {
    record.outcome = code.to_string();
    oauth_error(status, code, description)
}

fn device_authorization(
    shared: &Shared,
    authorization: Option<&str>,
    fields: &HashMap<String, String>,
    record: &mut Recorded,
) -> Response<Full<Bytes>> {
    let (client, method) = match authenticate(shared, authorization, fields) {
        Ok(found) => found,
        Err((status, code)) => return refuse(record, status, code, "client authentication failed"),
    };
    record.client_id = Some(client.client_id.clone());
    record.client_auth = Some(method.into());
    let Ok(scope) = checked_scope(shared, fields) else {
        return refuse(record, StatusCode::BAD_REQUEST, "invalid_scope", "unknown scope");
    };
    let device_code = shared.opaque("dc");
    let user_code = shared.user_code();
    let lifetime = shared.options.device_code_lifetime;
    shared.state().devices.insert(
        device_code.clone(),
        DeviceGrant {
            client_id: client.client_id,
            user_code: user_code.clone(),
            scope,
            expires_at: SystemTime::now() + Duration::from_secs(lifetime),
            decision: Decision::Pending,
            polls: 0,
        },
    );
    let verification_uri = format!("{}/device", shared.base_url);
    json_answer(
        StatusCode::OK,
        json!({
            "device_code": device_code,
            "user_code": user_code,
            "verification_uri": verification_uri,
            "verification_uri_complete": format!("{verification_uri}?user_code={user_code}"),
            "expires_in": lifetime,
            "interval": shared.options.device_interval,
        }),
    )
}

fn token(
    shared: &Shared,
    authorization: Option<&str>,
    fields: &HashMap<String, String>,
    record: &mut Recorded,
) -> Response<Full<Bytes>> {
    let (client, method) = match authenticate(shared, authorization, fields) {
        Ok(found) => found,
        Err((status, code)) => return refuse(record, status, code, "client authentication failed"),
    };
    record.client_id = Some(client.client_id.clone());
    record.client_auth = Some(method.into());
    let grant_type = fields.get("grant_type").map(String::as_str).unwrap_or_default();
    let issued = match grant_type {
        DEVICE_CODE_GRANT => device_token(shared, &client, fields),
        "client_credentials" => client_credentials_token(shared, &client, fields),
        "refresh_token" => refresh_token(shared, &client, fields),
        "" => Err((StatusCode::BAD_REQUEST, "invalid_request", "no grant_type")),
        _ => Err((
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "grant not served",
        )),
    };
    match issued {
        Ok((subject, scope, with_refresh)) => {
            let Some(access) = access_token(shared, &client.client_id, &subject, scope.as_deref()) else {
                return refuse(
                    record,
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "server_error",
                    "signing failed",
                );
            };
            let mut body = json!({
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": shared.options.token_lifetime,
            });
            if let Some(scope) = &scope {
                body["scope"] = json!(scope);
            }
            if with_refresh && shared.options.refresh_tokens {
                let refresh = shared.opaque("rt");
                shared.state().refresh.insert(
                    refresh.clone(),
                    RefreshGrant {
                        client_id: client.client_id.clone(),
                        subject,
                        scope,
                    },
                );
                body["refresh_token"] = json!(refresh);
            }
            record.outcome = "ok".into();
            json_answer(StatusCode::OK, body)
        }
        Err((status, code, description)) => refuse(record, status, code, description),
    }
}

/// What a grant yields: the subject, the scope, and whether a refresh token goes with it.
type Grant = Result<(String, Option<String>, bool), (StatusCode, &'static str, &'static str)>;

fn device_token(shared: &Shared, client: &TestClient, fields: &HashMap<String, String>) -> Grant {
    let bad = |code, description| Err((StatusCode::BAD_REQUEST, code, description));
    let Some(device_code) = fields.get("device_code") else {
        return bad("invalid_request", "no device_code");
    };
    let mut state = shared.state();
    let Some(device) = state.devices.get_mut(device_code) else {
        return bad("invalid_grant", "unknown device code");
    };
    if device.client_id != client.client_id {
        return bad("invalid_grant", "device code of another client");
    }
    if device.decision == Decision::Pending && SystemTime::now() > device.expires_at {
        device.decision = Decision::Expired;
    }
    match device.decision.clone() {
        Decision::Pending => {
            device.polls += 1;
            if device.polls <= shared.options.slow_down_polls {
                bad("slow_down", "polling too fast")
            } else {
                bad("authorization_pending", "waiting for the user")
            }
        }
        Decision::Approved { subject } => {
            device.decision = Decision::Redeemed;
            let subject = shared.options.subject.clone().unwrap_or(subject);
            Ok((subject, device.scope.clone(), true))
        }
        Decision::Denied => bad("access_denied", "the user denied the request"),
        Decision::Expired => bad("expired_token", "the device code expired"),
        Decision::Redeemed => bad("invalid_grant", "device code already used"),
    }
}

fn client_credentials_token(shared: &Shared, client: &TestClient, fields: &HashMap<String, String>) -> Grant {
    if client.secret.is_none() {
        return Err((
            StatusCode::BAD_REQUEST,
            "unauthorized_client",
            "public clients cannot",
        ));
    }
    let Ok(scope) = checked_scope(shared, fields) else {
        return Err((StatusCode::BAD_REQUEST, "invalid_scope", "unknown scope"));
    };
    let subject = shared
        .options
        .subject
        .clone()
        .unwrap_or_else(|| client.client_id.clone());
    // RFC 6749 §4.4.3: no refresh token for client credentials.
    Ok((subject, scope, false))
}

fn refresh_token(shared: &Shared, client: &TestClient, fields: &HashMap<String, String>) -> Grant {
    let bad = |code, description| Err((StatusCode::BAD_REQUEST, code, description));
    let Some(token) = fields.get("refresh_token") else {
        return bad("invalid_request", "no refresh_token");
    };
    let mut state = shared.state();
    match state.refresh.get(token).map(|g| g.client_id == client.client_id) {
        None => bad("invalid_grant", "unknown or used refresh token"),
        Some(false) => bad("invalid_grant", "refresh token of another client"),
        // Rotation (OAuth 2.1 §4.3.1): the old refresh token dies here.
        Some(true) => match state.refresh.remove(token) {
            Some(grant) => Ok((grant.subject, grant.scope, true)),
            None => bad("invalid_grant", "unknown or used refresh token"),
        },
    }
}

fn verification_page(fields: &HashMap<String, String>) -> Response<Full<Bytes>> {
    let code: String = fields
        .get("user_code")
        .map(|c| {
            c.chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect()
        })
        .unwrap_or_default();
    text_answer(
        StatusCode::OK,
        "text/html; charset=utf-8",
        format!(
            "<!doctype html><title>Device login</title><form method=post action=/device>\
             <input name=user_code value=\"{code}\"><button name=decision value=approve>Approve</button>\
             <button name=decision value=deny>Deny</button></form>"
        ),
    )
}

fn verification(shared: &Shared, fields: &HashMap<String, String>) -> Response<Full<Bytes>> {
    let Some(user_code) = fields.get("user_code") else {
        return text_answer(StatusCode::BAD_REQUEST, "text/plain", "no user_code".into());
    };
    let decided = match fields.get("decision").map(String::as_str) {
        Some("approve") => {
            let subject = fields
                .get("subject")
                .cloned()
                .or_else(|| shared.options.subject.clone())
                .unwrap_or_else(|| "user".into());
            decide(shared, user_code, Decision::Approved { subject })
        }
        Some("deny") => decide(shared, user_code, Decision::Denied),
        _ => {
            return text_answer(
                StatusCode::BAD_REQUEST,
                "text/plain",
                "decision is approve or deny".into(),
            )
        }
    };
    if decided {
        text_answer(StatusCode::OK, "text/plain", "done; return to your device".into())
    } else {
        text_answer(
            StatusCode::NOT_FOUND,
            "text/plain",
            "no pending request has this code".into(),
        )
    }
}

// A 2048-bit RSA key made for these tests alone (PKCS#1 DER, base64) and its
// modulus (base64url); the exponent is 65537. It protects nothing.
const TEST_RSA_DER_B64: &str = concat!(
    "MIIEowIBAAKCAQEApCxNmvwprBnJOxScxjdIzEux7Tl+MemQxfDRSRh686PWPZr+7UCHm1wuH0HWOpEl/LUtikDCEUBO",
    "aq/vcqJky0Uaj/bgag9zSFRD5/d3eIc8O+czKFNAMQ30Tb6Y3mG9AYMoH7LjJWnTeORlrMiKNXtJfVSeaM9TSe2wgF1X",
    "CzcMJXTJvCj2fZ1ZXSAaUN+Ayq6n/MvfPGeZuBqcQWXuieS8WsgPSZP7NaMua23SsKWly2PJPz0OWzPi4Kv67dG8B3VE",
    "Kz/ziGgmqEagTH8fEF6e+0v2rX5SJyY+QZKXL+85MJ7PloMGJpVoJDIP92pioWLmxo07UKwsa8YsGGdvlQIDAQABAoIB",
    "AANM7ungfp/HeSIlr2NhxAyNZTnJPkL969hUfgfVUbV5U/3zK+n0ck8UITFyLXHwev4tXOMqzmv/EISFd6lX+Yt60gZw",
    "A2hGc4rrwypUJI2V0To83+x3d5koEc/VUHWNRMaiW4mYzlQkedxA+6Ia+jWKJLq721JtADYcH/OfGZHWKxRKqX2UU3ya",
    "AnHX/0CQ5u48AbVQ50TIyHuFfc8ipwCLOI6o6VP3anFa+GWdw+xE0FCLK59JKmsVM4vmiZe4elVsvGG6SuiDCmpWmB2A",
    "YDl9xgd0XhiWPQMaFqyy1HQDwYl/tWHLI9+MmLXLoRsiDxJH1tJG0JXPzDLgxTqX5XECgYEA0kkXSUhq0yoExqnrE3Wx",
    "y2wQQlItfZsDKjNHVM4EcWCMLjXuOU9w+9VarRYxro0cvEIFDe2vcAhvTW86TzlSrBAG0l1bbvBOfqA3udEpRVhnoPdd",
    "dAckXTd8hEbTXuhnvDz7DXQqp9SBYI12MYViCDR8P4ohk9vljsZc1yg9WoUCgYEAx9zwqwZgsiuoiRdcVZ9zK+A1qT/U",
    "QQd/I45txVUdyZmRstxVovBTZVmxo/gzogdknsc6dmiq45J3IUzIYODoyjZaCDWTfOOnbA4eVjcAc1at3QwBZ+nLxKoL",
    "j6TdjzhS0CFv4kpY5kZAUYp8PELEKar31Dkev3TvQuctpDg3NdECgYAaCcjjXx8zJInQ26trDnDEgo4E2E4ftnkO2aik",
    "fJoaO90/v5fO6uJPnJyMwCnItlpviTE9B0ho8/JsQTCULMHq4lUl6T9wHjtp/IbJ8HdOyeKTEO42dsfu7vbxHiAAKYDm",
    "0xo3EUJS48JdZUbUXPLFl1InQABmYZ0sL63BSo9GTQKBgBrfjkywstfCHwsv5O5uXiIMJ6r2Nif4RhQV1pSt+S9eQsT1",
    "813RSqVaBhSyDt8+dz0SNL4vHKs0ymfj1x2PoD1wSXLJIWethJl23IVjJ+BaS05pitbaDNgItT0/Qbs8K4ZouI6IyKNN",
    "1uAf6sx/fbjMkD4s4AGGS5WHWA+4r1PBAoGBAIaPjgKfSG3TWJvjOWHLnU2NTnYMVi4KmjDe7FakTJ1KthKghg/3dnN4",
    "3EdlK95Ea0bMSOlHhmRWLL8N9WFc1ZfFzOpSSQDL0P4cRt68SriucI+aWukAzul/KSjd4kGaWj2M///oyRt431WK1IFe",
    "p74uVssRf5r51BBvBwlrCArP",
);
const TEST_RSA_N: &str = concat!(
    "pCxNmvwprBnJOxScxjdIzEux7Tl-MemQxfDRSRh686PWPZr-7UCHm1wuH0HWOpEl_LUtikDCEUBOaq_vcqJky0Uaj_bg",
    "ag9zSFRD5_d3eIc8O-czKFNAMQ30Tb6Y3mG9AYMoH7LjJWnTeORlrMiKNXtJfVSeaM9TSe2wgF1XCzcMJXTJvCj2fZ1Z",
    "XSAaUN-Ayq6n_MvfPGeZuBqcQWXuieS8WsgPSZP7NaMua23SsKWly2PJPz0OWzPi4Kv67dG8B3VEKz_ziGgmqEagTH8f",
    "EF6e-0v2rX5SJyY-QZKXL-85MJ7PloMGJpVoJDIP92pioWLmxo07UKwsa8YsGGdvlQ",
);
