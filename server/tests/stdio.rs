//! The stdio binding over in-memory pipes: the initialize handshake, errors,
//! concurrency and interleaving, streaming, cancel, EOF and limits.

mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn initialize_negotiates_and_returns_the_card() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    let response = client.initialize(Some("1.1")).await;
    let result = &response["result"];
    assert_eq!(response["jsonrpc"], "2.0");
    assert_eq!(result["protocolVersion"], "1.0");
    assert_eq!(
        result["extensions"],
        json!([{"uri": "urn:cleveragents:extensions:v1", "version": "1.1"}])
    );
    assert_eq!(result["serverInfo"]["name"], "cleveragents-server");
    let card = &result["agentCard"];
    assert_eq!(card["supportedInterfaces"][0]["url"], "stdio:");
    assert_eq!(
        card["supportedInterfaces"][0]["protocolBinding"],
        "urn:cleveragents:bindings:stdio:v1"
    );
    assert!(
        card.get("securitySchemes").is_none(),
        "local mode declares no security"
    );
    // A 1.0 session gets the 1.0 card alone (a 0.3 one also finds its 0.3 fields).
    for field in ["url", "preferredTransport", "additionalInterfaces"] {
        assert!(card.get(field).is_none(), "{field} in the 1.0 card");
    }
    serde_json::from_value::<a2a::types::StdioInitializeResult>(result.clone()).expect("valid result");
    // Negotiated 1.1: 1.2 methods are invisible.
    client
        .send(&rpc(json!(2), "_cleveragents/session/list", json!({})))
        .await;
    let (response, _) = client.until_response(&json!(2)).await;
    assert_eq!(
        error_of(&response),
        (
            -32601,
            "urn:cleveragents:extensions:v1".into(),
            "METHOD_NOT_FOUND".into()
        )
    );
    // A second initialize is an invalid state.
    let again = client.initialize(None).await;
    assert_eq!(
        error_of(&again),
        (
            -32004,
            "urn:cleveragents:extensions:v1".into(),
            "INVALID_STATE".into()
        )
    );
}

#[tokio::test]
async fn requests_before_initialize_are_refused() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.send(&rpc(json!(1), "GetTask", json!({"id": "a"}))).await;
    let (response, _) = client.until_response(&json!(1)).await;
    assert_eq!(response["error"]["code"], -32600);
    assert_eq!(
        response["error"]["message"],
        "The session is not initialized: send `initialize` first"
    );
}

#[tokio::test]
async fn unsupported_versions_at_initialize_are_32007() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    // 1.0 was retired when 1.2 arrived: only the current minor and the prior are served.
    let response = client.initialize(Some("1.0")).await;
    assert_eq!(
        response["error"]["data"][0]["metadata"]["supportedVersions"],
        "1.1,1.2"
    );
    assert_eq!(
        error_of(&response),
        (
            -32007,
            "urn:cleveragents:extensions:v1".into(),
            "VERSION_MISMATCH".into()
        )
    );
    client
        .send(&rpc(
            json!("p"),
            "initialize",
            json!({
                "protocolVersion": "0.2", "extensions": [], "clientInfo": {"name": "t", "version": "0"}
            }),
        ))
        .await;
    let (response, _) = client.until_response(&json!("p")).await;
    assert_eq!(response["error"]["code"], -32007);
    // Still uninitialized: a correct initialize now succeeds with the newest minor.
    let response = client.initialize(None).await;
    assert_eq!(response["result"]["extensions"][0]["version"], "1.2");
}

#[tokio::test]
async fn envelope_errors_match_http() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.initialize(None).await;
    client.send_line(b"{not json").await;
    let response = client.recv().await.unwrap();
    assert_eq!(response["id"], Value::Null);
    assert_eq!(
        error_of(&response),
        (-32700, "a2a-protocol.org".into(), "PARSE_ERROR".into())
    );
    client
        .send(&json!([rpc(json!(1), "GetTask", json!({"id": "a"}))]))
        .await;
    let response = client.recv().await.unwrap();
    assert_eq!(response["error"]["code"], -32600);
    client
        .send(&json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "GetTask"}))
        .await;
    let response = client.recv().await.unwrap();
    assert_eq!(
        (response["id"].clone(), response["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
    client.send(&rpc(json!(4), "GetTask", json!({"id": 5}))).await;
    let (response, _) = client.until_response(&json!(4)).await;
    assert_eq!(response["error"]["code"], -32602);
    assert_eq!(response["error"]["data"][1]["fieldViolations"][0]["field"], "id");
}

#[tokio::test]
async fn requests_run_concurrently_and_answers_match_ids() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.initialize(None).await;
    // "slow" waits until "release" runs: only concurrent execution answers both.
    client
        .send(&rpc(json!("a"), "GetTask", json!({"id": "slow"})))
        .await;
    client
        .send(&rpc(json!("b"), "GetTask", json!({"id": "release"})))
        .await;
    let first = client.recv().await.unwrap();
    let second = client.recv().await.unwrap();
    assert_eq!(first["id"], "b");
    assert_eq!(first["result"]["id"], "release");
    assert_eq!(second["id"], "a");
    assert_eq!(second["result"]["id"], "slow");
}

#[tokio::test]
async fn streams_are_notifications_then_the_final_response() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.initialize(None).await;
    client
        .send(&rpc(
            json!(9),
            "SendStreamingMessage",
            json!({
                "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
            }),
        ))
        .await;
    let (response, notes) = client.until_response(&json!(9)).await;
    assert_eq!(response, json!({"jsonrpc": "2.0", "id": 9, "result": null}));
    assert_eq!(notes.len(), 3);
    for (i, note) in notes.iter().enumerate() {
        assert_eq!(note["jsonrpc"], "2.0");
        assert_eq!(note["method"], "stream/event");
        assert!(note.get("id").is_none());
        assert_eq!(note["params"]["requestId"], 9);
        assert_eq!(note["params"]["seq"], i as i64 + 1);
        assert_eq!(
            note["params"]["event"]["statusUpdate"]["metadata"]["n"],
            10 + i as i64
        );
        serde_json::from_value::<a2a::types::StdioStreamEventParams>(note["params"].clone())
            .expect("valid params");
    }
}

