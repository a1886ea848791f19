//! Health, diagnostics, namespaces and context through the generated router:
//! exact wire values and error codes, access rules (local mode versus
//! principals with roles) and that read-only methods change nothing.

use a2a::rpc::{Access, CallContext, Principal};
use a2a::Router;
use app::store::{
    Commit, Committed, Doc, EventRow, Integrity, MemoryStore, Store, StoreError, StoreResult, TaskPage,
    TaskQuery, TaskRow,
};
use app::{App, AppConfig};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

fn local() -> CallContext {
    CallContext::default()
}

fn as_principal(subject: &str, roles: &[(&str, Access)]) -> CallContext {
    CallContext {
        principal: Some(Principal {
            subject: subject.into(),
            namespaces: roles.iter().map(|(ns, a)| (ns.to_string(), *a)).collect(),
        }),
        ..CallContext::default()
    }
}

async fn call(
    router: &Router<App>,
    ctx: &CallContext,
    method: &str,
    params: Value,
) -> Result<Value, a2a::Error> {
    router
        .dispatch(ctx.clone(), method, Some(params))
        .await
        .into_single()
}

/// The JSON-RPC code of a failed call (0 when it succeeded).
async fn code(router: &Router<App>, ctx: &CallContext, method: &str, params: Value) -> i64 {
    match call(router, ctx, method, params).await {
        Ok(_) => 0,
        Err(e) => e.code,
    }
}

fn names(items: &Value, field: &str) -> Vec<String> {
    items
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i[field].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// A memory store whose reads fail and whose integrity check finds a problem.
struct Broken(MemoryStore);

impl Store for Broken {
    fn backend(&self) -> &'static str {
        "broken"
    }
    fn commit(&self, commit: &Commit) -> StoreResult<Committed> {
        self.0.commit(commit)
    }
    fn get_task(&self, namespace: &str, id: &str) -> StoreResult<Option<TaskRow>> {
        self.0.get_task(namespace, id)
    }
    fn events_after(&self, namespace: &str, task_id: &str, after: u64) -> StoreResult<Vec<EventRow>> {
        self.0.events_after(namespace, task_id, after)
    }
    fn list_tasks(&self, query: &TaskQuery) -> StoreResult<TaskPage> {
        self.0.list_tasks(query)
    }
    fn get_doc(&self, _coll: &str, _namespace: &str, _key: &str) -> StoreResult<Option<Doc>> {
        Err(StoreError::Backend("disk on fire".into()))
    }
    fn list_docs(
        &self,
        coll: &str,
        namespace: &str,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<Doc>> {
        self.0.list_docs(coll, namespace, prefix, after, limit)
    }
    fn namespaces(&self) -> StoreResult<Vec<String>> {
        self.0.namespaces()
    }
    fn check_integrity(&self, deep: bool) -> StoreResult<Integrity> {
        Ok(Integrity {
            checked_objects: 7,
            problems: vec![format!("row 3 is torn (deep {deep})")],
        })
    }
}

// ---------------------------------------------------------------------------
// health/check
// ---------------------------------------------------------------------------

#[tokio::test]
async fn health_check_reports_every_component_healthy() {
    let router = Router::new(App::in_memory());
    let report = call(&router, &local(), "_cleveragents/health/check", json!({}))
        .await
        .expect("health");
    assert_eq!(report["status"], "HEALTH_STATUS_HEALTHY");
    assert_eq!(report["serverVersion"], env!("CARGO_PKG_VERSION"));
    assert_eq!(report["checkedAt"].as_str().map(str::len), Some(24));
    assert_eq!(
        names(&report["components"], "name"),
        ["events", "executor", "push-delivery", "store"]
    );
    for c in report["components"].as_array().into_iter().flatten() {
        assert_eq!(c["status"], "HEALTH_STATUS_HEALTHY", "{c}");
        assert!(c.get("message").is_none(), "{c}");
        assert!(c["latencyMs"].as_i64().is_some_and(|l| l >= 0), "{c}");
    }
}

#[tokio::test]
async fn health_check_filters_components_and_rejects_unknown_ones() {
    let router = Router::new(App::in_memory());
    let report = call(
        &router,
        &local(),
        "_cleveragents/health/check",
        json!({ "components": ["store"] }),
    )
    .await
    .expect("health");
    assert_eq!(names(&report["components"], "name"), ["store"]);
    let err = call(
        &router,
        &local(),
        "_cleveragents/health/check",
        json!({ "components": ["store", "warp-drive"] }),
    )
    .await
    .expect_err("unknown component");
    assert_eq!(err.code, -32602);
    assert_eq!(
        err.field_violations().first().map(|(f, _)| f.as_str()),
        Some("components[1]")
    );
}

#[tokio::test]
async fn health_check_reports_a_failing_store_in_the_result() {
    let app = App::with_store(Arc::new(Broken(MemoryStore::new())), AppConfig::default());
    let router = Router::new(app);
    let report = call(&router, &local(), "_cleveragents/health/check", json!({}))
        .await
        .expect("an unhealthy component is not an error");
    assert_eq!(report["status"], "HEALTH_STATUS_UNHEALTHY");
    let store = report["components"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "store"))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(store["status"], "HEALTH_STATUS_UNHEALTHY");
    assert_eq!(store["message"], "storage failure: disk on fire");
}

