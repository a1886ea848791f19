//! Plan execution through the generated router: execute, the task's event
//! stream with its domain events, approval by plan/prompt and by an A2A
//! reply, artifacts, diff, apply (budget, invariants, stale revisions) and
//! rollback, with exact wire values and error codes; and plans started by a
//! SendMessage data part naming an action (the session workflow). Waiting is
//! done by following the task's event stream (bounded), never by sleeping.

use a2a::rpc::{CallContext, Outcome};
use a2a::Router;
use app::{App, AppConfig, StoreConfig};
use futures_util::StreamExt;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const EXT: &str = "urn:cleveragents:extensions:v1";
const OLD: &str = "# Changelog\n\n## 2.3.0\n\n- Initial public API.\n";
const NOTES: &str = "## 2.4.0\n\n- Faster search.\n";
const NEW: &str = "# Changelog\n\n## 2.4.0\n\n- Faster search.\n\n## 2.3.0\n\n- Initial public API.\n";

fn local() -> CallContext {
    CallContext::default()
}

async fn call(router: &Router<App>, method: &str, params: Value) -> Result<Value, a2a::Error> {
    router.dispatch(local(), method, Some(params)).await.into_single()
}

async fn ok(router: &Router<App>, method: &str, params: Value) -> Value {
    match call(router, method, params).await {
        Ok(v) => v,
        Err(e) => panic!("{method} failed: {} {}", e.code, e.message),
    }
}

async fn code(router: &Router<App>, method: &str, params: Value) -> i64 {
    match call(router, method, params).await {
        Ok(_) => 0,
        Err(e) => e.code,
    }
}

fn sha(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every event of a task from the first, until `stop` holds (at most 60).
async fn events_until(router: &Router<App>, task_id: &str, stop: &str) -> Vec<Value> {
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
        let done = event.data["statusUpdate"]["status"]["state"] == stop;
        let mut data = event.data;
        data["seq"] = json!(event.seq);
        seen.push(data);
        if done {
            break;
        }
    }
    seen
}

