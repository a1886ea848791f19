//! Where the card says credentials go, over real sockets: an API key in a
//! header, a query parameter or a cookie is taken from that place only, on
//! JSON-RPC, HTTP+JSON, their SSE streams and the extended card, and never
//! echoed; the card declares its `location` and `name`; an OpenID Connect
//! scheme is declared as configured, needs `auth.jwt`, and admits JWT bearers.

mod common;

use common::*;
use jsonwebtoken::{encode, EncodingKey, Header};
use serde_json::{json, Value};
use server::{
    ApiKeyLocation, CredentialConfig, JwtConfig, OpenIdConnectConfig, PrincipalConfig, Secret, ServerConfig,
};
use std::time::{SystemTime, UNIX_EPOCH};

/// A key with characters a query string must encode (and a cookie may carry).
const KEY: &str = "alice+key/=1";
/// [`KEY`] as a query parameter's value.
const KEY_IN_QUERY: &str = "alice%2Bkey%2F%3D1";

const AUTH_REQUIRED: (i64, &str, &str) = (-32002, "urn:cleveragents:extensions:v1", "AUTH_REQUIRED");

/// API key authentication only, with the key at `location` under `name`.
fn keyed(location: ApiKeyLocation, name: &str) -> ServerConfig {
    let mut config = loopback_config();
    config.auth.api_key_location = location;
    config.auth.api_key_name = name.into();
    config.auth.api_keys = vec![CredentialConfig {
        secret: Secret::new(KEY),
        subject: "alice".into(),
    }];
    config.auth.principals = vec![PrincipalConfig {
        subject: "alice".into(),
        namespaces: [("default".to_string(), a2a::rpc::Access::Writer)].into(),
        default_namespace: None,
    }];
    config
}

