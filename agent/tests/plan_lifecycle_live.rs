//! The full plan lifecycle against the real agent binary, in local mode
//! (stdio) and server mode (HTTP + SSE): add an action (approval then
//! write-file) and a project → plan/use → plan/execute → follow the task with
//! SubscribeToTask until input-required → answer with an A2A SendMessage to
//! the plan's task → the task completes → plan/diff → plan/apply →
//! plan/rollback. Both transports must give the same observations once
//! generated ids and timestamps are normalized.
//!
//! The client has no way to resume a subscription from sequence 1, so the
//! events before input-required are observed from the subscription's
//! snapshot on: the test checks that what it sees is exactly the matching
//! tail of the expected sequence (by the events' own sequence numbers). The
//! events after the reply are all observed, because the second subscription
//! is open (its snapshot read) before the reply is sent.

mod common;

use a2a::rpc::Transport;
use client::{Client, HttpConfig, HttpTransport, StdioConfig, StdioTransport};
use common::{ServerAgent, AGENT};
use futures_util::StreamExt;
use serde_json::{json, Value};

const EXT: &str = "urn:cleveragents:extensions:v1";

/// The domain events of the run up to input-required, by sequence number 2..=5.
const BEFORE: [&str; 4] = [
    "status:TASK_STATE_SUBMITTED:plan.created",
    "status:TASK_STATE_WORKING:plan.phase_changed",
    "status:TASK_STATE_WORKING:tool.invoked",
    "status:TASK_STATE_INPUT_REQUIRED:plan.state_changed",
];

async fn call<T: Transport>(client: &Client<T>, method: &'static str, params: Value) -> Value {
    match client.transport().call(method, params).await {
        Ok(v) => v,
        Err(e) => panic!("{method} failed: {e}"),
    }
}

/// `kind:state:domain-event` of a stream event, the per-task sequence number
/// its domain event names, and the plan state it reports. (The transport's
/// own event numbers differ: stdio numbers each stream's events from 1.)
fn describe(data: &Value) -> (Option<u64>, String, Option<String>) {
    if let Some(task) = data.get("task") {
        return (
            None,
            format!("task:{}", task["status"]["state"].as_str().unwrap_or("?")),
            None,
        );
    }
    let (kind, body) = match data.get("statusUpdate") {
        Some(s) => ("status", s),
        None => ("artifact", &data["artifactUpdate"]),
    };
    let state = body["status"]["state"]
        .as_str()
        .or_else(|| body["artifact"]["name"].as_str())
        .unwrap_or("?");
    let domain = &body["metadata"][EXT];
    (
        domain["seq"].as_u64(),
        format!("{kind}:{state}:{}", domain["event"].as_str().unwrap_or("?")),
        domain["state"].as_str().map(str::to_string),
    )
}

fn is_state(data: &Value, state: &str) -> bool {
    data["task"]["status"]["state"] == state || data["statusUpdate"]["status"]["state"] == state
}

/// Replaces generated ids and timestamps by stable placeholders.
fn normalize(value: &mut Value, ids: &[(&str, &str)]) {
    match value {
        Value::String(s) => {
            for (id, name) in ids {
                if s.contains(id) {
                    *s = s.replace(id, name);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| normalize(v, ids)),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if [
                    "createdAt",
                    "updatedAt",
                    "occurredAt",
                    "startedAt",
                    "finishedAt",
                    "timestamp",
                    "messageId",
                ]
                .contains(&key.as_str())
                {
                    *v = json!("<generated>");
                } else {
                    normalize(v, ids);
                }
            }
        }
        _ => {}
    }
}

