//! The application's bounds: each is refused with invalid-params naming the
//! field, with ErrorInfo metadata `limit`, and the refused request changes
//! nothing.

use a2a::rpc::CallContext;
use a2a::Router;
use app::limits::DomainLimits;
use app::{App, AppConfig, ExecutorKind};
use serde_json::{json, Value};

fn router() -> Router<App> {
    let config = AppConfig {
        executor: ExecutorKind::Tck,
        limits: DomainLimits {
            max_parts_per_message: 2,
            max_part_bytes: 64,
            max_history_per_task: 1,
            max_push_configs_per_task: 2,
            max_entity_bytes: 200,
            max_project_files: 2,
            max_project_bytes: 10,
        },
        ..Default::default()
    };
    Router::new(App::with_store(
        std::sync::Arc::new(app::store::MemoryStore::new()),
        config,
    ))
}

async fn call(router: &Router<App>, method: &str, params: Value) -> Result<Value, a2a::Error> {
    router
        .dispatch(CallContext::default(), method, Some(params))
        .await
        .into_single()
}

/// Code, field of the BadRequest violation and the `limit` metadata of a refusal.
fn refusal(result: Result<Value, a2a::Error>) -> (i64, String, String) {
    let error = serde_json::to_value(result.expect_err("refused")).expect("an error encodes");
    let data = error["data"].as_array().cloned().unwrap_or_default();
    let info = data
        .iter()
        .find(|d| d["reason"].is_string())
        .cloned()
        .unwrap_or(Value::Null);
    let violation = data
        .iter()
        .find_map(|d| d["fieldViolations"].get(0).cloned())
        .unwrap_or(Value::Null);
    (
        error["code"].as_i64().unwrap_or(0),
        violation["field"].as_str().unwrap_or_default().to_string(),
        info["metadata"]["limit"].as_str().unwrap_or_default().to_string(),
    )
}

fn message(id: &str, parts: Value) -> Value {
    json!({"messageId": id, "role": "ROLE_USER", "parts": parts})
}

async fn task_count(router: &Router<App>) -> usize {
    call(router, "ListTasks", json!({})).await.expect("list")["tasks"]
        .as_array()
        .map_or(0, Vec::len)
}

#[tokio::test]
async fn parts_per_message_and_part_size_are_bounded() {
    let router = router();
    let three = message("m1", json!([{"text": "a"}, {"text": "b"}, {"text": "c"}]));
    assert_eq!(
        refusal(call(&router, "SendMessage", json!({"message": three})).await),
        (-32602, "message.parts".into(), "2".into())
    );
    let big = message("m2", json!([{"text": "a"}, {"text": "x".repeat(100)}]));
    assert_eq!(
        refusal(call(&router, "SendMessage", json!({"message": big})).await),
        (-32602, "message.parts[1]".into(), "64".into())
    );
    assert_eq!(task_count(&router).await, 0, "a refused message creates nothing");
    let fits = message("m3", json!([{"text": "a"}, {"text": "b"}]));
    assert!(call(&router, "SendMessage", json!({"message": fits}))
        .await
        .is_ok());
}

#[tokio::test]
async fn a_task_holds_a_bounded_history_and_push_configs() {
    let router = router();
    // The TCK executor leaves this task waiting for input, so it can be continued.
    let first = message("tck-input-required-1", json!([{"text": "start"}]));
    let task = call(&router, "SendMessage", json!({"message": first}))
        .await
        .expect("send");
    let task_id = task["task"]["id"].as_str().expect("a task").to_string();
    let history = task["task"]["history"].as_array().map_or(0, Vec::len);
    assert_eq!(history, 1, "{task}");
    let mut more = message("tck-input-required-2", json!([{"text": "more"}]));
    more["taskId"] = json!(task_id);
    assert_eq!(
        refusal(call(&router, "SendMessage", json!({"message": more})).await),
        (-32602, "message.taskId".into(), "1".into())
    );
    let got = call(&router, "GetTask", json!({"id": task_id}))
        .await
        .expect("get");
    assert_eq!(
        got["history"].as_array().map_or(0, Vec::len),
        1,
        "the refused message is not stored"
    );
    assert_eq!(got["status"]["state"], "TASK_STATE_INPUT_REQUIRED");

    for n in 0..2 {
        let config =
            json!({"taskId": task_id, "id": format!("c{n}"), "url": "https://hooks.example.com/a2a"});
        call(&router, "CreateTaskPushNotificationConfig", config)
            .await
            .expect("within the bound");
    }
    let third = json!({"taskId": task_id, "id": "c2", "url": "https://hooks.example.com/a2a"});
    assert_eq!(
        refusal(call(&router, "CreateTaskPushNotificationConfig", third).await),
        (-32602, "taskId".into(), "2".into())
    );
    // Replacing a configuration the task holds is not a new one.
    let replace = json!({"taskId": task_id, "id": "c1", "url": "https://hooks.example.com/other"});
    assert!(call(&router, "CreateTaskPushNotificationConfig", replace)
        .await
        .is_ok());
    let listed = call(
        &router,
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task_id}),
    )
    .await
    .expect("list");
    assert_eq!(listed["configs"].as_array().map_or(0, Vec::len), 2, "{listed}");
}

