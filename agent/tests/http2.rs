//! HTTP/2 in clear text on the real agent: a client with prior knowledge
//! (it opens with the HTTP/2 preface) is served HTTP/2 — the card, JSON-RPC,
//! an SSE stream — beside HTTP/1.1 clients on the same port; a client that
//! stops partway through the preface is disconnected when the request-head
//! limit passes.

mod common;

use common::ServerAgent;
use serde_json::{json, Value};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

async fn rpc(client: &reqwest::Client, endpoint: &str, call: Value) -> reqwest::Response {
    client
        .post(endpoint)
        .header("A2A-Version", "1.0")
        .header("Content-Type", "application/json")
        .body(call.to_string())
        .send()
        .await
        .expect("answer")
}

#[test]
fn prior_knowledge_clients_get_http2_and_others_http1_on_one_port() {
    let agent = ServerAgent::start();
    let endpoint = agent.endpoint.clone();
    let card = format!("{endpoint}.well-known/agent-card.json");
    runtime().block_on(async {
        let h2 = reqwest::Client::builder()
            .http2_prior_knowledge()
            .build()
            .expect("client");
        let h1 = reqwest::Client::builder().http1_only().build().expect("client");
        for (client, version) in [(&h2, reqwest::Version::HTTP_2), (&h1, reqwest::Version::HTTP_11)] {
            let answer = client.get(&card).send().await.expect("card");
            assert_eq!((answer.status().as_u16(), answer.version()), (200, version));
            let answer = rpc(
                client,
                &endpoint,
                json!({"jsonrpc": "2.0", "id": 3, "method": "GetTask",
                                                       "params": {"id": "no-such-task"}}),
            )
            .await;
            assert_eq!(answer.version(), version);
            let body: Value = serde_json::from_slice(&answer.bytes().await.expect("body")).expect("JSON");
            assert_eq!(body["id"], 3);
            assert_eq!(body["error"]["code"], -32001, "{body}");
        }
        // A stream over HTTP/2: the task, then its updates to the end.
        let answer = h2
            .post(&endpoint)
            .header("A2A-Version", "1.0")
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream")
            .body(
                json!({"jsonrpc": "2.0", "id": 4, "method": "SendStreamingMessage", "params": {"message":
                    {"messageId": "h2-stream", "role": "ROLE_USER", "parts": [{"text": "over HTTP/2"}]}}})
                .to_string(),
            )
            .send()
            .await
            .expect("stream");
        assert_eq!(answer.version(), reqwest::Version::HTTP_2);
        assert_eq!(
            answer.headers().get("content-type").and_then(|v| v.to_str().ok()),
            Some("text/event-stream")
        );
        let text = String::from_utf8(answer.bytes().await.expect("events").to_vec()).expect("UTF-8");
        let events: Vec<Value> = text
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|data| serde_json::from_str(data).expect("JSON event"))
            .collect();
        assert!(events.len() >= 2, "{text}");
        assert!(events[0]["result"]["task"]["id"].is_string(), "{text}");
        let last = &events[events.len() - 1]["result"]["statusUpdate"]["status"]["state"];
        assert_eq!(last, "TASK_STATE_COMPLETED", "{text}");
    });
}

#[test]
fn a_client_that_stops_partway_through_the_preface_is_cut_off() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("agent.json");
    std::fs::write(
        &config,
        json!({"server": {"limits": {"header_read_timeout_ms": 300}}}).to_string(),
    )
    .expect("config");
    let agent = ServerAgent::start_with(&["--memory", "--config", config.to_str().expect("utf-8")]);
    common::http::assert_stalled_client_is_cut_off(&agent.addr(), b"PRI * HTTP/2", "a stalled preface");
    let reply = common::http::get(&agent.addr(), "/.well-known/agent-card.json", &[]);
    assert_eq!(reply.status, 200, "still serving");
}