/// The scripted lifecycle; returns what it observed, normalized.
async fn lifecycle<T: Transport>(client: &Client<T>) -> Value {
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
    let plan = call(
        client,
        "_cleveragents/plan/use",
        json!({ "action": "notes", "project": "site", "inputs": { "version": "1.0" } }),
    )
    .await;
    let plan_id = plan["id"].as_str().expect("plan id").to_string();
    let execution = call(client, "_cleveragents/plan/execute", json!({ "planId": plan_id })).await;
    let task_id = execution["taskId"].as_str().expect("task id").to_string();
    let context_id = execution["contextId"].as_str().expect("context id").to_string();

    // Until input-required: a consistent tail of the expected events.
    let mut stream = client
        .transport()
        .subscribe("SubscribeToTask", json!({ "id": task_id }))
        .await
        .expect("SubscribeToTask");
    let mut first = None;
    let mut tail = vec![];
    for _ in 0..20 {
        let event = stream.next().await.expect("an event").expect("event");
        let (seq, what, _) = describe(&event.data);
        if first.is_none() {
            first = Some(what);
        } else {
            tail.push((seq, what));
        }
        if is_state(&event.data, "TASK_STATE_INPUT_REQUIRED") {
            break;
        }
    }
    drop(stream);
    let snapshot = first.expect("a snapshot");
    assert!(
        snapshot.starts_with("task:"),
        "the first event is the Task: {snapshot}"
    );
    // Whatever followed the snapshot is the tail of BEFORE (seq 2..=5), in order.
    let skipped = BEFORE.len() - tail.len();
    let expected_tail: Vec<(Option<u64>, String)> = BEFORE
        .iter()
        .enumerate()
        .skip(skipped)
        .map(|(i, w)| (Some(i as u64 + 2), w.to_string()))
        .collect();
    assert_eq!(tail, expected_tail, "after the snapshot {snapshot}");

    let status = call(client, "_cleveragents/plan/status", json!({ "planId": plan_id })).await;

    // The reply, observed by a subscription opened (snapshot read) before it.
    let mut stream = client
        .transport()
        .subscribe("SubscribeToTask", json!({ "id": task_id }))
        .await
        .expect("SubscribeToTask");
    let snapshot = stream.next().await.expect("snapshot").expect("event");
    let (_, snapshot, _) = describe(&snapshot.data);
    let reply = call(
        client,
        "SendMessage",
        json!({ "message": { "messageId": "reply-1", "role": "ROLE_USER", "taskId": task_id,
                             "parts": [{ "text": "approve" }] } }),
    )
    .await;
    let mut after = vec![];
    for _ in 0..20 {
        let Some(event) = stream.next().await else { break };
        let event = event.expect("event");
        let (seq, what, state) = describe(&event.data);
        after.push(json!({ "seq": seq, "event": what, "planState": state }));
        if is_state(&event.data, "TASK_STATE_COMPLETED") {
            break;
        }
    }

    let diff = call(client, "_cleveragents/plan/diff", json!({ "planId": plan_id })).await;
    let apply = call(
        client,
        "_cleveragents/plan/apply",
        json!({ "planId": plan_id, "expectedProjectRevision": diff["projectRevision"] }),
    )
    .await;
    let rollback = call(
        client,
        "_cleveragents/plan/rollback",
        json!({ "planId": plan_id }),
    )
    .await;
    let project = call(
        client,
        "_cleveragents/registry/projects/show",
        json!({ "name": "site" }),
    )
    .await;
    let again = client
        .transport()
        .call("_cleveragents/plan/rollback", json!({ "planId": plan_id }))
        .await
        .expect_err("a rolled-back plan cannot roll back again");
    let again = match again {
        a2a::rpc::CallError::Rpc(e) => e.code,
        other => panic!("expected an RPC error, got {other}"),
    };

    let mut view = json!({
        "plan": plan, "execution": execution, "status": status,
        "secondSnapshot": snapshot, "reply": {
            "state": reply["task"]["status"]["state"], "artifacts": reply["task"]["artifacts"] },
        "after": after, "diff": diff, "apply": apply, "rollback": rollback,
        "project": { "currentRevision": project["currentRevision"], "files": project["files"] },
        "rollbackAgain": again,
    });
    normalize(
        &mut view,
        &[
            (&plan_id, "<plan>"),
            (&task_id, "<task>"),
            (&context_id, "<context>"),
        ],
    );
    view
}

