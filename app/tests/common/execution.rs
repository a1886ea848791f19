//! Plan execution through the generated router in local mode: calls, the
//! release-notes setup (project, profile, validation, action) and following a
//! task's event stream (bounded), never sleeping.

use a2a::rpc::{CallContext, Outcome};
use a2a::Router;
use app::App;
use futures_util::StreamExt;
use serde_json::{json, Value};

pub const EXT: &str = "urn:cleveragents:extensions:v1";

pub const OLD: &str = "# Changelog\n\n## 2.3.0\n\n- Initial public API.\n";

pub fn local() -> CallContext {
    CallContext::default()
}

pub async fn call(router: &Router<App>, method: &str, params: Value) -> Result<Value, a2a::Error> {
    router.dispatch(local(), method, Some(params)).await.into_single()
}

pub async fn ok(router: &Router<App>, method: &str, params: Value) -> Value {
    match call(router, method, params).await {
        Ok(v) => v,
        Err(e) => panic!("{method} failed: {} {}", e.code, e.message),
    }
}

pub async fn code(router: &Router<App>, method: &str, params: Value) -> i64 {
    match call(router, method, params).await {
        Ok(_) => 0,
        Err(e) => e.code,
    }
}

/// Every event of a task from the first, until `stop` holds (at most 60).
pub async fn events_until(router: &Router<App>, task_id: &str, stop: &str) -> Vec<Value> {
    let ctx = CallContext {
        resume_after: Some(0),
        ..local()
    };
    let mut stream = match router
        .dispatch(ctx, "SubscribeToTask", Some(json!({ "id": task_id })))
        .await
    {
        Outcome::Stream(s) => s,
        Outcome::Single(r) => panic!("expected a stream: {r:?}"),
    };
    let mut seen = vec![];
    for _ in 0..60 {
        let Some(event) = stream.next().await else { break };
        let event = event.expect("event");
        let mut data = event.json();
        let done = data["statusUpdate"]["status"]["state"] == stop;
        data["seq"] = json!(event.seq);
        seen.push(data);
        if done {
            break;
        }
    }
    seen
}

/// `kind:state-or-name:domain-event` per event, checking each domain seq.
pub fn summary(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            if let Some(t) = e.get("task") {
                return format!("task:{}", t["status"]["state"].as_str().unwrap_or("?"));
            }
            let (kind, what, body) = match e.get("statusUpdate") {
                Some(s) => ("status", s["status"]["state"].as_str().unwrap_or("?"), s),
                None => (
                    "artifact",
                    e["artifactUpdate"]["artifact"]["name"].as_str().unwrap_or("?"),
                    &e["artifactUpdate"],
                ),
            };
            let domain = &body["metadata"][EXT];
            assert_eq!(domain["seq"], e["seq"], "domain seq is the event seq: {e}");
            format!("{kind}:{what}:{}", domain["event"].as_str().unwrap_or("?"))
        })
        .collect()
}

/// The website project, a manual profile, a validation and the action.
pub async fn setup(router: &Router<App>, profile: Value) {
    ok(
        router,
        "_cleveragents/registry/projects/add",
        json!({ "project": { "name": "website", "files": [
            { "path": "CHANGELOG.md", "mediaType": "text/markdown", "text": OLD }] } }),
    )
    .await;
    ok(
        router,
        "_cleveragents/registry/automation-profiles/add",
        json!({ "automationProfile": profile }),
    )
    .await;
    ok(
        router,
        "_cleveragents/registry/validations/add",
        json!({ "validation": { "name": "mentions-version", "kind": "VALIDATION_KIND_CONTENT_MATCHES",
                "pathGlob": "CHANGELOG.md", "pattern": "## 2\\.4\\.0", "severity": "VALIDATION_SEVERITY_ERROR" } }),
    )
    .await;
    ok(
        router,
        "_cleveragents/registry/actions/add",
        json!({ "action": {
            "name": "release-notes", "automationProfile": profile["name"],
            "validations": ["mentions-version"],
            "steps": [
                { "id": "render", "name": "Render", "tool": "template",
                  "arguments": { "template": "## {{version}}\n\n- {{notes}}\n", "name": "notes" } },
                { "id": "approve", "name": "Approve", "tool": "approval",
                  "arguments": { "question": "Write the notes for {{version}}?" } },
                { "id": "write", "name": "Write", "tool": "write-file",
                  "arguments": { "path": "CHANGELOG.md",
                                 "content": "# Changelog\n\n{{steps.render}}\n## 2.3.0\n\n- Initial public API.\n" } },
                { "id": "check", "name": "Check", "tool": "run-validation" }
            ] } }),
    )
    .await;
}

pub fn manual() -> Value {
    json!({ "name": "careful", "approvalMode": "APPROVAL_MODE_MANUAL", "budget": { "maxToolCalls": 10 } })
}
