//! The library's transports against the in-test agent: typed calls, concurrent
//! calls over one stdio pipe, streams with sequence numbers, typed errors, a
//! clean shutdown, extension version negotiation and bearer auth over HTTP.

use crate::agent::{examples, http_agent, runtime, stdio_config, typed, AGENT_ENV, TOKEN};
use a2a::rpc::CallError;
use a2a::ErrorKind;
use client::{Client, Credentials, HttpConfig, HttpTransport, StdioTransport};
use futures_util::StreamExt;
use serde_json::{json, Value};

pub fn stdio_client_calls_streams_and_shuts_down() {
    std::env::set_var(AGENT_ENV, "1");
    runtime().block_on(async {
        let transport = StdioTransport::spawn(stdio_config()).await.expect("spawn");
        assert_eq!(transport.session()["protocolVersion"], json!("1.0"));
        assert_eq!(
            transport.session()["extensions"][0]["uri"],
            json!("urn:cleveragents:extensions:v1")
        );
        let client = Client::new(transport);
        let ex = examples();
        // Concurrent calls over one pipe, matched by id.
        let (task, page, plan) = tokio::join!(
            client.get_task(typed(&ex["GetTask"].params)),
            client.list_tasks(typed(&ex["ListTasks"].params)),
            client.plan_status(typed(&ex["_cleveragents/plan/status"].params)),
        );
        assert_eq!(
            serde_json::to_value(task.expect("task")).ok(),
            ex["GetTask"].result
        );
        assert_eq!(
            serde_json::to_value(page.expect("page")).ok(),
            ex["ListTasks"].result
        );
        assert_eq!(
            serde_json::to_value(plan.expect("plan")).ok(),
            ex["_cleveragents/plan/status"].result
        );
        // A stream: every event in order with its sequence number.
        let events: Vec<_> = client
            .subscribe_to_task(typed(&ex["SubscribeToTask"].params))
            .await
            .expect("subscribe")
            .collect()
            .await;
        let seqs: Vec<Option<u64>> = events
            .iter()
            .map(|e| e.as_ref().ok().and_then(|e| e.seq))
            .collect();
        assert_eq!(seqs, [Some(1), Some(2), Some(3)]);
        let data: Vec<Value> = events
            .into_iter()
            .map(|e| serde_json::to_value(e.expect("event").data).expect("encode"))
            .collect();
        assert_eq!(Some(data), ex["SubscribeToTask"].events);
        // A typed error, matched on (domain, reason).
        let missing = client.get_task(typed(&json!({"id": "missing"}))).await;
        match missing {
            Err(CallError::Rpc(e)) => assert_eq!(e.kind(), Some(ErrorKind::TaskNotFound)),
            other => panic!("expected TaskNotFound, got {other:?}"),
        }
        // Clean shutdown: EOF on stdin, the agent exits on its own with 0.
        let status = client.transport().shutdown().await.expect("shutdown");
        assert_eq!(status.code(), Some(0));
        assert!(matches!(
            client.get_task(typed(&ex["GetTask"].params)).await,
            Err(CallError::Transport(_))
        ));
    });
}

fn http_client(extension_version: Option<&str>, token: Option<&str>) -> Client<HttpTransport> {
    let mut config = HttpConfig::new(format!("http://{}/", http_agent()));
    config.extension_version = extension_version.map(str::to_string);
    config.credentials = token.map_or(Credentials::None, |t| Credentials::Bearer(t.into()));
    Client::new(HttpTransport::new(config).expect("transport"))
}

pub fn http_client_typed_calls_and_negotiation() {
    runtime().block_on(async {
        let ex = examples();
        let client = http_client(None, Some(TOKEN));
        let task = client.get_task(typed(&ex["GetTask"].params)).await.expect("task");
        assert_eq!(serde_json::to_value(task).ok(), ex["GetTask"].result);
        let plans = client
            .plan_list(typed(&ex["_cleveragents/plan/list"].params))
            .await
            .expect("plans");
        assert_eq!(
            serde_json::to_value(plans).ok(),
            ex["_cleveragents/plan/list"].result
        );
        let events: Vec<Value> = client
            .send_streaming_message(typed(&ex["SendStreamingMessage"].params))
            .await
            .expect("stream")
            .map(|e| serde_json::to_value(e.expect("event").data).expect("encode"))
            .collect()
            .await;
        assert_eq!(Some(events), ex["SendStreamingMessage"].events);
        // Extension 1.1 does not have session/list (since 1.2); 1.0 is no longer served.
        let old = http_client(Some("1.1"), Some(TOKEN));
        match old
            .session_list(typed(&ex["_cleveragents/session/list"].params))
            .await
        {
            Err(CallError::Rpc(e)) => assert_eq!(e.kind(), Some(ErrorKind::ExtMethodNotFound)),
            other => panic!("expected method-not-found, got {other:?}"),
        }
        let retired = http_client(Some("1.0"), Some(TOKEN));
        match retired
            .plan_list(typed(&ex["_cleveragents/plan/list"].params))
            .await
        {
            Err(CallError::Rpc(e)) => assert_eq!(e.kind(), Some(ErrorKind::ExtVersionMismatch)),
            other => panic!("expected version mismatch, got {other:?}"),
        }
        // No credentials: 401 surfaces as the typed auth error.
        let anonymous = http_client(None, None);
        match anonymous.get_task(typed(&ex["GetTask"].params)).await {
            Err(CallError::Rpc(e)) => assert_eq!(e.kind(), Some(ErrorKind::ExtAuthRequired)),
            other => panic!("expected auth error, got {other:?}"),
        }
        let card = client::AnyTransport::Http(
            HttpTransport::new(HttpConfig::new(format!("http://{}/", http_agent()))).expect("t"),
        )
        .agent_card()
        .await
        .expect("card");
        assert_eq!(card["name"], json!("CleverAgents"));
    });
}