/// A request: `verb path` with `A2A-Version: 1.0` (unless `version` is
/// `None`), `headers`, and `body` as JSON when given.
fn request(
    verb: &str,
    path: &str,
    version: Option<&str>,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Vec<u8> {
    let body = body
        .map(|b| serde_json::to_vec(b).expect("encode"))
        .unwrap_or_default();
    let mut head = format!("{verb} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    if let Some(version) = version {
        head.push_str(&format!("A2A-Version: {version}\r\n"));
    }
    if !body.is_empty() {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(&body);
    out
}

/// Everything a client saw of the answers, to look for a leaked key in.
#[derive(Default)]
struct Seen(String);

impl Seen {
    async fn exchange(&mut self, server: &RunningServer, request: Vec<u8>) -> HttpResponse {
        let response = send_raw(server.addr, &request).await.into_full().await;
        for (name, value) in &response.headers {
            self.0.push_str(&format!("{name}: {value}\n"));
        }
        self.0.push_str(&String::from_utf8_lossy(&response.body));
        self.0.push('\n');
        response
    }

    /// A JSON-RPC `call` posted to `path` with `headers`.
    async fn rpc(
        &mut self,
        server: &RunningServer,
        path: &str,
        headers: &[(&str, &str)],
        call: &Value,
    ) -> HttpResponse {
        self.exchange(server, request("POST", path, Some("1.0"), headers, Some(call)))
            .await
    }

    /// A GET of `path` with `headers`.
    async fn get(&mut self, server: &RunningServer, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
        self.exchange(server, request("GET", path, Some("1.0"), headers, None))
            .await
    }

    fn assert_no_key(&self) {
        for leak in [KEY, KEY_IN_QUERY, "alice+key", "alice%2Bkey"] {
            assert!(!self.0.contains(leak), "`{leak}` in an answer:\n{}", self.0);
        }
    }
}

fn get_task() -> Value {
    rpc(json!(1), "GetTask", json!({"id": "a"}))
}

/// A JSON-RPC answer admitting alice to GetTask.
fn assert_admitted(response: &HttpResponse) {
    assert_eq!(
        response.status,
        200,
        "{}",
        String::from_utf8_lossy(&response.body)
    );
    assert_eq!(response.json()["result"]["metadata"]["principal"], "alice");
}

/// A JSON-RPC 401 with `message` and exactly `challenge`.
fn assert_refused(response: &HttpResponse, message: &str, challenge: &str) {
    assert_eq!(
        response.status,
        401,
        "{}",
        String::from_utf8_lossy(&response.body)
    );
    let body = response.json();
    let (code, domain, reason) = error_of(&body);
    assert_eq!((code, domain.as_str(), reason.as_str()), AUTH_REQUIRED);
    assert_eq!(body["error"]["message"], message);
    assert_eq!(response.header("www-authenticate"), Some(challenge));
}

/// The SSE events of a streaming answer: each `id:` and `data:`.
async fn stream_events(
    server: &RunningServer,
    request: Vec<u8>,
) -> (u16, Option<String>, Vec<(Option<String>, Value)>) {
    let mut open = send_raw(server.addr, &request).await;
    let content_type = open.header("content-type").map(str::to_string);
    let status = open.status;
    (status, content_type, open.all_events().await)
}

/// The streams and the extended card, admitted with the credential in
/// `headers` and `query` (appended to each path), over both HTTP bindings.
async fn streams_and_extended_card_admit(server: &RunningServer, query: &str, headers: &[(&str, &str)]) {
    let streaming = rpc(
        json!(7),
        "SendStreamingMessage",
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}}),
    );
    let (status, content_type, events) = stream_events(
        server,
        request(
            "POST",
            &format!("/{query}"),
            Some("1.0"),
            headers,
            Some(&streaming),
        ),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(content_type.as_deref(), Some("text/event-stream"));
    let ids: Vec<Option<&str>> = events.iter().map(|(id, _)| id.as_deref()).collect();
    assert_eq!(ids, [Some("10"), Some("11"), Some("12")]);
    assert!(events.iter().all(|(_, data)| data["id"] == 7));

    let (status, content_type, events) = stream_events(
        server,
        request(
            "GET",
            &format!("/rest/tasks/resume:subscribe{query}"),
            Some("1.0"),
            headers,
            None,
        ),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(content_type.as_deref(), Some("text/event-stream"));
    let seen: Vec<(Option<&str>, &Value)> = events
        .iter()
        .map(|(id, data)| (id.as_deref(), &data["statusUpdate"]["metadata"]["n"]))
        .collect();
    assert_eq!(seen, [(Some("1"), &json!(1)), (Some("2"), &json!(2))]);

    let extended = send_raw(
        server.addr,
        &request(
            "POST",
            &format!("/{query}"),
            Some("1.0"),
            headers,
            Some(&rpc(json!(8), "GetExtendedAgentCard", json!({}))),
        ),
    )
    .await
    .into_full()
    .await;
    assert_eq!(extended.status, 200);
    assert_eq!(extended.json()["result"]["name"], "CleverAgents");
    let extended = send_raw(
        server.addr,
        &request(
            "GET",
            &format!("/rest/extendedAgentCard{query}"),
            Some("1.0"),
            headers,
            None,
        ),
    )
    .await
    .into_full()
    .await;
    assert_eq!(extended.status, 200);
    assert_eq!(extended.json()["name"], "CleverAgents");
}

#[tokio::test]
async fn an_api_key_declared_in_the_query_is_taken_from_there_only() {
    let (dispatch, _) = test_router();
    let server = start_http(keyed(ApiKeyLocation::Query, "api_key"), dispatch).await;
    let challenge = "ApiKey realm=\"cleveragents\", query=\"api_key\"";
    let mut seen = Seen::default();
    let good = format!("/?api_key={KEY_IN_QUERY}");
    assert_admitted(&seen.rpc(&server, &good, &[], &get_task()).await);

    // In a header (under its name or the default one) or a cookie it is no
    // credential at all.
    for headers in [
        [("api_key", KEY)],
        [("X-API-Key", KEY)],
        [("Cookie", &format!("api_key={KEY}"))],
    ] {
        let response = seen.rpc(&server, "/", &headers, &get_task()).await;
        assert_refused(&response, "Authentication required", challenge);
    }
    // Names are case-sensitive; a `+` is a space, so an unencoded key is another key.
    let response = seen
        .rpc(&server, &format!("/?API_KEY={KEY_IN_QUERY}"), &[], &get_task())
        .await;
    assert_refused(&response, "Authentication required", challenge);
    for (path, message) in [
        (format!("/?api_key={KEY}"), "Invalid credentials: unknown API key"),
        (
            format!("/?api_key={KEY_IN_QUERY}&api_key={KEY_IN_QUERY}"),
            "Invalid credentials: the API key query parameter is given more than once",
        ),
        (
            "/?api_key=alice%2Xkey".to_string(),
            "Invalid credentials: malformed API key query parameter",
        ),
    ] {
        let response = seen.rpc(&server, &path, &[], &get_task()).await;
        assert_refused(&response, message, challenge);
    }

    // The other parameters stay: `A2A-Version` in the query still negotiates.
    let response = seen
        .exchange(
            &server,
            request(
                "POST",
                &format!("/?A2A-Version=1.0&api_key={KEY_IN_QUERY}"),
                None,
                &[],
                Some(&get_task()),
            ),
        )
        .await;
    assert_admitted(&response);
    let response = seen
        .exchange(
            &server,
            request(
                "POST",
                &format!("/?api_key={KEY_IN_QUERY}&A2A-Version=9.9"),
                None,
                &[],
                Some(&get_task()),
            ),
        )
        .await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["error"]["code"], -32009);

    // HTTP+JSON, a route with query parameters of its own.
    let response = seen
        .get(
            &server,
            &format!("/rest/tasks/t-1?historyLength=2&api_key={KEY_IN_QUERY}"),
            &[],
        )
        .await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["metadata"]["principal"], "alice");
    let response = seen.get(&server, "/rest/tasks/t-1", &[("api_key", KEY)]).await;
    assert_eq!(response.status, 401);
    assert_eq!(response.json()["error"]["status"], "UNAUTHENTICATED");
    assert_eq!(response.header("www-authenticate"), Some(challenge));

    streams_and_extended_card_admit(&server, &format!("?api_key={KEY_IN_QUERY}"), &[]).await;
    seen.assert_no_key();
    server.stop().await;
}