/// `kind:state-or-name:domain-event` per event, checking each domain seq.
fn summary(events: &[Value]) -> Vec<String> {
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
async fn setup(router: &Router<App>, profile: Value) {
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

fn manual() -> Value {
    json!({ "name": "careful", "approvalMode": "APPROVAL_MODE_MANUAL", "budget": { "maxToolCalls": 10 } })
}

async fn use_and_execute(router: &Router<App>) -> (String, String) {
    let plan = ok(
        router,
        "_cleveragents/plan/use",
        json!({ "action": "release-notes", "project": "website",
                "inputs": { "version": "2.4.0", "notes": "Faster search." } }),
    )
    .await;
    let id = plan["id"].as_str().expect("id").to_string();
    let exec = ok(router, "_cleveragents/plan/execute", json!({ "planId": id })).await;
    assert_eq!(exec["plan"]["state"], "PLAN_STATE_RUNNING");
    assert_eq!(exec["plan"]["phase"], "PLAN_PHASE_EXECUTE");
    assert_eq!(exec["plan"]["taskId"], exec["taskId"]);
    assert_eq!(exec["contextId"], plan["contextId"]);
    (id, exec["taskId"].as_str().expect("task").to_string())
}

const BEFORE_APPROVAL: [&str; 6] = [
    "task:TASK_STATE_SUBMITTED",
    "status:TASK_STATE_WORKING:plan.phase_changed",
    "status:TASK_STATE_WORKING:tool.invoked",
    "artifact:notes:tool.completed",
    "status:TASK_STATE_WORKING:tool.invoked",
    "status:TASK_STATE_INPUT_REQUIRED:plan.state_changed",
];

const AFTER_APPROVAL: [&str; 11] = [
    "status:TASK_STATE_WORKING:plan.state_changed",
    "status:TASK_STATE_WORKING:plan.decision_made",
    "status:TASK_STATE_WORKING:tool.completed",
    "status:TASK_STATE_WORKING:tool.invoked",
    "artifact:CHANGELOG.md:tool.completed",
    "status:TASK_STATE_WORKING:tool.invoked",
    "artifact:mentions-version:validation.completed",
    "status:TASK_STATE_WORKING:tool.completed",
    "artifact:mentions-version:validation.completed",
    "status:TASK_STATE_WORKING:plan.phase_changed",
    "status:TASK_STATE_COMPLETED:plan.state_changed",
];

#[tokio::test]
async fn a_plan_runs_waits_for_approval_and_applies_and_rolls_back() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let (id, task_id) = use_and_execute(&router).await;
    assert_eq!(
        code(&router, "_cleveragents/plan/execute", json!({ "planId": id })).await,
        -32004,
        "a running plan cannot be executed again"
    );
    let events = events_until(&router, &task_id, "TASK_STATE_INPUT_REQUIRED").await;
    assert_eq!(summary(&events), BEFORE_APPROVAL);
    let waiting = &events[5]["statusUpdate"];
    assert_eq!(
        waiting["status"]["message"]["parts"][0]["text"],
        "Write the notes for 2.4.0?"
    );
    assert_eq!(waiting["metadata"][EXT]["state"], "PLAN_STATE_INPUT_REQUIRED");
    assert_eq!(waiting["metadata"][EXT]["stepId"], "approve");
    assert_eq!(waiting["metadata"][EXT]["planId"], id.as_str());
    assert_eq!(
        events[1]["statusUpdate"]["metadata"][EXT]["phase"],
        "PLAN_PHASE_EXECUTE"
    );
    assert_eq!(events[3]["artifactUpdate"]["artifact"]["parts"][0]["text"], NOTES);

    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_INPUT_REQUIRED");
    assert_eq!(status["pendingPrompt"]["promptId"], "prm-approve-1");
    assert_eq!(status["pendingPrompt"]["kind"], "PLAN_PROMPT_KIND_APPROVAL");
    assert_eq!(status["pendingPrompt"]["question"], "Write the notes for 2.4.0?");
    let states: Vec<&str> = status["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["state"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        states,
        [
            "PLAN_STEP_STATE_SUCCEEDED",
            "PLAN_STEP_STATE_WAITING_INPUT",
            "PLAN_STEP_STATE_PENDING",
            "PLAN_STEP_STATE_PENDING"
        ]
    );
    // Nothing to apply yet; a wrong prompt id is not found; ANSWER does not fit an approval.
    assert_eq!(
        code(&router, "_cleveragents/plan/apply", json!({ "planId": id })).await,
        -32004
    );
    let prompt = |prompt: &str, decision: &str| json!({ "planId": id, "promptId": prompt, "decision": decision, "text": "Looks good." });
    assert_eq!(
        code(
            &router,
            "_cleveragents/plan/prompt",
            prompt("prm-nope", "PROMPT_DECISION_APPROVE")
        )
        .await,
        -32001
    );
    assert_eq!(
        code(
            &router,
            "_cleveragents/plan/prompt",
            prompt("prm-approve-1", "PROMPT_DECISION_ANSWER")
        )
        .await,
        -32602
    );
    let resumed = ok(
        &router,
        "_cleveragents/plan/prompt",
        prompt("prm-approve-1", "PROMPT_DECISION_APPROVE"),
    )
    .await;
    assert_eq!(resumed["state"], "PLAN_STATE_RUNNING");
    assert_eq!(
        code(
            &router,
            "_cleveragents/plan/prompt",
            prompt("prm-approve-1", "PROMPT_DECISION_APPROVE")
        )
        .await,
        -32004,
        "an answered prompt cannot be answered again"
    );
    let events = events_until(&router, &task_id, "TASK_STATE_COMPLETED").await;
    let all = summary(&events);
    assert_eq!(all[..6], BEFORE_APPROVAL);
    assert_eq!(all[6..], AFTER_APPROVAL);
    assert_eq!(
        events[7]["statusUpdate"]["metadata"][EXT]["message"],
        "Approved: Looks good."
    );
    assert_eq!(events[7]["statusUpdate"]["metadata"][EXT]["nodeId"], "n-approve");
    assert_eq!(
        events[12]["artifactUpdate"]["artifact"]["parts"][0]["data"],
        json!({ "validation": "mentions-version", "outcome": "VALIDATION_OUTCOME_PASSED" })
    );
    assert_eq!(
        events[15]["statusUpdate"]["metadata"][EXT]["phase"],
        "PLAN_PHASE_REVIEW"
    );
    assert_eq!(
        events[16]["statusUpdate"]["metadata"][EXT]["state"],
        "PLAN_STATE_COMPLETED"
    );

    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_COMPLETED");
    assert_eq!(status["plan"]["phase"], "PLAN_PHASE_REVIEW");
    assert_eq!(status["pendingPrompt"], Value::Null);
    let tokens = (NOTES.len().div_ceil(4) + NEW.len().div_ceil(4)) as i64;
    assert_eq!(
        status["usage"],
        json!({ "tokens": tokens, "toolCalls": 4, "filesChanged": 1, "bytesChanged": NEW.len() })
    );

    let artifacts = ok(&router, "_cleveragents/plan/artifacts", json!({ "planId": id })).await;
    let kinds: Vec<(&str, &str)> = artifacts["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|a| {
            (
                a["kind"].as_str().unwrap_or("?"),
                a["stepId"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("PLAN_ARTIFACT_KIND_REPORT", "render"),
            ("PLAN_ARTIFACT_KIND_FILE", "write"),
            ("PLAN_ARTIFACT_KIND_VALIDATION_RESULT", "check"),
            ("PLAN_ARTIFACT_KIND_VALIDATION_RESULT", "-"),
        ]
    );
    assert_eq!(artifacts["items"][1]["path"], "CHANGELOG.md");
    assert_eq!(
        artifacts["items"][1]["artifact"]["parts"][0],
        json!({ "text": NEW, "mediaType": "text/markdown", "filename": "CHANGELOG.md" })
    );
    assert_eq!(
        code(
            &router,
            "_cleveragents/plan/artifacts",
            json!({ "planId": id, "revision": 7 })
        )
        .await,
        -32001
    );

    let diff = ok(&router, "_cleveragents/plan/diff", json!({ "planId": id })).await;
    assert_eq!(
        diff,
        json!({
            "planId": id, "revision": 1, "project": "website", "projectRevision": 1,
            "files": [{
                "path": "CHANGELOG.md", "change": "FILE_CHANGE_KIND_MODIFIED", "mediaType": "text/markdown",
                "binary": false, "beforeSha256": sha(OLD), "afterSha256": sha(NEW),
                "hunks": [{ "oldStart": 1, "oldLines": 5, "newStart": 1, "newLines": 9, "lines": [
                    " # Changelog", " ", "+## 2.4.0", "+", "+- Faster search.", "+", " ## 2.3.0", " ",
                    " - Initial public API."] }]
            }],
            "stats": { "filesChanged": 1, "linesAdded": 4, "linesDeleted": 0 }
        })
    );
    let full = ok(
        &router,
        "_cleveragents/plan/diff",
        json!({ "planId": id, "format": "FILE_DIFF_FORMAT_FULL" }),
    )
    .await;
    assert_eq!(full["files"][0]["before"], OLD);
    assert_eq!(full["files"][0]["after"], NEW);
    assert_eq!(full["files"][0].get("hunks"), None);
    assert_eq!(
        code(
            &router,
            "_cleveragents/plan/diff",
            json!({ "planId": id, "contextLines": -1 })
        )
        .await,
        -32602
    );

    assert_eq!(
        code(
            &router,
            "_cleveragents/plan/apply",
            json!({ "planId": id, "expectedProjectRevision": 9 })
        )
        .await,
        -32004,
        "a stale expected revision is refused"
    );
    assert_eq!(
        code(&router, "_cleveragents/plan/rollback", json!({ "planId": id })).await,
        -32004
    );
    let applied = ok(
        &router,
        "_cleveragents/plan/apply",
        json!({ "planId": id, "expectedProjectRevision": 1, "message": "Notes for 2.4.0" }),
    )
    .await;
    assert_eq!(applied["plan"]["state"], "PLAN_STATE_APPLIED");
    assert_eq!(applied["plan"]["phase"], "PLAN_PHASE_APPLY");
    assert_eq!(applied["plan"]["appliedProjectRevision"], 2);
    let mut revision = applied["revision"].clone();
    assert_eq!(revision["createdAt"].as_str().map(str::len), Some(24));
    revision["createdAt"] = json!("T");
    assert_eq!(
        revision,
        json!({ "project": "website", "revision": 2, "parentRevision": 1,
                "origin": "PROJECT_REVISION_ORIGIN_PLAN_APPLIED", "planId": id, "message": "Notes for 2.4.0",
                "createdAt": "T", "fileCount": 1,
                "changes": [{ "path": "CHANGELOG.md", "change": "FILE_CHANGE_KIND_MODIFIED" }] })
    );
    assert_eq!(applied["validations"], json!([]));
    assert_eq!(applied["usage"]["filesChanged"], 1);
    let project = ok(
        &router,
        "_cleveragents/registry/projects/show",
        json!({ "name": "website" }),
    )
    .await;
    assert_eq!(project["currentRevision"], 2);
    assert_eq!(project["files"][0]["sha256"], sha(NEW));
    assert_eq!(
        code(&router, "_cleveragents/plan/apply", json!({ "planId": id })).await,
        -32004
    );
    assert_eq!(
        code(&router, "_cleveragents/plan/cancel", json!({ "planId": id })).await,
        -32004
    );

    let rolled = ok(&router, "_cleveragents/plan/rollback", json!({ "planId": id })).await;
    assert_eq!(rolled["plan"]["state"], "PLAN_STATE_ROLLED_BACK");
    assert_eq!(rolled["restoredRevision"], 1);
    assert_eq!(rolled["revision"]["revision"], 3);
    assert_eq!(rolled["revision"]["parentRevision"], 2);
    assert_eq!(
        rolled["revision"]["origin"],
        "PROJECT_REVISION_ORIGIN_PLAN_ROLLED_BACK"
    );
    assert_eq!(rolled["revision"]["message"], format!("Rolled back plan {id}"));
    let project = ok(
        &router,
        "_cleveragents/registry/projects/show",
        json!({ "name": "website" }),
    )
    .await;
    assert_eq!(project["currentRevision"], 3);
    assert_eq!(project["files"][0]["sha256"], sha(OLD));
    assert_eq!(
        code(&router, "_cleveragents/plan/rollback", json!({ "planId": id })).await,
        -32004
    );
}

#[tokio::test]
async fn a_reply_to_the_task_answers_the_approval() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let (id, task_id) = use_and_execute(&router).await;
    events_until(&router, &task_id, "TASK_STATE_INPUT_REQUIRED").await;
    let reply = |text: &str| {
        json!({ "message": { "messageId": format!("r-{text}"), "role": "ROLE_USER", "taskId": task_id,
                             "parts": [{ "text": text }] } })
    };
    // Not an answer: the task asks again and stays input-required.
    let again = ok(&router, "SendMessage", reply("maybe later")).await;
    assert_eq!(again["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(
        again["task"]["status"]["message"]["parts"][0]["text"],
        "Reply `approve` or `reject`. Write the notes for 2.4.0?"
    );
    let done = ok(&router, "SendMessage", reply("Approve, thanks")).await;
    assert_eq!(done["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_COMPLETED");
    assert_eq!(status["steps"][1]["message"], "Approved: Approve, thanks");
}

#[tokio::test]
async fn rejecting_fails_the_plan_and_its_task() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let (id, task_id) = use_and_execute(&router).await;
    events_until(&router, &task_id, "TASK_STATE_INPUT_REQUIRED").await;
    let failed = ok(
        &router,
        "_cleveragents/plan/prompt",
        json!({ "planId": id, "promptId": "prm-approve-1", "decision": "PROMPT_DECISION_REJECT", "text": "Wrong version." }),
    )
    .await;
    assert_eq!(failed["state"], "PLAN_STATE_FAILED");
    assert_eq!(failed["phase"], "PLAN_PHASE_EXECUTE");
    assert_eq!(
        failed["failure"],
        json!({ "stepId": "approve", "message": "Rejected: Wrong version." })
    );
    let events = events_until(&router, &task_id, "TASK_STATE_FAILED").await;
    assert_eq!(
        summary(&events).last().map(String::as_str),
        Some("status:TASK_STATE_FAILED:plan.state_changed")
    );
    assert_eq!(
        code(&router, "_cleveragents/plan/diff", json!({ "planId": id })).await,
        0
    );
    // A failed plan can be corrected and executed again.
    let corrected = ok(
        &router,
        "_cleveragents/plan/correct",
        json!({ "planId": id, "expectedRevision": 1, "instruction": "Try again." }),
    )
    .await;
    assert_eq!(corrected["plan"]["state"], "PLAN_STATE_CREATED");
    assert_eq!(
        code(&router, "_cleveragents/plan/diff", json!({ "planId": id })).await,
        -32004
    );
    let again = ok(&router, "_cleveragents/plan/execute", json!({ "planId": id })).await;
    assert_ne!(again["taskId"].as_str(), Some(task_id.as_str()));
}

#[tokio::test]
async fn auto_profiles_approve_and_apply_on_their_own() {
    let router = Router::new(App::in_memory());
    setup(
        &router,
        json!({ "name": "auto", "approvalMode": "APPROVAL_MODE_AUTO", "autoApply": true, "budget": {} }),
    )
    .await;
    let (id, task_id) = use_and_execute(&router).await;
    let events = events_until(&router, &task_id, "TASK_STATE_COMPLETED").await;
    assert_eq!(
        summary(&events),
        [
            "task:TASK_STATE_SUBMITTED",
            "status:TASK_STATE_WORKING:plan.phase_changed",
            "status:TASK_STATE_WORKING:tool.invoked",
            "artifact:notes:tool.completed",
            "status:TASK_STATE_WORKING:tool.invoked",
            "status:TASK_STATE_WORKING:plan.decision_made",
            "status:TASK_STATE_WORKING:tool.completed",
            "status:TASK_STATE_WORKING:tool.invoked",
            "artifact:CHANGELOG.md:tool.completed",
            "status:TASK_STATE_WORKING:tool.invoked",
            "artifact:mentions-version:validation.completed",
            "status:TASK_STATE_WORKING:tool.completed",
            "artifact:mentions-version:validation.completed",
            "status:TASK_STATE_WORKING:plan.phase_changed",
            "status:TASK_STATE_WORKING:plan.apply_completed",
            "status:TASK_STATE_COMPLETED:plan.state_changed",
        ]
    );
    assert_eq!(events[14]["statusUpdate"]["metadata"][EXT]["projectRevision"], 2);
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_APPLIED");
    assert_eq!(status["plan"]["appliedProjectRevision"], 2);
}

#[tokio::test]
async fn apply_respects_budget_invariants_and_the_current_revision() {
    let router = Router::new(App::in_memory());
    setup(
        &router,
        json!({ "name": "tight", "approvalMode": "APPROVAL_MODE_AUTO", "budget": { "maxFilesChanged": 0 } }),
    )
    .await;
    let (id, task_id) = use_and_execute(&router).await;
    events_until(&router, &task_id, "TASK_STATE_COMPLETED").await;
    let over = call(&router, "_cleveragents/plan/apply", json!({ "planId": id }))
        .await
        .expect_err("over budget");
    assert_eq!(over.code, -32006);
    assert_eq!(
        over.message,
        format!("Plan `{id}` would exceed its budget: 1 files changed, at most 0 allowed")
    );
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_COMPLETED");

    // Lift the budget; a BLOCK invariant the new tree violates still refuses.
    let profile = ok(
        &router,
        "_cleveragents/registry/automation-profiles/show",
        json!({ "name": "tight" }),
    )
    .await;
    ok(
        &router,
        "_cleveragents/registry/automation-profiles/update",
        json!({ "expectedVersion": profile["version"],
                "automationProfile": { "name": "tight", "approvalMode": "APPROVAL_MODE_AUTO", "budget": {} } }),
    )
    .await;
    // The budget is the snapshot taken by plan/use, so a new plan is needed.
    let (id, task_id) = use_and_execute(&router).await;
    events_until(&router, &task_id, "TASK_STATE_COMPLETED").await;
    ok(
        &router,
        "_cleveragents/registry/validations/add",
        json!({ "validation": { "name": "no-search", "kind": "VALIDATION_KIND_CONTENT_EXCLUDES",
                "pathGlob": "*.md", "pattern": "search", "severity": "VALIDATION_SEVERITY_ERROR" } }),
    )
    .await;
    ok(
        &router,
        "_cleveragents/registry/invariants/add",
        json!({ "invariant": { "name": "quiet", "validations": ["no-search"],
                "enforcement": "INVARIANT_ENFORCEMENT_BLOCK" } }),
    )
    .await;
    let blocked = call(&router, "_cleveragents/plan/apply", json!({ "planId": id }))
        .await
        .expect_err("invariant");
    assert_eq!(blocked.code, -32008);
    assert_eq!(
        blocked.message,
        "The apply would break invariant `quiet` failed validation `no-search`: matching `search`: CHANGELOG.md"
    );
    let invariant = ok(
        &router,
        "_cleveragents/registry/invariants/show",
        json!({ "name": "quiet" }),
    )
    .await;
    ok(
        &router,
        "_cleveragents/registry/invariants/update",
        json!({ "expectedVersion": invariant["version"], "invariant": { "name": "quiet",
                "validations": ["no-search"], "enforcement": "INVARIANT_ENFORCEMENT_WARN" } }),
    )
    .await;
    let project = ok(
        &router,
        "_cleveragents/registry/projects/show",
        json!({ "name": "website" }),
    )
    .await;
    assert_eq!(project["currentRevision"], 1, "nothing was written");
    let applied = ok(&router, "_cleveragents/plan/apply", json!({ "planId": id })).await;
    assert_eq!(
        applied["validations"],
        json!([{ "validation": "no-search", "invariant": "quiet", "outcome": "VALIDATION_OUTCOME_WARNED",
                 "message": "matching `search`: CHANGELOG.md" }])
    );
    // Once the project moves on, the apply can no longer be rolled back.
    let project = ok(
        &router,
        "_cleveragents/registry/projects/show",
        json!({ "name": "website" }),
    )
    .await;
    ok(
        &router,
        "_cleveragents/registry/projects/update",
        json!({ "expectedVersion": project["version"], "project": { "name": "website", "files": [
                { "path": "README.md", "mediaType": "text/markdown", "text": "hi" }] } }),
    )
    .await;
    assert_eq!(
        code(&router, "_cleveragents/plan/rollback", json!({ "planId": id })).await,
        -32004
    );
}

#[tokio::test]
async fn failing_steps_and_unrunnable_tools() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    ok(
        &router,
        "_cleveragents/registry/tools/add",
        json!({ "tool": { "name": "deploy", "kind": "TOOL_KIND_EXTERNAL" } }),
    )
    .await;
    ok(
        &router,
        "_cleveragents/registry/actions/add",
        json!({ "action": { "name": "ship", "steps": [{ "id": "go", "name": "Go", "tool": "deploy" }] } }),
    )
    .await;
    let plan = ok(
        &router,
        "_cleveragents/plan/use",
        json!({ "action": "ship", "project": "website" }),
    )
    .await;
    assert_eq!(
        code(
            &router,
            "_cleveragents/plan/execute",
            json!({ "planId": plan["id"] })
        )
        .await,
        -32008
    );
    ok(
        &router,
        "_cleveragents/registry/actions/add",
        json!({ "action": { "name": "escape", "steps": [
            { "id": "w", "name": "Write", "tool": "write-file", "arguments": { "path": "../etc/passwd", "content": "x" } }] } }),
    )
    .await;
    let plan = ok(
        &router,
        "_cleveragents/plan/use",
        json!({ "action": "escape", "project": "website" }),
    )
    .await;
    let exec = ok(
        &router,
        "_cleveragents/plan/execute",
        json!({ "planId": plan["id"] }),
    )
    .await;
    let task_id = exec["taskId"].as_str().expect("task");
    let events = events_until(&router, task_id, "TASK_STATE_FAILED").await;
    assert_eq!(
        summary(&events),
        [
            "task:TASK_STATE_SUBMITTED",
            "status:TASK_STATE_WORKING:plan.phase_changed",
            "status:TASK_STATE_WORKING:tool.invoked",
            "status:TASK_STATE_FAILED:plan.error",
        ]
    );
    let status = ok(
        &router,
        "_cleveragents/plan/status",
        json!({ "planId": plan["id"] }),
    )
    .await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_FAILED");
    assert_eq!(
        status["plan"]["failure"]["message"],
        "Step `w` failed: path `../etc/passwd` must be relative without empty, '.' or '..' segments"
    );
    assert_eq!(status["steps"][0]["state"], "PLAN_STEP_STATE_FAILED");
}

#[tokio::test]
async fn cancelling_a_waiting_plan_cancels_its_task() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let (id, task_id) = use_and_execute(&router).await;
    events_until(&router, &task_id, "TASK_STATE_INPUT_REQUIRED").await;
    let cancelled = ok(&router, "_cleveragents/plan/cancel", json!({ "planId": id })).await;
    assert_eq!(cancelled["state"], "PLAN_STATE_CANCELLED");
    let task = ok(&router, "GetTask", json!({ "id": task_id })).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_CANCELED");
    assert_eq!(
        code(
            &router,
            "_cleveragents/plan/prompt",
            json!({ "planId": id, "promptId": "prm-approve-1", "decision": "PROMPT_DECISION_APPROVE" })
        )
        .await,
        -32004
    );
}

