//! The HTTP+JSON (REST) binding over real loopback sockets: routes from the
//! generated table, params from path, query and body, bare results, SSE with
//! the events' ids and resume, `google.rpc.Status` errors with the registry's
//! HTTP status, the prefix, authentication and the card's interface.

mod common;

use common::*;
use serde_json::{json, Value};
use server::{CredentialConfig, PrincipalConfig, Secret};

/// Sends `verb path` with `A2A-Version: 1.0`, a JSON body when given, and
/// the extra headers.
fn request(verb: &str, path: &str, body: Option<&Value>, extra: &[(&str, &str)]) -> Vec<u8> {
    let body = body
        .map(|b| serde_json::to_vec(b).expect("encode"))
        .unwrap_or_default();
    let mut head =
        format!("{verb} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nA2A-Version: 1.0\r\n");
    if !body.is_empty() {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(&body);
    out
}

async fn call(server: &RunningServer, verb: &str, path: &str, body: Option<&Value>) -> HttpResponse {
    send_raw(server.addr, &request(verb, path, body, &[]))
        .await
        .into_full()
        .await
}

async fn start() -> RunningServer {
    let (dispatch, _) = test_router();
    start_http(loopback_config(), dispatch).await
}

/// `(code, status, reason, domain)` of a `google.rpc.Status` body.
fn status_of(body: &Value) -> (i64, String, String, String) {
    let error = &body["error"];
    let info = error["details"]
        .as_array()
        .and_then(|d| {
            d.iter()
                .find(|d| d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo")
        })
        .cloned()
        .unwrap_or(Value::Null);
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (
        error["code"].as_i64().unwrap_or(0),
        text(&error["status"]),
        text(&info["reason"]),
        text(&info["domain"]),
    )
}

#[tokio::test]
async fn the_card_declares_the_http_json_interface_beside_json_rpc() {
    let server = start().await;
    let card = get(server.addr, "/.well-known/agent-card.json").await.json();
    let rest = card["supportedInterfaces"]
        .as_array()
        .and_then(|list| list.iter().find(|i| i["protocolBinding"] == "HTTP+JSON"))
        .cloned()
        .expect("an HTTP+JSON interface");
    assert_eq!(rest["url"], format!("http://{}/rest", server.addr));
    assert_eq!(rest["protocolVersion"], "1.0");
    server.stop().await;
}

#[tokio::test]
async fn a_get_takes_the_id_from_the_path_and_answers_the_bare_task() {
    let server = start().await;
    let response = call(&server, "GET", "/rest/tasks/t%2D7?historyLength=2", None).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.header("a2a-version"), Some("1.0"));
    let task = response.json();
    assert_eq!(task["id"], "t-7");
    assert_eq!(task["status"]["state"], "TASK_STATE_WORKING");
    server.stop().await;
}

#[tokio::test]
async fn the_tenant_in_the_path_is_the_namespace_the_call_acts_in() {
    let server = start().await;
    let task = call(&server, "GET", "/rest/acme/tasks/t-1", None).await.json();
    assert_eq!(task["metadata"]["tenant"], "acme");
    let plain = call(&server, "GET", "/rest/tasks/t-1", None).await.json();
    assert_eq!(plain["metadata"]["tenant"], "default");
    server.stop().await;
}

#[tokio::test]
async fn a_missing_task_is_404_with_a_status_body_carrying_error_info() {
    let server = start().await;
    let response = call(&server, "GET", "/rest/tasks/missing", None).await;
    assert_eq!(response.status, 404);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(
        status_of(&response.json()),
        (
            404,
            "NOT_FOUND".into(),
            "TASK_NOT_FOUND".into(),
            "a2a-protocol.org".into()
        )
    );
    server.stop().await;
}

#[tokio::test]
async fn a_post_body_is_the_params_and_the_answer_the_bare_result() {
    let server = start().await;
    let body = json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}});
    let response = call(&server, "POST", "/rest/message:send", Some(&body)).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["task"]["id"], "t-1");
    server.stop().await;
}

#[tokio::test]
async fn invalid_params_are_400_with_the_field_violation() {
    let server = start().await;
    let body = json!({"message": {"messageId": "m1", "role": "ROLE_NOBODY", "parts": []}});
    let response = call(&server, "POST", "/rest/message:send", Some(&body)).await;
    assert_eq!(response.status, 400);
    let body = response.json();
    assert_eq!(
        status_of(&body),
        (
            400,
            "INVALID_ARGUMENT".into(),
            "INVALID_PARAMS".into(),
            "a2a-protocol.org".into()
        )
    );
    let violations = body["error"]["details"][1].clone();
    assert_eq!(violations["@type"], "type.googleapis.com/google.rpc.BadRequest");
    server.stop().await;
}

