//! Sessions and the namespace event stream against the real agent binary, in
//! local mode (stdio) and server mode (HTTP + SSE): a plan run in a session
//! watched by a following `_cleveragents/events/subscribe` filtered by plan
//! and type, a subscription resumed after a cursor (stdio `stream/resume`,
//! SSE `Last-Event-ID`), and a session exported from the stdio agent and
//! imported into the HTTP one showing the same.

mod common;

use a2a::rpc::Transport;
use client::{Client, HttpConfig, HttpTransport, StdioConfig, StdioTransport};
use common::http::post;
use common::{ServerAgent, AGENT};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;

const EXT: &str = "urn:cleveragents:extensions:v1";
const SUBSCRIBE: &str = "_cleveragents/events/subscribe";

async fn call<T: Transport>(client: &Client<T>, method: &'static str, params: Value) -> Value {
    match client.transport().call(method, params).await {
        Ok(v) => v,
        Err(e) => panic!("{method} failed: {e}"),
    }
}

/// An action whose approval step waits for input, then a write.
async fn setup<T: Transport>(client: &Client<T>) {
    call(
        client,
        "_cleveragents/registry/projects/add",
        json!({ "project": { "name": "site", "files": [
            { "path": "README.md", "mediaType": "text/markdown", "text": "# Site\n" }] } }),
    )
    .await;
    call(
        client,
        "_cleveragents/registry/automation-profiles/add",
        json!({ "automationProfile": { "name": "careful", "approvalMode": "APPROVAL_MODE_MANUAL",
                "budget": { "maxFilesChanged": 5 } } }),
    )
    .await;
    call(
        client,
        "_cleveragents/registry/actions/add",
        json!({ "action": { "name": "notes", "automationProfile": "careful", "steps": [
            { "id": "approve", "name": "Approve", "tool": "approval",
              "arguments": { "question": "Write notes for {{version}}?" } },
            { "id": "write", "name": "Write", "tool": "write-file",
              "arguments": { "path": "NOTES.md", "content": "Release {{version}}\n" } }] } }),
    )
    .await;
}

