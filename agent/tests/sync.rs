//! sync/pull, sync/push and sync/status between two in-process agents: a
//! remote served over HTTP (`server::HttpServer` on a loopback port) and a
//! local application configured with that remote. Exact outcomes, versions,
//! conflicts and error codes, and an unreachable remote.

use a2a::rpc::{Access, CallContext, Principal};
use a2a::Router;
use app::{App, AppConfig};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::oneshot;

fn local() -> CallContext {
    CallContext::default()
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

async fn ok(router: &Router<App>, method: &str, params: Value) -> Value {
    match call(router, &local(), method, params).await {
        Ok(v) => v,
        Err(e) => panic!("{method} failed: {} {}", e.code, e.message),
    }
}

async fn code(router: &Router<App>, ctx: &CallContext, method: &str, params: Value) -> i64 {
    match call(router, ctx, method, params).await {
        Ok(_) => 0,
        Err(e) => e.code,
    }
}

/// A remote agent over HTTP on a loopback port; stops when dropped.
struct RemoteAgent {
    router: Arc<Router<App>>,
    url: String,
    _stop: oneshot::Sender<()>,
}

async fn remote_agent() -> RemoteAgent {
    let router = Arc::new(Router::new(App::in_memory()));
    let mut config = server::ServerConfig::default();
    config.http.listen = "127.0.0.1:0".parse().expect("address");
    let dispatch: Arc<dyn a2a::rpc::Dispatch> = router.clone();
    let server = server::HttpServer::bind(config, dispatch).await.expect("bind");
    let addr = server.local_addr().expect("address");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(server.serve(async move {
        let _ = stopped.await;
    }));
    RemoteAgent {
        router,
        url: format!("http://{addr}/"),
        _stop: stop,
    }
}

fn local_app(remotes: &[(&str, &str)]) -> Router<App> {
    let config = AppConfig {
        sync_remotes: remotes
            .iter()
            .map(|(n, u)| (n.to_string(), u.to_string()))
            .collect::<BTreeMap<_, _>>(),
        ..Default::default()
    };
    Router::new(App::with_store(
        std::sync::Arc::new(app::store::MemoryStore::new()),
        config,
    ))
}

/// `(kind, name, outcome-or-state, local version, remote version)` per item.
fn rows(items: &Value, field: &str) -> Vec<(String, String, String, Value, Value)> {
    items
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            (
                i["kind"].as_str().unwrap_or("?").to_string(),
                i["name"].as_str().unwrap_or("?").to_string(),
                i[field].as_str().unwrap_or("?").to_string(),
                i["localVersion"].clone(),
                i["remoteVersion"].clone(),
            )
        })
        .collect()
}

fn row(kind: &str, name: &str, what: &str, l: Value, r: Value) -> (String, String, String, Value, Value) {
    (kind.into(), name.into(), what.into(), l, r)
}

async fn seed(remote: &Router<App>) {
    ok(
        remote,
        "_cleveragents/registry/tools/add",
        json!({ "tool": { "name": "lint", "kind": "TOOL_KIND_TEMPLATE", "config": { "template": "ok" } } }),
    )
    .await;
    ok(
        remote,
        "_cleveragents/registry/projects/add",
        json!({ "project": { "name": "site", "files": [
            { "path": "README.md", "mediaType": "text/markdown", "text": "# Site\n" }] } }),
    )
    .await;
    ok(
        remote,
        "_cleveragents/registry/actions/add",
        json!({ "action": { "name": "ship", "steps": [{ "id": "l", "name": "Lint", "tool": "lint" }] } }),
    )
    .await;
}

