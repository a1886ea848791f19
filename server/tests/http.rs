//! The HTTP binding over real loopback sockets: envelope errors, versions,
//! SSE framing, disconnects, limits, CORS, shutdown.

mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn agent_card_is_served_at_both_well_known_paths() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let get_v1_0 = |path: &str| {
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nA2A-Version: 1.0\r\n\r\n"
        );
        let addr = server.addr;
        async move { send_raw(addr, request.as_bytes()).await.into_full().await }
    };
    let card = get_v1_0("/.well-known/agent-card.json").await;
    let legacy = get_v1_0("/.well-known/agent.json").await;
    assert_eq!(card.status, 200);
    assert_eq!(card.header("content-type"), Some("application/json"));
    assert_eq!(card.json(), legacy.json());
    let card = card.json();
    assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
    assert_eq!(card["supportedInterfaces"][0]["protocolVersion"], "1.0");
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        format!("http://{}/", server.addr)
    );
    // The same endpoint serves A2A 0.3, declared after 1.0.
    assert_eq!(card["supportedInterfaces"][1]["protocolBinding"], "JSONRPC");
    assert_eq!(card["supportedInterfaces"][1]["protocolVersion"], "0.3");
    // Only the interfaces an HTTP client can reach: not the stdio binding.
    let bindings: Vec<&str> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["protocolBinding"].as_str().unwrap())
        .collect();
    assert_eq!(bindings, ["JSONRPC", "JSONRPC", "HTTP+JSON", "GRPC"]);
    let ext = &card["capabilities"]["extensions"][0];
    assert_eq!(ext["uri"], "urn:cleveragents:extensions:v1");
    assert_eq!(ext["params"]["versions"], json!(["1.1", "1.2"]));
    assert!(ext["params"]["methods"]
        .as_array()
        .unwrap()
        .contains(&json!("_cleveragents/plan/use")));
    assert_eq!(card["capabilities"]["streaming"], true);
    let skills: Vec<&str> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        skills,
        [
            "plan-lifecycle",
            "registries",
            "context",
            "sync",
            "namespaces",
            "sessions",
            "domain-events",
            "diagnostics"
        ]
    );
    // The card is a valid AgentCard.
    serde_json::from_value::<a2a::types::AgentCard>(card).expect("valid card");
    server.stop().await;
}

#[tokio::test]
async fn parse_error_is_32700_with_http_200_and_null_id() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let response = post_text(server.addr, b"{\"jsonrpc\": \"2.0\", \"id\": 1, ", &[]).await;
    assert_eq!(response.status, 200);
    let body = response.json();
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["id"], Value::Null);
    assert_eq!(
        error_of(&body),
        (-32700, "a2a-protocol.org".into(), "PARSE_ERROR".into())
    );
    server.stop().await;
}

#[tokio::test]
async fn invalid_requests_are_32600() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let cases = [
        (
            json!({"jsonrpc": "1.0", "id": 3, "method": "GetTask", "params": {"id": "t"}}),
            json!(3),
        ),
        (json!({"jsonrpc": "2.0", "id": "x", "params": {}}), json!("x")),
        (
            json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "GetTask"}),
            Value::Null,
        ),
        (
            json!({"jsonrpc": "2.0", "id": [1], "method": "GetTask"}),
            Value::Null,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 4, "method": "GetTask", "params": "t"}),
            json!(4),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 5, "method": "GetTask", "extra": true}),
            json!(5),
        ),
        (json!("GetTask"), Value::Null),
    ];
    for (request, id) in cases {
        let response = post(server.addr, &request, &[]).await;
        assert_eq!(response.status, 200, "{request}");
        let body = response.json();
        assert_eq!(body["id"], id, "{request}");
        assert_eq!(
            error_of(&body),
            (-32600, "a2a-protocol.org".into(), "INVALID_REQUEST".into()),
            "{request}"
        );
    }
    // An extension method's envelope error uses the extension's domain.
    let response = post(
        server.addr,
        &json!({"jsonrpc": "2.0", "id": 6, "method": "_cleveragents/plan/use", "params": 1}),
        &[],
    )
    .await;
    assert_eq!(
        error_of(&response.json()),
        (
            -32600,
            "urn:cleveragents:extensions:v1".into(),
            "INVALID_REQUEST".into()
        )
    );
    server.stop().await;
}

