//! Plans started by a SendMessage data part naming an action (the session
//! workflow): the plan runs in the message's task and context, registry
//! refusals and plan errors fail that task with a plan.error, cancelling the
//! task cancels the plan, and malformed starts are invalid params while plain
//! text is echoed.

#[path = "common/approval.rs"]
mod approval;
#[path = "common/execution.rs"]
mod execution;

use a2a::Router;
use app::App;
use approval::{sha, AFTER_APPROVAL, BEFORE_APPROVAL, NEW};
use execution::{code, events_until, manual, ok, setup, summary, EXT};
use serde_json::{json, Value};

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