async fn update_action(router: &Router<App>, description: &str) -> Value {
    let current = ok(
        router,
        "_cleveragents/registry/actions/show",
        json!({ "name": "ship" }),
    )
    .await;
    ok(
        router,
        "_cleveragents/registry/actions/update",
        json!({ "expectedVersion": current["version"], "action": { "name": "ship", "description": description,
                "steps": [{ "id": "l", "name": "Lint", "tool": "lint" }] } }),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pull_push_and_status_follow_both_sides() {
    let remote = remote_agent().await;
    seed(&remote.router).await;
    let router = local_app(&[("team", &remote.url)]);

    let status = ok(&router, "_cleveragents/sync/status", json!({})).await;
    assert_eq!(status["remote"], "team");
    assert_eq!(status["remoteUrl"], remote.url.as_str());
    assert_eq!(status["reachable"], true);
    assert_eq!(status.get("lastPullAt"), None);
    assert_eq!(
        rows(&status["entities"], "state"),
        [
            row(
                "REGISTRY_KIND_TOOL",
                "lint",
                "SYNC_STATE_REMOTE_ONLY",
                Value::Null,
                json!(1)
            ),
            row(
                "REGISTRY_KIND_PROJECT",
                "site",
                "SYNC_STATE_REMOTE_ONLY",
                Value::Null,
                json!(1)
            ),
            row(
                "REGISTRY_KIND_ACTION",
                "ship",
                "SYNC_STATE_REMOTE_ONLY",
                Value::Null,
                json!(1)
            ),
        ]
    );

    let dry = ok(
        &router,
        "_cleveragents/sync/pull",
        json!({ "remote": "team", "dryRun": true }),
    )
    .await;
    assert_eq!(dry["dryRun"], true);
    assert_eq!(dry["direction"], "SYNC_DIRECTION_PULL");
    assert_eq!(
        (dry["created"].clone(), dry["updated"].clone()),
        (json!(3), json!(0))
    );
    assert_eq!(dry["items"][0]["localVersion"], Value::Null);
    assert_eq!(
        code(
            &router,
            &local(),
            "_cleveragents/registry/tools/show",
            json!({ "name": "lint" })
        )
        .await,
        -32001,
        "a dry run writes nothing"
    );

    let pulled = ok(&router, "_cleveragents/sync/pull", json!({})).await;
    assert_eq!(
        rows(&pulled["items"], "outcome"),
        [
            row(
                "REGISTRY_KIND_TOOL",
                "lint",
                "SYNC_OUTCOME_CREATED",
                json!(1),
                json!(1)
            ),
            row(
                "REGISTRY_KIND_PROJECT",
                "site",
                "SYNC_OUTCOME_CREATED",
                json!(1),
                json!(1)
            ),
            row(
                "REGISTRY_KIND_ACTION",
                "ship",
                "SYNC_OUTCOME_CREATED",
                json!(1),
                json!(1)
            ),
        ]
    );
    assert_eq!(
        (
            pulled["created"].clone(),
            pulled["unchanged"].clone(),
            pulled["conflicts"].clone()
        ),
        (json!(3), json!(0), json!(0))
    );
    let tool = ok(
        &router,
        "_cleveragents/registry/tools/show",
        json!({ "name": "lint" }),
    )
    .await;
    assert_eq!(tool["config"], json!({ "template": "ok" }));
    assert_eq!(tool["builtin"], false);
    assert_eq!(tool["origin"]["remote"], "team");
    assert_eq!(tool["origin"]["remoteVersion"], 1);
    let ours = ok(
        &router,
        "_cleveragents/registry/projects/show",
        json!({ "name": "site" }),
    )
    .await;
    let theirs = ok(
        &remote.router,
        "_cleveragents/registry/projects/show",
        json!({ "name": "site" }),
    )
    .await;
    assert_eq!(ours["files"], theirs["files"]);
    assert_eq!(ours["currentRevision"], 1);

    let status = ok(&router, "_cleveragents/sync/status", json!({ "remote": "team" })).await;
    assert_eq!(status["entities"], json!([]));
    assert_eq!(status["lastPullAt"].as_str().map(str::len), Some(24));
    let again = ok(
        &router,
        "_cleveragents/sync/pull",
        json!({ "kinds": ["REGISTRY_KIND_ACTION"] }),
    )
    .await;
    assert_eq!(
        rows(&again["items"], "outcome"),
        [row(
            "REGISTRY_KIND_ACTION",
            "ship",
            "SYNC_OUTCOME_UNCHANGED",
            json!(1),
            json!(1)
        )]
    );

    // A local change: ahead locally, pushed as an update of the remote.
    update_action(&router, "Ship it.").await;
    let status = ok(&router, "_cleveragents/sync/status", json!({})).await;
    assert_eq!(
        rows(&status["entities"], "state"),
        [row(
            "REGISTRY_KIND_ACTION",
            "ship",
            "SYNC_STATE_LOCAL_AHEAD",
            json!(2),
            json!(1)
        )]
    );
    let unchanged = ok(&router, "_cleveragents/sync/pull", json!({ "names": ["ship"] })).await;
    assert_eq!(unchanged["items"][0]["outcome"], "SYNC_OUTCOME_UNCHANGED");
    assert_eq!(
        unchanged["items"][0]["message"],
        "Changed only locally since the last sync; push to publish it."
    );
    let pushed = ok(
        &router,
        "_cleveragents/sync/push",
        json!({ "kinds": ["REGISTRY_KIND_ACTION"] }),
    )
    .await;
    assert_eq!(pushed["direction"], "SYNC_DIRECTION_PUSH");
    assert_eq!(
        rows(&pushed["items"], "outcome"),
        [row(
            "REGISTRY_KIND_ACTION",
            "ship",
            "SYNC_OUTCOME_UPDATED",
            json!(2),
            json!(2)
        )]
    );
    let remote_action = ok(
        &remote.router,
        "_cleveragents/registry/actions/show",
        json!({ "name": "ship" }),
    )
    .await;
    assert_eq!(remote_action["description"], "Ship it.");
    assert_eq!(remote_action["version"], 2);

    // Both sides change: diverged, a conflict unless forced.
    update_action(&router, "Local words.").await;
    update_action(&remote.router, "Remote words.").await;
    let status = ok(
        &router,
        "_cleveragents/sync/status",
        json!({ "kinds": ["REGISTRY_KIND_ACTION"] }),
    )
    .await;
    assert_eq!(
        rows(&status["entities"], "state"),
        [row(
            "REGISTRY_KIND_ACTION",
            "ship",
            "SYNC_STATE_DIVERGED",
            json!(3),
            json!(3)
        )]
    );
    let conflict = ok(&router, "_cleveragents/sync/pull", json!({ "names": ["ship"] })).await;
    assert_eq!(conflict["conflicts"], 1);
    assert_eq!(
        conflict["items"][0]["message"],
        "Changed locally (v3) and remotely (v3) since the last sync; use force to overwrite."
    );
    let forced = ok(
        &router,
        "_cleveragents/sync/pull",
        json!({ "names": ["ship"], "force": true }),
    )
    .await;
    assert_eq!(
        rows(&forced["items"], "outcome"),
        [row(
            "REGISTRY_KIND_ACTION",
            "ship",
            "SYNC_OUTCOME_UPDATED",
            json!(4),
            json!(3)
        )]
    );
    let action = ok(
        &router,
        "_cleveragents/registry/actions/show",
        json!({ "name": "ship" }),
    )
    .await;
    assert_eq!(action["description"], "Remote words.");
    assert_eq!(action["origin"]["remoteVersion"], 3);

    // A pushed project arrives with its content.
    ok(
        &router,
        "_cleveragents/registry/projects/add",
        json!({ "project": { "name": "docs", "files": [
            { "path": "a.txt", "mediaType": "text/plain", "text": "alpha" }] } }),
    )
    .await;
    let pushed = ok(
        &router,
        "_cleveragents/sync/push",
        json!({ "kinds": ["REGISTRY_KIND_PROJECT"] }),
    )
    .await;
    assert_eq!(
        rows(&pushed["items"], "outcome"),
        [
            row(
                "REGISTRY_KIND_PROJECT",
                "docs",
                "SYNC_OUTCOME_CREATED",
                json!(1),
                json!(1)
            ),
            row(
                "REGISTRY_KIND_PROJECT",
                "site",
                "SYNC_OUTCOME_UNCHANGED",
                json!(1),
                json!(1)
            ),
        ]
    );
    let inspected = ok(
        &remote.router,
        "_cleveragents/context/inspect",
        json!({ "project": "docs", "kind": "CONTEXT_ITEM_KIND_FILE", "name": "a.txt" }),
    )
    .await;
    assert_eq!(inspected["text"], "alpha");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remotes_unknown_unreachable_or_forbidden() {
    // Port 1 on loopback: nothing listens there.
    let router = local_app(&[("dead", "http://127.0.0.1:1/")]);
    let status = ok(&router, "_cleveragents/sync/status", json!({})).await;
    assert_eq!(
        status,
        json!({ "remote": "dead", "remoteUrl": "http://127.0.0.1:1/", "reachable": false, "entities": [] })
    );
    let pull = call(&router, &local(), "_cleveragents/sync/pull", json!({}))
        .await
        .expect_err("unreachable");
    assert_eq!(pull.code, -32603);
    assert!(
        pull.message
            .starts_with("remote `dead` (http://127.0.0.1:1/) failed: "),
        "{}",
        pull.message
    );
    assert_eq!(
        code(&router, &local(), "_cleveragents/sync/push", json!({})).await,
        -32603
    );
    assert_eq!(
        code(
            &router,
            &local(),
            "_cleveragents/sync/pull",
            json!({ "remote": "nope" })
        )
        .await,
        -32001
    );
    let reader = CallContext {
        principal: Some(Principal {
            subject: "ann".into(),
            namespaces: [("default".to_string(), Access::Reader)].into_iter().collect(),
        }),
        ..local()
    };
    assert_eq!(
        code(&router, &reader, "_cleveragents/sync/pull", json!({})).await,
        -32003
    );
    assert_eq!(
        code(&router, &reader, "_cleveragents/sync/status", json!({})).await,
        0
    );

    let none = local_app(&[]);
    assert_eq!(
        code(&none, &local(), "_cleveragents/sync/status", json!({})).await,
        -32001
    );
    let two = local_app(&[("a", "http://127.0.0.1:1/"), ("b", "http://127.0.0.1:1/")]);
    assert_eq!(
        code(&two, &local(), "_cleveragents/sync/status", json!({})).await,
        -32602
    );
}