#[tokio::test]
async fn registry_entities_and_project_revisions_are_bounded() {
    let router = router();
    let tool = |description: &str| json!({"tool": {"name": "lint", "kind": "TOOL_KIND_EXTERNAL", "description": description}});
    assert_eq!(
        refusal(
            call(
                &router,
                "_cleveragents/registry/tools/add",
                tool(&"d".repeat(300))
            )
            .await
        ),
        (-32602, "tool".into(), "200".into())
    );
    let listed = call(&router, "_cleveragents/registry/tools/list", json!({}))
        .await
        .expect("list");
    assert!(
        !listed.to_string().contains("\"lint\""),
        "a refused entity is not stored: {listed}"
    );
    call(&router, "_cleveragents/registry/tools/add", tool("short"))
        .await
        .expect("an entity within the bound is stored");
    let mut update = tool(&"d".repeat(300));
    update["expectedVersion"] = json!(1);
    assert_eq!(
        refusal(call(&router, "_cleveragents/registry/tools/update", update).await),
        (-32602, "tool".into(), "200".into())
    );
    let shown = call(
        &router,
        "_cleveragents/registry/tools/show",
        json!({"name": "lint"}),
    )
    .await
    .expect("show");
    assert_eq!(
        (shown["version"].clone(), shown["description"].clone()),
        (json!(1), json!("short"))
    );

    let file = |path: &str, text: &str| json!({"path": path, "mediaType": "text/plain", "text": text});
    let project = |files: Value| json!({"project": {"name": "site", "files": files}});
    assert_eq!(
        refusal(
            call(
                &router,
                "_cleveragents/registry/projects/add",
                project(json!([file("a", "1"), file("b", "2"), file("c", "3")]))
            )
            .await
        ),
        (-32602, "project.files".into(), "2".into())
    );
    assert_eq!(
        refusal(
            call(
                &router,
                "_cleveragents/registry/projects/add",
                project(json!([file("a", "12345"), file("b", "678901")]))
            )
            .await
        ),
        (-32602, "project.files".into(), "10".into())
    );
    // Raw content counts decoded: 8 base64 digits are 6 bytes, 6 + 5 > 10.
    let raw = json!({"path": "r.bin", "mediaType": "application/octet-stream", "raw": "AAECAwQF"});
    assert_eq!(
        refusal(
            call(
                &router,
                "_cleveragents/registry/projects/add",
                project(json!([raw.clone(), file("a", "12345")]))
            )
            .await
        ),
        (-32602, "project.files".into(), "10".into())
    );
    let added = call(
        &router,
        "_cleveragents/registry/projects/add",
        project(json!([raw, file("a", "1234")])),
    )
    .await
    .expect("a project within the bounds is stored");
    assert_eq!(added["currentRevision"], 1);
    let mut update = project(json!([file("a", "1"), file("b", "2"), file("c", "3")]));
    update["expectedVersion"] = json!(1);
    assert_eq!(
        refusal(call(&router, "_cleveragents/registry/projects/update", update).await),
        (-32602, "project.files".into(), "2".into())
    );
    let shown = call(
        &router,
        "_cleveragents/registry/projects/show",
        json!({"name": "site"}),
    )
    .await
    .expect("show");
    assert_eq!(
        (shown["currentRevision"].clone(), shown["version"].clone()),
        (json!(1), json!(1))
    );
}
