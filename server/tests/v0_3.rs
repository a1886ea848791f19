//! A2A 0.3 beside 1.0 on the same endpoint, over real loopback sockets and a
//! real stdio session: which version a request speaks, the decision record's
//! `message/send` example, its aliases, a 0.3 stream, and the card 0.3 clients
//! read. The dispatcher answers the 1.0 schema's examples, so every 0.3 answer
//! here is the 1.0 example passed through the conversion layer.

mod common;

use common::*;
use serde_json::{json, Value};

/// The decision record's `message/send` request, verbatim.
fn adr_message_send() -> Value {
    json!({"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"messageId":"m2","role":"user","kind":"message","parts":[{"kind":"text","text":"hello"}]}}})
}

/// The first `SendMessage` example of the 1.0 schema, in its 0.3 form.
fn example_task_v0_3() -> Value {
    json!({
        "artifacts": [{"artifactId": "a1f3c5e7-9b2d-4f6a-8c0e-1d3f5a7c9e2b", "name": "q3-summary", "parts": [{"kind": "text", "text": "- Revenue grew 12% quarter over quarter.\n- EMEA overtook North America as the largest region.\n- Hardware margins fell 3 points on component costs."}]}],
        "contextId": "c3f1a2b4-7d5e-4c1a-9b8e-2f6d0a1e5c77",
        "history": [{"contextId": "c3f1a2b4-7d5e-4c1a-9b8e-2f6d0a1e5c77", "kind": "message", "messageId": "0f4e6a1c-2b3d-4a5e-8f9a-1b2c3d4e5f60", "parts": [{"kind": "text", "text": "Summarize the attached Q3 sales report in three bullet points."}, {"file": {"mimeType": "application/pdf", "name": "q3-sales.pdf", "uri": "https://files.example.com/reports/q3-sales.pdf"}, "kind": "file"}], "role": "user", "taskId": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b"}],
        "id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b",
        "kind": "task",
        "status": {"state": "completed", "timestamp": "2025-11-03T09:14:27.512Z"}
    })
}

async fn post_versioned(addr: std::net::SocketAddr, body: &Value, version: Option<&str>) -> Value {
    let bytes = serde_json::to_vec(body).expect("encode");
    let headers: Vec<(&str, &str)> = version.map(|v| ("A2A-Version", v)).into_iter().collect();
    send_raw(addr, &post_bytes("/", &bytes, &headers, false))
        .await
        .into_full()
        .await
        .json()
}

#[tokio::test]
async fn the_decision_records_message_send_example_answers_a_0_3_task_over_http() {
    let server = start_http(loopback_config(), ExampleDispatch::new()).await;
    let body = post_versioned(server.addr, &adr_message_send(), None).await;
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "id": 2, "result": example_task_v0_3()})
    );
    server.stop().await;
}

#[tokio::test]
async fn the_decision_records_message_send_example_answers_a_0_3_task_over_stdio() {
    let mut client = StdioClient::start(loopback_config(), ExampleDispatch::new());
    client
        .send(&rpc(
            json!("init"),
            "initialize",
            json!({"protocolVersion": "0.3", "extensions": [], "clientInfo": {"name": "test", "version": "0"}}),
        ))
        .await;
    let (init, _) = client.until_response(&json!("init")).await;
    assert_eq!(init["result"]["protocolVersion"], "0.3", "{init}");
    // The card in the form HTTP serves a 0.3 client: its 0.3 fields beside the 1.0 ones.
    let card = &init["result"]["agentCard"];
    assert_eq!(card["protocolVersion"], "0.3.0", "{card}");
    let endpoint = card["supportedInterfaces"]
        .as_array()
        .and_then(|all| all.iter().find(|i| i["protocolVersion"] == "0.3"))
        .map(|i| i["url"].clone())
        .expect("a 0.3 interface");
    assert_eq!(card["url"], endpoint);
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(
        card["additionalInterfaces"],
        json!([{"transport": "JSONRPC", "url": endpoint}])
    );
    assert_eq!(
        card["supportedInterfaces"][0]["protocolBinding"],
        a2a::STDIO_BINDING_URI
    );
    // Still the binding's initialize result: a 1.0 reader ignores the 0.3 fields.
    serde_json::from_value::<a2a::types::StdioInitializeResult>(init["result"].clone())
        .expect("a valid initialize result");
    client.send(&adr_message_send()).await;
    let (answer, notes) = client.until_response(&json!(2)).await;
    assert!(notes.is_empty());
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 2, "result": example_task_v0_3()})
    );
    client.close();
}