// ---------------------------------------------------------------------------
// diagnostics/run
// ---------------------------------------------------------------------------

#[tokio::test]
async fn diagnostics_report_store_versions_and_configuration() {
    let config = AppConfig {
        reported_settings: vec![
            ("auth.apiKeys".into(), "k-123".into(), "file".into(), true),
            (
                "limits.maxBodyBytes".into(),
                "4194304".into(),
                "default".into(),
                false,
            ),
            (
                "store.path".into(),
                "/var/lib/x".into(),
                "environment".into(),
                false,
            ),
            (
                "oauth.clientToken".into(),
                "t-9".into(),
                "command_line".into(),
                false,
            ),
        ],
        sync_remotes: BTreeMap::from([("team".into(), "https://user:pw@team.example".into())]),
        ..AppConfig::default()
    };
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), config));
    let report = call(&router, &local(), "_cleveragents/diagnostics/run", json!({}))
        .await
        .expect("diagnostics");
    assert_eq!(report["outcome"], "DIAGNOSTIC_OUTCOME_PASS");
    assert_eq!(report["findings"], json!([]));
    assert_eq!(
        report["storeIntegrity"],
        json!({
            "backend": "memory", "storeSchemaVersion": 1, "outcome": "DIAGNOSTIC_OUTCOME_PASS",
            "deep": false, "checkedObjects": 0, "problems": []
        })
    );
    assert_eq!(
        report["versions"],
        json!({
            "a2aProtocolVersion": "1.0",
            "extensionUri": "urn:cleveragents:extensions:v1",
            "extensionVersions": ["1.0", "1.1"],
            "stdioBindingUri": "urn:cleveragents:bindings:stdio:v1",
            "serverVersion": env!("CARGO_PKG_VERSION"),
        })
    );
    let config = report["configuration"].as_array().cloned().unwrap_or_default();
    let keys: Vec<&str> = config.iter().filter_map(|e| e["key"].as_str()).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted, "configuration is sorted by key");
    let get = |key: &str| {
        config
            .iter()
            .find(|e| e["key"] == key)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        get("auth.apiKeys"),
        json!({ "key": "auth.apiKeys", "value": "***", "source": "CONFIGURATION_SOURCE_FILE", "redacted": true })
    );
    assert_eq!(
        get("store.path"),
        json!({ "key": "store.path", "value": "/var/lib/x", "source": "CONFIGURATION_SOURCE_ENVIRONMENT", "redacted": false })
    );
    assert_eq!(get("oauth.clientToken")["value"], "***");
    assert_eq!(
        get("oauth.clientToken")["source"],
        "CONFIGURATION_SOURCE_COMMAND_LINE"
    );
    assert_eq!(get("store.backend")["value"], "memory");
    assert_eq!(get("executor")["value"], "default");
    assert_eq!(
        get("sync.remotes")["value"],
        "team",
        "remote URLs are not reported"
    );
    assert!(!report.to_string().contains("k-123"));
    assert!(!report.to_string().contains("pw@"));
}

