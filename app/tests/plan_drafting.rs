//! Drafting plans through the generated router: plan/use creates a plan in
//! STRATEGIZE with exact wire values and status, refusals with exact codes
//! that create nothing, plan/cancel following the state machine, plan/list
//! newest first with filters and cursor, and access rules.

mod common;
#[path = "common/plans.rs"]
mod plans;
#[path = "common/website.rs"]
mod website;

use a2a::rpc::Access;
use a2a::Router;
use app::App;
use common::{as_principal, call, code, local, names};
use plans::{release_notes, use_plan};
use serde_json::{json, Value};

#[tokio::test]
async fn plan_use_creates_a_plan_in_strategize() {
    let router = Router::new(App::in_memory());
    release_notes(&router).await;
    let plan = use_plan(
        &router,
        json!({ "contextId": "ctx-1", "title": "Release notes for 2.4.0" }),
    )
    .await;
    let id = plan["id"].as_str().unwrap_or_default().to_string();
    assert_eq!(id.len(), 36, "a UUID");
    assert_eq!(plan["createdAt"], plan["updatedAt"]);
    assert_eq!(
        plan,
        json!({
            "id": id, "namespace": "acme", "title": "Release notes for 2.4.0",
            "action": "draft-release-notes", "project": "website", "automationProfile": "careful",
            "inputs": { "version": "2.4.0" }, "phase": "PLAN_PHASE_STRATEGIZE", "state": "PLAN_STATE_CREATED",
            "revision": 1, "baseProjectRevision": 1, "contextId": "ctx-1",
            "createdAt": plan["createdAt"], "updatedAt": plan["createdAt"]
        })
    );
    let status = call(
        &router,
        &local(),
        "_cleveragents/plan/status",
        json!({ "namespace": "acme", "planId": id }),
    )
    .await
    .expect("status");
    assert_eq!(status["plan"], plan);
    assert_eq!(
        status["steps"],
        json!([
            { "id": "render", "name": "Render release notes", "tool": "template", "state": "PLAN_STEP_STATE_PENDING" },
            { "id": "approve", "name": "Approve the notes", "tool": "approval", "state": "PLAN_STEP_STATE_PENDING" },
        ])
    );
    assert_eq!(
        status["revisions"],
        json!([{ "revision": 1, "createdAt": plan["createdAt"], "summary": "Created from action draft-release-notes." }])
    );
    assert_eq!(
        status["usage"],
        json!({ "tokens": 0, "toolCalls": 0, "filesChanged": 0, "bytesChanged": 0 })
    );
    assert_eq!(
        status["budget"],
        json!({ "maxTokens": 20000, "maxToolCalls": 50 })
    );
    assert!(status.get("pendingPrompt").is_none());

    // A new context when none is given; the plan's view of the context.
    let other = use_plan(&router, json!({})).await;
    assert_eq!(other["contextId"].as_str().map(str::len), Some(36));
    assert!(other.get("title").is_none());
    let view = call(
        &router,
        &local(),
        "_cleveragents/context/show",
        json!({ "namespace": "acme", "project": "website", "planId": id }),
    )
    .await
    .expect("context of the plan");
    assert_eq!(
        (view["planId"].clone(), view["projectRevision"].clone()),
        (json!(id), json!(1))
    );
}

#[tokio::test]
async fn plan_use_errors_have_exact_codes() {
    let router = Router::new(App::in_memory());
    release_notes(&router).await;
    call(
        &router,
        &local(),
        "_cleveragents/registry/actions/add",
        json!({ "namespace": "acme", "action": { "name": "ghostly",
            "steps": [{ "id": "s", "name": "S", "tool": "no-such-tool" }] } }),
    )
    .await
    .expect("add action");
    let method = "_cleveragents/plan/use";
    let base = |patch: Value| {
        let mut p = json!({ "namespace": "acme", "action": "draft-release-notes", "project": "website",
                            "inputs": { "version": "2.4.0" } });
        if let (Some(p), Some(e)) = (p.as_object_mut(), patch.as_object()) {
            p.extend(e.clone());
        }
        p
    };
    assert_eq!(
        code(&router, &local(), method, base(json!({ "action": "nope" }))).await,
        -32001
    );
    assert_eq!(
        code(&router, &local(), method, base(json!({ "project": "nope" }))).await,
        -32001
    );
    assert_eq!(
        code(
            &router,
            &local(),
            method,
            base(json!({ "automationProfile": "nope" }))
        )
        .await,
        -32001
    );
    let bad_inputs = call(
        &router,
        &local(),
        method,
        base(json!({ "inputs": { "version": 2 } })),
    )
    .await
    .expect_err("inputs");
    assert_eq!(bad_inputs.code, -32008);
    assert_eq!(
        bad_inputs.message,
        "the inputs do not satisfy the action's inputSchema: inputs.version must be of type string"
    );
    assert_eq!(
        code(&router, &local(), method, base(json!({ "inputs": {} }))).await,
        -32008
    );
    assert_eq!(
        code(&router, &local(), method, base(json!({ "action": "ghostly" }))).await,
        -32008
    );
    let reader = as_principal("bob", &[("acme", Access::Reader)]);
    assert_eq!(code(&router, &reader, method, base(json!({}))).await, -32003);
    let outsider = as_principal("eve", &[("zeta", Access::Admin)]);
    assert_eq!(code(&router, &outsider, method, base(json!({}))).await, -32001);
    // Nothing was created by the failures.
    let list = call(
        &router,
        &local(),
        "_cleveragents/plan/list",
        json!({ "namespace": "acme" }),
    )
    .await
    .expect("list");
    assert_eq!(list["items"], json!([]));
}