#[tokio::test]
async fn the_version_header_chooses_the_dialect_and_other_versions_are_32009() {
    let server = start_http(loopback_config(), ExampleDispatch::new()).await;
    let v0_3 = rpc(
        json!(1),
        "tasks/get",
        json!({"id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b"}),
    );
    let v1_0 = rpc(
        json!(1),
        "GetTask",
        json!({"id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b"}),
    );
    // Absent, empty and 0.3 all speak 0.3.
    for version in [None, Some(""), Some("0.3")] {
        let body = post_versioned(server.addr, &v0_3, version).await;
        assert_eq!(body["result"]["kind"], "task", "version {version:?}");
        assert_eq!(
            body["result"]["status"]["state"], "completed",
            "version {version:?}"
        );
        let body = post_versioned(server.addr, &v1_0, version).await;
        assert_eq!(
            error_of(&body),
            (-32601, "a2a-protocol.org".into(), "METHOD_NOT_FOUND".into()),
            "a 1.0 name in 0.3, version {version:?}"
        );
    }
    // 1.0 speaks 1.0 and knows no 0.3 name.
    let body = post_versioned(server.addr, &v1_0, Some("1.0")).await;
    assert_eq!(body["result"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(body["result"].get("kind").is_none());
    let body = post_versioned(server.addr, &v0_3, Some("1.0")).await;
    assert_eq!(body["error"]["code"], -32601);
    // Any other version is refused, whichever dialect's method it names.
    for method in [&v0_3, &v1_0] {
        let body = post_versioned(server.addr, method, Some("2.0")).await;
        assert_eq!(
            error_of(&body),
            (-32009, "a2a-protocol.org".into(), "VERSION_NOT_SUPPORTED".into())
        );
        assert_eq!(
            body["error"]["message"],
            "A2A version `2.0` is not supported; this agent serves 1.0 and 0.3 (header `A2A-Version`)"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn the_decision_records_names_are_aliases_of_the_0_3_methods() {
    let mut config = loopback_config();
    config.agent.capabilities.push_notifications = true;
    let server = start_http(config, ExampleDispatch::new()).await;
    let config = json!({"taskId": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b", "pushNotificationConfig": {"url": "https://client.example.com/webhook/a2a-notifications", "token": "secure-client-token-for-task-aaa"}});
    let pairs = [
        (
            "tasks/pushNotificationConfig/set",
            "pushNotificationConfig/create",
            config.clone(),
        ),
        (
            "tasks/pushNotificationConfig/set",
            "pushNotificationConfig/set",
            config,
        ),
        (
            "tasks/pushNotificationConfig/get",
            "pushNotificationConfig/get",
            json!({"id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b", "pushNotificationConfigId": "c0ffee00-1111-4222-8333-444455556666"}),
        ),
        (
            "tasks/pushNotificationConfig/list",
            "pushNotificationConfig/list",
            json!({"id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b"}),
        ),
        (
            "tasks/pushNotificationConfig/delete",
            "pushNotificationConfig/delete",
            json!({"id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b", "pushNotificationConfigId": "c0ffee00-1111-4222-8333-444455556666"}),
        ),
    ];
    for (name, alias, params) in pairs {
        let by_name = post_versioned(server.addr, &rpc(json!(1), name, params.clone()), None).await;
        let by_alias = post_versioned(server.addr, &rpc(json!(1), alias, params), None).await;
        assert!(by_name.get("result").is_some(), "{name}: {by_name}");
        assert_eq!(by_name, by_alias, "{alias} answers as {name}");
    }
    let deleted = post_versioned(
        server.addr,
        &rpc(
            json!(1),
            "pushNotificationConfig/delete",
            json!({"id": "t", "pushNotificationConfigId": "c"}),
        ),
        None,
    )
    .await;
    assert_eq!(deleted, json!({"jsonrpc": "2.0", "id": 1, "result": null}));
    server.stop().await;
}

#[tokio::test]
async fn a_0_3_stream_carries_kind_tagged_events_in_order_and_ends_final() {
    let server = start_http(loopback_config(), ExampleDispatch::new()).await;
    let body = serde_json::to_vec(&rpc(
        json!("s"),
        "message/stream",
        json!({"message": {"messageId": "m3", "role": "user", "kind": "message", "parts": [{"kind": "text", "text": "hello"}]}}),
    ))
    .unwrap();
    let mut response = send_raw(server.addr, &post_bytes("/", &body, &[], false)).await;
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    let events = response.all_events().await;
    let ids: Vec<Option<String>> = events.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(
        ids,
        [
            Some("1".into()),
            Some("2".into()),
            Some("3".into()),
            Some("4".into())
        ]
    );
    let results: Vec<Value> = events.into_iter().map(|(_, e)| e["result"].clone()).collect();
    let task = example_task_v0_3();
    let mut submitted = task.clone();
    submitted["status"] = json!({"state": "submitted", "timestamp": "2025-11-03T09:14:20.001Z"});
    submitted.as_object_mut().unwrap().remove("artifacts");
    assert_eq!(
        results,
        [
            submitted,
            json!({"contextId": task["contextId"], "final": false, "kind": "status-update", "status": {"state": "working", "timestamp": "2025-11-03T09:14:20.350Z"}, "taskId": task["id"]}),
            json!({"append": false, "artifact": task["artifacts"][0], "contextId": task["contextId"], "kind": "artifact-update", "lastChunk": true, "taskId": task["id"]}),
            json!({"contextId": task["contextId"], "final": true, "kind": "status-update", "status": {"state": "completed", "timestamp": "2025-11-03T09:14:27.512Z"}, "taskId": task["id"]}),
        ]
    );
    server.stop().await;
}

#[tokio::test]
async fn a_0_3_client_finds_its_endpoint_in_the_card_and_a_1_0_client_gets_the_1_0_card() {
    let server = start_http(loopback_config(), ExampleDispatch::new()).await;
    let endpoint = format!("http://{}/", server.addr);
    let card = get(server.addr, "/.well-known/agent-card.json").await;
    assert_eq!(card.header("vary"), Some("A2A-Version"));
    let card = card.json();
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["url"], endpoint.as_str());
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(
        card["additionalInterfaces"],
        json!([{"transport": "JSONRPC", "url": endpoint}])
    );
    // The 1.0 fields are all there: the first JSON-RPC interface is 1.0.
    assert_eq!(
        card["supportedInterfaces"][0],
        json!({"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"})
    );
    assert_eq!(
        card["supportedInterfaces"][1],
        json!({"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"})
    );
    let request = "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nA2A-Version: 1.0\r\n\r\n";
    let v1_0 = send_raw(server.addr, request.as_bytes())
        .await
        .into_full()
        .await
        .json();
    for field in [
        "protocolVersion",
        "url",
        "preferredTransport",
        "additionalInterfaces",
    ] {
        assert!(v1_0.get(field).is_none(), "{field} in the 1.0 card");
    }
    assert_eq!(v1_0["supportedInterfaces"], card["supportedInterfaces"]);
    serde_json::from_value::<a2a::types::AgentCard>(v1_0).expect("a valid 1.0 card");
    server.stop().await;
}

#[tokio::test]
async fn with_an_address_for_0_3_clients_the_main_card_is_the_plain_1_0_card() {
    let mut config = loopback_config();
    config.http.v0_3_listen = Some(std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    let server = start_http(config, ExampleDispatch::new()).await;
    let v0_3 = server.v0_3_addr.expect("the 0.3 address is bound");
    assert_ne!(v0_3, server.addr);
    let main_endpoint = format!("http://{}/", server.addr);
    let v0_3_endpoint = format!("http://{v0_3}/");

    // The main address: the 1.0 card, asked for or not; its 0.3 interface
    // names the other address.
    let main = get(server.addr, "/.well-known/agent-card.json").await;
    assert_eq!(main.status, 200);
    assert_eq!(main.header("vary"), Some("A2A-Version"));
    let main = main.json();
    for field in [
        "protocolVersion",
        "url",
        "preferredTransport",
        "additionalInterfaces",
        "supportsAuthenticatedExtendedCard",
        "security",
    ] {
        assert!(main.get(field).is_none(), "{field} in the main address's card");
    }
    assert_eq!(
        main["supportedInterfaces"][0],
        json!({"url": main_endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"})
    );
    assert_eq!(
        main["supportedInterfaces"][1],
        json!({"url": v0_3_endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"})
    );
    serde_json::from_value::<a2a::types::AgentCard>(main.clone()).expect("a valid 1.0 card");

    // The 0.3 address: the card with the 0.3 fields, which point at itself.
    let legacy = get(v0_3, "/.well-known/agent-card.json").await.json();
    assert_eq!(legacy["protocolVersion"], "0.3.0");
    assert_eq!(legacy["url"], v0_3_endpoint.as_str());
    assert_eq!(legacy["preferredTransport"], "JSONRPC");
    assert_eq!(
        legacy["additionalInterfaces"],
        json!([{"transport": "JSONRPC", "url": v0_3_endpoint}])
    );
    assert_eq!(legacy["supportedInterfaces"], main["supportedInterfaces"]);
    // Asked for 1.0 there, it is the main card.
    let request = "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nA2A-Version: 1.0\r\n\r\n";
    let v1_0 = send_raw(v0_3, request.as_bytes()).await.into_full().await.json();
    assert_eq!(v1_0, main);

    // Both addresses serve both versions alike; no header still means 0.3.
    for addr in [server.addr, v0_3] {
        let answer = post_versioned(addr, &adr_message_send(), None).await;
        assert_eq!(answer["result"], example_task_v0_3(), "0.3 on {addr}");
        let answer = post_versioned(
            addr,
            &rpc(
                json!(3),
                "GetTask",
                json!({"id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b"}),
            ),
            Some("1.0"),
        )
        .await;
        assert_eq!(answer["result"], example_result("GetTask"), "1.0 on {addr}");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_card_of_a_cross_origin_request_varies_by_version_and_origin() {
    let mut config = loopback_config();
    config.cors.allowed_origins = vec!["https://app.example".into()];
    let server = start_http(config, ExampleDispatch::new()).await;
    let request = "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nOrigin: https://app.example\r\n\r\n";
    let response = send_raw(server.addr, request.as_bytes()).await.into_full().await;
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    assert_eq!(response.header_values("vary"), vec!["A2A-Version", "Origin"]);
    server.stop().await;
}

#[tokio::test]
async fn a_0_3_stdio_session_streams_0_3_events_then_answers_the_request() {
    let mut client = StdioClient::start(loopback_config(), ExampleDispatch::new());
    client
        .send(&rpc(
            json!("init"),
            "initialize",
            json!({"protocolVersion": "0.3", "extensions": [], "clientInfo": {"name": "test", "version": "0"}}),
        ))
        .await;
    client.until_response(&json!("init")).await;
    client
        .send(&rpc(
            json!("s"),
            "message/stream",
            json!({"message": {"messageId": "m3", "role": "user", "kind": "message", "parts": [{"kind": "text", "text": "hello"}]}}),
        ))
        .await;
    let (answer, notes) = client.until_response(&json!("s")).await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": "s", "result": null}));
    let events: Vec<(Value, Value, Value)> = notes
        .iter()
        .map(|n| {
            let p = &n["params"];
            (
                p["seq"].clone(),
                p["event"]["kind"].clone(),
                p["event"]["final"].clone(),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            (json!(1), json!("task"), Value::Null),
            (json!(2), json!("status-update"), json!(false)),
            (json!(3), json!("artifact-update"), Value::Null),
            (json!(4), json!("status-update"), json!(true)),
        ]
    );
    // In a 0.3 session a 1.0 name is unknown.
    client.send(&rpc(json!(9), "GetTask", json!({"id": "x"}))).await;
    let (unknown, _) = client.until_response(&json!(9)).await;
    assert_eq!(unknown["error"]["code"], -32601);
    client.close();
}