#[tokio::test]
async fn diagnostics_run_selected_checks_and_warn_on_private_push_targets() {
    let mut config = AppConfig::default();
    config.push.allow_list = vec!["127.0.0.1".into()];
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), config));
    let only_versions = call(
        &router,
        &local(),
        "_cleveragents/diagnostics/run",
        json!({ "checks": ["DIAGNOSTIC_CHECK_KIND_VERSIONS"] }),
    )
    .await
    .expect("diagnostics");
    assert_eq!(only_versions["outcome"], "DIAGNOSTIC_OUTCOME_PASS");
    assert!(only_versions.get("storeIntegrity").is_none());
    assert!(only_versions.get("configuration").is_none());
    assert_eq!(
        only_versions["versions"]["extensionVersions"],
        json!(["1.0", "1.1"])
    );

    let report = call(
        &router,
        &local(),
        "_cleveragents/diagnostics/run",
        json!({ "checks": ["DIAGNOSTIC_CHECK_KIND_CONFIGURATION"] }),
    )
    .await
    .expect("diagnostics");
    assert_eq!(report["outcome"], "DIAGNOSTIC_OUTCOME_WARN");
    assert_eq!(
        report["findings"],
        json!([{
            "check": "DIAGNOSTIC_CHECK_KIND_CONFIGURATION",
            "outcome": "DIAGNOSTIC_OUTCOME_WARN",
            "message": "push.allowList is not empty (127.0.0.1); webhooks may reach internal hosts."
        }])
    );
}

#[tokio::test]
async fn diagnostics_report_integrity_problems_as_fail() {
    let app = App::with_store(Arc::new(Broken(MemoryStore::new())), AppConfig::default());
    let router = Router::new(app);
    let report = call(
        &router,
        &local(),
        "_cleveragents/diagnostics/run",
        json!({ "deep": true }),
    )
    .await
    .expect("problems are not errors");
    assert_eq!(report["outcome"], "DIAGNOSTIC_OUTCOME_FAIL");
    assert_eq!(
        report["storeIntegrity"],
        json!({
            "backend": "broken", "storeSchemaVersion": 1, "outcome": "DIAGNOSTIC_OUTCOME_FAIL",
            "deep": true, "checkedObjects": 7, "problems": ["row 3 is torn (deep true)"]
        })
    );
    assert_eq!(
        report["findings"],
        json!([{
            "check": "DIAGNOSTIC_CHECK_KIND_STORE_INTEGRITY",
            "outcome": "DIAGNOSTIC_OUTCOME_FAIL",
            "message": "The store reports 1 problem(s)."
        }])
    );
}

#[tokio::test]
async fn diagnostics_need_admin() {
    let router = Router::new(App::in_memory());
    let method = "_cleveragents/diagnostics/run";
    let writer = as_principal("bob", &[("acme", Access::Writer)]);
    assert_eq!(
        code(&router, &writer, method, json!({ "namespace": "acme" })).await,
        -32003
    );
    let stranger = as_principal("eve", &[("other", Access::Admin)]);
    assert_eq!(
        code(&router, &stranger, method, json!({ "namespace": "acme" })).await,
        -32001
    );
    let admin = as_principal("alice", &[("acme", Access::Admin)]);
    assert_eq!(
        code(&router, &admin, method, json!({ "namespace": "acme" })).await,
        0
    );
    let wildcard = as_principal("root", &[("*", Access::Admin)]);
    assert_eq!(code(&router, &wildcard, method, json!({})).await, 0);
    assert_eq!(
        code(&router, &local(), method, json!({ "namespace": "acme" })).await,
        0
    );
}

// ---------------------------------------------------------------------------
// namespace/list, show, members
// ---------------------------------------------------------------------------

async fn add_actor(router: &Router<App>, namespace: &str, name: &str) -> Value {
    call(
        router,
        &local(),
        "_cleveragents/registry/actors/add",
        json!({ "namespace": namespace, "actor": { "name": name, "kind": "ACTOR_KIND_AGENT" } }),
    )
    .await
    .expect("add actor")
}

fn members_config() -> AppConfig {
    let roles = |r: &[(&str, Access)]| -> BTreeMap<String, Access> {
        r.iter().map(|(ns, a)| (ns.to_string(), *a)).collect()
    };
    AppConfig {
        members: BTreeMap::from([
            ("alice".into(), roles(&[("acme", Access::Admin)])),
            (
                "bob".into(),
                roles(&[("acme", Access::Reader), ("zeta", Access::Writer)]),
            ),
            ("ci-bot".into(), roles(&[("acme", Access::Writer)])),
            ("root".into(), roles(&[("*", Access::Admin)])),
        ]),
        ..AppConfig::default()
    }
}