/// What a watched run shows: the followed events (type and task seq), the
/// events after a cursor, and the session's `show` with its ids replaced.
async fn watched_run<T: Transport>(client: &Client<T>) -> Run {
    setup(client).await;
    let session = call(
        client,
        "_cleveragents/session/create",
        json!({ "title": "Notes 1.0" }),
    )
    .await;
    let session_id = session["id"].as_str().expect("session id").to_string();
    let started = call(
        client,
        "_cleveragents/session/tell",
        json!({ "sessionId": session_id, "message": { "messageId": "m-start", "role": "ROLE_USER",
                "parts": [{ "text": "Notes, please." },
                          { "data": { "action": "notes", "project": "site", "inputs": { "version": "1.0" } } }] } }),
    )
    .await;
    let task_id = started["task"]["id"].as_str().expect("task").to_string();
    let plan_id = started["task"]["metadata"][EXT]["planId"]
        .as_str()
        .expect("plan")
        .to_string();

    let mut events = client
        .transport()
        .subscribe(
            SUBSCRIBE,
            json!({ "planId": plan_id, "types": ["plan.created", "tool.invoked", "tool.completed", "plan.state_changed"], "follow": true }),
        )
        .await
        .expect("subscribe");
    call(
        client,
        "_cleveragents/session/tell",
        json!({ "sessionId": session_id, "message": { "messageId": "m-yes", "role": "ROLE_USER", "taskId": task_id,
                "parts": [{ "text": "approve" }] } }),
    )
    .await;
    let mut followed = vec![];
    let mut cursors = vec![];
    for _ in 0..30 {
        // A guard against a hang, not a timing assertion.
        let next = tokio::time::timeout(Duration::from_secs(60), events.next()).await;
        let event = next.expect("an event").expect("open").expect("event");
        let data = event.data;
        assert_eq!(data["planId"], plan_id.as_str());
        assert_eq!(data["sessionId"], session_id.as_str());
        followed.push((
            data["type"].as_str().unwrap_or("?").to_string(),
            data["taskSeq"].as_u64().unwrap_or(0),
        ));
        cursors.push(data["cursor"].as_u64().expect("cursor"));
        let completed = data["event"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED";
        if completed {
            break;
        }
    }
    drop(events);
    assert!(
        cursors.windows(2).all(|w| w[0] < w[1]),
        "cursors grow: {cursors:?}"
    );

    // Resumed after the third event: the rest, once each.
    let rest = drain(
        client,
        SUBSCRIBE,
        json!({ "planId": plan_id, "types": ["plan.created", "tool.invoked", "tool.completed", "plan.state_changed"], "after": cursors[2] }),
    )
    .await;

    let mut shown = call(
        client,
        "_cleveragents/session/show",
        json!({ "sessionId": session_id }),
    )
    .await;
    let text = shown
        .to_string()
        .replace(&session_id, "<session>")
        .replace(&task_id, "<task>")
        .replace(&plan_id, "<plan>");
    shown = serde_json::from_str(&text).expect("json");
    for key in ["createdAt", "lastActivityAt"] {
        shown["session"][key] = json!("<time>");
    }
    shown["tasks"][0]["updatedAt"] = json!("<time>");
    Run {
        followed,
        cursors,
        rest,
        session_id,
        plan_id,
        shown,
    }
}

/// What [`watched_run`] saw.
struct Run {
    followed: Vec<(String, u64)>,
    cursors: Vec<u64>,
    rest: Vec<(String, u64)>,
    session_id: String,
    plan_id: String,
    shown: Value,
}

/// `(type, taskSeq)` of every event of a stream that ends by itself.
async fn drain<T: Transport>(client: &Client<T>, method: &'static str, params: Value) -> Vec<(String, u64)> {
    let events = client
        .transport()
        .subscribe(method, params)
        .await
        .expect("subscribe");
    events
        .take(100)
        .map(|e| {
            let data = e.expect("event").data;
            (
                data["type"].as_str().unwrap_or("?").to_string(),
                data["taskSeq"].as_u64().unwrap_or(0),
            )
        })
        .collect()
        .await
}

fn expected_followed() -> Vec<(String, u64)> {
    [
        ("plan.created", 2),
        ("tool.invoked", 4),
        ("plan.state_changed", 5),
        ("plan.state_changed", 6),
        ("tool.completed", 8),
        ("tool.invoked", 9),
        ("tool.completed", 10),
        ("plan.state_changed", 12),
    ]
    .iter()
    .map(|(t, s)| (t.to_string(), *s))
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_watched_resumed_and_moved_over_stdio_and_http() {
    let mut stdio = StdioConfig::new(AGENT);
    stdio.args = vec!["--stdio".into(), "--memory".into()];
    let local = Client::new(StdioTransport::spawn(stdio).await.expect("stdio agent"));
    let run = watched_run(&local).await;
    // stdio: stream/resume continues the subscription after a cursor.
    let resumed = drain(
        &local,
        "stream/resume",
        json!({ "method": SUBSCRIBE, "lastEventId": run.cursors[2],
                "params": { "planId": run.plan_id, "types": ["plan.created", "tool.invoked", "tool.completed", "plan.state_changed"] } }),
    )
    .await;
    assert_eq!(resumed, run.followed[3..]);
    let document = call(
        &local,
        "_cleveragents/session/export",
        json!({ "sessionId": run.session_id }),
    )
    .await;
    let original = call(
        &local,
        "_cleveragents/session/show",
        json!({ "sessionId": run.session_id }),
    )
    .await;
    local.transport().shutdown().await.expect("clean shutdown");

    let agent = ServerAgent::start();
    let remote =
        Client::new(HttpTransport::new(HttpConfig::new(agent.endpoint.clone())).expect("http client"));
    let remote_run = watched_run(&remote).await;

    // The follow replays what was stored, then sees the rest live: the
    // whole run's matching events, in order, the same over both transports.
    assert_eq!(run.followed, expected_followed());
    assert_eq!(remote_run.followed, run.followed);
    assert_eq!(run.rest, run.followed[3..]);
    assert_eq!(remote_run.rest, run.rest);
    assert_eq!(run.shown, remote_run.shown);
    assert_eq!(
        run.shown["plans"],
        json!([{ "planId": "<plan>", "revision": 1, "taskId": "<task>" }])
    );

    // Exported over stdio, imported over HTTP: the same show.
    let imported = call(
        &remote,
        "_cleveragents/session/import",
        json!({ "document": document }),
    )
    .await;
    assert_eq!(imported, original["session"]);
    let moved = call(
        &remote,
        "_cleveragents/session/show",
        json!({ "sessionId": run.session_id }),
    )
    .await;
    assert_eq!(moved, original);
    // The imported tasks brought their event logs: the plan's events are in
    // the HTTP agent's stream, under their own sequence numbers.
    let imported_events = drain(
        &remote,
        SUBSCRIBE,
        json!({ "planId": run.plan_id, "types": ["plan.created", "tool.invoked", "tool.completed", "plan.state_changed"] }),
    )
    .await;
    assert_eq!(imported_events, run.followed);

    // SSE: Last-Event-ID resumes the raw stream after that cursor.
    let plan_id = &remote_run.plan_id;
    let request = json!({ "jsonrpc": "2.0", "id": 9, "method": SUBSCRIBE,
                          "params": { "planId": plan_id, "types": ["plan.created", "tool.invoked", "tool.completed", "plan.state_changed"] } });
    let addr = agent.addr();
    let full = post(&addr, &[("A2A-Version", b"1.0")], &request).events();
    let cut = full[2].0.expect("SSE id");
    let resumed = post(
        &addr,
        &[
            ("A2A-Version", b"1.0"),
            ("Last-Event-ID", cut.to_string().as_bytes()),
        ],
        &request,
    )
    .events();
    assert_eq!(resumed, full[3..].to_vec());
    assert!(
        full.iter().all(|(id, e)| *id == e["result"]["cursor"].as_u64()),
        "{full:?}"
    );
}