#[tokio::test]
async fn batches_are_rejected_with_32600() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    for batch in [json!([rpc(json!(1), "GetTask", json!({"id": "a"}))]), json!([])] {
        let response = post(server.addr, &batch, &[]).await;
        assert_eq!(response.status, 200);
        let body = response.json();
        assert!(body.is_object(), "a single error object, not an array");
        assert_eq!(body["id"], Value::Null);
        assert_eq!(body["error"]["code"], -32600);
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Batch requests are not supported"));
    }
    server.stop().await;
}

#[tokio::test]
async fn unknown_methods_are_32601_in_their_contract() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let body = post(server.addr, &rpc(json!(1), "NoSuchMethod", json!({})), &[])
        .await
        .json();
    assert_eq!(
        error_of(&body),
        (-32601, "a2a-protocol.org".into(), "METHOD_NOT_FOUND".into())
    );
    let body = post(server.addr, &rpc(json!(2), "_cleveragents/nope", json!({})), &[])
        .await
        .json();
    assert_eq!(
        error_of(&body),
        (
            -32601,
            "urn:cleveragents:extensions:v1".into(),
            "METHOD_NOT_FOUND".into()
        )
    );
    // Binding methods of stdio are not served over HTTP.
    let body = post(server.addr, &rpc(json!(3), "initialize", json!({})), &[])
        .await
        .json();
    assert_eq!(body["error"]["code"], -32601);
    server.stop().await;
}

#[tokio::test]
async fn invalid_params_carry_a_field_violation() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let body = post(server.addr, &rpc(json!(1), "GetTask", json!({"id": 5})), &[])
        .await
        .json();
    assert_eq!(
        error_of(&body),
        (-32602, "a2a-protocol.org".into(), "INVALID_PARAMS".into())
    );
    let bad_request = &body["error"]["data"][1];
    assert_eq!(bad_request["@type"], "type.googleapis.com/google.rpc.BadRequest");
    assert_eq!(bad_request["fieldViolations"][0]["field"], "id");
    server.stop().await;
}

#[tokio::test]
async fn a_known_call_succeeds_and_an_app_error_passes_through() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let response = post(server.addr, &rpc(json!(1), "GetTask", json!({"id": "t-9"})), &[]).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("a2a-version"), Some("1.0"));
    let body = response.json();
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["id"], "t-9");
    assert_eq!(body["result"]["status"]["state"], "TASK_STATE_WORKING");
    let body = post(
        server.addr,
        &rpc(json!(2), "GetTask", json!({"id": "missing"})),
        &[],
    )
    .await
    .json();
    assert_eq!(
        error_of(&body),
        (-32001, "a2a-protocol.org".into(), "TASK_NOT_FOUND".into())
    );
    server.stop().await;
}

#[tokio::test]
async fn protocol_version_errors_are_32009() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let request = serde_json::to_vec(&rpc(json!(1), "GetTask", json!({"id": "a"}))).unwrap();
    // A version this agent does not serve.
    let response = send_raw(
        server.addr,
        &post_bytes("/", &request, &[("A2A-Version", "0.2")], false),
    )
    .await
    .into_full()
    .await;
    assert_eq!(response.status, 200);
    let body = response.json();
    assert_eq!(
        error_of(&body),
        (-32009, "a2a-protocol.org".into(), "VERSION_NOT_SUPPORTED".into())
    );
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("serves 1.0 and 0.3"));
    let response = send_raw(
        server.addr,
        &post_bytes("/", &request, &[("A2A-Version", "9.9")], false),
    )
    .await
    .into_full()
    .await;
    assert_eq!(response.json()["error"]["code"], -32009);
    // The version may also travel as a query parameter.
    let response = send_raw(
        server.addr,
        &post_bytes("/?A2A-Version=1.0", &request, &[], false),
    )
    .await
    .into_full()
    .await;
    assert_eq!(response.json()["result"]["id"], "a");
    server.stop().await;
}