#[tokio::test]
async fn a_waiting_plan_survives_a_restart_on_sqlite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let open = || {
        App::open(
            StoreConfig::Sqlite {
                data_dir: dir.path().to_path_buf(),
            },
            AppConfig::default(),
        )
        .expect("open")
    };
    let (id, task_id) = {
        let router = Router::new(open());
        setup(&router, manual()).await;
        let ids = use_and_execute(&router).await;
        events_until(&router, &ids.1, "TASK_STATE_INPUT_REQUIRED").await;
        ids
    };
    let router = Router::new(open());
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_INPUT_REQUIRED");
    assert_eq!(status["pendingPrompt"]["promptId"], "prm-approve-1");
    ok(
        &router,
        "_cleveragents/plan/prompt",
        json!({ "planId": id, "promptId": "prm-approve-1", "decision": "PROMPT_DECISION_APPROVE" }),
    )
    .await;
    let events = events_until(&router, &task_id, "TASK_STATE_COMPLETED").await;
    assert_eq!(summary(&events).len(), 17);
}

#[tokio::test]
async fn an_error_validation_fails_the_plan_and_a_warning_does_not() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    for (name, severity) in [
        ("no-md", "VALIDATION_SEVERITY_ERROR"),
        ("no-md-warn", "VALIDATION_SEVERITY_WARNING"),
    ] {
        ok(
            &router,
            "_cleveragents/registry/validations/add",
            json!({ "validation": { "name": name, "kind": "VALIDATION_KIND_FILE_ABSENT",
                    "pathGlob": "**/*.md", "severity": severity } }),
        )
        .await;
        ok(
            &router,
            "_cleveragents/registry/actions/add",
            json!({ "action": { "name": format!("act-{name}"), "validations": [name], "steps": [
                { "id": "w", "name": "Write", "tool": "write-file",
                  "arguments": { "path": "docs/x.json", "content": "{}" } }] } }),
        )
        .await;
    }
    let run = |action: &'static str| {
        let router = &router;
        async move {
            let plan = ok(
                router,
                "_cleveragents/plan/use",
                json!({ "action": action, "project": "website" }),
            )
            .await;
            let exec = ok(
                router,
                "_cleveragents/plan/execute",
                json!({ "planId": plan["id"] }),
            )
            .await;
            let task_id = exec["taskId"].as_str().expect("task").to_string();
            (plan["id"].clone(), task_id)
        }
    };
    let (id, task_id) = run("act-no-md").await;
    let events = events_until(&router, &task_id, "TASK_STATE_FAILED").await;
    assert_eq!(
        summary(&events)[3..],
        [
            "artifact:docs/x.json:tool.completed",
            "artifact:no-md:validation.completed",
            "status:TASK_STATE_FAILED:plan.error",
        ]
    );
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_FAILED");
    assert_eq!(
        status["plan"]["failure"],
        json!({ "message": "validation `no-md` failed: present: CHANGELOG.md" })
    );
    let (id, task_id) = run("act-no-md-warn").await;
    let events = events_until(&router, &task_id, "TASK_STATE_COMPLETED").await;
    assert_eq!(
        events[4]["artifactUpdate"]["artifact"]["parts"][0]["data"],
        json!({ "validation": "no-md-warn", "outcome": "VALIDATION_OUTCOME_WARNED",
                "message": "present: CHANGELOG.md" })
    );
    let diff = ok(&router, "_cleveragents/plan/diff", json!({ "planId": id })).await;
    assert_eq!(diff["files"][0]["change"], "FILE_CHANGE_KIND_ADDED");
    assert_eq!(diff["files"][0]["mediaType"], "application/json");
}

