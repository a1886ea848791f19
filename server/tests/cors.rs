//! CORS for browsers over real sockets: the preflight of the JSON-RPC
//! endpoint, the HTTP+JSON routes and a streaming call; the headers of the
//! answers a listed origin may read; and refused origins, which get a bare
//! 403 with no CORS header, no body, and no call made.

mod common;

use common::*;
use serde_json::json;
use server::ServerConfig;

const APP: &str = "https://app.example";
const ALLOW_HEADERS: &str = "Content-Type, Authorization, Last-Event-ID, A2A-Version, A2A-Extensions, \
                             CleverAgents-Extension-Version, X-API-Key";
const EXPOSE_HEADERS: &str =
    "A2A-Version, A2A-Extensions, CleverAgents-Extension-Version, WWW-Authenticate, ETag";

fn config_for(origins: &[&str], credentials: bool) -> ServerConfig {
    let mut config = loopback_config();
    config.cors.allowed_origins = origins.iter().map(|o| o.to_string()).collect();
    config.cors.allow_credentials = credentials;
    config.cors.max_age_secs = 120;
    config
}

/// A raw request with `Host: localhost`, `Connection: close` and `headers`.
fn raw(verb: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut head = format!("{verb} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

fn preflight(path: &str, origin: &str, method: &str, headers: &str) -> Vec<u8> {
    raw(
        "OPTIONS",
        path,
        &[
            ("Origin", origin),
            ("Access-Control-Request-Method", method),
            ("Access-Control-Request-Headers", headers),
        ],
        b"",
    )
}

#[tokio::test]
async fn the_preflight_of_each_binding_names_the_origin_and_what_it_may_send() {
    let (dispatch, _) = test_router();
    let server = start_http(config_for(&[APP], false), dispatch).await;
    // JSON-RPC (unary and streaming calls share the endpoint), and HTTP+JSON
    // routes of each verb.
    let cases = [
        ("/", "POST", "content-type, a2a-version, a2a-extensions"),
        ("/", "POST", "content-type, a2a-version, last-event-id"),
        ("/rest/tasks/t-1", "GET", "a2a-version, authorization"),
        (
            "/rest/message:stream",
            "POST",
            "content-type, a2a-version, x-api-key",
        ),
        (
            "/rest/tasks/t-1/pushNotificationConfigs/c-1",
            "DELETE",
            "a2a-version",
        ),
    ];
    for (path, method, asked) in cases {
        let response = send_raw(server.addr, &preflight(path, APP, method, asked))
            .await
            .into_full()
            .await;
        assert_eq!(response.status, 204, "{path}");
        assert!(response.body.is_empty());
        assert_eq!(response.header("access-control-allow-origin"), Some(APP));
        assert_eq!(
            response.header("access-control-allow-methods"),
            Some("GET, POST, DELETE")
        );
        assert_eq!(
            response.header("access-control-allow-headers"),
            Some(ALLOW_HEADERS)
        );
        assert_eq!(response.header("access-control-max-age"), Some("120"));
        assert_eq!(
            response.header_values("vary"),
            vec![
                "Origin",
                "Access-Control-Request-Method",
                "Access-Control-Request-Headers"
            ]
        );
        assert_eq!(response.header("access-control-allow-credentials"), None);
        assert_eq!(response.header("access-control-expose-headers"), None);
    }
    server.stop().await;
}

#[tokio::test]
async fn answers_to_a_listed_origin_expose_the_headers_a_client_reads() {
    let (dispatch, _) = test_router();
    let server = start_http(config_for(&[APP], false), dispatch).await;
    let unary = serde_json::to_vec(&rpc(json!(1), "GetTask", json!({"id": "t-1"}))).unwrap();
    let stream = serde_json::to_vec(&rpc(
        json!(2),
        "SendStreamingMessage",
        json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}),
    ))
    .unwrap();
    let headers = [
        ("Origin", APP),
        ("Content-Type", "application/json"),
        ("A2A-Version", "1.0"),
    ];
    let json_rpc = send_raw(server.addr, &raw("POST", "/", &headers, &unary))
        .await
        .into_full()
        .await;
    let mut sse = send_raw(server.addr, &raw("POST", "/", &headers, &stream)).await;
    let rest = send_raw(
        server.addr,
        &raw(
            "GET",
            "/rest/tasks/t-1",
            &[("Origin", APP), ("A2A-Version", "1.0")],
            b"",
        ),
    )
    .await
    .into_full()
    .await;
    assert_eq!(json_rpc.status, 200);
    assert_eq!(json_rpc.json()["result"]["id"], "t-1");
    assert_eq!(sse.status, 200);
    assert_eq!(sse.header("content-type"), Some("text/event-stream"));
    assert_eq!(rest.status, 200);
    assert_eq!(rest.json()["id"], "t-1");
    for (what, allow, expose, vary) in [
        (
            "JSON-RPC",
            json_rpc.header("access-control-allow-origin"),
            json_rpc.header("access-control-expose-headers"),
            json_rpc.header_values("vary"),
        ),
        (
            "SSE",
            sse.header("access-control-allow-origin"),
            sse.header("access-control-expose-headers"),
            vec![sse.header("vary").unwrap_or_default()],
        ),
        (
            "HTTP+JSON",
            rest.header("access-control-allow-origin"),
            rest.header("access-control-expose-headers"),
            rest.header_values("vary"),
        ),
    ] {
        assert_eq!(allow, Some(APP), "{what}");
        assert_eq!(expose, Some(EXPOSE_HEADERS), "{what}");
        assert!(vary.contains(&"Origin"), "{what}: {vary:?}");
    }
    let events = sse.all_events().await;
    assert_eq!(events.len(), 3);
    server.stop().await;
}