#[tokio::test]
async fn extension_minor_versions_are_negotiated() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let list = rpc(json!(1), "_cleveragents/plan/list", json!({}));
    // A retired minor (1.0, before the current and the prior) and an unknown one.
    for retired_or_unknown in ["1.0", "1.3"] {
        let response = post(
            server.addr,
            &list,
            &[("CleverAgents-Extension-Version", retired_or_unknown)],
        )
        .await;
        assert_eq!(response.status, 200);
        let answer = response.json();
        assert_eq!(
            error_of(&answer),
            (
                -32007,
                "urn:cleveragents:extensions:v1".into(),
                "VERSION_MISMATCH".into()
            )
        );
        assert_eq!(
            answer["error"]["data"][0]["metadata"]["supportedVersions"],
            "1.1,1.2"
        );
    }
    // 1.1 clients do not see 1.2 methods.
    let sessions = rpc(json!(2), "_cleveragents/session/list", json!({}));
    let response = post(
        server.addr,
        &sessions,
        &[("CleverAgents-Extension-Version", "1.1")],
    )
    .await;
    assert_eq!(response.header("cleveragents-extension-version"), Some("1.1"));
    assert_eq!(
        error_of(&response.json()),
        (
            -32601,
            "urn:cleveragents:extensions:v1".into(),
            "METHOD_NOT_FOUND".into()
        )
    );
    // 1.1 (and the default) do; activated extensions are echoed.
    let response = post(
        server.addr,
        &list,
        &[
            ("CleverAgents-Extension-Version", "1.1"),
            ("A2A-Extensions", "urn:unknown:x, urn:cleveragents:extensions:v1"),
        ],
    )
    .await;
    assert_eq!(
        response.header("a2a-extensions"),
        Some("urn:cleveragents:extensions:v1")
    );
    assert_eq!(
        response.json()["result"],
        example_result("_cleveragents/plan/list")
    );
    let response = post(server.addr, &list, &[]).await;
    assert_eq!(response.header("cleveragents-extension-version"), Some("1.2"));
    assert!(response.json()["result"].is_object());
    server.stop().await;
}

#[tokio::test]
async fn sse_events_are_framed_in_order_with_ids() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let body = serde_json::to_vec(&rpc(
        json!(7),
        "SendStreamingMessage",
        json!({
            "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
        }),
    ))
    .unwrap();
    let mut response = send_raw(server.addr, &post_bytes("/", &body, &[], true)).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    assert_eq!(response.header("cache-control"), Some("no-cache"));
    let events = response.all_events().await;
    let ids: Vec<Option<String>> = events.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(ids, [Some("10".into()), Some("11".into()), Some("12".into())]);
    for (n, (_, data)) in (10..13).zip(&events) {
        assert_eq!(data["jsonrpc"], "2.0");
        assert_eq!(data["id"], 7);
        assert_eq!(data["result"]["statusUpdate"]["metadata"]["n"], n);
    }
    server.stop().await;
}

#[tokio::test]
async fn a_stream_error_is_the_last_sse_event() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let body = serde_json::to_vec(&rpc(json!("s"), "SubscribeToTask", json!({"id": "failing"}))).unwrap();
    let mut response = send_raw(server.addr, &post_bytes("/", &body, &[], true)).await;
    let events = response.all_events().await;
    assert_eq!(events.len(), 2);
    assert_eq!(
        events[0].0.as_deref(),
        Some("1"),
        "per-stream counter when the producer gives no seq"
    );
    assert_eq!(events[1].0, None);
    assert_eq!(events[1].1["id"], "s");
    assert_eq!(events[1].1["error"]["code"], -32603);
    server.stop().await;
}

#[tokio::test]
async fn a_streaming_method_that_fails_before_streaming_answers_json() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let response = post(
        server.addr,
        &rpc(json!(1), "SubscribeToTask", json!({"id": "unknown"})),
        &[],
    )
    .await;
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.json()["error"]["code"], -32001);
    server.stop().await;
}

#[tokio::test]
async fn last_event_id_resumes_after_that_sequence() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let body = serde_json::to_vec(&rpc(json!(1), "SubscribeToTask", json!({"id": "resume"}))).unwrap();
    let mut response = send_raw(
        server.addr,
        &post_bytes("/", &body, &[("Last-Event-ID", "41")], true),
    )
    .await;
    let ids: Vec<Option<String>> = response
        .all_events()
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ids, [Some("42".into()), Some("43".into())]);
    server.stop().await;
}

#[tokio::test]
async fn client_disconnect_drops_the_subscription() {
    let (dispatch, probe) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let body = serde_json::to_vec(&rpc(json!(1), "SubscribeToTask", json!({"id": "forever"}))).unwrap();
    let mut response = send_raw(server.addr, &post_bytes("/", &body, &[], true)).await;
    let (id, first) = response.next_event().await.expect("first event");
    assert_eq!(id.as_deref(), Some("1"));
    assert_eq!(first["id"], 1);
    let dropped = probe.stream_dropped.notified();
    drop(response);
    // Bounded only by the test harness: the handler's stream must be dropped.
    tokio::time::timeout(std::time::Duration::from_secs(30), dropped)
        .await
        .expect("stream dropped after disconnect");
    server.stop().await;
}