#[tokio::test]
async fn plan_methods_hide_unreadable_namespaces_and_need_writers() {
    use a2a::rpc::{Access, Principal};
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let (id, _) = use_and_execute(&router).await;
    let as_role = |roles: &[(&str, Access)]| CallContext {
        principal: Some(Principal {
            subject: "ann".into(),
            namespaces: roles.iter().map(|(n, a)| (n.to_string(), *a)).collect(),
        }),
        ..local()
    };
    let reader = as_role(&[("default", Access::Reader)]);
    let outsider = as_role(&[("other", Access::Admin)]);
    let params = json!({ "planId": id });
    for method in [
        "_cleveragents/plan/execute",
        "_cleveragents/plan/apply",
        "_cleveragents/plan/rollback",
    ] {
        let as_reader = router
            .dispatch(reader.clone(), method, Some(params.clone()))
            .await
            .into_single();
        assert_eq!(as_reader.err().map(|e| e.code), Some(-32003), "{method}");
    }
    for method in [
        "_cleveragents/plan/execute",
        "_cleveragents/plan/artifacts",
        "_cleveragents/plan/diff",
        "_cleveragents/plan/apply",
        "_cleveragents/plan/rollback",
    ] {
        let hidden = router
            .dispatch(outsider.clone(), method, Some(params.clone()))
            .await
            .into_single();
        assert_eq!(hidden.err().map(|e| e.code), Some(-32001), "{method}");
    }
    let artifacts = router
        .dispatch(reader, "_cleveragents/plan/artifacts", Some(params))
        .await
        .into_single();
    assert!(artifacts.is_ok());
}

