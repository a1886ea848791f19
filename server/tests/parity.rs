//! Parity and robustness across both transports: the whole method table sent
//! over stdio and over HTTP gives identical JSON, and a bounded randomized
//! stream of malformed messages always gets a well-formed answer.

mod common;

use common::*;
use serde_json::{json, Value};

fn parity_config() -> server::ServerConfig {
    let mut config = loopback_config();
    config.agent.capabilities.push_notifications = true;
    config
}

/// The answer of one call over HTTP: the result/error and, for streams, the events.
async fn over_http(addr: std::net::SocketAddr, request: &Value) -> (Value, Vec<Value>) {
    let bytes = serde_json::to_vec(request).unwrap();
    let mut response = send_raw(addr, &post_bytes("/", &bytes, &[], true)).await;
    if response.header("content-type") == Some("text/event-stream") {
        let events = response.all_events().await;
        let mut data = Vec::new();
        for (_, event) in events {
            if event.get("error").is_some() {
                return (json!({"error": event["error"]}), data);
            }
            data.push(event["result"].clone());
        }
        (json!({"result": null}), data)
    } else {
        let body = response.into_full().await.json();
        match body.get("error") {
            Some(error) => (json!({"error": error}), Vec::new()),
            None => (json!({"result": body["result"]}), Vec::new()),
        }
    }
}

async fn over_stdio(client: &mut StdioClient, request: &Value) -> (Value, Vec<Value>) {
    client.send(request).await;
    let (response, notes) = client.until_response(&request["id"]).await;
    let events = notes.into_iter().map(|n| n["params"]["event"].clone()).collect();
    match response.get("error") {
        Some(error) => (json!({"error": error}), events),
        None => (json!({"result": response["result"]}), events),
    }
}

#[tokio::test]
async fn every_method_answers_the_same_over_stdio_and_http() {
    let dispatch = ExampleDispatch::new();
    let server = start_http(parity_config(), dispatch.clone()).await;
    let mut stdio = StdioClient::start(parity_config(), dispatch);
    stdio.initialize(None).await;
    let examples = examples();
    let mut compared = 0;
    for (n, descriptor) in a2a::METHODS.iter().enumerate() {
        let params = examples
            .get(descriptor.name)
            .map(|e| e.params.clone())
            .unwrap_or(json!({}));
        let requests = [
            rpc(json!(n * 10), descriptor.name, params),
            // Negative case: a member no params type has.
            rpc(json!(n * 10 + 1), descriptor.name, json!({"noSuchField": true})),
        ];
        for request in requests {
            if descriptor.notification {
                continue;
            }
            if !descriptor.is_dispatched() {
                // Binding methods are stdio's own: HTTP answers method-not-found.
                let (http, _) = over_http(server.addr, &request).await;
                assert_eq!(http["error"]["code"], -32601, "{}", descriptor.name);
                continue;
            }
            let http = over_http(server.addr, &request).await;
            let stdio_answer = over_stdio(&mut stdio, &request).await;
            assert_eq!(
                http, stdio_answer,
                "{} differs between transports",
                descriptor.name
            );
            compared += 1;
        }
    }
    let dispatched = a2a::METHODS.iter().filter(|d| d.is_dispatched()).count();
    assert_eq!(compared, dispatched * 2);
    // Unknown methods too.
    let request = rpc(json!("u"), "NoSuchMethod", json!({}));
    assert_eq!(
        over_http(server.addr, &request).await,
        over_stdio(&mut stdio, &request).await
    );
    server.stop().await;
}

/// xorshift64*: a deterministic generator, so a failure is reproducible.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn random_value(rng: &mut Rng, depth: u32) -> Value {
    match rng.below(if depth > 3 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 1),
        2 => json!(rng.next() as i64),
        3 => json!((rng.next() % 1000) as f64 / 7.0),
        4 => json!(
            [
                "GetTask",
                "SendMessage",
                "2.0",
                "1.0",
                "",
                "_cleveragents/plan/use",
                "\u{0}x\"\\"
            ][rng.below(7) as usize]
        ),
        5 => Value::Array((0..rng.below(4)).map(|_| random_value(rng, depth + 1)).collect()),
        _ => {
            let keys = ["jsonrpc", "id", "method", "params", "tenant", "message", "extra"];
            Value::Object(
                (0..rng.below(5))
                    .map(|_| {
                        (
                            keys[rng.below(7) as usize].to_string(),
                            random_value(rng, depth + 1),
                        )
                    })
                    .collect(),
            )
        }
    }
}

/// A malformed (or occasionally valid) message, without newlines.
fn malformed(rng: &mut Rng) -> Vec<u8> {
    let base = serde_json::to_vec(&rpc(json!(1), "GetTask", json!({"id": "a"}))).unwrap();
    let mut bytes = match rng.below(5) {
        0 => (0..rng.below(64)).map(|_| rng.next() as u8).collect(),
        1 => base[..rng.below(base.len() as u64) as usize].to_vec(),
        2 => {
            let mut b = base.clone();
            let i = rng.below(b.len() as u64) as usize;
            b[i] = rng.next() as u8;
            b
        }
        3 => serde_json::to_vec(&random_value(rng, 0)).unwrap(),
        _ => {
            let mut request = rpc(json!(1), "GetTask", json!({"id": "a"}));
            let key = ["jsonrpc", "id", "method", "params"][rng.below(4) as usize];
            request[key] = random_value(rng, 0);
            serde_json::to_vec(&request).unwrap()
        }
    };
    for b in bytes.iter_mut() {
        if *b == b'\n' || *b == b'\r' {
            *b = b' ';
        }
    }
    bytes
}

fn assert_well_formed(message: &Value, context: &str) {
    assert_eq!(message["jsonrpc"], "2.0", "{context}: {message}");
    assert!(message.get("id").is_some(), "{context}: {message}");
    match (message.get("result"), message.get("error")) {
        (Some(_), None) => {}
        (None, Some(error)) => {
            assert!(error["code"].is_i64(), "{context}: {message}");
            assert!(error["message"].is_string(), "{context}: {message}");
        }
        _ => panic!("{context}: neither result nor error: {message}"),
    }
}

#[tokio::test]
async fn malformed_messages_always_get_a_well_formed_answer() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch.clone()).await;
    let mut stdio = StdioClient::start(loopback_config(), dispatch);
    stdio.initialize(None).await;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..300 {
        let bytes = malformed(&mut rng);
        let context = format!("round {round}: {:?}", String::from_utf8_lossy(&bytes));
        // HTTP: a JSON-RPC answer, or 204 for a (valid) notification.
        let response = post_text(server.addr, &bytes, &[]).await;
        if response.status == 204 {
            assert!(response.body.is_empty());
        } else {
            assert!(
                matches!(response.status, 200 | 401 | 403),
                "{context}: status {}",
                response.status
            );
            assert_well_formed(&response.json(), &context);
        }
        // stdio: everything before the sentinel's answer is well formed.
        stdio.send_line(&bytes).await;
        let sentinel = json!(format!("sentinel-{round}"));
        stdio
            .send(&rpc(sentinel.clone(), "GetTask", json!({"id": "a"})))
            .await;
        loop {
            let message = stdio.recv().await.expect("the session stays up");
            if message.get("method").is_some() {
                continue; // a stream notification for a randomly valid streaming call
            }
            assert_well_formed(&message, &context);
            if message["id"] == sentinel {
                break;
            }
        }
    }
    server.stop().await;
}