#[tokio::test]
async fn keep_alive_comments_flow_while_a_stream_is_idle() {
    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.http.keep_alive_secs = 1;
    let server = start_http(config, dispatch).await;
    let body = serde_json::to_vec(&rpc(json!(1), "SubscribeToTask", json!({"id": "forever"}))).unwrap();
    let mut response = send_raw(server.addr, &post_bytes("/", &body, &[], true)).await;
    response.next_event().await.expect("first event");
    let block = response.next_block().await.expect("a keep-alive");
    assert_eq!(block, ": keep-alive");
    drop(response);
    server.stop().await;
}

#[tokio::test]
async fn open_streams_per_principal_are_bounded_with_429() {
    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.limits.max_streams_per_principal = 1;
    let server = start_http(config, dispatch).await;
    let body = serde_json::to_vec(&rpc(json!(1), "SubscribeToTask", json!({"id": "forever"}))).unwrap();
    let mut first = send_raw(server.addr, &post_bytes("/", &body, &[], true)).await;
    first.next_event().await.expect("first stream open");
    let second = send_raw(server.addr, &post_bytes("/", &body, &[], true))
        .await
        .into_full()
        .await;
    assert_eq!(second.status, 429);
    let error = second.json();
    assert_eq!(error["error"]["code"], -32600);
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Too many open streams"));
    drop(first);
    server.stop().await;
}

#[tokio::test]
async fn shutdown_ends_open_streams_and_returns() {
    let (dispatch, _) = test_router();
    let mut server = start_http(loopback_config(), dispatch).await;
    let body = serde_json::to_vec(&rpc(json!(1), "SubscribeToTask", json!({"id": "forever"}))).unwrap();
    let mut response = send_raw(server.addr, &post_bytes("/", &body, &[], true)).await;
    response.next_event().await.expect("first event");
    server.trigger_stop();
    let mut last = None;
    while let Some(block) = response.next_block().await {
        last = Some(block);
    }
    assert_eq!(last.as_deref(), Some(": server shutting down"));
    server.done.take().unwrap().await.unwrap().unwrap();
}

#[tokio::test]
async fn oversize_body_is_413_with_a_jsonrpc_error() {
    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.limits.max_body_bytes = 1024;
    let server = start_http(config, dispatch).await;
    let big = rpc(json!(1), "GetTask", json!({"id": "x".repeat(4096)}));
    let response = post(server.addr, &big, &[]).await;
    assert_eq!(response.status, 413);
    let body = response.json();
    assert_eq!(body["error"]["code"], -32600);
    assert_eq!(
        body["error"]["message"],
        "Request body exceeds the limit of 1024 bytes"
    );
    // Without Content-Length (chunked), the limit holds while reading.
    let mut request = b"POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nA2A-Version: 1.0\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    request.extend_from_slice(format!("{:x}\r\n{}\r\n0\r\n\r\n", 2000, "a".repeat(2000)).as_bytes());
    let response = send_raw(server.addr, &request).await.into_full().await;
    assert_eq!(response.status, 413);
    server.stop().await;
}

#[tokio::test]
async fn deep_nesting_is_refused_with_32600() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\",\"params\":{{\"id\":\"a\",\"x\":{}{}}}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let response = post_text(server.addr, deep.as_bytes(), &[]).await;
    assert_eq!(response.status, 200);
    let body = response.json();
    assert_eq!(body["error"]["code"], -32600);
    assert_eq!(
        body["error"]["message"],
        "JSON nesting exceeds the limit of 64 levels"
    );
    server.stop().await;
}

#[tokio::test]
async fn oversize_headers_are_431() {
    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.limits.max_header_bytes = 8192;
    let server = start_http(config, dispatch).await;
    let request = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\nContent-Length: 0\r\n\r\n",
        "b".repeat(64 * 1024)
    );
    let response = send_raw(server.addr, request.as_bytes()).await;
    assert_eq!(response.status, 431);
    server.stop().await;
}

#[tokio::test]
async fn wrong_content_type_is_415_content_type_not_supported_and_other_paths_are_404_or_405() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let request = b"POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nA2A-Version: 1.0\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}";
    let response = send_raw(server.addr, request).await.into_full().await;
    assert_eq!(response.status, 415);
    let body = response.json();
    assert_eq!(body["id"], serde_json::Value::Null);
    assert_eq!(body["error"]["code"], -32005);
    assert_eq!(body["error"]["data"][0]["reason"], "CONTENT_TYPE_NOT_SUPPORTED");
    assert_eq!(body["error"]["data"][0]["domain"], "a2a-protocol.org");
    assert_eq!(get(server.addr, "/").await.status, 405);
    assert_eq!(get(server.addr, "/elsewhere").await.status, 404);
    server.stop().await;
}