#[tokio::test]
async fn a_plan_running_at_a_crash_resumes_at_start_up() {
    use app::store::{Commit, DocWrite, Expect};
    let dir = tempfile::tempdir().expect("tempdir");
    let open = || {
        App::open(
            StoreConfig::Sqlite {
                data_dir: dir.path().to_path_buf(),
            },
            AppConfig::default(),
        )
        .expect("open")
    };
    let (id, task_id) = {
        let app = open();
        let router = Router::new(app.clone());
        setup(&router, manual()).await;
        let ids = use_and_execute(&router).await;
        events_until(&router, &ids.1, "TASK_STATE_INPUT_REQUIRED").await;
        // Simulate a crash right after the approval was recorded: the plan is
        // RUNNING past the approval step, with no runner left.
        let doc = app
            .store()
            .get_doc("plan", "default", &ids.0)
            .expect("read")
            .expect("plan");
        let mut record = doc.value;
        record["plan"]["state"] = json!("PLAN_STATE_RUNNING");
        record["steps"][1]["state"] = json!("PLAN_STEP_STATE_SUCCEEDED");
        record["exec"]["nextStep"] = json!(2);
        record["exec"]["pendingPrompt"] = Value::Null;
        let commit = Commit {
            task: None,
            docs: vec![DocWrite::put("plan", "default", &ids.0, Expect::Any, record)],
        };
        app.store().commit(&commit).expect("commit");
        ids
    };
    let app = open();
    assert_eq!(app.resume_plans().await.ok(), Some(1));
    let router = Router::new(app);
    let events = events_until(&router, &task_id, "TASK_STATE_COMPLETED").await;
    assert_eq!(
        summary(&events).last().map(String::as_str),
        Some("status:TASK_STATE_COMPLETED:plan.state_changed")
    );
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_COMPLETED");
}