#[tokio::test]
async fn interleaved_streams_keep_their_own_order() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.initialize(None).await;
    let params = json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}});
    for id in 0..8 {
        client
            .send(&rpc(json!(id), "SendStreamingMessage", params.clone()))
            .await;
    }
    let mut seen: std::collections::HashMap<i64, Vec<i64>> = Default::default();
    let mut finished = 0;
    while finished < 8 {
        let message = client.recv().await.unwrap();
        if message["method"] == "stream/event" {
            let id = message["params"]["requestId"].as_i64().unwrap();
            seen.entry(id)
                .or_default()
                .push(message["params"]["seq"].as_i64().unwrap());
        } else {
            let id = message["id"].as_i64().unwrap();
            assert_eq!(
                seen.get(&id).cloned().unwrap_or_default(),
                vec![1, 2, 3],
                "all events before the response of {id}"
            );
            finished += 1;
        }
    }
}

#[tokio::test]
async fn stream_cancel_ends_the_stream_with_its_final_response() {
    let (dispatch, probe) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.initialize(None).await;
    client
        .send(&rpc(json!("sub"), "SubscribeToTask", json!({"id": "forever"})))
        .await;
    let first = client.recv().await.unwrap();
    assert_eq!(first["method"], "stream/event");
    assert_eq!(first["params"]["seq"], 1);
    let dropped = probe.stream_dropped.notified();
    client
        .send(&rpc(json!("c"), "stream/cancel", json!({"requestId": "sub"})))
        .await;
    let mut answers = Vec::new();
    while answers.len() < 2 {
        answers.push(client.recv().await.unwrap());
    }
    answers.sort_by_key(|a| a["id"].as_str().unwrap_or_default().to_string());
    assert_eq!(
        answers[0],
        json!({"jsonrpc": "2.0", "id": "c", "result": {"cancelled": true}})
    );
    assert_eq!(answers[1], json!({"jsonrpc": "2.0", "id": "sub", "result": null}));
    tokio::time::timeout(std::time::Duration::from_secs(30), dropped)
        .await
        .expect("producer dropped");
    client
        .send(&rpc(json!("c2"), "stream/cancel", json!({"requestId": "sub"})))
        .await;
    let (response, _) = client.until_response(&json!("c2")).await;
    assert_eq!(response["result"], json!({"cancelled": false}));
}

#[tokio::test]
async fn eof_answers_everything_already_read_then_returns() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.initialize(None).await;
    client
        .send(&rpc(json!("sub"), "SubscribeToTask", json!({"id": "forever"})))
        .await;
    for id in 0..20 {
        client
            .send(&rpc(json!(id), "GetTask", json!({"id": format!("t{id}")})))
            .await;
    }
    client.close();
    let mut answered = std::collections::BTreeSet::new();
    let mut sub_final = None;
    while let Some(message) = client.recv().await {
        if message["id"] == "sub" {
            sub_final = Some(message);
        } else if let Some(id) = message["id"].as_i64() {
            assert_eq!(message["result"]["id"], format!("t{id}"));
            answered.insert(id);
        }
    }
    assert_eq!(answered.len(), 20);
    assert_eq!(
        sub_final,
        Some(json!({"jsonrpc": "2.0", "id": "sub", "result": null}))
    );
    client.done.await.unwrap().unwrap();
}

#[tokio::test]
async fn oversize_lines_and_deep_nesting_are_refused() {
    let (dispatch, _) = test_router();
    let mut config = server::ServerConfig::default();
    config.limits.max_body_bytes = 256;
    let mut client = StdioClient::start(config, dispatch);
    client.initialize(None).await;
    let big = serde_json::to_vec(&rpc(json!(1), "GetTask", json!({"id": "x".repeat(1000)}))).unwrap();
    client.send_line(&big).await;
    let response = client.recv().await.unwrap();
    assert_eq!(response["error"]["code"], -32600);
    assert_eq!(
        response["error"]["message"],
        "Message exceeds the limit of 256 bytes"
    );
    let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
    client.send_line(deep.as_bytes()).await;
    let response = client.recv().await.unwrap();
    assert_eq!(
        response["error"]["message"],
        "JSON nesting exceeds the limit of 64 levels"
    );
    // The session goes on.
    client.send(&rpc(json!(2), "GetTask", json!({"id": "ok"}))).await;
    let (response, _) = client.until_response(&json!(2)).await;
    assert_eq!(response["result"]["id"], "ok");
}