#[tokio::test]
async fn plan_cancel_follows_the_state_machine() {
    let router = Router::new(App::in_memory());
    release_notes(&router).await;
    let plan = use_plan(&router, json!({})).await;
    let id = plan["id"].clone();
    let cancel = json!({ "namespace": "acme", "planId": id, "reason": "Release postponed." });
    let cancelled = call(&router, &local(), "_cleveragents/plan/cancel", cancel.clone())
        .await
        .expect("cancel");
    assert_eq!(cancelled["state"], "PLAN_STATE_CANCELLED");
    assert_eq!(cancelled["phase"], "PLAN_PHASE_STRATEGIZE", "the phase is kept");
    assert_eq!(cancelled["createdAt"], plan["createdAt"]);
    let status = call(
        &router,
        &local(),
        "_cleveragents/plan/status",
        json!({ "namespace": "acme", "planId": id }),
    )
    .await
    .expect("status");
    assert_eq!(status["plan"], cancelled);

    let again = call(&router, &local(), "_cleveragents/plan/cancel", cancel)
        .await
        .expect_err("cancelled is terminal");
    assert_eq!(again.code, -32004);
    assert_eq!(again.domain_reason().map(|(_, r)| r), Some("INVALID_STATE"));
    assert_eq!(again.metadata("state"), Some("PLAN_STATE_CANCELLED"));

    let unknown = json!({ "namespace": "acme", "planId": "nope" });
    assert_eq!(
        code(&router, &local(), "_cleveragents/plan/cancel", unknown.clone()).await,
        -32001
    );
    assert_eq!(
        code(&router, &local(), "_cleveragents/plan/status", unknown).await,
        -32001
    );
    let elsewhere = json!({ "namespace": "zeta", "planId": id });
    assert_eq!(
        code(&router, &local(), "_cleveragents/plan/status", elsewhere).await,
        -32001
    );

    let fresh = use_plan(&router, json!({})).await;
    let cancel_fresh = json!({ "namespace": "acme", "planId": fresh["id"] });
    let reader = as_principal("bob", &[("acme", Access::Reader)]);
    assert_eq!(
        code(
            &router,
            &reader,
            "_cleveragents/plan/cancel",
            cancel_fresh.clone()
        )
        .await,
        -32003
    );
    let status = json!({ "namespace": "acme", "planId": fresh["id"] });
    assert_eq!(
        code(&router, &reader, "_cleveragents/plan/status", status.clone()).await,
        0
    );
    let outsider = as_principal("eve", &[("zeta", Access::Admin)]);
    assert_eq!(
        code(&router, &outsider, "_cleveragents/plan/status", status).await,
        -32001
    );
    assert_eq!(
        code(&router, &outsider, "_cleveragents/plan/cancel", cancel_fresh).await,
        -32001
    );
}

#[tokio::test]
async fn plan_list_is_newest_first_with_filters_and_cursor() {
    let router = Router::new(App::in_memory());
    release_notes(&router).await;
    let mut ids = vec![];
    for _ in 0..3 {
        ids.push(use_plan(&router, json!({})).await["id"].clone());
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    call(
        &router,
        &local(),
        "_cleveragents/plan/cancel",
        json!({ "namespace": "acme", "planId": ids[1] }),
    )
    .await
    .expect("cancel");
    let method = "_cleveragents/plan/list";
    let all = call(&router, &local(), method, json!({ "namespace": "acme" }))
        .await
        .expect("list");
    let listed: Vec<Value> = all["items"]
        .as_array()
        .map(|a| a.iter().map(|p| p["id"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(listed, [ids[2].clone(), ids[1].clone(), ids[0].clone()]);
    assert!(all.get("nextCursor").is_none());

    let page1 = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "limit": 2 }),
    )
    .await
    .expect("page 1");
    assert_eq!(page1["items"].as_array().map(Vec::len), Some(2));
    let page2 = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "limit": 2, "cursor": page1["nextCursor"] }),
    )
    .await
    .expect("page 2");
    assert_eq!(page2["items"][0]["id"], ids[0]);
    assert!(page2.get("nextCursor").is_none());

    let cancelled = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "states": ["PLAN_STATE_CANCELLED"] }),
    )
    .await
    .expect("by state");
    assert_eq!(names(&cancelled["items"], "id"), [ids[1].as_str().unwrap_or("?")]);
    let created = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "states": ["PLAN_STATE_CREATED"], "project": "website",
                "action": "draft-release-notes" }),
    )
    .await
    .expect("combined filters");
    assert_eq!(created["items"].as_array().map(Vec::len), Some(2));
    let none = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "project": "other" }),
    )
    .await
    .expect("no match");
    assert_eq!(none["items"], json!([]));
    assert_eq!(
        code(&router, &local(), method, json!({ "cursor": "bogus" })).await,
        -32602
    );
    assert_eq!(code(&router, &local(), method, json!({ "limit": 0 })).await, 0);
    assert_eq!(
        code(&router, &local(), method, json!({ "limit": 500 })).await,
        -32602
    );
    let outsider = as_principal("eve", &[("zeta", Access::Admin)]);
    assert_eq!(
        code(&router, &outsider, method, json!({ "namespace": "acme" })).await,
        -32001
    );

    let shown = call(
        &router,
        &local(),
        "_cleveragents/namespace/show",
        json!({ "namespace": "acme" }),
    )
    .await
    .expect("namespace");
    assert_eq!(shown["planCount"], 3);
}

#[tokio::test]
async fn plan_execute_of_an_unknown_plan_is_not_found() {
    let router = Router::new(App::in_memory());
    let err = call(
        &router,
        &local(),
        "_cleveragents/plan/execute",
        json!({ "planId": "x" }),
    )
    .await
    .expect_err("unknown plan");
    assert_eq!(err.code, -32001);
}