#[tokio::test]
async fn an_api_key_declared_in_a_cookie_is_taken_from_there_only() {
    let (dispatch, _) = test_router();
    let server = start_http(keyed(ApiKeyLocation::Cookie, "a2a_key"), dispatch).await;
    let challenge = "ApiKey realm=\"cleveragents\", cookie=\"a2a_key\"";
    let mut seen = Seen::default();
    let among_others = format!("theme=dark; a2a_key={KEY}; lang=\"en\"");
    let quoted = format!("a2a_key=\"{KEY}\"");
    let unspaced = format!("theme=dark;a2a_key={KEY}");
    let own = format!("a2a_key={KEY}");
    for headers in [
        vec![("Cookie", among_others.as_str())],
        vec![("Cookie", quoted.as_str())],
        vec![("Cookie", unspaced.as_str())],
        // Cookies may come in several fields (HTTP/2 splits them so).
        vec![("Cookie", "theme=dark"), ("Cookie", own.as_str())],
    ] {
        assert_admitted(&seen.rpc(&server, "/", &headers, &get_task()).await);
    }

    // In a header of its name or the query it is no credential; nor is a
    // cookie whose name only resembles it.
    let resembling = format!("xa2a_key={KEY}; A2A_KEY={KEY}; a2a_key_={KEY}");
    for (path, headers) in [
        ("/".to_string(), vec![("a2a_key", KEY)]),
        ("/".to_string(), vec![("X-API-Key", KEY)]),
        (format!("/?a2a_key={KEY_IN_QUERY}"), vec![]),
        ("/".to_string(), vec![("Cookie", resembling.as_str())]),
    ] {
        let response = seen.rpc(&server, &path, &headers, &get_task()).await;
        assert_refused(&response, "Authentication required", challenge);
    }
    let twice = format!("a2a_key={KEY}; a2a_key=other");
    let wrong = format!("a2a_key={KEY}x");
    for (cookie, message) in [
        (
            twice.as_str(),
            "Invalid credentials: the API key cookie is given more than once",
        ),
        (wrong.as_str(), "Invalid credentials: unknown API key"),
        // Cookie values are not percent-decoded.
        (
            "a2a_key=alice%2Bkey%2F%3D1",
            "Invalid credentials: unknown API key",
        ),
    ] {
        let response = seen.rpc(&server, "/", &[("Cookie", cookie)], &get_task()).await;
        assert_refused(&response, message, challenge);
    }

    let response = seen
        .get(&server, "/rest/tasks/t-1", &[("Cookie", among_others.as_str())])
        .await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["metadata"]["principal"], "alice");
    let response = seen.get(&server, "/rest/tasks/t-1", &[("a2a_key", KEY)]).await;
    assert_eq!(response.status, 401);
    assert_eq!(response.header("www-authenticate"), Some(challenge));

    streams_and_extended_card_admit(&server, "", &[("Cookie", among_others.as_str())]).await;
    seen.assert_no_key();
    server.stop().await;
}

