//! Push delivery to a local (allow-listed) receiver including a retry, the
//! refusal of loopback targets by default, and registry semantics (unique
//! names, optimistic concurrency, isolation, built-in tools, project revisions).

use a2a::rpc::{Access, CallContext, Principal};
use a2a::Router;
use app::push::PushConfig;
use app::{App, AppConfig};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

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

/// Reads one HTTP/1.1 request (headers + Content-Length body).
async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_string();
            let len = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            while buf.len() < end + 4 + len {
                let n = socket.read(&mut chunk).await.ok()?;
                if n == 0 {
                    return None;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            return Some((head, buf[end + 4..end + 4 + len].to_vec()));
        }
    }
}

/// A webhook receiver that fails its first request with 500.
async fn receiver() -> (String, mpsc::UnboundedReceiver<(u16, String, Value)>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut count = 0;
        while let Ok((mut socket, _)) = listener.accept().await {
            while let Some((head, body)) = read_request(&mut socket).await {
                count += 1;
                let status = if count == 1 { 500 } else { 200 };
                let _ = tx.send((status, head, serde_json::from_slice(&body).unwrap_or(Value::Null)));
                let reply = format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n");
                if socket.write_all(reply.as_bytes()).await.is_err() {
                    break;
                }
            }
        }
    });
    (format!("http://{addr}/hook"), rx)
}