#[tokio::test]
async fn a_refused_origin_gets_a_bare_403_and_no_call_is_made() {
    let (dispatch, _) = test_router();
    let server = start_http(config_for(&[APP], false), dispatch).await;
    // GetTask "slow" waits for a release that never comes: a 403 that
    // arrives at all shows the call never reached the handler.
    let slow = serde_json::to_vec(&rpc(json!(1), "GetTask", json!({"id": "slow"}))).unwrap();
    let evil = "https://evil.example";
    let requests = [
        preflight("/", evil, "POST", "content-type, a2a-version"),
        raw(
            "POST",
            "/",
            &[
                ("Origin", evil),
                ("Content-Type", "application/json"),
                ("A2A-Version", "1.0"),
            ],
            &slow,
        ),
        raw(
            "GET",
            "/rest/tasks/slow",
            &[("Origin", evil), ("A2A-Version", "1.0")],
            b"",
        ),
        raw("GET", "/.well-known/agent-card.json", &[("Origin", evil)], b""),
        // A page of the agent's own host on another port is another origin.
        raw(
            "GET",
            "/.well-known/agent-card.json",
            &[("Origin", "http://localhost:1")],
            b"",
        ),
        // Sandboxed frames and local files say `null`.
        raw("GET", "/.well-known/agent-card.json", &[("Origin", "null")], b""),
    ];
    for request in requests {
        let response = send_raw(server.addr, &request).await.into_full().await;
        let line = String::from_utf8_lossy(&request[..request.iter().position(|b| *b == b'\r').unwrap_or(0)])
            .into_owned();
        assert_eq!(response.status, 403, "{line}");
        assert!(response.body.is_empty(), "{line}");
        for name in [
            "access-control-allow-origin",
            "access-control-allow-methods",
            "access-control-allow-headers",
            "access-control-expose-headers",
            "access-control-allow-credentials",
            "content-type",
        ] {
            assert_eq!(response.header(name), None, "{line}: {name}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn without_listed_origins_only_pages_of_the_agents_own_origin_are_served() {
    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let body = serde_json::to_vec(&rpc(json!(1), "GetTask", json!({"id": "t-1"}))).unwrap();
    let json_headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
    // Origin naming the Host the request went to.
    let mut headers = json_headers.to_vec();
    headers.push(("Origin", "http://localhost"));
    let same_host = send_raw(server.addr, &raw("POST", "/", &headers, &body))
        .await
        .into_full()
        .await;
    // A browser's own word (Sec-Fetch-Site cannot be set by a page).
    let mut headers = json_headers.to_vec();
    headers.extend([
        ("Origin", "http://127.0.0.1:9"),
        ("Sec-Fetch-Site", "same-origin"),
    ]);
    let said_same = send_raw(server.addr, &raw("POST", "/", &headers, &body))
        .await
        .into_full()
        .await;
    // No Origin: not a browser's cross-origin request.
    let none = send_raw(server.addr, &raw("POST", "/", &json_headers, &body))
        .await
        .into_full()
        .await;
    let mut headers = json_headers.to_vec();
    headers.push(("Origin", APP));
    let other = send_raw(server.addr, &raw("POST", "/", &headers, &body))
        .await
        .into_full()
        .await;
    for response in [&same_host, &said_same, &none] {
        assert_eq!(response.status, 200);
        assert_eq!(response.json()["result"]["id"], "t-1");
        assert_eq!(response.header("access-control-allow-origin"), None);
    }
    assert_eq!(other.status, 403);
    assert!(other.body.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn credentials_are_allowed_to_the_listed_origin_by_name() {
    let (dispatch, _) = test_router();
    let server = start_http(config_for(&[APP, "http://127.0.0.1:8000"], true), dispatch).await;
    let response = send_raw(
        server.addr,
        &preflight("/", APP, "POST", "content-type, authorization"),
    )
    .await
    .into_full()
    .await;
    assert_eq!(response.header("access-control-allow-origin"), Some(APP));
    assert_eq!(response.header("access-control-allow-credentials"), Some("true"));
    let response = send_raw(
        server.addr,
        &raw(
            "GET",
            "/.well-known/agent-card.json",
            &[("Origin", "http://127.0.0.1:8000")],
            b"",
        ),
    )
    .await
    .into_full()
    .await;
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("access-control-allow-origin"),
        Some("http://127.0.0.1:8000")
    );
    assert_eq!(response.header("access-control-allow-credentials"), Some("true"));
    server.stop().await;
}

#[tokio::test]
async fn any_origin_is_answered_with_a_star_and_never_with_credentials() {
    let (dispatch, _) = test_router();
    let server = start_http(config_for(&["*"], false), dispatch).await;
    let response = send_raw(
        server.addr,
        &raw(
            "GET",
            "/.well-known/agent-card.json",
            &[("Origin", "https://anywhere.example")],
            b"",
        ),
    )
    .await
    .into_full()
    .await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("access-control-allow-origin"), Some("*"));
    assert_eq!(response.header("access-control-allow-credentials"), None);
    server.stop().await;

    let (dispatch, _) = test_router();
    let refused = server::HttpServer::bind(config_for(&["*"], true), dispatch).await;
    let Err(error) = refused else {
        panic!("`*` with credentials started a server");
    };
    assert!(error.to_string().contains("cors.allowed_origins `*`"), "{error}");
}

#[tokio::test]
async fn an_origin_that_is_not_one_stops_the_server_from_starting() {
    for bad in ["https://app.example/", "app.example", "https://app.example/path"] {
        let (dispatch, _) = test_router();
        let Err(error) = server::HttpServer::bind(config_for(&[bad], false), dispatch).await else {
            panic!("`{bad}` was accepted as an origin");
        };
        assert!(error.to_string().contains("is not an origin"), "{error}");
    }
}

#[tokio::test]
async fn with_origins_listed_every_answer_varies_by_origin() {
    // A page of the agent's origin fetches the card (no CORS headers); a
    // cache must not hand that answer to a listed page of another origin.
    let (dispatch, _) = test_router();
    let server = start_http(config_for(&[APP], false), dispatch).await;
    let own = send_raw(
        server.addr,
        &raw(
            "GET",
            "/.well-known/agent-card.json",
            &[("A2A-Version", "1.0")],
            b"",
        ),
    )
    .await
    .into_full()
    .await;
    assert_eq!(own.status, 200);
    assert_eq!(own.header("access-control-allow-origin"), None);
    assert_eq!(own.header_values("vary"), vec!["A2A-Version", "Origin"]);
    server.stop().await;

    let (dispatch, _) = test_router();
    let server = start_http(loopback_config(), dispatch).await;
    let own = get(server.addr, "/.well-known/agent-card.json").await;
    assert_eq!(own.header_values("vary"), vec!["A2A-Version"]);
    server.stop().await;
}
