//! Signed Agent Cards (spec §8.4) over a real loopback listener: every form
//! of the card is signed by every configured key over its own canonical form,
//! checked here with the JWS library directly, and a key that cannot sign
//! stops the server from starting.

mod common;

use a2a::signing::{decode_protected_header, signing_input};
use common::*;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{json, Value};
use server::CardSigningKey;
use std::path::PathBuf;

fn key_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/keys")
        .join(name)
}

fn signing_key(kid: &str, algorithm: &str, file: &str) -> CardSigningKey {
    CardSigningKey {
        kid: kid.into(),
        algorithm: algorithm.into(),
        private_key_file: key_file(file),
        jku: None,
    }
}

fn signed_config() -> server::ServerConfig {
    let mut config = loopback_config();
    let mut es256 = signing_key("test-es256", "ES256", "es256.pem");
    es256.jku = Some("https://agent.example/jwks.json".into());
    config.agent.card_signing_keys = vec![es256, signing_key("test-rs256", "RS256", "rs256.pem")];
    config
}

/// Checks every signature of `card` with the public keys of the test JWK Set;
/// the decoded protected headers.
fn check(card: &Value) -> Vec<Value> {
    let text = std::fs::read_to_string(key_file("card-signers.jwks.json")).expect("jwks");
    let set: JwkSet = serde_json::from_str(&text).expect("a JWK Set");
    let signatures = card["signatures"].as_array().expect("signatures");
    signatures
        .iter()
        .map(|signature| {
            let protected = signature["protected"].as_str().expect("protected");
            let header = Value::Object(decode_protected_header(protected).expect("header"));
            let kid = header["kid"].as_str().expect("kid");
            let jwk = set.find(kid).expect("a known kid");
            let algorithm = if header["alg"] == "ES256" {
                Algorithm::ES256
            } else {
                Algorithm::RS256
            };
            let key = DecodingKey::from_jwk(jwk).expect("key");
            let valid = jsonwebtoken::crypto::verify(
                signature["signature"].as_str().expect("value"),
                &signing_input(protected, card),
                &key,
                algorithm,
            )
            .expect("verifiable");
            assert!(valid, "signature by {kid} over {card}");
            header
        })
        .collect()
}

#[tokio::test]
async fn both_forms_of_the_card_are_signed_by_every_key_over_their_own_content() {
    let server = start_http(signed_config(), ExampleDispatch::new()).await;
    let request = "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nA2A-Version: 1.0\r\n\r\n";
    let plain = send_raw(server.addr, request.as_bytes())
        .await
        .into_full()
        .await
        .json();
    assert_eq!(
        check(&plain),
        vec![
            json!({"alg": "ES256", "typ": "JOSE", "kid": "test-es256", "jku": "https://agent.example/jwks.json"}),
            json!({"alg": "RS256", "typ": "JOSE", "kid": "test-rs256"}),
        ]
    );
    serde_json::from_value::<a2a::types::AgentCard>(plain.clone()).expect("a valid 1.0 card");
    // The card for 0.3 clients carries signatures over itself, 0.3 fields included.
    let combined = get(server.addr, "/.well-known/agent-card.json").await.json();
    assert_eq!(combined["url"], format!("http://{}/", server.addr));
    assert_eq!(check(&combined).len(), 2);
    assert_ne!(combined["signatures"], plain["signatures"]);
    // Changing a member breaks a signature.
    let mut tampered = plain.clone();
    tampered["description"] = json!("something else");
    let text = std::fs::read_to_string(key_file("card-signers.jwks.json")).expect("jwks");
    let set: JwkSet = serde_json::from_str(&text).expect("a JWK Set");
    let signature = &tampered["signatures"][0];
    let protected = signature["protected"].as_str().expect("protected");
    let key = DecodingKey::from_jwk(set.find("test-es256").expect("kid")).expect("key");
    let valid = jsonwebtoken::crypto::verify(
        signature["signature"].as_str().expect("value"),
        &signing_input(protected, &tampered),
        &key,
        Algorithm::ES256,
    )
    .expect("verifiable");
    assert!(!valid, "a tampered card must not verify");
    server.stop().await;
}

#[tokio::test]
async fn the_extended_card_and_the_stdio_card_are_signed() {
    let mut config = signed_config();
    config.agent.capabilities.extended_agent_card = Some(true);
    let server = start_http(config.clone(), ExampleDispatch::new()).await;
    let answer = post(
        server.addr,
        &rpc(json!(1), "GetExtendedAgentCard", json!({})),
        &[],
    )
    .await
    .json();
    assert_eq!(check(&answer["result"]).len(), 2, "{answer}");
    server.stop().await;

    let mut stdio = StdioClient::start(config, ExampleDispatch::new());
    let initialized = stdio.initialize(None).await;
    assert_eq!(
        check(&initialized["result"]["agentCard"]).len(),
        2,
        "{initialized}"
    );
    stdio.close();
    stdio.done.await.expect("join").expect("the session ends cleanly");
}

#[tokio::test]
async fn a_key_that_cannot_sign_stops_the_server_from_starting() {
    let refusal = |key: CardSigningKey| async move {
        let mut config = loopback_config();
        config.agent.card_signing_keys = vec![key];
        match server::HttpServer::bind(config, ExampleDispatch::new()).await {
            Err(error) => error.to_string(),
            Ok(_) => panic!("bound with a key that cannot sign"),
        }
    };
    assert_eq!(
        refusal(signing_key("k", "HS256", "es256.pem")).await,
        "invalid server configuration: card signing key `k`: algorithm `HS256` is not ES256 or RS256"
    );
    assert!(refusal(signing_key("k", "RS256", "es256.pem"))
        .await
        .starts_with("invalid server configuration: card signing key `k`: not a RS256 private key in PEM"));
    assert!(refusal(signing_key("k", "ES256", "missing.pem"))
        .await
        .starts_with("invalid server configuration: card signing key `k`: cannot read "));
    assert_eq!(
        refusal(signing_key("", "ES256", "es256.pem")).await,
        "invalid server configuration: card signing key: `kid` must not be empty"
    );
}
