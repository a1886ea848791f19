//! The `draft-release-notes` action with its `careful` profile on the website
//! project, and plan/use of it: for the plan drafting and revision tests.

use crate::common::{call, local};
use crate::website::website;
use a2a::Router;
use app::App;
use serde_json::{json, Value};

/// The website project plus a release-notes action and a careful profile.
pub async fn release_notes(router: &Router<App>) {
    website(router).await;
    call(
        router,
        &local(),
        "_cleveragents/registry/automation-profiles/add",
        json!({ "namespace": "acme", "automationProfile": {
            "name": "careful", "approvalMode": "APPROVAL_MODE_MANUAL",
            "budget": { "maxTokens": 20000, "maxToolCalls": 50 }
        } }),
    )
    .await
    .expect("add profile");
    call(
        router,
        &local(),
        "_cleveragents/registry/actions/add",
        json!({ "namespace": "acme", "action": {
            "name": "draft-release-notes",
            "automationProfile": "careful",
            "inputSchema": { "type": "object", "required": ["version"],
                             "properties": { "version": { "type": "string" } } },
            "steps": [
                { "id": "render", "name": "Render release notes", "tool": "template",
                  "arguments": { "template": "## {{version}}" } },
                { "id": "approve", "name": "Approve the notes", "tool": "approval" },
            ]
        } }),
    )
    .await
    .expect("add action");
}

pub async fn use_plan(router: &Router<App>, extra: Value) -> Value {
    let mut params = json!({ "namespace": "acme", "action": "draft-release-notes", "project": "website",
                             "inputs": { "version": "2.4.0" } });
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    call(router, &local(), "_cleveragents/plan/use", params)
        .await
        .expect("plan/use")
}