#[tokio::test]
async fn notifications_get_204_and_no_body() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let response = post(
        server.addr,
        &json!({"jsonrpc": "2.0", "method": "GetTask", "params": {"id": "a"}}),
        &[],
    )
    .await;
    assert_eq!(response.status, 204);
    assert!(response.body.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn cors_preflight_and_headers_follow_the_configuration() {
    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.cors.allowed_origins = vec!["https://app.example".into()];
    let server = start_http(config, dispatch).await;
    let preflight = b"OPTIONS / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nOrigin: https://app.example\r\nAccess-Control-Request-Method: POST\r\n\r\n";
    let response = send_raw(server.addr, preflight).await.into_full().await;
    assert_eq!(response.status, 204);
    assert_eq!(
        response.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    assert_eq!(
        response.header("access-control-allow-methods"),
        Some("GET, POST, DELETE")
    );
    assert!(response
        .header("access-control-allow-headers")
        .unwrap()
        .contains("A2A-Version"));
    let other = b"OPTIONS / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nOrigin: https://evil.example\r\n\r\n";
    let response = send_raw(server.addr, other).await.into_full().await;
    assert_eq!(response.header("access-control-allow-origin"), None);
    let response = post(
        server.addr,
        &rpc(json!(1), "GetTask", json!({"id": "a"})),
        &[("Origin", "https://app.example")],
    )
    .await;
    assert_eq!(
        response.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    server.stop().await;
}

#[tokio::test]
async fn capabilities_gate_their_methods() {
    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.agent.capabilities.streaming = false;
    let server = start_http(config, dispatch).await;
    let body = post(
        server.addr,
        &rpc(json!(1), "SubscribeToTask", json!({"id": "forever"})),
        &[],
    )
    .await
    .json();
    assert_eq!(
        error_of(&body),
        (-32004, "a2a-protocol.org".into(), "UNSUPPORTED_OPERATION".into())
    );
    let body = post(
        server.addr,
        &rpc(
            json!(2),
            "GetTaskPushNotificationConfig",
            json!({"taskId": "t", "id": "c"}),
        ),
        &[],
    )
    .await
    .json();
    assert_eq!(
        error_of(&body),
        (
            -32003,
            "a2a-protocol.org".into(),
            "PUSH_NOTIFICATION_NOT_SUPPORTED".into()
        )
    );
    let body = post(
        server.addr,
        &rpc(json!(3), "GetExtendedAgentCard", json!({})),
        &[],
    )
    .await
    .json();
    // The card does not declare an extended card (no authentication is
    // configured): the spec's answer is UnsupportedOperation (§3.3.4).
    assert_eq!(
        error_of(&body),
        (-32004, "a2a-protocol.org".into(), "UNSUPPORTED_OPERATION".into())
    );
    server.stop().await;
}

#[tokio::test]
async fn agent_card_carries_cache_validators_and_answers_conditional_requests() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let card = get(server.addr, "/.well-known/agent-card.json").await;
    assert_eq!(card.header("cache-control"), Some("public, max-age=300"));
    let etag = card.header("etag").expect("ETag").to_string();
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && etag.len() == 18,
        "{etag}"
    );
    let modified = card.header("last-modified").expect("Last-Modified");
    assert!(modified.ends_with(" GMT"), "{modified}");
    // The same card gives the same validator.
    let again = get(server.addr, "/.well-known/agent.json").await;
    assert_eq!(again.header("etag"), Some(etag.as_str()));

    let request = format!(
        "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: {etag}\r\nConnection: close\r\n\r\n"
    );
    let cached = send_raw(server.addr, request.as_bytes()).await.into_full().await;
    assert_eq!(cached.status, 304);
    assert!(cached.body.is_empty());
    assert_eq!(cached.header("etag"), Some(etag.as_str()));

    let stale = "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: \"0000000000000000\"\r\nConnection: close\r\n\r\n";
    let refreshed = send_raw(server.addr, stale.as_bytes()).await.into_full().await;
    assert_eq!(refreshed.status, 200);
    assert_eq!(refreshed.json(), card.json());
}
