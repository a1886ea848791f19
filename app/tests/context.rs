//! context/show, set, simulate and inspect through the generated router: the
//! default settings until set, saving settings as a new project version with
//! optimistic concurrency, refusing a set over the token budget while saving
//! nothing, simulating without saving, inspecting text, resource and binary
//! items, refusing globs that do not compile, and exact error codes and
//! access rules.

mod common;
#[path = "common/website.rs"]
mod website;

use a2a::rpc::Access;
use a2a::Router;
use app::App;
use common::{as_principal, call, code, local, names};
use serde_json::{json, Value};
use website::{text_of, website, STYLE};

fn example_settings() -> Value {
    json!({ "include": ["**"], "exclude": ["assets/**"], "resources": ["docs-style-guide"], "maxTokens": 8000 })
}

fn example_report() -> Value {
    json!({
        "project": "website",
        "projectRevision": 1,
        "settings": example_settings(),
        "items": [
            { "kind": "CONTEXT_ITEM_KIND_FILE", "name": "CHANGELOG.md", "mediaType": "text/markdown",
              "included": true, "sizeBytes": 45, "estimatedTokens": 12 },
            { "kind": "CONTEXT_ITEM_KIND_FILE", "name": "README.md", "mediaType": "text/markdown",
              "included": true, "sizeBytes": 42, "estimatedTokens": 11 },
            { "kind": "CONTEXT_ITEM_KIND_FILE", "name": "assets/logo.png", "mediaType": "image/png",
              "included": false, "sizeBytes": 70, "estimatedTokens": 18,
              "exclusionReason": "CONTEXT_EXCLUSION_REASON_EXCLUDED_BY_PATTERN" },
            { "kind": "CONTEXT_ITEM_KIND_RESOURCE", "name": "docs-style-guide", "mediaType": "text/markdown",
              "included": true, "sizeBytes": 73, "estimatedTokens": 19 },
        ],
        "totalTokens": 42,
        "withinBudget": true
    })
}

async fn project_version(router: &Router<App>) -> Value {
    call(
        router,
        &local(),
        "_cleveragents/registry/projects/show",
        json!({ "namespace": "acme", "name": "website" }),
    )
    .await
    .expect("project")["version"]
        .clone()
}

#[tokio::test]
async fn context_show_uses_default_settings_until_set() {
    let router = Router::new(App::in_memory());
    website(&router).await;
    let shown = call(
        &router,
        &local(),
        "_cleveragents/context/show",
        json!({ "namespace": "acme", "project": "website" }),
    )
    .await
    .expect("show");
    assert_eq!(
        shown["settings"],
        json!({ "include": ["**"], "exclude": [], "resources": [], "maxTokens": 100000 })
    );
    assert_eq!(
        names(&shown["items"], "name"),
        ["CHANGELOG.md", "README.md", "assets/logo.png"]
    );
    assert_eq!(shown["totalTokens"], 12 + 11 + 18);
    assert_eq!(shown["withinBudget"], true);
    assert_eq!(shown["projectRevision"], 1);
    assert!(shown.get("planId").is_none());
}

#[tokio::test]
async fn context_set_saves_settings_and_bumps_the_project_version() {
    let router = Router::new(App::in_memory());
    website(&router).await;
    assert_eq!(project_version(&router).await, 1);
    let set = json!({ "namespace": "acme", "project": "website", "settings": example_settings(), "expectedVersion": 1 });
    let report = call(&router, &local(), "_cleveragents/context/set", set.clone())
        .await
        .expect("set");
    assert_eq!(report, example_report());
    assert_eq!(project_version(&router).await, 2);
    let shown = call(
        &router,
        &local(),
        "_cleveragents/context/show",
        json!({ "namespace": "acme", "project": "website" }),
    )
    .await
    .expect("show");
    assert_eq!(shown, example_report());

    // A stale expected version changes nothing.
    let stale = call(&router, &local(), "_cleveragents/context/set", set)
        .await
        .expect_err("stale");
    assert_eq!(
        (stale.code, stale.metadata("currentVersion")),
        (-32004, Some("2"))
    );
    // Without expectedVersion the write is unconditional.
    let unconditional = json!({ "namespace": "acme", "project": "website", "settings": example_settings() });
    assert_eq!(
        code(&router, &local(), "_cleveragents/context/set", unconditional).await,
        0
    );
    assert_eq!(project_version(&router).await, 3);
}