#[tokio::test]
async fn a_stream_is_sse_of_bare_events_with_their_sequence_ids() {
    let server = start().await;
    let body = json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}});
    let mut response = send_raw(
        server.addr,
        &request("POST", "/rest/message:stream", Some(&body), &[]),
    )
    .await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    let events = response.all_events().await;
    let ids: Vec<Option<String>> = events.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(ids, vec![Some("10".into()), Some("11".into()), Some("12".into())]);
    assert_eq!(events[0].1["statusUpdate"]["metadata"]["n"], 10);
    assert!(
        events[0].1.get("jsonrpc").is_none(),
        "REST events are not JSON-RPC responses"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_subscription_resumes_after_the_last_event_id_on_both_verbs() {
    let server = start().await;
    for verb in ["POST", "GET"] {
        let mut response = send_raw(
            server.addr,
            &request(
                verb,
                "/rest/tasks/resume:subscribe",
                None,
                &[("Last-Event-ID", "5")],
            ),
        )
        .await;
        assert_eq!(response.status, 200, "{verb}");
        let ids: Vec<Option<String>> = response
            .all_events()
            .await
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(ids, vec![Some("6".into()), Some("7".into())], "{verb}");
    }
    server.stop().await;
}

#[tokio::test]
async fn an_error_inside_a_stream_is_its_last_event_as_a_status_body() {
    let server = start().await;
    let mut response = send_raw(
        server.addr,
        &request("POST", "/rest/tasks/failing:subscribe", None, &[]),
    )
    .await;
    let events = response.all_events().await;
    assert_eq!(events.len(), 2);
    let (id, last) = &events[1];
    assert_eq!(id, &None);
    assert_eq!(
        status_of(last),
        (
            500,
            "INTERNAL".into(),
            "INTERNAL_ERROR".into(),
            "a2a-protocol.org".into()
        )
    );
    server.stop().await;
}

#[tokio::test]
async fn extension_methods_are_a_post_at_their_wire_name() {
    let server = start().await;
    let response = call(&server, "POST", "/rest/_cleveragents/plan/list", Some(&json!({}))).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json(), example_result("_cleveragents/plan/list"));
    let unimplemented = call(
        &server,
        "POST",
        "/rest/_cleveragents/sync/status",
        Some(&json!({})),
    )
    .await;
    assert_eq!(unimplemented.status, 404);
    assert_eq!(
        status_of(&unimplemented.json()),
        (
            404,
            "UNIMPLEMENTED".into(),
            "METHOD_NOT_FOUND".into(),
            "urn:cleveragents:extensions:v1".into()
        )
    );
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_route_is_404_and_a_wrong_verb_405_with_allow() {
    let server = start().await;
    let unknown = call(&server, "GET", "/rest/nothing/here", None).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(status_of(&unknown.json()).2, "METHOD_NOT_FOUND");
    for malformed in ["/rest/tasks/%ZZ", "/rest/tasks/%C3%28", "/rest/tasks/%+1"] {
        let refused = call(&server, "GET", malformed, None).await;
        assert_eq!(refused.status, 400, "{malformed}");
        assert_eq!(status_of(&refused.json()).2, "INVALID_REQUEST", "{malformed}");
    }
    let wrong = call(&server, "DELETE", "/rest/tasks/t-1", None).await;
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.header("allow"), Some("GET"));
    assert_eq!(wrong.json()["error"]["code"], 405);
    server.stop().await;
}

