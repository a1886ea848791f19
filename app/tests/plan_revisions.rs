//! A drafted plan's decision tree and revisions through the generated router:
//! plan/tree has a node per step, plan/explain covers the plan and single
//! nodes, and plan/correct creates the next revision (stale revisions,
//! unknown nodes, bad inputs and cancelled plans are refused).

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
async fn plan_tree_has_a_node_per_step() {
    let router = Router::new(App::in_memory());
    release_notes(&router).await;
    let plan = use_plan(&router, json!({ "title": "Release notes for 2.4.0" })).await;
    let tree = call(
        &router,
        &local(),
        "_cleveragents/plan/tree",
        json!({ "namespace": "acme", "planId": plan["id"] }),
    )
    .await
    .expect("tree");
    assert_eq!(
        tree,
        json!({
            "planId": plan["id"], "revision": 1,
            "root": { "id": "goal", "kind": "DECISION_NODE_KIND_GOAL", "label": "Release notes for 2.4.0", "children": [
                { "id": "n-render", "kind": "DECISION_NODE_KIND_STEP", "label": "Render release notes",
                  "stepId": "render", "state": "PLAN_STEP_STATE_PENDING",
                  "rationale": "Step 1 of 2 of action `draft-release-notes`.",
                  "children": [
                    { "id": "n-render-call", "kind": "DECISION_NODE_KIND_TOOL_CALL", "label": "template",
                      "stepId": "render", "state": "PLAN_STEP_STATE_PENDING", "children": [] }
                  ] },
                { "id": "n-approve", "kind": "DECISION_NODE_KIND_APPROVAL", "label": "Approve the notes",
                  "stepId": "approve", "state": "PLAN_STEP_STATE_PENDING",
                  "rationale": "Step 2 of 2 of action `draft-release-notes`.", "children": [] },
            ] }
        })
    );
    let missing_rev = json!({ "namespace": "acme", "planId": plan["id"], "revision": 2 });
    assert_eq!(
        code(&router, &local(), "_cleveragents/plan/tree", missing_rev).await,
        -32001
    );
    let missing_plan = json!({ "namespace": "acme", "planId": "nope" });
    assert_eq!(
        code(&router, &local(), "_cleveragents/plan/tree", missing_plan).await,
        -32001
    );
}

#[tokio::test]
async fn plan_explain_covers_the_plan_and_single_nodes() {
    let router = Router::new(App::in_memory());
    release_notes(&router).await;
    let plan = use_plan(&router, json!({})).await;
    let id = plan["id"].as_str().unwrap_or_default().to_string();
    let method = "_cleveragents/plan/explain";
    let whole = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "planId": id }),
    )
    .await
    .expect("explain");
    assert_eq!(
        whole,
        json!({
            "planId": id, "revision": 1,
            "summary": format!("Plan `{id}` (revision 1) runs action `draft-release-notes` on project `website` at project revision 1 in 2 step(s): Render release notes, Approve the notes."),
            "rationale": [
                { "nodeId": "n-render", "decision": "Run `template`",
                  "reason": "Step 1 of 2 of action `draft-release-notes`: Render release notes." },
                { "nodeId": "n-approve", "decision": "Run `approval`",
                  "reason": "Step 2 of 2 of action `draft-release-notes`: Approve the notes." },
            ]
        })
    );
    let node = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "planId": id, "nodeId": "n-approve" }),
    )
    .await
    .expect("explain node");
    assert_eq!(node["nodeId"], "n-approve");
    assert_eq!(
        node["summary"],
        "Approve the notes: step 2 of 2, using tool `approval`, is PLAN_STEP_STATE_PENDING."
    );
    assert_eq!(names(&node["rationale"], "nodeId"), ["n-approve"]);
    let unknown = json!({ "namespace": "acme", "planId": id, "nodeId": "n-nope" });
    assert_eq!(code(&router, &local(), method, unknown).await, -32001);
    let bad_rev = json!({ "namespace": "acme", "planId": id, "revision": 7 });
    assert_eq!(code(&router, &local(), method, bad_rev).await, -32001);
}

