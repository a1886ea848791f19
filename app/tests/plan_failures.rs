//! Where plan execution stops, and what survives: apply refused over the
//! budget, by a BLOCK invariant or once the project moved on; execute, apply
//! and rollback need writers and hide unreadable namespaces; failing steps,
//! unrunnable tools and validations by severity; a waiting plan across a
//! restart and a running plan after a crash (on SQLite).

#[path = "common/executed.rs"]
mod executed;
#[path = "common/execution.rs"]
mod execution;

use a2a::rpc::CallContext;
use a2a::Router;
use app::{App, AppConfig};
use executed::use_and_execute;
use execution::{call, code, events_until, local, manual, ok, setup, summary};
use serde_json::{json, Value};

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
            "status:TASK_STATE_SUBMITTED:plan.created",
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
async fn a_waiting_plan_survives_a_restart_on_sqlite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let open = || {
        App::with_store(
            std::sync::Arc::new(store_sqlite::SqliteStore::open(&dir.path().join("store.db")).expect("open")),
            AppConfig::default(),
        )
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
    assert_eq!(summary(&events).len(), 18);
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
        summary(&events)[4..],
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
        events[5]["artifactUpdate"]["artifact"]["parts"][0]["data"],
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
        App::with_store(
            std::sync::Arc::new(store_sqlite::SqliteStore::open(&dir.path().join("store.db")).expect("open")),
            AppConfig::default(),
        )
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
            .await
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
            ..Commit::default()
        };
        app.store().commit(commit.clone()).await.expect("commit");
        ids
    };
    let app = open();
    assert_eq!(app.resume_work().await.ok().map(|r| r.plans), Some(1));
    let router = Router::new(app);
    let events = events_until(&router, &task_id, "TASK_STATE_COMPLETED").await;
    assert_eq!(
        summary(&events).last().map(String::as_str),
        Some("status:TASK_STATE_COMPLETED:plan.state_changed")
    );
    let status = ok(&router, "_cleveragents/plan/status", json!({ "planId": id })).await;
    assert_eq!(status["plan"]["state"], "PLAN_STATE_COMPLETED");
}