#[tokio::test]
async fn namespace_list_in_local_mode_shows_namespaces_with_data_and_default() {
    let app = App::with_store(Arc::new(MemoryStore::new()), members_config());
    let router = Router::new(app);
    let method = "_cleveragents/namespace/list";
    let empty = call(&router, &local(), method, json!({})).await.expect("list");
    assert_eq!(names(&empty["items"], "name"), ["default"]);
    assert_eq!(empty["items"][0]["callerRole"], "NAMESPACE_ROLE_ADMIN");
    assert_eq!(empty["items"][0]["memberCount"], 1, "root is a member everywhere");
    assert!(empty.get("nextCursor").is_none());
    assert!(empty["items"][0].get("planCount").is_none());
    assert!(empty["items"][0].get("entityCounts").is_none());

    let first = add_actor(&router, "acme", "a1").await;
    add_actor(&router, "acme", "a2").await;
    add_actor(&router, "acme/marketing", "m1").await;
    add_actor(&router, "zeta", "z1").await;
    let all = call(&router, &local(), method, json!({})).await.expect("list");
    assert_eq!(
        names(&all["items"], "name"),
        ["acme", "acme/marketing", "default", "zeta"]
    );
    assert_eq!(all["items"][0]["createdAt"], first["createdAt"]);
    assert_eq!(all["items"][0]["memberCount"], 4);

    let page1 = call(&router, &local(), method, json!({ "limit": 2 }))
        .await
        .expect("page 1");
    assert_eq!(names(&page1["items"], "name"), ["acme", "acme/marketing"]);
    assert_eq!(page1["nextCursor"], "eyJhZnRlciI6ImFjbWUvbWFya2V0aW5nIn0");
    let page2 = call(
        &router,
        &local(),
        method,
        json!({ "limit": 2, "cursor": page1["nextCursor"] }),
    )
    .await
    .expect("page 2");
    assert_eq!(names(&page2["items"], "name"), ["default", "zeta"]);
    assert!(page2.get("nextCursor").is_none());

    let nested = call(&router, &local(), method, json!({ "namespace": "acme" }))
        .await
        .expect("nested");
    assert_eq!(names(&nested["items"], "name"), ["acme", "acme/marketing"]);

    assert_eq!(
        code(&router, &local(), method, json!({ "limit": 101 })).await,
        -32602
    );
    assert_eq!(
        code(&router, &local(), method, json!({ "cursor": "not-ours" })).await,
        -32602
    );
}

#[tokio::test]
async fn namespace_list_shows_only_readable_namespaces_with_the_callers_role() {
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), members_config()));
    add_actor(&router, "acme", "a1").await;
    add_actor(&router, "zeta", "z1").await;
    let bob = as_principal("bob", &[("acme", Access::Reader), ("new-team", Access::Writer)]);
    let list = call(&router, &bob, "_cleveragents/namespace/list", json!({}))
        .await
        .expect("list");
    assert_eq!(names(&list["items"], "name"), ["acme", "new-team"]);
    assert_eq!(
        names(&list["items"], "callerRole"),
        ["NAMESPACE_ROLE_READER", "NAMESPACE_ROLE_WRITER"]
    );
    let root = as_principal("root", &[("*", Access::Reader)]);
    let list = call(&router, &root, "_cleveragents/namespace/list", json!({}))
        .await
        .expect("list");
    assert_eq!(names(&list["items"], "name"), ["acme", "default", "zeta"]);
}

#[tokio::test]
async fn namespace_show_counts_entities_and_hides_unreadable_namespaces() {
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), members_config()));
    let first = add_actor(&router, "acme", "a1").await;
    add_actor(&router, "acme", "a2").await;
    call(
        &router,
        &local(),
        "_cleveragents/registry/skills/add",
        json!({ "namespace": "acme", "skill": { "name": "s1" } }),
    )
    .await
    .expect("add skill");
    let method = "_cleveragents/namespace/show";
    let shown = call(&router, &local(), method, json!({ "namespace": "acme" }))
        .await
        .expect("show");
    assert_eq!(
        shown,
        json!({
            "name": "acme",
            "createdAt": first["createdAt"],
            "callerRole": "NAMESPACE_ROLE_ADMIN",
            "memberCount": 4,
            "planCount": 0,
            "entityCounts": [
                { "kind": "REGISTRY_KIND_ACTOR", "count": 2 },
                { "kind": "REGISTRY_KIND_SKILL", "count": 1 },
                { "kind": "REGISTRY_KIND_TOOL", "count": 4 },
            ]
        })
    );
    let default = call(&router, &local(), method, json!({})).await.expect("default");
    assert_eq!(default["name"], "default");
    assert_eq!(default["planCount"], 0);
    assert_eq!(
        code(&router, &local(), method, json!({ "namespace": "nowhere" })).await,
        -32001
    );
    let outsider = as_principal("eve", &[("zeta", Access::Admin)]);
    assert_eq!(
        code(&router, &outsider, method, json!({ "namespace": "acme" })).await,
        -32001
    );
    let reader = as_principal("bob", &[("acme", Access::Reader)]);
    let seen = call(&router, &reader, method, json!({ "namespace": "acme" }))
        .await
        .expect("reader");
    assert_eq!(seen["callerRole"], "NAMESPACE_ROLE_READER");
}