#[tokio::test]
async fn push_delivers_every_event_in_order_with_retry() {
    let (url, mut rx) = receiver().await;
    let config = AppConfig {
        push: PushConfig {
            allow_list: vec!["127.0.0.1".into()],
            max_attempts: 3,
            initial_backoff: Duration::from_millis(10),
            timeout: Duration::from_secs(5),
            ..PushConfig::default()
        },
        ..Default::default()
    };
    let router = Router::new(App::with_store(
        std::sync::Arc::new(app::store::MemoryStore::new()),
        config,
    ));
    let sent = call(
        &router,
        &CallContext::default(),
        "SendMessage",
        json!({
            "message": { "messageId": "m1", "role": "ROLE_USER", "parts": [{ "text": "hi" }] },
            "configuration": { "taskPushNotificationConfig": { "url": url, "token": "secret-token" } }
        }),
    )
    .await
    .expect("send");
    let mut got = vec![];
    // Four deliveries: the failed first attempt, its retry, working, completed.
    for _ in 0..4 {
        match tokio::time::timeout(Duration::from_secs(20), rx.recv()).await {
            Ok(Some(item)) => got.push(item),
            _ => break,
        }
    }
    assert_eq!(got.len(), 4);
    assert_eq!(
        got.iter().map(|g| g.0).collect::<Vec<_>>(),
        vec![500, 200, 200, 200]
    );
    assert!(got.iter().all(|g| g
        .1
        .to_ascii_lowercase()
        .contains("x-a2a-notification-token: secret-token")));
    assert_eq!(got[0].2, got[1].2, "the retry repeats the same event");
    assert_eq!(got[1].2["task"]["id"], sent["task"]["id"]);
    assert_eq!(got[2].2["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING");
    assert_eq!(
        got[3].2["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn push_configs_refuse_loopback_unless_allow_listed_and_crud_works() {
    let router = Router::new(App::in_memory());
    let ctx = CallContext::default();
    let sent = call(
        &router,
        &ctx,
        "SendMessage",
        json!({ "message": { "messageId": "m", "role": "ROLE_USER", "parts": [{ "text": "x" }] } }),
    )
    .await
    .expect("send");
    let task_id = sent["task"]["id"].clone();
    for url in [
        "http://127.0.0.1:9/x",
        "http://localhost/x",
        "http://[::1]/x",
        "http://10.1.2.3/x",
        "ftp://example.com/x",
    ] {
        let err = call(
            &router,
            &ctx,
            "CreateTaskPushNotificationConfig",
            json!({ "taskId": task_id, "url": url }),
        )
        .await;
        assert_eq!(err.err().map(|e| e.code), Some(-32602), "{url}");
    }
    let created = call(
        &router,
        &ctx,
        "CreateTaskPushNotificationConfig",
        json!({ "taskId": task_id, "url": "https://example.com/hook", "token": "t" }),
    )
    .await
    .expect("create");
    let id = created["id"].clone();
    assert_eq!(created["url"], "https://example.com/hook");
    let got = call(
        &router,
        &ctx,
        "GetTaskPushNotificationConfig",
        json!({ "taskId": task_id, "id": id }),
    )
    .await
    .expect("get");
    assert_eq!(got, created);
    let listed = call(
        &router,
        &ctx,
        "ListTaskPushNotificationConfigs",
        json!({ "taskId": task_id }),
    )
    .await
    .expect("list");
    assert_eq!(listed["configs"], json!([created]));
    assert_eq!(
        call(
            &router,
            &ctx,
            "DeleteTaskPushNotificationConfig",
            json!({ "taskId": task_id, "id": id })
        )
        .await
        .ok(),
        Some(json!({}))
    );
    // Deleting again is idempotent.
    assert_eq!(
        call(
            &router,
            &ctx,
            "DeleteTaskPushNotificationConfig",
            json!({ "taskId": task_id, "id": id })
        )
        .await
        .ok(),
        Some(json!({}))
    );
    let gone = call(
        &router,
        &ctx,
        "GetTaskPushNotificationConfig",
        json!({ "taskId": task_id, "id": id }),
    )
    .await;
    assert_eq!(gone.err().map(|e| e.code), Some(-32001));
    let missing = call(
        &router,
        &ctx,
        "ListTaskPushNotificationConfigs",
        json!({ "taskId": "nope" }),
    )
    .await;
    assert_eq!(missing.err().map(|e| e.code), Some(-32001));
}

#[tokio::test]
async fn deleting_a_push_config_drops_what_it_was_still_owed() {
    // A webhook nobody answers on, retried only after a long wait: every
    // event stays owed until the configuration goes.
    let config = AppConfig {
        push: PushConfig {
            allow_list: vec!["127.0.0.1".into()],
            max_attempts: 1000,
            initial_backoff: Duration::from_secs(600),
            ..PushConfig::default()
        },
        ..Default::default()
    };
    let app = App::with_store(std::sync::Arc::new(app::store::MemoryStore::new()), config);
    let router = Router::new(app.clone());
    let ctx = CallContext::default();
    let sent = call(
        &router,
        &ctx,
        "SendMessage",
        json!({
            "message": { "messageId": "m1", "role": "ROLE_USER", "parts": [{ "text": "hi" }] },
            "configuration": { "taskPushNotificationConfig": { "id": "hook", "url": "http://127.0.0.1:9/hook" } }
        }),
    )
    .await
    .expect("send");
    let task_id = sent["task"]["id"].as_str().expect("task id").to_string();
    let owed = |app: &App| {
        let store = app.store().clone();
        let task_id = task_id.clone();
        async move {
            store
                .pending_deliveries(a2a::DEFAULT_NAMESPACE, &task_id)
                .await
                .expect("pending deliveries")
                .into_iter()
                .map(|d| (d.key.config_id, d.key.seq))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        owed(&app).await,
        vec![
            ("hook".to_string(), 1),
            ("hook".to_string(), 2),
            ("hook".to_string(), 3)
        ]
    );
    call(
        &router,
        &ctx,
        "DeleteTaskPushNotificationConfig",
        json!({ "taskId": task_id, "id": "hook" }),
    )
    .await
    .expect("delete");
    assert_eq!(owed(&app).await, vec![]);
}

fn ext_reason(r: Result<Value, a2a::Error>) -> Option<(i64, String)> {
    r.err().map(|e| {
        (
            e.code,
            e.domain_reason().map(|(_, r)| r.to_string()).unwrap_or_default(),
        )
    })
}

#[tokio::test]
async fn registry_add_update_remove_with_versions() {
    let router = Router::new(App::in_memory());
    let ctx = CallContext::default();
    let actor =
        json!({ "actor": { "name": "reviewer", "kind": "ACTOR_KIND_AGENT", "description": "reviews" } });
    let added = call(&router, &ctx, "_cleveragents/registry/actors/add", actor.clone())
        .await
        .expect("add");
    assert_eq!(
        (
            added["name"].clone(),
            added["namespace"].clone(),
            added["version"].clone()
        ),
        (json!("reviewer"), json!("default"), json!(1))
    );
    assert_eq!(
        ext_reason(call(&router, &ctx, "_cleveragents/registry/actors/add", actor).await),
        Some((-32005, "ALREADY_EXISTS".into()))
    );
    let update =
        |v: i64| json!({ "expectedVersion": v, "actor": { "name": "reviewer", "kind": "ACTOR_KIND_HUMAN" } });
    let updated = call(&router, &ctx, "_cleveragents/registry/actors/update", update(1))
        .await
        .expect("update");
    assert_eq!(
        (updated["version"].clone(), updated["kind"].clone()),
        (json!(2), json!("ACTOR_KIND_HUMAN"))
    );
    assert_eq!(updated["createdAt"], added["createdAt"]);
    assert_eq!(
        ext_reason(call(&router, &ctx, "_cleveragents/registry/actors/update", update(1)).await),
        Some((-32004, "INVALID_STATE".into()))
    );
    let list = call(&router, &ctx, "_cleveragents/registry/actors/list", json!({}))
        .await
        .expect("list");
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        ext_reason(
            call(
                &router,
                &ctx,
                "_cleveragents/registry/actors/remove",
                json!({ "name": "reviewer", "expectedVersion": 1 })
            )
            .await
        ),
        Some((-32004, "INVALID_STATE".into()))
    );
    let removed = call(
        &router,
        &ctx,
        "_cleveragents/registry/actors/remove",
        json!({ "name": "reviewer", "expectedVersion": 2 }),
    )
    .await
    .expect("remove");
    assert_eq!(
        removed,
        json!({ "namespace": "default", "name": "reviewer", "removedVersion": 2 })
    );
    assert_eq!(
        ext_reason(
            call(
                &router,
                &ctx,
                "_cleveragents/registry/actors/show",
                json!({ "name": "reviewer" })
            )
            .await
        ),
        Some((-32001, "NOT_FOUND".into()))
    );
    assert_eq!(
        ext_reason(
            call(
                &router,
                &ctx,
                "_cleveragents/registry/actors/add",
                json!({ "actor": { "name": "a/b", "kind": "ACTOR_KIND_AGENT" } })
            )
            .await
        ),
        Some((-32602, "INVALID_PARAMS".into()))
    );
}

#[tokio::test]
async fn builtin_tools_are_listed_and_immutable() {
    let router = Router::new(App::in_memory());
    let ctx = CallContext::default();
    let tools = call(&router, &ctx, "_cleveragents/registry/tools/list", json!({}))
        .await
        .expect("list");
    let names: Vec<&str> = tools["items"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        names,
        vec!["approval", "run-validation", "template", "write-file"]
    );
    assert_eq!(
        ext_reason(
            call(
                &router,
                &ctx,
                "_cleveragents/registry/tools/remove",
                json!({ "name": "template", "expectedVersion": 1 })
            )
            .await
        ),
        Some((-32004, "INVALID_STATE".into()))
    );
}

#[tokio::test]
async fn registries_are_isolated_by_namespace() {
    let router = Router::new(App::in_memory());
    let owner = CallContext {
        principal: Some(Principal {
            subject: "o".into(),
            namespaces: [("team".to_string(), Access::Writer)].into(),
        }),
        ..Default::default()
    };
    let reader = CallContext {
        principal: Some(Principal {
            subject: "r".into(),
            namespaces: [("team".to_string(), Access::Reader)].into(),
        }),
        ..Default::default()
    };
    let outsider = CallContext {
        principal: Some(Principal {
            subject: "x".into(),
            namespaces: [("elsewhere".to_string(), Access::Admin)].into(),
        }),
        ..Default::default()
    };
    let skill = json!({ "namespace": "team", "skill": { "name": "s1" } });
    call(
        &router,
        &owner,
        "_cleveragents/registry/skills/add",
        skill.clone(),
    )
    .await
    .expect("add");
    let show = json!({ "namespace": "team", "name": "s1" });
    assert!(call(
        &router,
        &reader,
        "_cleveragents/registry/skills/show",
        show.clone()
    )
    .await
    .is_ok());
    assert_eq!(
        ext_reason(call(&router, &outsider, "_cleveragents/registry/skills/show", show).await),
        Some((-32001, "NOT_FOUND".into()))
    );
    assert_eq!(
        ext_reason(
            call(
                &router,
                &reader,
                "_cleveragents/registry/skills/add",
                skill.clone()
            )
            .await
        ),
        Some((-32003, "AUTH_FORBIDDEN".into()))
    );
    assert_eq!(
        ext_reason(call(&router, &outsider, "_cleveragents/registry/skills/add", skill).await),
        Some((-32001, "NOT_FOUND".into()))
    );
}

#[tokio::test]
async fn projects_are_versioned_file_trees() {
    let router = Router::new(App::in_memory());
    let ctx = CallContext::default();
    let project = json!({ "project": { "name": "site", "files": [{ "path": "README.md", "mediaType": "text/markdown", "text": "hello" }] } });
    let added = call(&router, &ctx, "_cleveragents/registry/projects/add", project)
        .await
        .expect("add");
    assert_eq!(added["currentRevision"], 1);
    assert_eq!(added["files"][0]["sizeBytes"], 5);
    assert_eq!(
        added["files"][0]["sha256"],
        "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    );
    let update = json!({ "expectedVersion": 1, "project": { "name": "site", "files": [{ "path": "a/b.txt", "mediaType": "text/plain", "text": "x" }] } });
    let updated = call(&router, &ctx, "_cleveragents/registry/projects/update", update)
        .await
        .expect("update");
    assert_eq!(
        (updated["currentRevision"].clone(), updated["version"].clone()),
        (json!(2), json!(2))
    );
    assert_eq!(updated["files"][0]["path"], "a/b.txt");
    let bad = json!({ "project": { "name": "evil", "files": [{ "path": "../etc/passwd", "mediaType": "text/plain", "text": "x" }] } });
    assert_eq!(
        ext_reason(call(&router, &ctx, "_cleveragents/registry/projects/add", bad).await),
        Some((-32602, "INVALID_PARAMS".into()))
    );
}