/// A SendMessage whose data part names an action, in context `ctx`.
fn start_message(id: &str, ctx: &str, data: Value) -> Value {
    json!({ "message": { "messageId": id, "role": "ROLE_USER", "contextId": ctx,
                         "parts": [{ "text": "Please write the release notes." }, { "data": data }] } })
}

#[tokio::test]
async fn a_data_part_naming_an_action_starts_the_plan_in_the_message_task() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let sent = ok(
        &router,
        "SendMessage",
        start_message(
            "m-start",
            "session-1",
            json!({ "action": "release-notes", "project": "website",
                    "inputs": { "version": "2.4.0", "notes": "Faster search." } }),
        ),
    )
    .await;
    let task = &sent["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(task["contextId"], "session-1");
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "Write the notes for 2.4.0?"
    );
    let task_id = task["id"].as_str().expect("task id").to_string();
    let plan_id = task["metadata"][EXT]["planId"]
        .as_str()
        .expect("plan id")
        .to_string();
    assert_eq!(task["metadata"][EXT]["revision"], 1);

    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": plan_id })).await;
    assert_eq!(status["plan"]["taskId"], task_id.as_str());
    assert_eq!(status["plan"]["contextId"], "session-1");
    assert_eq!(status["plan"]["state"], "PLAN_STATE_INPUT_REQUIRED");
    assert_eq!(status["plan"]["phase"], "PLAN_PHASE_EXECUTE");
    assert_eq!(status["plan"]["action"], "release-notes");
    assert_eq!(status["plan"]["project"], "website");
    assert_eq!(status["plan"]["automationProfile"], "careful");
    assert_eq!(status["pendingPrompt"]["stepId"], "approve");

    let events = events_until(&router, &task_id, "TASK_STATE_INPUT_REQUIRED").await;
    assert_eq!(summary(&events), BEFORE_APPROVAL);
    for event in &events[1..] {
        let body = event.get("statusUpdate").unwrap_or(&event["artifactUpdate"]);
        assert_eq!(body["metadata"][EXT]["planId"], plan_id.as_str());
        assert_eq!(body["metadata"][EXT]["revision"], 1);
    }

    let done = ok(
        &router,
        "SendMessage",
        json!({ "message": { "messageId": "m-yes", "role": "ROLE_USER", "taskId": task_id,
                             "parts": [{ "text": "approve" }] } }),
    )
    .await;
    assert_eq!(done["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let events = events_until(&router, &task_id, "TASK_STATE_COMPLETED").await;
    let expected: Vec<&str> = BEFORE_APPROVAL
        .iter()
        .chain(AFTER_APPROVAL.iter())
        .copied()
        .collect();
    assert_eq!(summary(&events), expected);

    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": plan_id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_COMPLETED");
    assert_eq!(status["plan"]["phase"], "PLAN_PHASE_REVIEW");
    assert_eq!(status["plan"]["taskId"], task_id.as_str());
    assert_eq!(status["steps"][1]["message"], "Approved: approve");
    // The plan's workspace is what plan/diff and plan/apply work on.
    let diff = ok(&router, "_cleveragents/plan/diff", json!({ "planId": plan_id })).await;
    assert_eq!(diff["files"][0]["path"], "CHANGELOG.md");
    assert_eq!(diff["files"][0]["afterSha256"], sha(NEW));
}