#[tokio::test]
async fn namespace_members_need_admin_and_page_by_principal() {
    let router = Router::new(App::with_store(Arc::new(MemoryStore::new()), members_config()));
    add_actor(&router, "acme", "a1").await;
    let method = "_cleveragents/namespace/members";
    let all = call(&router, &local(), method, json!({ "namespace": "acme" }))
        .await
        .expect("members");
    assert_eq!(all["namespace"], "acme");
    assert_eq!(
        names(&all["items"], "principal"),
        ["alice", "bob", "ci-bot", "root"]
    );
    assert_eq!(
        names(&all["items"], "role"),
        [
            "NAMESPACE_ROLE_ADMIN",
            "NAMESPACE_ROLE_READER",
            "NAMESPACE_ROLE_WRITER",
            "NAMESPACE_ROLE_ADMIN"
        ]
    );
    assert!(all["items"][0]["addedAt"].as_str().is_some_and(|t| t.len() == 24));
    assert!(all["items"][0].get("displayName").is_none());

    let admins = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "role": "NAMESPACE_ROLE_ADMIN", "limit": 1 }),
    )
    .await
    .expect("admins");
    assert_eq!(names(&admins["items"], "principal"), ["alice"]);
    let rest = call(
        &router,
        &local(),
        method,
        json!({ "namespace": "acme", "role": "NAMESPACE_ROLE_ADMIN", "cursor": admins["nextCursor"] }),
    )
    .await
    .expect("rest");
    assert_eq!(names(&rest["items"], "principal"), ["root"]);
    assert!(rest.get("nextCursor").is_none());

    let alice = as_principal("alice", &[("acme", Access::Admin)]);
    assert_eq!(
        code(&router, &alice, method, json!({ "namespace": "acme" })).await,
        0
    );
    let writer = as_principal("ci-bot", &[("acme", Access::Writer)]);
    assert_eq!(
        code(&router, &writer, method, json!({ "namespace": "acme" })).await,
        -32003
    );
    let outsider = as_principal("eve", &[("zeta", Access::Admin)]);
    assert_eq!(
        code(&router, &outsider, method, json!({ "namespace": "acme" })).await,
        -32001
    );
    assert_eq!(
        code(&router, &local(), method, json!({ "namespace": "nowhere" })).await,
        -32001
    );
}

// ---------------------------------------------------------------------------
// context/show, inspect, simulate, set
// ---------------------------------------------------------------------------

/// Text of exactly `n` bytes.
fn text_of(n: usize) -> String {
    "x".repeat(n)
}

const STYLE: &str = "# Style\n\nUse sentence case for headings. Keep release notes user-facing.\n";

/// The schema's example: project `website` in `acme` and one resource.
async fn website(router: &Router<App>) {
    assert_eq!(STYLE.len(), 73);
    call(
        router,
        &local(),
        "_cleveragents/registry/projects/add",
        json!({ "namespace": "acme", "project": { "name": "website", "files": [
            { "path": "README.md", "mediaType": "text/markdown", "text": text_of(42) },
            { "path": "assets/logo.png", "mediaType": "image/png", "text": text_of(70) },
            { "path": "CHANGELOG.md", "mediaType": "text/markdown", "text": text_of(45) },
        ] } }),
    )
    .await
    .expect("add project");
    call(
        router,
        &local(),
        "_cleveragents/registry/resources/add",
        json!({ "namespace": "acme", "resource": {
            "name": "docs-style-guide", "resourceType": "style-guide",
            "mediaType": "text/markdown", "text": STYLE
        } }),
    )
    .await
    .expect("add resource");
}

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

// ---------------------------------------------------------------------------
// plan/use, status, list, cancel
// ---------------------------------------------------------------------------

/// The website project plus a release-notes action and a careful profile.
async fn release_notes(router: &Router<App>) {
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

async fn use_plan(router: &Router<App>, extra: Value) -> Value {
    let mut params = json!({ "namespace": "acme", "action": "draft-release-notes", "project": "website",
                             "inputs": { "version": "2.4.0" } });
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    call(router, &local(), "_cleveragents/plan/use", params)
        .await
        .expect("plan/use")
}

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

// ---------------------------------------------------------------------------
// plan/tree, explain, correct
// ---------------------------------------------------------------------------

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