#[tokio::test]
async fn the_card_declares_where_the_key_goes_in_both_forms() {
    let (dispatch, _) = test_router();
    let cases = [
        (
            ApiKeyLocation::Header,
            "X-Agent-Key",
            "API key in a request header.",
        ),
        (
            ApiKeyLocation::Query,
            "api_key",
            "API key in a query parameter of the request URL.",
        ),
        (ApiKeyLocation::Cookie, "a2a_key", "API key in a request cookie."),
    ];
    for (location, name, description) in cases {
        let mut config = keyed(location, name);
        config.cors.allowed_origins = vec!["https://app.test".into()];
        let server = start_http(config, dispatch.clone()).await;
        let card = send_raw(
            server.addr,
            &request("GET", "/.well-known/agent-card.json", Some("1.0"), &[], None),
        )
        .await
        .into_full()
        .await
        .json();
        let place = location_name(location);
        assert_eq!(
            card["securitySchemes"],
            json!({"apiKey": {"apiKeySecurityScheme": {
                "description": description, "location": place, "name": name
            }}})
        );
        assert_eq!(card["securityRequirements"], json!([{"schemes": {"apiKey": {}}}]));

        // The A2A 0.3 form of the same scheme, from the 0.3 extended card.
        let (query, header, cookie);
        let (path, headers): (&str, Vec<(&str, &str)>) = match location {
            ApiKeyLocation::Header => {
                header = [(name, KEY)];
                ("/", header.to_vec())
            }
            ApiKeyLocation::Query => {
                query = format!("/?{name}={KEY_IN_QUERY}");
                (query.as_str(), Vec::new())
            }
            ApiKeyLocation::Cookie => {
                cookie = format!("{name}={KEY}");
                ("/", vec![("Cookie", cookie.as_str())])
            }
        };
        let legacy = send_raw(
            server.addr,
            &request(
                "POST",
                path,
                None,
                &headers,
                Some(&rpc(json!(1), "agent/getAuthenticatedExtendedCard", json!({}))),
            ),
        )
        .await
        .into_full()
        .await;
        assert_eq!(legacy.status, 200, "{}", String::from_utf8_lossy(&legacy.body));
        assert_eq!(
            legacy.json()["result"]["securitySchemes"],
            json!({"apiKey": {"type": "apiKey", "description": description, "in": place, "name": name}})
        );

        // Browsers are told they may send the key's header, when it is one.
        let preflight = send_raw(
            server.addr,
            b"OPTIONS / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nOrigin: https://app.test\r\nAccess-Control-Request-Method: POST\r\n\r\n",
        )
        .await
        .into_full()
        .await;
        let allowed = "Content-Type, Authorization, Last-Event-ID, A2A-Version, A2A-Extensions, \
                       CleverAgents-Extension-Version";
        let expected = match location {
            ApiKeyLocation::Header => format!("{allowed}, {name}"),
            _ => allowed.to_string(),
        };
        assert_eq!(
            preflight.header("access-control-allow-headers"),
            Some(expected.as_str())
        );
        server.stop().await;
    }
}

fn location_name(location: ApiKeyLocation) -> &'static str {
    match location {
        ApiKeyLocation::Header => "header",
        ApiKeyLocation::Query => "query",
        ApiKeyLocation::Cookie => "cookie",
    }
}