#[tokio::test]
async fn stream_resume_continues_after_the_last_task_sequence_seen() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.initialize(None).await;
    // Events carry the producer's sequence as `taskSeq`.
    client
        .send(&rpc(json!(1), "SubscribeToTask", json!({"id": "resume"})))
        .await;
    let (done, events) = client.until_response(&json!(1)).await;
    assert_eq!(done["result"], Value::Null);
    let seqs: Vec<(Value, Value)> = events
        .iter()
        .map(|e| (e["params"]["seq"].clone(), e["params"]["taskSeq"].clone()))
        .collect();
    assert_eq!(seqs, [(json!(1), json!(1)), (json!(2), json!(2))]);

    client
        .send(&rpc(
            json!(2),
            "stream/resume",
            json!({"method": "SubscribeToTask", "params": {"id": "resume"}, "lastEventId": 41}),
        ))
        .await;
    let (done, events) = client.until_response(&json!(2)).await;
    assert_eq!(done["result"], Value::Null);
    let resumed: Vec<(Value, Value, Value)> = events
        .iter()
        .map(|e| {
            (
                e["params"]["requestId"].clone(),
                e["params"]["seq"].clone(),
                e["params"]["taskSeq"].clone(),
            )
        })
        .collect();
    assert_eq!(
        resumed,
        [(json!(2), json!(1), json!(42)), (json!(2), json!(2), json!(43))]
    );
}

#[tokio::test]
async fn stream_resume_of_a_unary_method_is_invalid_params() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.initialize(None).await;
    client
        .send(&rpc(
            json!(3),
            "stream/resume",
            json!({"method": "GetTask", "params": {"id": "t"}, "lastEventId": 1}),
        ))
        .await;
    let (response, events) = client.until_response(&json!(3)).await;
    assert!(events.is_empty());
    assert_eq!(
        error_of(&response),
        (
            -32602,
            "urn:cleveragents:extensions:v1".to_string(),
            "INVALID_PARAMS".to_string()
        )
    );
    assert_eq!(
        response["error"]["message"],
        "Invalid params for `stream/resume`: `GetTask` is not a streaming method"
    );
    client
        .send(&rpc(
            json!(4),
            "stream/resume",
            json!({"method": "SubscribeToTask"}),
        ))
        .await;
    let (response, _) = client.until_response(&json!(4)).await;
    assert_eq!(response["error"]["code"], -32602);
}

/// The stdio bad-input matrix: every malformed frame gets its exact error (or,
/// for notifications and blank lines, nothing), and the session goes on.
#[tokio::test]
async fn malformed_frames_get_exact_errors_and_the_session_goes_on() {
    let (dispatch, _) = test_router();
    let mut client = StdioClient::start(server::ServerConfig::default(), dispatch);
    client.initialize(None).await;
    let cases: [(&[u8], i64); 5] = [
        (b"garbage, not JSON", -32700),
        (b"\xff\xfe{\"jsonrpc\":\"2.0\"}", -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\"", -32700),
        (b"42", -32600),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":{\"nested\":true},\"method\":\"GetTask\"}",
            -32600,
        ),
    ];
    for (line, code) in cases {
        client.send_line(line).await;
        let response = client.recv().await.expect("an answer");
        assert_eq!(
            (response["id"].clone(), response["error"]["code"].as_i64()),
            (Value::Null, Some(code)),
            "{}: {response}",
            String::from_utf8_lossy(line)
        );
    }
    // Blank lines and a flood of notifications are answered with nothing.
    client.send_line(b"").await;
    client.send_line(b"   \t").await;
    for n in 0..2000 {
        client
            .send(&json!({"jsonrpc": "2.0", "method": "GetTask", "params": {"id": format!("n{n}")}}))
            .await;
    }
    // A CRLF frame is one frame.
    client
        .send_line(
            b"{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"GetTask\",\"params\":{\"id\":\"c\"}}\r",
        )
        .await;
    let (response, notes) = client.until_response(&json!("crlf")).await;
    assert_eq!(response["result"]["id"], "c");
    assert!(notes.is_empty(), "{notes:?}");
    // A last line without its newline is still a frame, answered before EOF ends the session.
    let writer = client.writer.as_mut().expect("open");
    tokio::io::AsyncWriteExt::write_all(
        writer,
        b"{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"GetTask\",\"params\":{\"id\":\"z\"}}",
    )
    .await
    .expect("write");
    client.close();
    let response = client.recv().await.expect("the partial last line is answered");
    assert_eq!(response["id"], "last");
    assert_eq!(response["result"]["id"], "z");
    assert_eq!(client.recv().await, None);
    client.done.await.unwrap().unwrap();
}