/// A REST client found through the card of the server at `http://addr/`.
async fn rest_client(token: Option<&str>) -> Client<HttpTransport> {
    let mut config = HttpConfig::new(format!("http://{}/", http_agent()));
    config.credentials = token.map_or(Credentials::None, |t| Credentials::Bearer(t.into()));
    Client::new(HttpTransport::rest(config).await.expect("transport"))
}

pub fn rest_client_typed_calls_streams_and_errors() {
    runtime().block_on(async {
        let ex = examples();
        let client = rest_client(Some(TOKEN)).await;
        let task = client.get_task(typed(&ex["GetTask"].params)).await.expect("task");
        assert_eq!(serde_json::to_value(task).ok(), ex["GetTask"].result);
        let plans = client
            .plan_list(typed(&ex["_cleveragents/plan/list"].params))
            .await
            .expect("plans");
        assert_eq!(
            serde_json::to_value(plans).ok(),
            ex["_cleveragents/plan/list"].result
        );
        let events: Vec<Value> = client
            .send_streaming_message(typed(&ex["SendStreamingMessage"].params))
            .await
            .expect("stream")
            .map(|e| serde_json::to_value(e.expect("event").data).expect("encode"))
            .collect()
            .await;
        assert_eq!(Some(events), ex["SendStreamingMessage"].events);
        // A Status error body comes back as the exact wire error of its registry entry.
        let mut missing = ex["GetTask"].params.clone();
        missing["id"] = json!("missing");
        match client.get_task(typed(&missing)).await {
            Err(CallError::Rpc(e)) => {
                assert_eq!(e.kind(), Some(ErrorKind::TaskNotFound));
                assert_eq!(
                    (e.code, e.message.as_str()),
                    (-32001, "No such thing as `missing`\nhere")
                );
            }
            other => panic!("expected task-not-found, got {other:?}"),
        }
        let anonymous = rest_client(None).await;
        match anonymous.get_task(typed(&ex["GetTask"].params)).await {
            Err(CallError::Rpc(e)) => assert_eq!(e.kind(), Some(ErrorKind::ExtAuthRequired)),
            other => panic!("expected auth error, got {other:?}"),
        }
    });
}

/// With trusted keys configured, the HTTP transport reads only a card that
/// verifies; `TrustedKeys::verify` tells an unsigned, a tampered and an
/// unknown signer's card apart.
pub fn http_card_trust_is_checked_when_keys_are_configured() {
    use client::{CardTrustError, TrustedKeys};
    runtime().block_on(async {
        let signers = TrustedKeys::load(&crate::agent::test_key("card-signers.jwks.json")).expect("signers");
        let impostor = TrustedKeys::load(&crate::agent::test_key("impostor.jwks.json")).expect("impostor");
        let endpoint = format!("http://{}/", http_agent());
        let mut config = HttpConfig::new(endpoint.clone());
        config.trusted_card_keys = Some(signers.clone());
        let card = HttpTransport::new(config)
            .expect("transport")
            .agent_card()
            .await
            .expect("a card that verifies");
        assert_eq!(signers.verify(&card), Ok(vec!["test-es256".to_string(), "test-rs256".to_string()]));

        let mut config = HttpConfig::new(endpoint.clone());
        config.trusted_card_keys = Some(impostor.clone());
        match HttpTransport::new(config).expect("transport").agent_card().await {
            Err(CallError::Decode(message)) => assert_eq!(
                message,
                "agent card: the Agent Card's signature by `test-es256` does not verify: the card is not what was signed"
            ),
            other => panic!("expected the card refused, got {other:?}"),
        }

        // The card served without A2A-Version (with the 0.3 fields) verifies as received.
        let body = reqwest::get(format!("{endpoint}.well-known/agent-card.json"))
            .await
            .expect("GET")
            .bytes()
            .await
            .expect("body");
        let combined: Value = serde_json::from_slice(&body).expect("JSON");
        assert!(combined.get("url").is_some());
        assert_eq!(signers.verify(&combined).map(|kids| kids.len()), Ok(2));

        let mut tampered = card.clone();
        tampered["skills"][0]["name"] = json!("Something else");
        assert_eq!(signers.verify(&tampered), Err(CardTrustError::Invalid("test-es256".into())));
        let mut unsigned = card.clone();
        unsigned.as_object_mut().expect("object").remove("signatures");
        assert_eq!(signers.verify(&unsigned), Err(CardTrustError::Unsigned));
        let es256_only = TrustedKeys::from_jwks(
            &std::fs::read_to_string(crate::agent::test_key("jwks.json")).expect("jwks"),
        )
        .expect("keys");
        assert_eq!(es256_only.verify(&card), Ok(vec!["test-es256".to_string()]));
        let nobody = TrustedKeys::from_jwks(r#"{"keys": []}"#).expect("an empty set");
        assert_eq!(
            nobody.verify(&card),
            Err(CardTrustError::NoTrustedSignature("test-es256, test-rs256".into()))
        );
        assert!(TrustedKeys::from_jwks(r#"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#)
            .expect_err("a key without kid")
            .contains("has no `kid`"));
    });
}