fn expected_after() -> Value {
    json!([
        { "seq": 6, "event": "status:TASK_STATE_WORKING:plan.state_changed", "planState": "PLAN_STATE_RUNNING" },
        { "seq": 7, "event": "status:TASK_STATE_WORKING:plan.decision_made", "planState": null },
        { "seq": 8, "event": "status:TASK_STATE_WORKING:tool.completed", "planState": null },
        { "seq": 9, "event": "status:TASK_STATE_WORKING:tool.invoked", "planState": null },
        { "seq": 10, "event": "artifact:NOTES.md:tool.completed", "planState": null },
        { "seq": 11, "event": "status:TASK_STATE_WORKING:plan.phase_changed", "planState": null },
        { "seq": 12, "event": "status:TASK_STATE_COMPLETED:plan.state_changed", "planState": "PLAN_STATE_COMPLETED" },
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_lifecycle_is_the_same_over_stdio_and_http() {
    let mut stdio = StdioConfig::new(AGENT);
    stdio.args = vec!["--stdio".into(), "--memory".into()];
    let local = Client::new(StdioTransport::spawn(stdio).await.expect("stdio agent"));
    let local_view = lifecycle(&local).await;
    local.transport().shutdown().await.expect("clean shutdown");

    let agent = ServerAgent::start();
    let remote =
        Client::new(HttpTransport::new(HttpConfig::new(agent.endpoint.clone())).expect("http client"));
    let remote_view = lifecycle(&remote).await;
    assert_eq!(local_view, remote_view);

    let v = &local_view;
    assert_eq!(v["plan"]["state"], "PLAN_STATE_CREATED");
    assert_eq!(v["plan"]["phase"], "PLAN_PHASE_STRATEGIZE");
    assert_eq!(v["execution"]["plan"]["state"], "PLAN_STATE_RUNNING");
    assert_eq!(v["execution"]["plan"]["phase"], "PLAN_PHASE_EXECUTE");
    assert_eq!(v["execution"]["taskId"], "<task>");
    assert_eq!(v["status"]["plan"]["state"], "PLAN_STATE_INPUT_REQUIRED");
    assert_eq!(
        v["status"]["pendingPrompt"],
        json!({ "promptId": "prm-approve-1", "stepId": "approve", "kind": "PLAN_PROMPT_KIND_APPROVAL",
                "question": "Write notes for 1.0?", "createdAt": "<generated>" })
    );
    assert_eq!(v["secondSnapshot"], "task:TASK_STATE_INPUT_REQUIRED");
    assert_eq!(v["reply"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        v["reply"]["artifacts"],
        json!([{ "artifactId": "<plan>-r1-write", "name": "NOTES.md",
                 "parts": [{ "text": "Release 1.0\n", "mediaType": "text/markdown", "filename": "NOTES.md" }] }])
    );
    assert_eq!(v["after"], expected_after());
    assert_eq!(
        v["diff"],
        json!({ "planId": "<plan>", "revision": 1, "project": "site", "projectRevision": 1,
                "files": [{ "path": "NOTES.md", "change": "FILE_CHANGE_KIND_ADDED", "mediaType": "text/markdown",
                            "binary": false,
                            "afterSha256": "c71e729588bc4d3c7cf9a100b10f7a4e57ac1dae598ff8d1a1e887e3ed4f2388",
                            "hunks": [{ "oldStart": 0, "oldLines": 0, "newStart": 1, "newLines": 1,
                                        "lines": ["+Release 1.0"] }] }],
                "stats": { "filesChanged": 1, "linesAdded": 1, "linesDeleted": 0 } })
    );
    assert_eq!(v["apply"]["plan"]["state"], "PLAN_STATE_APPLIED");
    assert_eq!(v["apply"]["plan"]["appliedProjectRevision"], 2);
    assert_eq!(
        v["apply"]["revision"],
        json!({ "project": "site", "revision": 2, "parentRevision": 1,
                "origin": "PROJECT_REVISION_ORIGIN_PLAN_APPLIED", "planId": "<plan>",
                "message": "Applied plan <plan> (action notes)", "createdAt": "<generated>", "fileCount": 2,
                "changes": [{ "path": "NOTES.md", "change": "FILE_CHANGE_KIND_ADDED" }] })
    );
    assert_eq!(
        v["apply"]["usage"],
        json!({ "tokens": 3, "toolCalls": 2, "filesChanged": 1, "bytesChanged": 12 })
    );
    assert_eq!(v["rollback"]["plan"]["state"], "PLAN_STATE_ROLLED_BACK");
    assert_eq!(v["rollback"]["restoredRevision"], 1);
    assert_eq!(
        v["rollback"]["revision"],
        json!({ "project": "site", "revision": 3, "parentRevision": 2,
                "origin": "PROJECT_REVISION_ORIGIN_PLAN_ROLLED_BACK", "planId": "<plan>",
                "message": "Rolled back plan <plan>", "createdAt": "<generated>", "fileCount": 1,
                "changes": [{ "path": "NOTES.md", "change": "FILE_CHANGE_KIND_DELETED" }] })
    );
    assert_eq!(v["project"]["currentRevision"], 3);
    assert_eq!(v["project"]["files"][0]["path"], "README.md");
    assert_eq!(v["project"]["files"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["rollbackAgain"], -32004);
}