#[tokio::test]
async fn a_start_request_the_registry_refuses_fails_its_task_with_plan_error() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let cases = [
        (
            json!({ "action": "nope", "project": "website" }),
            -32001,
            "Action `nope` not found",
        ),
        (
            json!({ "action": "release-notes", "project": "blog" }),
            -32001,
            "Project `blog` not found",
        ),
        (
            json!({ "action": "release-notes", "project": "website", "automationProfile": "reckless" }),
            -32001,
            "Automation profile `reckless` not found",
        ),
    ];
    for (i, (data, want_code, want_text)) in cases.into_iter().enumerate() {
        // plan/use gives the same refusal as a JSON-RPC error.
        assert_eq!(
            code(&router, "_cleveragents/plan/use", data.clone()).await,
            want_code
        );

        let sent = ok(
            &router,
            "SendMessage",
            start_message(&format!("m-{i}"), "s", data),
        )
        .await;
        let task = &sent["task"];
        assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "{want_text}");
        let message = &task["status"]["message"];
        assert_eq!(message["role"], "ROLE_AGENT");
        assert_eq!(message["parts"][0]["text"], want_text);
        assert_eq!(
            message["parts"][1]["data"],
            json!({ "code": want_code, "message": want_text })
        );
        assert!(task["metadata"][EXT].is_null(), "no plan was created");
        let task_id = task["id"].as_str().expect("task id");
        let events = events_until(&router, task_id, "TASK_STATE_FAILED").await;
        assert_eq!(
            summary(&events),
            ["task:TASK_STATE_SUBMITTED", "status:TASK_STATE_FAILED:plan.error"]
        );
        let domain = &events[1]["statusUpdate"]["metadata"][EXT];
        assert_eq!(domain["planId"], "");
        assert_eq!(domain["revision"], 0);
        assert_eq!(domain["message"], want_text);
    }
    let plans = ok(&router, "_cleveragents/plan/list", json!({})).await;
    assert_eq!(plans["items"], json!([]), "a refused start creates no plan");
    // Each refusal is a task of its own (the SendMessage itself succeeded).
    let list = ok(&router, "ListTasks", json!({})).await;
    assert_eq!(list["tasks"].as_array().map(Vec::len), Some(3));
}

