//! The authentication and authorization matrix over real sockets: API keys,
//! static bearer tokens, HS256 and ES256 (JWKS) JWTs, per-namespace roles, on
//! standard and extension methods.

mod common;

use common::*;
use jsonwebtoken::{encode, EncodingKey, Header};
use serde_json::{json, Value};
use server::{CredentialConfig, JwtConfig, PrincipalConfig, Secret, ServerConfig};
use std::time::{SystemTime, UNIX_EPOCH};

const HS_SECRET: &str = "test-hs256-secret-of-sufficient-length";

fn config() -> ServerConfig {
    let mut config = loopback_config();
    config.auth.api_keys = vec![CredentialConfig {
        secret: Secret::new("key-alice"),
        subject: "alice".into(),
    }];
    config.auth.bearer_tokens = vec![CredentialConfig {
        secret: Secret::new("token-bob"),
        subject: "bob".into(),
    }];
    config.auth.jwt = Some(JwtConfig {
        hs256_secret: Some(Secret::new(HS_SECRET)),
        jwks_file: Some(format!("{}/tests/keys/jwks.json", env!("CARGO_MANIFEST_DIR")).into()),
        issuer: Some("https://issuer.test".into()),
        audience: vec!["cleveragents".into()],
        leeway_secs: 0,
        ..JwtConfig::default()
    });
    config.auth.principals = vec![PrincipalConfig {
        subject: "alice".into(),
        namespaces: [
            ("team-a".to_string(), a2a::rpc::Access::Writer),
            ("team-b".to_string(), a2a::rpc::Access::Reader),
        ]
        .into(),
        default_namespace: Some("team-a".into()),
    }];
    config
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn hs_token(claims: Value) -> String {
    encode(
        &Header::new(jsonwebtoken::Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(HS_SECRET.as_bytes()),
    )
    .unwrap()
}

fn claims(aud: &str, exp: u64) -> Value {
    json!({"sub": "alice", "iss": "https://issuer.test", "aud": aud, "exp": exp, "nbf": now() - 10})
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

const AUTH_REQUIRED: (i64, &str, &str) = (-32002, "urn:cleveragents:extensions:v1", "AUTH_REQUIRED");

fn assert_error(response: &HttpResponse, status: u16, expected: (i64, &str, &str)) {
    assert_eq!(
        response.status,
        status,
        "{:?}",
        String::from_utf8_lossy(&response.body)
    );
    let (code, domain, reason) = error_of(&response.json());
    assert_eq!((code, domain.as_str(), reason.as_str()), expected);
}

#[tokio::test]
async fn missing_or_bad_credentials_are_401_on_every_kind_of_method() {
    let (dispatch, _) = test_router();
    let server = start_http(config(), dispatch).await;
    let calls = [
        rpc(json!(1), "GetTask", json!({"id": "a"})),
        rpc(json!(2), "_cleveragents/registry/actors/list", json!({})),
    ];
    let expired = hs_token(claims("cleveragents", now() - 60));
    let wrong_aud = hs_token(claims("someone-else", now() + 600));
    for call in &calls {
        let cases: [(Vec<(&str, String)>, &str); 5] = [
            (vec![], "Authentication required"),
            (
                vec![("X-API-Key", "wrong".into())],
                "Invalid credentials: unknown API key",
            ),
            (
                vec![("Authorization", bearer("nope"))],
                "Invalid credentials: unknown bearer token",
            ),
            (
                vec![("Authorization", bearer(&expired))],
                "Invalid credentials: token expired",
            ),
            (
                vec![("Authorization", bearer(&wrong_aud))],
                "Invalid credentials: wrong audience",
            ),
        ];
        for (headers, message) in cases {
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let response = post(server.addr, call, &headers).await;
            assert_error(&response, 401, AUTH_REQUIRED);
            let body = response.json();
            assert_eq!(body["id"], call["id"], "the 401 answers the request id");
            assert_eq!(body["error"]["message"], message);
            let challenge = response.header("www-authenticate").expect("WWW-Authenticate");
            assert!(
                challenge.starts_with("Bearer realm=\"cleveragents\""),
                "{challenge}"
            );
            assert!(
                challenge.contains("ApiKey realm=\"cleveragents\", header=\"X-API-Key\""),
                "{challenge}"
            );
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn each_scheme_admits_its_principal() {
    let (dispatch, _) = test_router();
    let server = start_http(config(), dispatch).await;
    let call = rpc(json!(1), "GetTask", json!({"id": "a"}));
    let good_hs = hs_token(claims("cleveragents", now() + 600));
    let es_key = std::fs::read(format!("{}/tests/keys/es256.pem", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut header = Header::new(jsonwebtoken::Algorithm::ES256);
    header.kid = Some("test-es256".into());
    let good_es = encode(
        &header,
        &claims("cleveragents", now() + 600),
        &EncodingKey::from_ec_pem(&es_key).unwrap(),
    )
    .unwrap();
    for headers in [
        vec![("X-API-Key", "key-alice".to_string())],
        vec![("Authorization", bearer(&good_hs))],
        vec![("Authorization", bearer(&good_es))],
    ] {
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let response = post(server.addr, &call, &headers).await;
        assert_eq!(response.status, 200);
        let body = response.json();
        assert_eq!(body["result"]["metadata"]["principal"], "alice");
        // No tenant given: the principal's default namespace is filled in.
        assert_eq!(body["result"]["metadata"]["tenant"], "team-a");
    }
    // A JWT with a tampered signature.
    let tampered = format!("{}x", &good_es[..good_es.len() - 1]);
    let response = post(server.addr, &call, &[("Authorization", &bearer(&tampered))]).await;
    assert_error(&response, 401, AUTH_REQUIRED);
    server.stop().await;
}

#[tokio::test]
async fn namespaces_without_a_role_are_not_found_and_lesser_roles_are_403() {
    let (dispatch, _) = test_router();
    let server = start_http(config(), dispatch).await;
    let key = [("X-API-Key", "key-alice")];
    // No role in team-c: it does not exist for alice.
    let response = post(
        server.addr,
        &rpc(json!(1), "GetTask", json!({"id": "a", "tenant": "team-c"})),
        &key,
    )
    .await;
    assert_error(&response, 200, (-32001, "a2a-protocol.org", "TASK_NOT_FOUND"));
    let response = post(
        server.addr,
        &rpc(
            json!(2),
            "_cleveragents/registry/actors/list",
            json!({"namespace": "team-c"}),
        ),
        &key,
    )
    .await;
    assert_error(
        &response,
        200,
        (-32001, "urn:cleveragents:extensions:v1", "NOT_FOUND"),
    );
    // Reader in team-b: reads pass, writes are forbidden.
    let response = post(
        server.addr,
        &rpc(json!(3), "GetTask", json!({"id": "a", "tenant": "team-b"})),
        &key,
    )
    .await;
    assert_eq!(response.json()["result"]["metadata"]["tenant"], "team-b");
    let send = json!({"tenant": "team-b", "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}});
    let response = post(server.addr, &rpc(json!(4), "SendMessage", send), &key).await;
    assert_error(
        &response,
        403,
        (-32003, "urn:cleveragents:extensions:v1", "AUTH_FORBIDDEN"),
    );
    assert_eq!(response.json()["id"], 4);
    let add = json!({"namespace": "team-b", "actor": {"name": "x"}});
    let response = post(
        server.addr,
        &rpc(json!(5), "_cleveragents/registry/actors/add", add),
        &key,
    )
    .await;
    assert_error(
        &response,
        403,
        (-32003, "urn:cleveragents:extensions:v1", "AUTH_FORBIDDEN"),
    );
    // Writer in team-a is not admin.
    let response = post(
        server.addr,
        &rpc(
            json!(6),
            "_cleveragents/namespace/members",
            json!({"namespace": "team-a"}),
        ),
        &key,
    )
    .await;
    assert_error(
        &response,
        403,
        (-32003, "urn:cleveragents:extensions:v1", "AUTH_FORBIDDEN"),
    );
    // Writer in team-a may write.
    let send = json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}});
    let response = post(server.addr, &rpc(json!(7), "SendMessage", send), &key).await;
    assert_eq!(response.json()["result"]["task"]["metadata"]["tenant"], "team-a");
    server.stop().await;
}

#[tokio::test]
async fn the_public_card_needs_no_credentials_and_the_extended_card_does() {
    let (dispatch, _) = test_router();
    let mut config = config();
    config.agent.extended_skills = vec![serde_json::from_value(json!({
        "id": "internal", "name": "Internal", "description": "Only for members.", "tags": []
    }))
    .unwrap()];
    let server = start_http(config, dispatch).await;
    let card = get(server.addr, "/.well-known/agent-card.json").await;
    assert_eq!(card.status, 200);
    let card = card.json();
    assert_eq!(card["capabilities"]["extendedAgentCard"], true);
    let schemes = card["securitySchemes"].as_object().unwrap();
    let mut names: Vec<&String> = schemes.keys().collect();
    names.sort();
    assert_eq!(names, ["apiKey", "bearer", "jwt"]);
    assert_eq!(
        card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"],
        json!({"description": "API key in a request header.", "location": "header", "name": "X-API-Key"})
    );
    assert_eq!(
        card["securitySchemes"]["jwt"]["httpAuthSecurityScheme"]["bearerFormat"],
        "JWT"
    );
    assert_eq!(card["securityRequirements"].as_array().unwrap().len(), 3);
    let response = post(
        server.addr,
        &rpc(json!(1), "GetExtendedAgentCard", json!({})),
        &[],
    )
    .await;
    assert_error(&response, 401, AUTH_REQUIRED);
    // Bob is known but holds no role anywhere: the extended card is for members.
    let response = post(
        server.addr,
        &rpc(json!(1), "GetExtendedAgentCard", json!({})),
        &[("Authorization", "Bearer token-bob")],
    )
    .await;
    assert_error(
        &response,
        403,
        (-32003, "urn:cleveragents:extensions:v1", "AUTH_FORBIDDEN"),
    );
    let response = post(
        server.addr,
        &rpc(json!(1), "GetExtendedAgentCard", json!({})),
        &[("X-API-Key", "key-alice")],
    )
    .await;
    assert_eq!(response.status, 200);
    let extended = response.json()["result"].clone();
    assert_eq!(
        extended["skills"].as_array().unwrap().last().unwrap()["id"],
        "internal"
    );
    server.stop().await;
}

#[tokio::test]
async fn without_authentication_only_loopback_addresses_are_served() {
    let (dispatch, _) = test_router();
    for listen in ["0.0.0.0:0", "[::]:0", "192.0.2.10:0"] {
        let mut config = loopback_config();
        config.http.listen = listen.parse().unwrap();
        // Refused before anything is bound.
        let refused = server::HttpServer::bind(config, dispatch.clone()).await;
        let Err(error) = refused else {
            panic!("{listen} was bound without authentication");
        };
        assert!(
            matches!(error, server::ServerError::AnonymousOnNetwork { addr } if addr == listen.parse().unwrap()),
            "{error}"
        );
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("refusing to listen on {listen} without authentication")),
            "{message}"
        );
        assert!(message.contains("auth.insecure_no_auth"), "{message}");
    }
    // Loopback, IPv4 and IPv6, is served anonymously as before.
    for listen in ["127.0.0.1:0", "[::1]:0"] {
        let mut config = loopback_config();
        config.http.listen = listen.parse().unwrap();
        assert!(config.auth.check_exposure(config.http.listen).is_ok(), "{listen}");
    }
    let server = start_http(loopback_config(), dispatch).await;
    let response = post(server.addr, &rpc(json!(1), "GetTask", json!({"id": "a"})), &[]).await;
    assert_eq!(response.status, 200);
    server.stop().await;
}

#[test]
fn a_network_address_is_served_with_a_scheme_or_with_the_explicit_insecure_flag() {
    let network = "0.0.0.0:7420".parse().unwrap();
    assert!(
        config().auth.check_exposure(network).is_ok(),
        "with schemes configured"
    );
    let mut anonymous = loopback_config();
    assert!(anonymous.auth.check_exposure(network).is_err());
    anonymous.auth.insecure_no_auth = true;
    assert!(
        anonymous.auth.check_exposure(network).is_ok(),
        "explicitly insecure"
    );
}

#[test]
fn credentials_on_a_network_address_need_tls_or_a_proxy_in_front() {
    let network: std::net::SocketAddr = "192.0.2.10:7443".parse().unwrap();
    let mut keyed = config();
    let error = keyed.check_exposure(network).expect_err("clear text");
    assert!(
        matches!(error, server::ServerError::ClearTextCredentials { addr } if addr == network),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .starts_with("refusing to listen on 192.0.2.10:7443 without TLS"),
        "{error}"
    );
    // Loopback keeps plain HTTP, credentials and all.
    for loopback in ["127.0.0.1:7443", "[::1]:7443"] {
        assert!(
            keyed.check_exposure(loopback.parse().unwrap()).is_ok(),
            "{loopback}"
        );
    }
    keyed.http.tls = Some(server::TlsConfig {
        cert_file: "cert.pem".into(),
        key_file: "key.pem".into(),
    });
    assert!(keyed.check_exposure(network).is_ok(), "with TLS");
    keyed.http.tls = None;
    keyed.http.behind_tls_proxy = true;
    assert!(
        keyed.check_exposure(network).is_ok(),
        "behind a TLS-terminating proxy"
    );
    // Anonymous callers have no credentials to leak: that refusal stays the one above.
    let mut anonymous = loopback_config();
    anonymous.auth.insecure_no_auth = true;
    assert!(anonymous.check_exposure(network).is_ok());
}