#[tokio::test]
async fn context_set_over_budget_is_refused_and_saves_nothing() {
    let router = Router::new(App::in_memory());
    website(&router).await;
    let mut tight = example_settings();
    tight["maxTokens"] = json!(41);
    let err = call(
        &router,
        &local(),
        "_cleveragents/context/set",
        json!({ "namespace": "acme", "project": "website", "settings": tight }),
    )
    .await
    .expect_err("over budget");
    assert_eq!(err.code, -32006);
    assert_eq!(err.domain_reason().map(|(_, r)| r), Some("BUDGET_EXCEEDED"));
    assert_eq!(err.metadata("totalTokens"), Some("42"));
    assert_eq!(project_version(&router).await, 1);
    let shown = call(
        &router,
        &local(),
        "_cleveragents/context/show",
        json!({ "namespace": "acme", "project": "website" }),
    )
    .await
    .expect("show");
    assert_eq!(shown["settings"]["maxTokens"], 100000, "nothing was saved");

    tight["maxTokens"] = json!(42);
    let exact = json!({ "namespace": "acme", "project": "website", "settings": tight });
    assert_eq!(
        code(&router, &local(), "_cleveragents/context/set", exact).await,
        0
    );
}

#[tokio::test]
async fn context_errors_have_exact_codes() {
    let router = Router::new(App::in_memory());
    website(&router).await;
    let set = "_cleveragents/context/set";
    let missing_resource = json!({ "namespace": "acme", "project": "website",
        "settings": { "include": ["**"], "exclude": [], "resources": ["nope"], "maxTokens": 10 } });
    assert_eq!(code(&router, &local(), set, missing_resource).await, -32001);
    let unknown_project = json!({ "namespace": "acme", "project": "nope", "settings": example_settings() });
    assert_eq!(code(&router, &local(), set, unknown_project).await, -32001);
    let negative = json!({ "namespace": "acme", "project": "website",
        "settings": { "include": ["**"], "exclude": [], "resources": [], "maxTokens": -1 } });
    assert_eq!(code(&router, &local(), set, negative).await, -32602);
    let good = json!({ "namespace": "acme", "project": "website", "settings": example_settings() });
    let reader = as_principal("bob", &[("acme", Access::Reader)]);
    assert_eq!(code(&router, &reader, set, good.clone()).await, -32003);
    let outsider = as_principal("eve", &[("zeta", Access::Admin)]);
    assert_eq!(code(&router, &outsider, set, good).await, -32001);
    let show = json!({ "namespace": "acme", "project": "website" });
    assert_eq!(
        code(&router, &reader, "_cleveragents/context/show", show.clone()).await,
        0
    );
    assert_eq!(
        code(&router, &outsider, "_cleveragents/context/show", show).await,
        -32001
    );
    let in_other_ns = json!({ "project": "website" });
    assert_eq!(
        code(&router, &local(), "_cleveragents/context/show", in_other_ns).await,
        -32001
    );
    let unknown_plan = json!({ "namespace": "acme", "project": "website", "planId": "p-1" });
    assert_eq!(
        code(&router, &local(), "_cleveragents/context/show", unknown_plan).await,
        -32001
    );
}

#[tokio::test]
async fn a_glob_that_does_not_compile_is_refused_and_saves_nothing() {
    let router = Router::new(App::in_memory());
    website(&router).await;
    let settings = json!({ "include": ["**"], "exclude": ["docs/["], "resources": [], "maxTokens": 1000 });
    for method in ["_cleveragents/context/set", "_cleveragents/context/simulate"] {
        let err = call(
            &router,
            &local(),
            method,
            json!({ "namespace": "acme", "project": "website", "settings": settings }),
        )
        .await
        .expect_err("invalid glob");
        assert_eq!(err.code, -32602, "{method}");
        assert_eq!(
            err.field_violations(),
            [(
                "settings.exclude[0]".to_string(),
                "is not a valid glob: unclosed character class; missing ']'".to_string()
            )]
        );
    }
    assert_eq!(project_version(&router).await, 1, "nothing was saved");
}

