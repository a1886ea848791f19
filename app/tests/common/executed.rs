//! A release-notes plan made by plan/use and started by plan/execute.

use crate::execution::ok;
use a2a::Router;
use app::App;
use serde_json::json;

pub async fn use_and_execute(router: &Router<App>) -> (String, String) {
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
