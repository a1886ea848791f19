//! A plan run through approval, by the generated router: execute, the task's
//! event stream with its domain events, approval by plan/prompt and by an A2A
//! reply, rejection, auto profiles, cancelling while waiting; and for an
//! approved run its artifacts, diff, apply and rollback, with exact wire values
//! and error codes.

#[path = "common/approval.rs"]
mod approval;
#[path = "common/executed.rs"]
mod executed;
#[path = "common/execution.rs"]
mod execution;

use a2a::Router;
use app::App;
use approval::{sha, AFTER_APPROVAL, BEFORE_APPROVAL, NEW};
use executed::use_and_execute;
use execution::{code, events_until, manual, ok, setup, summary, EXT, OLD};
use serde_json::{json, Value};

const NOTES: &str = "## 2.4.0\n\n- Faster search.\n";

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
    let waiting = &events[6]["statusUpdate"];
    assert_eq!(
        waiting["status"]["message"]["parts"][0]["text"],
        "Write the notes for 2.4.0?"
    );
    assert_eq!(waiting["metadata"][EXT]["state"], "PLAN_STATE_INPUT_REQUIRED");
    assert_eq!(waiting["metadata"][EXT]["stepId"], "approve");
    assert_eq!(waiting["metadata"][EXT]["planId"], id.as_str());
    assert_eq!(
        events[2]["statusUpdate"]["metadata"][EXT]["phase"],
        "PLAN_PHASE_EXECUTE"
    );
    assert_eq!(events[4]["artifactUpdate"]["artifact"]["parts"][0]["text"], NOTES);

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
    assert_eq!(all[..7], BEFORE_APPROVAL);
    assert_eq!(all[7..], AFTER_APPROVAL);
    assert_eq!(
        events[8]["statusUpdate"]["metadata"][EXT]["message"],
        "Approved: Looks good."
    );
    assert_eq!(events[8]["statusUpdate"]["metadata"][EXT]["nodeId"], "n-approve");
    assert_eq!(
        events[13]["artifactUpdate"]["artifact"]["parts"][0]["data"],
        json!({ "validation": "mentions-version", "outcome": "VALIDATION_OUTCOME_PASSED" })
    );
    assert_eq!(
        events[16]["statusUpdate"]["metadata"][EXT]["phase"],
        "PLAN_PHASE_REVIEW"
    );
    assert_eq!(
        events[17]["statusUpdate"]["metadata"][EXT]["state"],
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
            "status:TASK_STATE_SUBMITTED:plan.created",
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
    assert_eq!(events[15]["statusUpdate"]["metadata"][EXT]["projectRevision"], 2);
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_APPLIED");
    assert_eq!(status["plan"]["appliedProjectRevision"], 2);
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
