//! The OAuth library against a real authorization server on a loopback
//! socket: the device flow's outcomes, client credentials, discovery, the
//! token store, and tokens an agent's JWT check accepts.
//!
//! Polling runs on a clock that records each wait and returns at once, so
//! the tests assert the exact waits asked for and the exact requests the
//! server saw, and never depend on how fast the machine is.

#[path = "support/oauth_server.rs"]
mod oauth_server;

use client::oauth::{
    oauth_schemes, resolve_flows, usable_flows, AgentKey, ClientAuth, Clock, DeviceAuthorization, ErrorCode,
    Flow, Grant, OAuthClient, OAuthError, Secret, StoredToken, TokenStore,
};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use oauth_server::{
    Endpoint, Fault, OAuthServer, Recorded, ServerOptions, Signing, TestClient, DEVICE_CODE_GRANT,
};
use serde_json::{json, Map, Value};
use server::config::JwtConfig;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

const SECRET: &str = "a-test-secret-the-agent-shares-with-the-server";
/// `n` seconds.
fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// What a test does to the pending request at one of the flow's waits.
#[derive(Clone, Copy)]
enum Act {
    /// Approve it through the verification page, as `subject`.
    ApproveByPage(&'static str),
    /// Deny it through the verification page.
    DenyByPage,
    /// Let it expire.
    Expire,
}

/// A clock whose waits return at once, advance its time by what they were
/// asked for, and note how many token requests the server had seen when
/// each began. At the wait numbered `at` (from 1) it does `act`.
struct ScriptedClock {
    wall: SystemTime,
    start: Instant,
    elapsed: Mutex<Duration>,
    sleeps: Mutex<Vec<Duration>>,
    token_requests_seen: Mutex<Vec<usize>>,
    server: Arc<OAuthServer>,
    user_code: Arc<Mutex<Option<String>>>,
    script: Option<(usize, Act)>,
}

impl ScriptedClock {
    fn new(server: &Arc<OAuthServer>, script: Option<(usize, Act)>) -> Arc<Self> {
        Arc::new(ScriptedClock {
            wall: SystemTime::now(),
            start: Instant::now(),
            elapsed: Mutex::new(Duration::ZERO),
            sleeps: Mutex::new(Vec::new()),
            token_requests_seen: Mutex::new(Vec::new()),
            server: server.clone(),
            user_code: Arc::new(Mutex::new(None)),
            script,
        })
    }

    fn sleeps(&self) -> Vec<Duration> {
        self.sleeps.lock().unwrap().clone()
    }

    fn token_requests_seen(&self) -> Vec<usize> {
        self.token_requests_seen.lock().unwrap().clone()
    }

    /// The callback that shows the codes: it keeps the user code for the script.
    fn show(&self) -> impl FnOnce(&DeviceAuthorization) + Send + 'static {
        let slot = self.user_code.clone();
        move |authorization: &DeviceAuthorization| {
            *slot.lock().unwrap() = Some(authorization.user_code.clone());
        }
    }
}

impl Clock for ScriptedClock {
    fn now(&self) -> SystemTime {
        self.wall + *self.elapsed.lock().unwrap()
    }

    fn instant(&self) -> Instant {
        self.start + *self.elapsed.lock().unwrap()
    }

    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let number = {
            let mut sleeps = self.sleeps.lock().unwrap();
            sleeps.push(duration);
            sleeps.len()
        };
        *self.elapsed.lock().unwrap() += duration;
        self.token_requests_seen
            .lock()
            .unwrap()
            .push(self.server.requests_to(Endpoint::Token).len());
        let act = self.script.filter(|(at, _)| *at == number).map(|(_, act)| act);
        Box::pin(async move {
            let Some(act) = act else { return };
            let code = self
                .user_code
                .lock()
                .unwrap()
                .clone()
                .expect("the codes were shown before polling");
            match act {
                Act::ApproveByPage(subject) => {
                    let status = decide_by_page(&self.server, &code, "approve", Some(subject)).await;
                    assert_eq!(status, 200);
                }
                Act::DenyByPage => assert_eq!(decide_by_page(&self.server, &code, "deny", None).await, 200),
                Act::Expire => assert!(self.server.expire(&code)),
            }
        })
    }
}