#[tokio::test]
async fn plan_correct_creates_the_next_revision() {
    let router = Router::new(App::in_memory());
    release_notes(&router).await;
    let plan = use_plan(&router, json!({})).await;
    let id = plan["id"].clone();
    let method = "_cleveragents/plan/correct";
    let corrected = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "planId": id, "expectedRevision": 1,
                "instruction": "The release is 2.4.1, not 2.4.0.", "nodeId": "n-render",
                "inputs": { "version": "2.4.1" } }),
    )
    .await
    .expect("correct");
    let now = corrected["correction"]["createdAt"].clone();
    assert_eq!(
        corrected["correction"],
        json!({ "id": "cor-0001", "planId": id, "fromRevision": 1, "toRevision": 2,
                "instruction": "The release is 2.4.1, not 2.4.0.", "nodeId": "n-render", "createdAt": now })
    );
    let mut expected = plan.clone();
    expected["revision"] = json!(2);
    expected["inputs"] = json!({ "version": "2.4.1" });
    expected["updatedAt"] = now.clone();
    assert_eq!(corrected["plan"], expected);

    let status = call(
        &router,
        &local(),
        "_cleveragents/plan/status",
        json!({ "namespace": "acme", "planId": id }),
    )
    .await
    .expect("status");
    assert_eq!(
        status["revisions"],
        json!([
            { "revision": 1, "createdAt": plan["createdAt"], "summary": "Created from action draft-release-notes." },
            { "revision": 2, "createdAt": now, "correctionId": "cor-0001", "summary": "The release is 2.4.1, not 2.4.0." },
        ])
    );
    for revision in [1, 2] {
        let tree = call(
            &router,
            &local(),
            "_cleveragents/plan/tree",
            json!({ "namespace": "acme", "planId": id, "revision": revision }),
        )
        .await
        .expect("tree of each revision");
        assert_eq!(tree["revision"], revision);
        assert_eq!(names(&tree["root"]["children"], "id"), ["n-render", "n-approve"]);
    }

    // Stale revision, unknown node, bad inputs, empty instruction.
    let correct = |patch: Value| {
        let mut p =
            json!({ "namespace": "acme", "planId": id, "expectedRevision": 2, "instruction": "again" });
        if let (Some(p), Some(e)) = (p.as_object_mut(), patch.as_object()) {
            p.extend(e.clone());
        }
        p
    };
    let stale = call(
        &router,
        &local(),
        method,
        correct(json!({ "expectedRevision": 1 })),
    )
    .await
    .expect_err("stale");
    assert_eq!(
        (stale.code, stale.metadata("currentRevision")),
        (-32004, Some("2"))
    );
    assert_eq!(
        code(&router, &local(), method, correct(json!({ "nodeId": "n-x" }))).await,
        -32008
    );
    assert_eq!(
        code(
            &router,
            &local(),
            method,
            correct(json!({ "inputs": { "version": 3 } }))
        )
        .await,
        -32008
    );
    assert_eq!(
        code(&router, &local(), method, correct(json!({ "instruction": " " }))).await,
        -32602
    );
    let reader = as_principal("bob", &[("acme", Access::Reader)]);
    assert_eq!(code(&router, &reader, method, correct(json!({}))).await, -32003);
    let unknown = json!({ "namespace": "acme", "planId": "nope", "expectedRevision": 1, "instruction": "x" });
    assert_eq!(code(&router, &local(), method, unknown).await, -32001);

    // Without inputs the current ones are kept; a cancelled plan cannot be corrected.
    let again = call(&router, &local(), method, correct(json!({})))
        .await
        .expect("correct again");
    assert_eq!(
        (again["plan"]["revision"].clone(), again["plan"]["inputs"].clone()),
        (json!(3), json!({ "version": "2.4.1" }))
    );
    assert_eq!(again["correction"]["id"], "cor-0002");
    assert!(again["correction"].get("nodeId").is_none());
    call(
        &router,
        &local(),
        "_cleveragents/plan/cancel",
        json!({ "namespace": "acme", "planId": id }),
    )
    .await
    .expect("cancel");
    let err = call(
        &router,
        &local(),
        method,
        correct(json!({ "expectedRevision": 3 })),
    )
    .await
    .expect_err("cancelled");
    assert_eq!(
        (err.code, err.metadata("state")),
        (-32004, Some("PLAN_STATE_CANCELLED"))
    );
}