#[tokio::test]
async fn context_simulate_compares_without_saving() {
    let router = Router::new(App::in_memory());
    website(&router).await;
    let set = json!({ "namespace": "acme", "project": "website", "settings": example_settings() });
    call(&router, &local(), "_cleveragents/context/set", set)
        .await
        .expect("set");
    let proposed =
        json!({ "include": ["CHANGELOG.md"], "exclude": ["assets/**"], "resources": [], "maxTokens": 8000 });
    let sim = call(
        &router,
        &local(),
        "_cleveragents/context/simulate",
        json!({ "namespace": "acme", "project": "website", "settings": proposed }),
    )
    .await
    .expect("simulate");
    assert_eq!(sim["current"], example_report());
    assert_eq!(
        sim["simulated"],
        json!({
            "project": "website",
            "projectRevision": 1,
            "settings": proposed,
            "items": [
                { "kind": "CONTEXT_ITEM_KIND_FILE", "name": "CHANGELOG.md", "mediaType": "text/markdown",
                  "included": true, "sizeBytes": 45, "estimatedTokens": 12 },
                { "kind": "CONTEXT_ITEM_KIND_FILE", "name": "README.md", "mediaType": "text/markdown",
                  "included": false, "sizeBytes": 42, "estimatedTokens": 11,
                  "exclusionReason": "CONTEXT_EXCLUSION_REASON_NOT_INCLUDED" },
                { "kind": "CONTEXT_ITEM_KIND_FILE", "name": "assets/logo.png", "mediaType": "image/png",
                  "included": false, "sizeBytes": 70, "estimatedTokens": 18,
                  "exclusionReason": "CONTEXT_EXCLUSION_REASON_NOT_INCLUDED" },
            ],
            "totalTokens": 12,
            "withinBudget": true
        })
    );
    assert_eq!(sim["tokenDelta"], -30);
    assert_eq!(project_version(&router).await, 2, "simulate saves nothing");

    let over = json!({ "include": ["**"], "exclude": [], "resources": [], "maxTokens": 1 });
    let sim = call(
        &router,
        &local(),
        "_cleveragents/context/simulate",
        json!({ "namespace": "acme", "project": "website", "settings": over }),
    )
    .await
    .expect("over budget is reported, not refused");
    assert_eq!(sim["simulated"]["withinBudget"], false);
    assert_eq!(sim["simulated"]["totalTokens"], 41);
    assert_eq!(sim["tokenDelta"], -1);
    assert_eq!(project_version(&router).await, 2);
}

#[tokio::test]
async fn context_inspect_shows_content_and_binary_items() {
    let router = Router::new(App::in_memory());
    website(&router).await;
    call(
        &router,
        &local(),
        "_cleveragents/registry/projects/add",
        json!({ "namespace": "acme", "project": { "name": "bin", "files": [
            { "path": "blob.bin", "mediaType": "application/octet-stream", "raw": "/wD+AQ==" },
        ] } }),
    )
    .await
    .expect("add binary project");
    let inspect = "_cleveragents/context/inspect";
    let resource = call(
        &router,
        &local(),
        inspect,
        json!({ "namespace": "acme", "project": "website", "kind": "CONTEXT_ITEM_KIND_RESOURCE", "name": "docs-style-guide" }),
    )
    .await
    .expect("inspect resource");
    assert_eq!(
        resource,
        json!({
            "project": "website", "projectRevision": 1,
            "item": { "kind": "CONTEXT_ITEM_KIND_RESOURCE", "name": "docs-style-guide",
                      "mediaType": "text/markdown", "included": false, "sizeBytes": 73, "estimatedTokens": 19,
                      "exclusionReason": "CONTEXT_EXCLUSION_REASON_NOT_INCLUDED" },
            "text": STYLE
        })
    );
    let file = call(
        &router,
        &local(),
        inspect,
        json!({ "namespace": "acme", "project": "website", "kind": "CONTEXT_ITEM_KIND_FILE", "name": "README.md" }),
    )
    .await
    .expect("inspect file");
    assert_eq!(file["item"]["included"], true);
    assert_eq!(file["text"], text_of(42));
    let binary = call(
        &router,
        &local(),
        inspect,
        json!({ "namespace": "acme", "project": "bin", "kind": "CONTEXT_ITEM_KIND_FILE", "name": "blob.bin" }),
    )
    .await
    .expect("inspect binary");
    assert_eq!(
        binary,
        json!({
            "project": "bin", "projectRevision": 1,
            "item": { "kind": "CONTEXT_ITEM_KIND_FILE", "name": "blob.bin", "mediaType": "application/octet-stream",
                      "included": false, "sizeBytes": 4, "estimatedTokens": 0,
                      "exclusionReason": "CONTEXT_EXCLUSION_REASON_BINARY" }
        })
    );
    let missing_file = json!({ "namespace": "acme", "project": "website", "kind": "CONTEXT_ITEM_KIND_FILE", "name": "nope.md" });
    assert_eq!(code(&router, &local(), inspect, missing_file).await, -32001);
    let missing_resource = json!({ "namespace": "acme", "project": "website", "kind": "CONTEXT_ITEM_KIND_RESOURCE", "name": "nope" });
    assert_eq!(code(&router, &local(), inspect, missing_resource).await, -32001);
}