/// What a person does on the verification page: submits the code with a decision.
async fn decide_by_page(server: &OAuthServer, user_code: &str, decision: &str, subject: Option<&str>) -> u16 {
    let mut form = vec![("user_code", user_code), ("decision", decision)];
    form.extend(subject.map(|s| ("subject", s)));
    reqwest::Client::new()
        .post(server.verification_url())
        .form(&form)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn options() -> ServerOptions {
    ServerOptions {
        audience: Some("cleveragents".into()),
        signing: Signing::Hs256(SECRET.into()),
        ..ServerOptions::default()
    }
}

async fn server(options: ServerOptions) -> Arc<OAuthServer> {
    let clients = vec![
        TestClient::public("cli"),
        TestClient::confidential("ci-bot", "ci-secret"),
    ];
    Arc::new(OAuthServer::start(options, clients).await.unwrap())
}

/// The card an agent behind `server` would publish: a device flow, a client
/// credentials flow and an OpenID Connect scheme.
fn card(server: &OAuthServer) -> Value {
    json!({
        "name": "agent",
        "securitySchemes": {
            "apiKey": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}},
            "login": {"oauth2SecurityScheme": {"flows": {"deviceCode": {
                "deviceAuthorizationUrl": server.device_authorization_url(),
                "tokenUrl": server.token_url(),
                "scopes": {"agent": "Use the agent"}
            }}}},
            "ci": {"oauth2SecurityScheme": {
                "flows": {"clientCredentials": {"tokenUrl": server.token_url(), "scopes": {}}},
                "oauth2MetadataUrl": server.metadata_url()
            }},
            "sso": {"openIdConnectSecurityScheme": {"openIdConnectUrl": server.openid_configuration_url()}}
        }
    })
}

fn flow_of(server: &OAuthServer, scheme: &str) -> Flow {
    usable_flows(&card(server))
        .into_iter()
        .find(|f| f.scheme == scheme)
        .map(|f| f.flow)
        .unwrap()
}

fn oauth(clock: Arc<ScriptedClock>) -> OAuthClient {
    OAuthClient::with_defaults().unwrap().with_clock(clock)
}

/// The agent's `auth.jwt` settings for `server`, read as the agent reads its
/// configuration, so a field it does not know would fail here.
fn agent_jwt_config(server: &OAuthServer) -> JwtConfig {
    serde_json::from_value(server.agent_jwt_config()).unwrap()
}

/// What the agent checks of a bearer JWT under `config` (HS256).
fn agent_validation(config: &JwtConfig) -> Validation {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_required_spec_claims(&["exp", "sub"]);
    validation.validate_nbf = true;
    validation.leeway = config.leeway_secs;
    if let Some(issuer) = &config.issuer {
        validation.set_issuer(&[issuer]);
    }
    validation.set_audience(&config.audience);
    validation
}

/// The claims of `token`, which must pass the agent's check as configured for `server`.
fn verified_claims(server: &OAuthServer, token: &str) -> Map<String, Value> {
    let config = agent_jwt_config(server);
    let secret = config.hs256_secret.as_ref().unwrap().expose().as_bytes().to_vec();
    jsonwebtoken::decode::<Map<String, Value>>(
        token,
        &DecodingKey::from_secret(&secret),
        &agent_validation(&config),
    )
    .unwrap()
    .claims
}