#[tokio::test]
async fn a_key_name_its_place_cannot_carry_is_refused_before_anything_is_bound() {
    let (dispatch, _) = test_router();
    let cases = [
        (
            ApiKeyLocation::Header,
            "X API Key",
            "auth.api_key_name `X API Key` is not a valid header name (auth.api_key_location is `header`)",
        ),
        (
            ApiKeyLocation::Query,
            "api key",
            "auth.api_key_name `api key` is not a valid query parameter name: use letters, digits, `-`, `.`, \
             `_` and `~` (auth.api_key_location is `query`)",
        ),
        (
            ApiKeyLocation::Query,
            "a&b",
            "auth.api_key_name `a&b` is not a valid query parameter name: use letters, digits, `-`, `.`, \
             `_` and `~` (auth.api_key_location is `query`)",
        ),
        (
            ApiKeyLocation::Query,
            "",
            "auth.api_key_name `` is not a valid query parameter name: use letters, digits, `-`, `.`, \
             `_` and `~` (auth.api_key_location is `query`)",
        ),
        (
            ApiKeyLocation::Cookie,
            "a;b",
            "auth.api_key_name `a;b` is not a valid cookie name (auth.api_key_location is `cookie`)",
        ),
        (
            ApiKeyLocation::Cookie,
            "a=b",
            "auth.api_key_name `a=b` is not a valid cookie name (auth.api_key_location is `cookie`)",
        ),
    ];
    for (location, name, message) in cases {
        match server::HttpServer::bind(keyed(location, name), dispatch.clone()).await {
            Ok(_) => panic!("`{name}` was accepted for {location:?}"),
            Err(error) => assert_eq!(
                error.to_string(),
                format!("invalid server configuration: {message}")
            ),
        }
    }
}

#[test]
fn the_key_name_reads_under_its_old_name_too_and_the_location_is_one_of_three() {
    let parse = |auth: Value| serde_json::from_value::<ServerConfig>(json!({"auth": auth}));
    let defaults = parse(json!({})).expect("defaults");
    assert_eq!(defaults.auth.api_key_location, ApiKeyLocation::Header);
    assert_eq!(defaults.auth.api_key_name, "X-API-Key");
    let old = parse(json!({"api_key_header": "X-Old"})).expect("the old name");
    assert_eq!(old.auth.api_key_name, "X-Old");
    assert_eq!(old.auth.api_key_location, ApiKeyLocation::Header);
    let new = parse(json!({"api_key_location": "cookie", "api_key_name": "k"})).expect("the new name");
    assert_eq!(
        (new.auth.api_key_location, new.auth.api_key_name.as_str()),
        (ApiKeyLocation::Cookie, "k")
    );
    let query = parse(json!({"api_key_location": "query"})).expect("query");
    assert_eq!(query.auth.api_key_location, ApiKeyLocation::Query);
    let refusals = [
        (
            json!({"api_key_header": "a", "api_key_name": "b"}),
            "duplicate field `api_key_name`",
        ),
        (
            json!({"api_key_location": "body"}),
            "unknown variant `body`, expected one of `header`, `query`, `cookie`",
        ),
        (
            json!({"openid_connect": {"url": "https://issuer.test/.well-known/openid-configuration", "issuer": "x"}}),
            "unknown field `issuer`, expected `url` or `description`",
        ),
        (json!({"openid_connect": {}}), "missing field `url`"),
    ];
    for (auth, message) in refusals {
        let error = parse(auth.clone()).expect_err("refused");
        assert_eq!(error.to_string(), message, "{auth}");
    }
}

const HS_SECRET: &str = "oidc-hs256-secret-of-sufficient-length";
const DISCOVERY: &str = "https://issuer.test/.well-known/openid-configuration";

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn oidc(description: Option<&str>) -> ServerConfig {
    let mut config = loopback_config();
    config.auth.jwt = Some(JwtConfig {
        hs256_secret: Some(Secret::new(HS_SECRET)),
        issuer: Some("https://issuer.test".into()),
        audience: vec!["cleveragents".into()],
        leeway_secs: 0,
        ..JwtConfig::default()
    });
    config.auth.openid_connect = Some(OpenIdConnectConfig {
        url: DISCOVERY.into(),
        description: description.map(str::to_string),
    });
    config.auth.principals = vec![PrincipalConfig {
        subject: "alice".into(),
        namespaces: [("default".to_string(), a2a::rpc::Access::Reader)].into(),
        default_namespace: None,
    }];
    config
}