#[tokio::test]
async fn a_body_that_is_not_a_json_object_is_refused_and_changes_nothing() {
    let server = start().await;
    let array = call(&server, "POST", "/rest/message:send", Some(&json!([1]))).await;
    assert_eq!(array.status, 400);
    assert_eq!(status_of(&array.json()).2, "INVALID_REQUEST");
    let broken = b"POST /rest/message:send HTTP/1.1\r\nHost: x\r\nConnection: close\r\nA2A-Version: 1.0\r\nContent-Type: application/a2a+json\r\nContent-Length: 2\r\n\r\n{\"";
    let broken = send_raw(server.addr, broken).await.into_full().await;
    assert_eq!(broken.status, 400);
    assert_eq!(status_of(&broken.json()).2, "PARSE_ERROR");
    let text = b"POST /rest/message:send HTTP/1.1\r\nHost: x\r\nConnection: close\r\nA2A-Version: 1.0\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}";
    let text = send_raw(server.addr, text).await.into_full().await;
    assert_eq!(text.status, 415);
    let (code, status, reason, _) = status_of(&text.json());
    assert_eq!(
        (code, status.as_str(), reason.as_str()),
        (415, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED")
    );
    server.stop().await;
}

#[tokio::test]
async fn an_unsupported_version_is_400_version_not_supported() {
    let server = start().await;
    let response = send_raw(
        server.addr,
        b"GET /rest/tasks/t-1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nA2A-Version: 9.9\r\n\r\n",
    )
    .await
    .into_full()
    .await;
    assert_eq!(response.status, 400);
    assert_eq!(
        status_of(&response.json()),
        (
            400,
            "FAILED_PRECONDITION".into(),
            "VERSION_NOT_SUPPORTED".into(),
            "a2a-protocol.org".into()
        )
    );
    server.stop().await;
}

#[tokio::test]
async fn an_unauthenticated_caller_gets_401_with_a_challenge() {
    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.auth.api_keys = vec![CredentialConfig {
        secret: Secret::new("key-alice"),
        subject: "alice".into(),
    }];
    config.auth.principals = vec![PrincipalConfig {
        subject: "alice".into(),
        namespaces: [("default".to_string(), a2a::rpc::Access::Reader)].into(),
        default_namespace: None,
    }];
    let server = start_http(config, dispatch).await;
    let response = call(&server, "GET", "/rest/tasks/t-1", None).await;
    assert_eq!(response.status, 401);
    assert!(response.header("www-authenticate").is_some());
    assert_eq!(
        status_of(&response.json()),
        (
            401,
            "UNAUTHENTICATED".into(),
            "AUTH_REQUIRED".into(),
            "urn:cleveragents:extensions:v1".into()
        )
    );
    let header = server_api_key_header();
    let allowed = send_raw(
        server.addr,
        &request("GET", "/rest/tasks/t-1", None, &[(&header, "key-alice")]),
    )
    .await
    .into_full()
    .await;
    assert_eq!(allowed.status, 200);
    assert_eq!(allowed.json()["metadata"]["principal"], "alice");
    server.stop().await;
}

fn server_api_key_header() -> String {
    loopback_config().auth.api_key_name
}

#[tokio::test]
async fn the_prefix_is_configurable_and_an_empty_one_turns_the_binding_off() {
    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.http.rest_path = "/api/v1".into();
    let server = start_http(config, dispatch).await;
    assert_eq!(call(&server, "GET", "/api/v1/tasks/t-1", None).await.status, 200);
    assert_eq!(call(&server, "GET", "/rest/tasks/t-1", None).await.status, 404);
    server.stop().await;

    let (dispatch, _) = test_router();
    let mut config = loopback_config();
    config.http.rest_path = String::new();
    let server = start_http(config, dispatch).await;
    let off = call(&server, "GET", "/rest/tasks/t-1", None).await;
    assert_eq!(off.status, 404);
    assert_eq!(off.header("content-type"), Some("text/plain; charset=utf-8"));
    let card = get(server.addr, "/.well-known/agent-card.json").await.json();
    assert!(!card["supportedInterfaces"].to_string().contains("HTTP+JSON"));
    server.stop().await;
}

#[tokio::test]
async fn answers_are_application_a2a_json_to_a_client_that_asks_for_it() {
    let server = start().await;
    let cases = [
        (None, "application/json"),
        (Some("*/*"), "application/json"),
        (Some("application/json"), "application/json"),
        (Some("application/a2a+json"), "application/a2a+json"),
        (
            Some("application/json;q=0.5, application/a2a+json"),
            "application/a2a+json",
        ),
        (
            Some("application/a2a+json; q=0, application/json"),
            "application/json",
        ),
    ];
    for (accept, expected) in cases {
        for path in ["/rest/tasks/t-1", "/rest/tasks/missing"] {
            let extra: Vec<(&str, &str)> = accept.map(|a| ("Accept", a)).into_iter().collect();
            let response = send_raw(server.addr, &request("GET", path, None, &extra))
                .await
                .into_full()
                .await;
            assert_eq!(
                response.header("content-type"),
                Some(expected),
                "{accept:?} {path}"
            );
        }
    }
    server.stop().await;
}