#[tokio::test]
async fn plan_errors_before_and_after_the_plan_exists_fail_the_task() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    // Inputs not matching the schema: refused by plan/use, so no plan.
    ok(
        &router,
        "_cleveragents/registry/actions/add",
        json!({ "action": { "name": "needs-version", "inputSchema": { "type": "object", "required": ["version"] },
                            "steps": [{ "id": "render", "name": "Render", "tool": "template",
                                        "arguments": { "template": "{{version}}" } }] } }),
    )
    .await;
    let sent = ok(
        &router,
        "SendMessage",
        start_message(
            "m-bad",
            "s",
            json!({ "action": "needs-version", "project": "website", "inputs": {} }),
        ),
    )
    .await;
    let task = &sent["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED");
    let text = "the inputs do not satisfy the action's inputSchema: inputs.version is required";
    assert_eq!(task["status"]["message"]["parts"][0]["text"], text);
    assert_eq!(
        task["status"]["message"]["parts"][1]["data"],
        json!({ "code": -32008, "message": text })
    );
    let events = events_until(&router, task["id"].as_str().expect("id"), "TASK_STATE_FAILED").await;
    assert_eq!(events[1]["statusUpdate"]["metadata"][EXT]["planId"], "");

    // An EXTERNAL tool: plan/use succeeds, plan/execute would refuse; the
    // plan stays CREATED and the plan.error names it.
    ok(
        &router,
        "_cleveragents/registry/tools/add",
        json!({ "tool": { "name": "deploy", "kind": "TOOL_KIND_EXTERNAL" } }),
    )
    .await;
    ok(
        &router,
        "_cleveragents/registry/actions/add",
        json!({ "action": { "name": "ship", "steps": [{ "id": "go", "name": "Go", "tool": "deploy" }] } }),
    )
    .await;
    let sent = ok(
        &router,
        "SendMessage",
        start_message("m-ship", "s", json!({ "action": "ship", "project": "website" })),
    )
    .await;
    let task = &sent["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED");
    let text = "step `go` uses the EXTERNAL tool `deploy`, which this server cannot run";
    assert_eq!(task["status"]["message"]["parts"][0]["text"], text);
    assert_eq!(
        task["status"]["message"]["parts"][1]["data"],
        json!({ "code": -32008, "message": text })
    );
    let events = events_until(&router, task["id"].as_str().expect("id"), "TASK_STATE_FAILED").await;
    assert_eq!(
        summary(&events),
        ["task:TASK_STATE_SUBMITTED", "status:TASK_STATE_FAILED:plan.error"]
    );
    let domain = &events[1]["statusUpdate"]["metadata"][EXT];
    let plan_id = domain["planId"].as_str().expect("plan id");
    assert!(!plan_id.is_empty());
    assert_eq!(domain["revision"], 1);
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": plan_id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_CREATED");
    assert_eq!(status["plan"]["contextId"], "s");
    assert!(status["plan"]["taskId"].is_null());
}

#[tokio::test]
async fn cancelling_a_message_started_task_cancels_its_plan() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let sent = ok(
        &router,
        "SendMessage",
        start_message(
            "m-start",
            "s",
            json!({ "action": "release-notes", "project": "website",
                    "inputs": { "version": "2.4.0", "notes": "Faster search." } }),
        ),
    )
    .await;
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let task_id = sent["task"]["id"].as_str().expect("task id");
    let plan_id = sent["task"]["metadata"][EXT]["planId"].as_str().expect("plan id");
    let cancelled = ok(&router, "CancelTask", json!({ "id": task_id })).await;
    assert_eq!(cancelled["status"]["state"], "TASK_STATE_CANCELED");
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": plan_id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_CANCELLED");
}

#[tokio::test]
async fn malformed_start_requests_are_invalid_params_and_text_is_echoed() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    for (i, data) in [
        json!({ "action": "release-notes" }),
        json!({ "action": 7, "project": "website" }),
        json!({ "action": "release-notes", "project": "website", "inputs": [1] }),
        json!({ "action": "release-notes", "project": "website", "automationProfile": true }),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(
            code(
                &router,
                "SendMessage",
                start_message(&format!("m-{i}"), "s", data)
            )
            .await,
            -32602
        );
    }
    let list = ok(&router, "ListTasks", json!({})).await;
    assert_eq!(list["tasks"], json!([]), "a refused start creates no task");

    // A text-only message (and a data part naming no action) gets the echo.
    let sent = ok(
        &router,
        "SendMessage",
        json!({ "message": { "messageId": "m-text", "role": "ROLE_USER",
                             "parts": [{ "text": "hello" }, { "data": { "note": 1 } }] } }),
    )
    .await;
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        sent["task"]["status"]["message"]["parts"][0]["text"],
        "Received: hello"
    );
    assert!(sent["task"]["metadata"].is_null());
    let plans = ok(&router, "_cleveragents/plan/list", json!({})).await;
    assert_eq!(plans["items"], json!([]));
}