fn id_token(issuer: &str) -> String {
    let claims = json!({"sub": "alice", "iss": issuer, "aud": "cleveragents",
                        "exp": now() + 600, "nbf": now() - 10});
    encode(
        &Header::new(jsonwebtoken::Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(HS_SECRET.as_bytes()),
    )
    .expect("a token")
}

#[tokio::test]
async fn an_openid_connect_scheme_is_declared_exactly_and_admits_its_jwts() {
    let (dispatch, _) = test_router();
    let jwt = json!({"httpAuthSecurityScheme": {
        "description": "JWT bearer token (HS256, RS256 or ES256).", "scheme": "Bearer", "bearerFormat": "JWT"
    }});
    let requirements = json!([{"schemes": {"jwt": {}}}, {"schemes": {"openIdConnect": {}}}]);
    for (description, declared) in [
        (
            Some("Sign in with the issuer."),
            json!({"openIdConnectSecurityScheme": {
                "description": "Sign in with the issuer.", "openIdConnectUrl": DISCOVERY
            }}),
        ),
        (
            None,
            json!({"openIdConnectSecurityScheme": {"openIdConnectUrl": DISCOVERY}}),
        ),
    ] {
        let server = start_http(oidc(description), dispatch.clone()).await;
        let card = send_raw(
            server.addr,
            &request("GET", "/.well-known/agent-card.json", Some("1.0"), &[], None),
        )
        .await
        .into_full()
        .await
        .json();
        assert_eq!(
            card["securitySchemes"],
            json!({"jwt": jwt, "openIdConnect": declared})
        );
        assert_eq!(card["securityRequirements"], requirements);
        // The card for A2A 0.3 clients adds their `security` beside it.
        let legacy = get(server.addr, "/.well-known/agent-card.json").await.json();
        assert_eq!(legacy["securitySchemes"], card["securitySchemes"]);
        assert_eq!(legacy["security"], json!([{"jwt": []}, {"openIdConnect": []}]));

        // A token of the issuer is a bearer credential.
        let bearer = format!("Bearer {}", id_token("https://issuer.test"));
        let response = post(server.addr, &get_task(), &[("Authorization", &bearer)]).await;
        assert_admitted(&response);
        let legacy = send_raw(
            server.addr,
            &request(
                "POST",
                "/",
                None,
                &[("Authorization", &bearer)],
                Some(&rpc(json!(1), "agent/getAuthenticatedExtendedCard", json!({}))),
            ),
        )
        .await
        .into_full()
        .await;
        let mut expected = json!({"type": "openIdConnect", "openIdConnectUrl": DISCOVERY});
        if let Some(description) = description {
            expected["description"] = json!(description);
        }
        assert_eq!(
            legacy.json()["result"]["securitySchemes"]["openIdConnect"],
            expected
        );
        // One of another issuer is not; nor is none.
        let other = format!("Bearer {}", id_token("https://elsewhere.test"));
        let response = post(server.addr, &get_task(), &[("Authorization", &other)]).await;
        assert_refused(
            &response,
            "Invalid credentials: wrong issuer",
            "Bearer realm=\"cleveragents\", error=\"invalid_token\"",
        );
        let response = post(server.addr, &get_task(), &[]).await;
        assert_refused(
            &response,
            "Authentication required",
            "Bearer realm=\"cleveragents\"",
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn openid_connect_without_jwt_verification_or_with_a_bad_url_is_refused_at_start() {
    let (dispatch, _) = test_router();
    let mut without_jwt = oidc(None);
    without_jwt.auth.jwt = None;
    let refused = server::HttpServer::bind(without_jwt, dispatch.clone()).await;
    let Err(error) = refused else {
        panic!("OpenID Connect was served without auth.jwt");
    };
    assert_eq!(
        error.to_string(),
        "invalid server configuration: auth.openid_connect needs auth.jwt: OpenID Connect tokens are \
         verified as JWTs against its keys (hs256_secret or jwks_file), issuer and audience"
    );
    for url in [
        "",
        "issuer.test/.well-known/openid-configuration",
        "https://",
        "https:///.well-known/openid-configuration",
        "ftp://issuer.test/.well-known/openid-configuration",
        "https://issuer.test/with space",
    ] {
        let mut config = oidc(None);
        if let Some(oidc) = config.auth.openid_connect.as_mut() {
            oidc.url = url.into();
        }
        let Err(error) = server::HttpServer::bind(config, dispatch.clone()).await else {
            panic!("`{url}` was declared");
        };
        assert_eq!(
            error.to_string(),
            format!(
                "invalid server configuration: auth.openid_connect.url `{url}` is not an absolute http(s) \
                 URL of the provider's discovery document"
            )
        );
    }
}