fn scopes(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn device_flow_approved_after_polling_at_the_interval() {
    let server = server(ServerOptions {
        device_interval: 3,
        ..options()
    })
    .await;
    let clock = ScriptedClock::new(&server, Some((3, Act::ApproveByPage("alice"))));
    let flow = flow_of(&server, "login");
    let token = oauth(clock.clone())
        .device_login(
            &flow,
            &ClientAuth::public("cli"),
            &scopes(&["agent"]),
            secs(600),
            clock.show(),
        )
        .await
        .unwrap();

    // One wait of the server's interval before each poll, and no poll without one.
    assert_eq!(clock.sleeps(), [secs(3), secs(3), secs(3)]);
    assert_eq!(clock.token_requests_seen(), [0, 1, 2]);
    assert_eq!(
        server.token_outcomes(DEVICE_CODE_GRANT),
        ["authorization_pending", "authorization_pending", "ok"]
    );
    assert_eq!(
        server.requests_to(Endpoint::DeviceAuthorization),
        [Recorded {
            endpoint: Endpoint::DeviceAuthorization,
            method: "POST".into(),
            grant_type: None,
            client_id: Some("cli".into()),
            client_auth: Some("none".into()),
            scope: Some("agent".into()),
            outcome: "ok".into(),
        }]
    );
    assert_eq!(server.requests_to(Endpoint::Verification).len(), 1);

    assert_eq!(token.token_type, "Bearer");
    assert_eq!(token.expires_in, Some(3600));
    assert_eq!(token.scope.as_deref(), Some("agent"));
    assert!(token.refresh_token.is_some());
    let claims = verified_claims(&server, &token.access_token);
    assert_eq!(claims["iss"], json!(server.base_url()));
    assert_eq!(claims["sub"], json!("alice"));
    assert_eq!(claims["aud"], json!("cleveragents"));
    assert_eq!(claims["scope"], json!("agent"));
    assert_eq!(claims["client_id"], json!("cli"));
    assert_eq!(
        claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
        3600
    );
}

#[tokio::test]
async fn device_flow_shows_the_codes_from_the_server() {
    let server = server(options()).await;
    let clock = ScriptedClock::new(&server, None);
    let oauth = oauth(clock.clone());
    let flow = flow_of(&server, "login");
    let client = ClientAuth::public("cli");
    let authorization = oauth
        .start_device_authorization(&flow, &client, &[])
        .await
        .unwrap();
    assert_eq!(authorization.verification_uri, server.verification_url());
    assert_eq!(
        authorization.verification_uri_complete,
        Some(format!(
            "{}?user_code={}",
            server.verification_url(),
            authorization.user_code
        ))
    );
    assert_eq!(authorization.expires_in, secs(600));
    assert_eq!(authorization.interval, secs(1));
    let code = &authorization.user_code;
    assert_eq!(code.len(), 9);
    assert_eq!(code.as_bytes()[4], b'-');
    assert_eq!(server.pending_user_codes(), [code.as_str()]);
    // The page takes the code however it is typed.
    assert!(server.approve(&code.to_lowercase().replace('-', " "), Some("bob")));
    let token = oauth
        .poll_device_token(&flow, &client, &authorization, secs(60))
        .await
        .unwrap();
    assert_eq!(verified_claims(&server, &token.access_token)["sub"], json!("bob"));
    assert_eq!(clock.sleeps(), [secs(1)]);
    // A device code is good for one token only.
    let again = oauth
        .poll_device_token(&flow, &client, &authorization, secs(60))
        .await;
    assert!(matches!(
        again,
        Err(OAuthError::Server {
            code: ErrorCode::InvalidGrant,
            status: 400,
            ..
        })
    ));
}

#[tokio::test]
async fn device_flow_denied() {
    let server = server(options()).await;
    let clock = ScriptedClock::new(&server, Some((2, Act::DenyByPage)));
    let result = oauth(clock.clone())
        .device_login(
            &flow_of(&server, "login"),
            &ClientAuth::public("cli"),
            &[],
            secs(600),
            clock.show(),
        )
        .await;
    match result {
        Err(error @ OAuthError::Server { .. }) => {
            assert_eq!(error.code(), Some(&ErrorCode::AccessDenied));
            assert_eq!(
                error.to_string(),
                "the login was denied: access_denied (the user denied the request)"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        server.token_outcomes(DEVICE_CODE_GRANT),
        ["authorization_pending", "access_denied"]
    );
    assert_eq!(clock.sleeps(), [secs(1), secs(1)]);
}

#[tokio::test]
async fn device_flow_slows_down_by_five_seconds_each_time() {
    let server = server(ServerOptions {
        slow_down_polls: 2,
        ..options()
    })
    .await;
    let clock = ScriptedClock::new(&server, Some((4, Act::ApproveByPage("carol"))));
    let token = oauth(clock.clone())
        .device_login(
            &flow_of(&server, "login"),
            &ClientAuth::public("cli"),
            &[],
            secs(600),
            clock.show(),
        )
        .await
        .unwrap();
    assert_eq!(clock.sleeps(), [secs(1), secs(6), secs(11), secs(11)]);
    assert_eq!(clock.token_requests_seen(), [0, 1, 2, 3]);
    assert_eq!(
        server.token_outcomes(DEVICE_CODE_GRANT),
        ["slow_down", "slow_down", "authorization_pending", "ok"]
    );
    assert_eq!(
        verified_claims(&server, &token.access_token)["sub"],
        json!("carol")
    );
}

#[tokio::test]
async fn device_flow_expired_at_the_server() {
    let server = server(options()).await;
    let clock = ScriptedClock::new(&server, Some((2, Act::Expire)));
    let result = oauth(clock.clone())
        .device_login(
            &flow_of(&server, "login"),
            &ClientAuth::public("cli"),
            &[],
            secs(600),
            clock.show(),
        )
        .await;
    assert!(matches!(
        result,
        Err(OAuthError::Server {
            code: ErrorCode::ExpiredToken,
            status: 400,
            ..
        })
    ));
    assert_eq!(
        server.token_outcomes(DEVICE_CODE_GRANT),
        ["authorization_pending", "expired_token"]
    );
}

#[tokio::test]
async fn device_flow_gives_up_when_the_code_or_the_caller_runs_out() {
    // The code lives 3 s and is never answered: three polls at 1 s, then no
    // fourth, since it would come after the code expired.
    let server = server(ServerOptions {
        device_code_lifetime: 3,
        ..options()
    })
    .await;
    let clock = ScriptedClock::new(&server, None);
    let result = oauth(clock.clone())
        .device_login(
            &flow_of(&server, "login"),
            &ClientAuth::public("cli"),
            &[],
            secs(600),
            clock.show(),
        )
        .await;
    match result {
        Err(error @ OAuthError::TimedOut { .. }) => {
            assert!(matches!(error, OAuthError::TimedOut { waited } if waited == secs(3)));
            assert_eq!(
                error.to_string(),
                "gave up waiting for the login to be approved after 3 s"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(clock.sleeps(), [secs(1); 3]);
    assert_eq!(
        server.token_outcomes(DEVICE_CODE_GRANT),
        ["authorization_pending"; 3]
    );

    // The caller's bound, when shorter, is the one kept.
    let server = server_with_default_options().await;
    let clock = ScriptedClock::new(&server, None);
    let result = oauth(clock.clone())
        .device_login(
            &flow_of(&server, "login"),
            &ClientAuth::public("cli"),
            &[],
            secs(2),
            clock.show(),
        )
        .await;
    assert!(matches!(result, Err(OAuthError::TimedOut { waited }) if waited == secs(2)));
    assert_eq!(server.token_outcomes(DEVICE_CODE_GRANT).len(), 2);
}

async fn server_with_default_options() -> Arc<OAuthServer> {
    server(options()).await
}

#[tokio::test]
async fn device_flow_backs_off_when_the_token_endpoint_is_unreachable() {
    let server = server(options()).await;
    // A port that was just free: nothing listens there.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let mut flow = flow_of(&server, "login");
    flow.token_url = format!("http://{closed}/token");
    let clock = ScriptedClock::new(&server, None);
    let result = oauth(clock.clone())
        .device_login(&flow, &ClientAuth::public("cli"), &[], secs(600), clock.show())
        .await;
    assert!(matches!(result, Err(OAuthError::Transport { url, .. }) if url == flow.token_url));
    assert_eq!(clock.sleeps(), [secs(1), secs(2), secs(4), secs(8)]);
}

#[tokio::test]
async fn client_credentials_with_basic_authentication() {
    let server = server(options()).await;
    let clock = ScriptedClock::new(&server, None);
    let client = ClientAuth::confidential("ci-bot", Secret::new("ci-secret"));
    let token = oauth(clock)
        .client_credentials(&flow_of(&server, "ci"), &client, &scopes(&["deploy", "read"]))
        .await
        .unwrap();
    assert_eq!(token.refresh_token, None);
    assert_eq!(token.scope.as_deref(), Some("deploy read"));
    let claims = verified_claims(&server, &token.access_token);
    assert_eq!(claims["sub"], json!("ci-bot"));
    assert_eq!(
        server.requests_to(Endpoint::Token),
        [Recorded {
            endpoint: Endpoint::Token,
            method: "POST".into(),
            grant_type: Some("client_credentials".into()),
            client_id: Some("ci-bot".into()),
            client_auth: Some("client_secret_basic".into()),
            scope: Some("deploy read".into()),
            outcome: "ok".into(),
        }]
    );
}

#[tokio::test]
async fn client_credentials_refused() {
    let server = server(options()).await;
    let oauth = oauth(ScriptedClock::new(&server, None));
    let flow = flow_of(&server, "ci");
    let wrong = ClientAuth::confidential("ci-bot", Secret::new("not-the-secret"));
    match oauth.client_credentials(&flow, &wrong, &[]).await {
        Err(error @ OAuthError::Server { .. }) => {
            assert!(matches!(
                &error,
                OAuthError::Server { code: ErrorCode::InvalidClient, status: 401, description: Some(d) }
                    if d == "client authentication failed"
            ));
            assert!(!error.to_string().contains("not-the-secret"));
        }
        other => panic!("{other:?}"),
    }
    let unknown = ClientAuth::confidential("nobody", Secret::new("x"));
    assert!(matches!(
        oauth.client_credentials(&flow, &unknown, &[]).await,
        Err(OAuthError::Server {
            code: ErrorCode::InvalidClient,
            ..
        })
    ));
    let public = ClientAuth::public("cli");
    assert!(matches!(
        oauth.client_credentials(&flow, &public, &[]).await,
        Err(OAuthError::Server {
            code: ErrorCode::UnauthorizedClient,
            ..
        })
    ));
    // A device flow handed to the client credentials grant is refused before any request.
    let device = flow_of(&server, "login");
    assert!(matches!(
        oauth.client_credentials(&device, &wrong, &[]).await,
        Err(OAuthError::WrongGrant {
            expected: "clientCredentials"
        })
    ));
    assert_eq!(
        server.token_outcomes("client_credentials"),
        ["invalid_client", "invalid_client", "unauthorized_client"]
    );
}

#[tokio::test]
async fn client_secret_goes_in_the_form_when_the_metadata_says_so() {
    let server = server(ServerOptions {
        auth_methods: vec!["client_secret_post".into()],
        ..options()
    })
    .await;
    let oauth = oauth(ScriptedClock::new(&server, None));
    let client = ClientAuth::confidential("ci-bot", Secret::new("ci-secret"));
    // As the card declares it, the flow knows nothing of the server: Basic, which it refuses.
    let declared = flow_of(&server, "ci");
    assert!(matches!(
        oauth.client_credentials(&declared, &client, &[]).await,
        Err(OAuthError::Server {
            code: ErrorCode::InvalidClient,
            ..
        })
    ));
    // Resolved with the card's `oauth2MetadataUrl`, it learns the form method.
    let resolved = resolve_flows(&oauth, &card(&server)).await;
    assert!(resolved.failures.is_empty(), "{:?}", resolved.failures);
    let ci = resolved.flows.iter().find(|f| f.scheme == "ci").unwrap();
    assert_eq!(ci.flow.issuer, Some(server.issuer()));
    assert_eq!(ci.flow.auth_methods, Some(vec!["client_secret_post".to_string()]));
    oauth.client_credentials(&ci.flow, &client, &[]).await.unwrap();
    let auth: Vec<Option<String>> = server
        .requests_to(Endpoint::Token)
        .into_iter()
        .map(|r| r.client_auth)
        .collect();
    assert_eq!(auth, [None, Some("client_secret_post".to_string())]);
}

#[tokio::test]
async fn openid_connect_discovery_leads_to_the_device_flow() {
    let server = server(options()).await;
    let clock = ScriptedClock::new(&server, Some((1, Act::ApproveByPage("dora"))));
    let oauth = oauth(clock.clone());
    let card = card(&server);
    let names: Vec<String> = oauth_schemes(&card).into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["login", "ci", "sso"]);

    let resolved = resolve_flows(&oauth, &card).await;
    assert!(resolved.failures.is_empty(), "{:?}", resolved.failures);
    let listed: Vec<(&str, &str)> = resolved
        .flows
        .iter()
        .map(|f| (f.scheme.as_str(), f.flow.grant.card_name()))
        .collect();
    assert_eq!(
        listed,
        [
            ("login", "deviceCode"),
            ("ci", "clientCredentials"),
            ("sso", "deviceCode"),
            ("sso", "clientCredentials")
        ]
    );
    let sso = &resolved.flows[2].flow;
    assert_eq!(
        sso.grant,
        Grant::DeviceCode {
            device_authorization_url: server.device_authorization_url()
        }
    );
    assert_eq!(sso.token_url, server.token_url());
    assert_eq!(sso.issuer, Some(server.issuer()));
    let fetched: Vec<Endpoint> = server.requests().iter().map(|r| r.endpoint).collect();
    assert_eq!(
        fetched,
        [
            Endpoint::AuthorizationServerMetadata,
            Endpoint::OpenIdConfiguration
        ]
    );

    let token = oauth
        .device_login(sso, &ClientAuth::public("cli"), &[], secs(600), clock.show())
        .await
        .unwrap();
    assert_eq!(
        verified_claims(&server, &token.access_token)["sub"],
        json!("dora")
    );
    assert_eq!(server.token_outcomes(DEVICE_CODE_GRANT), ["ok"]);
}

#[tokio::test]
async fn discovery_refuses_a_document_naming_another_issuer() {
    let server = server(ServerOptions {
        issuer: Some("https://impostor.example".into()),
        ..options()
    })
    .await;
    let oauth = oauth(ScriptedClock::new(&server, None));
    let resolved = resolve_flows(&oauth, &card(&server)).await;
    let failures: Vec<(&str, String, String)> = resolved
        .failures
        .iter()
        .map(|(scheme, error)| match error {
            OAuthError::IssuerMismatch { expected, found, .. } => {
                (scheme.as_str(), expected.clone(), found.clone())
            }
            other => panic!("{other:?}"),
        })
        .collect();
    let expected = (server.base_url(), "https://impostor.example".to_string());
    assert_eq!(
        failures,
        [
            ("ci", expected.0.clone(), expected.1.clone()),
            ("sso", expected.0.clone(), expected.1.clone())
        ]
    );
    // The card's own flows stay; the OpenID Connect scheme yields none.
    let schemes: Vec<&str> = resolved.flows.iter().map(|f| f.scheme.as_str()).collect();
    assert_eq!(schemes, ["login", "ci"]);
    assert_eq!(resolved.flows[1].flow.issuer, None);
}

#[tokio::test]
async fn malformed_and_huge_answers_are_errors() {
    let server = server(ServerOptions {
        fault: Some(Fault::NotJson),
        ..options()
    })
    .await;
    let oauth = oauth(ScriptedClock::new(&server, None));
    let client = ClientAuth::confidential("ci-bot", Secret::new("ci-secret"));
    assert!(matches!(
        oauth.client_credentials(&flow_of(&server, "ci"), &client, &[]).await,
        Err(OAuthError::Malformed { reason, .. }) if reason == "not a JSON object"
    ));
    assert!(matches!(
        oauth.fetch_metadata(&server.openid_configuration_url()).await,
        Err(OAuthError::Malformed { reason, .. }) if reason == "not a JSON object"
    ));
    assert!(matches!(
        oauth.start_device_authorization(&flow_of(&server, "login"), &ClientAuth::public("cli"), &[]).await,
        Err(OAuthError::Malformed { reason, .. }) if reason == "not a JSON object"
    ));

    let server = server_huge().await;
    let oauth = oauth_plain(&server);
    assert!(matches!(
        oauth
            .client_credentials(&flow_of(&server, "ci"), &client, &[])
            .await,
        Err(OAuthError::TooLarge { limit: 65536, .. })
    ));
    assert!(matches!(
        oauth.fetch_metadata(&server.openid_configuration_url()).await,
        Err(OAuthError::TooLarge { limit: 262144, .. })
    ));
}

async fn server_huge() -> Arc<OAuthServer> {
    server(ServerOptions {
        fault: Some(Fault::HugeBody(1 << 20)),
        ..options()
    })
    .await
}

fn oauth_plain(server: &Arc<OAuthServer>) -> OAuthClient {
    oauth(ScriptedClock::new(server, None))
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn token_is_stored_private_and_used_without_a_request() {
    let server = server(options()).await;
    let clock = ScriptedClock::new(&server, Some((1, Act::ApproveByPage("erin"))));
    let oauth = oauth(clock.clone());
    let flow = flow_of(&server, "login");
    let client = ClientAuth::public("cli");
    let token = oauth
        .device_login(&flow, &client, &[], secs(600), clock.show())
        .await
        .unwrap();

    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::new(home.path().join("a2a-cli"));
    let key = AgentKey::new("http://127.0.0.1:9/.well-known/agent-card.json", "login").unwrap();
    let stored = StoredToken::new(&key, &token, &flow, &client, clock.now());
    store.save(&stored).unwrap();
    #[cfg(unix)]
    {
        assert_eq!(mode(&home.path().join("a2a-cli")), 0o700);
        assert_eq!(mode(store.dir()), 0o700);
        assert_eq!(mode(&store.path_of(&key)), 0o600);
    }
    let read = store.load(&key).unwrap().unwrap();
    assert_eq!(read, stored);
    assert_eq!(read.access_token, token.access_token);
    assert_eq!(read.refresh_url, Some(server.token_url()));
    assert_eq!(read.client_id.as_deref(), Some("cli"));
    assert_eq!(read.client_auth.as_deref(), Some("none"));

    let requests = server.requests().len();
    let current = store.token_for(&key, &oauth, None).await.unwrap();
    assert_eq!(current, Some(token.access_token.clone()));
    assert_eq!(server.requests().len(), requests);
    // Another agent, or another scheme of the same one, has no token.
    let other = AgentKey::new("http://127.0.0.1:9/", "sso").unwrap();
    assert_eq!(store.token_for(&other, &oauth, None).await.unwrap(), None);
}

#[tokio::test]
async fn expired_token_is_refreshed_and_a_dead_refresh_token_forgotten() {
    // Tokens of 10 s are within the store's 30 s margin: expired as soon as kept.
    let server = server(ServerOptions {
        token_lifetime: 10,
        ..options()
    })
    .await;
    let clock = ScriptedClock::new(&server, Some((1, Act::ApproveByPage("finn"))));
    let oauth = oauth(clock.clone());
    let flow = flow_of(&server, "login");
    let client = ClientAuth::public("cli");
    let token = oauth
        .device_login(&flow, &client, &[], secs(600), clock.show())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::new(home.path());
    let key = AgentKey::new("http://127.0.0.1:9/", "login").unwrap();
    let first = StoredToken::new(&key, &token, &flow, &client, clock.now());
    assert!(first.is_expired(clock.now()));
    store.save(&first).unwrap();

    let renewed = store.token_for(&key, &oauth, None).await.unwrap().unwrap();
    assert_ne!(renewed, first.access_token);
    assert_eq!(verified_claims(&server, &renewed)["sub"], json!("finn"));
    let kept = store.load(&key).unwrap().unwrap();
    assert_eq!(kept.access_token, renewed);
    // The server rotates refresh tokens; the new one is kept.
    assert_ne!(kept.refresh_token, first.refresh_token);
    #[cfg(unix)]
    assert_eq!(mode(&store.path_of(&key)), 0o600);

    // Still within the margin: refreshed again, with the rotated token.
    store.token_for(&key, &oauth, None).await.unwrap().unwrap();
    assert_eq!(server.token_outcomes("refresh_token"), ["ok", "ok"]);
    let refreshes: Vec<(Option<String>, Option<String>)> = server
        .requests_to(Endpoint::Token)
        .into_iter()
        .filter(|r| r.grant_type.as_deref() == Some("refresh_token"))
        .map(|r| (r.client_id, r.client_auth))
        .collect();
    let public = (Some("cli".to_string()), Some("none".to_string()));
    assert_eq!(refreshes, [public.clone(), public]);

    // A refresh token the server no longer knows: the token is forgotten.
    let mut dead = store.load(&key).unwrap().unwrap();
    dead.refresh_token = Some("rt-unknown".into());
    store.save(&dead).unwrap();
    assert_eq!(store.token_for(&key, &oauth, None).await.unwrap(), None);
    assert_eq!(store.load(&key).unwrap(), None);
    assert_eq!(
        server.token_outcomes("refresh_token"),
        ["ok", "ok", "invalid_grant"]
    );

    // Expired with no refresh token: nothing to send, nothing asked.
    let mut bare = first.clone();
    bare.refresh_token = None;
    store.save(&bare).unwrap();
    let before = server.requests().len();
    assert_eq!(store.token_for(&key, &oauth, None).await.unwrap(), None);
    assert_eq!(server.requests().len(), before);
}

#[tokio::test]
async fn issued_tokens_pass_the_agents_check_and_only_it() {
    let server = server(ServerOptions {
        subject: Some("svc".into()),
        token_lifetime: 120,
        extra_claims: json!({"namespaces": {"default": "writer"}})
            .as_object()
            .unwrap()
            .clone(),
        ..options()
    })
    .await;
    let oauth = oauth(ScriptedClock::new(&server, None));
    let client = ClientAuth::confidential("ci-bot", Secret::new("ci-secret"));
    let token = oauth
        .client_credentials(&flow_of(&server, "ci"), &client, &[])
        .await
        .unwrap()
        .access_token;
    let claims = verified_claims(&server, &token);
    assert_eq!(claims["sub"], json!("svc"));
    assert_eq!(claims["namespaces"], json!({"default": "writer"}));
    assert_eq!(claims.get("scope"), None);
    assert_eq!(
        claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
        120
    );

    assert_eq!(
        server.agent_jwt_config(),
        json!({"issuer": server.issuer(), "audience": ["cleveragents"], "hs256_secret": SECRET})
    );
    let config = agent_jwt_config(&server);
    let check = |secret: &str, issuer: &str, audience: &str| {
        let mut validation = agent_validation(&config);
        validation.set_issuer(&[issuer]);
        validation.set_audience(&[audience]);
        jsonwebtoken::decode::<Map<String, Value>>(
            &token,
            &DecodingKey::from_secret(secret.as_bytes()),
            &validation,
        )
        .map(|_| ())
        .map_err(|e| e.into_kind())
    };
    use jsonwebtoken::errors::ErrorKind;
    assert_eq!(check(SECRET, &server.issuer(), "cleveragents"), Ok(()));
    assert_eq!(
        check("another-secret", &server.issuer(), "cleveragents"),
        Err(ErrorKind::InvalidSignature)
    );
    assert_eq!(
        check(SECRET, "https://other.example", "cleveragents"),
        Err(ErrorKind::InvalidIssuer)
    );
    assert_eq!(
        check(SECRET, &server.issuer(), "another-agent"),
        Err(ErrorKind::InvalidAudience)
    );
}

#[tokio::test]
async fn rs256_tokens_verify_with_the_published_keys() {
    let server = server(ServerOptions {
        signing: Signing::Rs256,
        ..options()
    })
    .await;
    let published = reqwest::get(server.jwks_url())
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let jwks: jsonwebtoken::jwk::JwkSet = serde_json::from_str(&published).unwrap();
    assert_eq!(jwks.keys.len(), 1);
    let token = server.mint("cli", "gus", Some("agent"));
    let header = jsonwebtoken::decode_header(&token).unwrap();
    assert_eq!(header.alg, Algorithm::RS256);
    let key = jwks.find(header.kid.as_deref().unwrap()).unwrap();
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_issuer(&[server.issuer()]);
    validation.set_audience(&["cleveragents"]);
    let claims =
        jsonwebtoken::decode::<Map<String, Value>>(&token, &DecodingKey::from_jwk(key).unwrap(), &validation)
            .unwrap()
            .claims;
    assert_eq!(claims["sub"], json!("gus"));
    // An HS256 server publishes no key: its secret is shared, not public.
    let hs = server_with_default_options().await;
    let empty = reqwest::get(hs.jwks_url()).await.unwrap().text().await.unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&empty).unwrap(),
        json!({"keys": []})
    );
}

#[tokio::test]
async fn verification_page_refuses_unknown_codes() {
    let server = server(options()).await;
    assert_eq!(decide_by_page(&server, "ZZZZ-ZZZZ", "approve", None).await, 404);
    let page = reqwest::get(format!("{}?user_code=ABCD-EFGH", server.verification_url()))
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.text().await.unwrap().contains("value=\"ABCD-EFGH\""));
    assert!(!server.approve("ZZZZ-ZZZZ", None));
    assert!(!server.deny("ZZZZ-ZZZZ"));
    assert!(!server.expire("ZZZZ-ZZZZ"));
}
