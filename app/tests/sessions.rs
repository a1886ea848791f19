//! Sessions (`_cleveragents/session/*`, extension 1.2): a session is an A2A
//! context; tell is SendMessage in it; show and resume read its tasks and
//! plans; delete refuses running work unless forced; export and import move
//! it between agents with checksums, creating nothing when a check fails.

// Shared with the plan tests; not every helper is used here.
#[allow(dead_code)]
#[path = "common/execution.rs"]
mod execution;

use a2a::rpc::{CallContext, Version};
use a2a::{Contract, Router};
use app::App;
use execution::{call, manual, ok, setup};
use serde_json::{json, Value};

const EXT_DOMAIN: &str = "urn:cleveragents:extensions:v1";

async fn create(router: &Router<App>, title: &str) -> String {
    let session = ok(router, "_cleveragents/session/create", json!({ "title": title })).await;
    session["id"].as_str().expect("session id").to_string()
}

/// `(code, ErrorInfo reason)` of a call that must fail.
async fn failure(router: &Router<App>, method: &str, params: Value) -> (i64, String) {
    match call(router, method, params).await {
        Ok(v) => panic!("{method} succeeded: {v}"),
        Err(e) => {
            let data = e.data.clone().unwrap_or_default();
            assert_eq!(data[0]["domain"], EXT_DOMAIN, "{method}: {data}");
            (e.code, data[0]["reason"].as_str().unwrap_or_default().to_string())
        }
    }
}

fn hello(id: &str) -> Value {
    json!({ "messageId": id, "role": "ROLE_USER", "parts": [{ "text": "hello" }] })
}

fn plan_start(id: &str) -> Value {
    json!({ "messageId": id, "role": "ROLE_USER",
            "parts": [{ "text": "Please write the release notes." },
                      { "data": { "action": "release-notes", "project": "website",
                                  "inputs": { "version": "2.4.0", "notes": "Faster search." } } }] })
}

#[tokio::test]
async fn create_returns_a_session_without_tasks_whose_id_is_a_context() {
    let router = Router::new(App::in_memory());
    let session = ok(
        &router,
        "_cleveragents/session/create",
        json!({ "title": "Release 2.4.0", "metadata": { "ticket": "DOC-42" } }),
    )
    .await;
    let id = session["id"].as_str().expect("id");
    let created = session["createdAt"].as_str().expect("createdAt");
    assert_eq!(
        session,
        json!({ "id": id, "namespace": "default", "title": "Release 2.4.0", "metadata": { "ticket": "DOC-42" },
                "createdAt": created, "lastActivityAt": created, "taskCount": 0, "awaitingInput": false })
    );
    let sent = ok(
        &router,
        "SendMessage",
        json!({ "message": { "messageId": "m1", "role": "ROLE_USER", "contextId": id, "parts": [{ "text": "hi" }] } }),
    )
    .await;
    let shown = ok(&router, "_cleveragents/session/show", json!({ "sessionId": id })).await;
    assert_eq!(shown["session"]["taskCount"], 1);
    assert_eq!(shown["tasks"][0]["taskId"], sent["task"]["id"]);
    assert_eq!(shown["tasks"][0]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(shown["plans"], json!([]));
}

#[tokio::test]
async fn a_title_longer_than_200_characters_is_invalid_params() {
    let router = Router::new(App::in_memory());
    let long = "x".repeat(201);
    assert_eq!(
        failure(&router, "_cleveragents/session/create", json!({ "title": long })).await,
        (-32602, "INVALID_PARAMS".to_string())
    );
}

#[tokio::test]
async fn tell_is_send_message_in_the_session() {
    let router = Router::new(App::in_memory());
    let id = create(&router, "chat").await;
    let told = ok(
        &router,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": hello("m-hi") }),
    )
    .await;
    let task = &told["task"];
    assert_eq!(task["contextId"], id.as_str());
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        task["status"]["message"]["parts"],
        json!([{ "text": "Received: hello" }])
    );
    assert_eq!(task["history"][0]["messageId"], "m-hi");
    assert_eq!(task["history"][0]["contextId"], id.as_str());
    let listed = ok(&router, "ListTasks", json!({ "contextId": id })).await;
    assert_eq!(listed["tasks"][0]["id"], task["id"]);
}

#[tokio::test]
async fn tell_refuses_another_context_an_unknown_session_and_an_unknown_task() {
    let router = Router::new(App::in_memory());
    let id = create(&router, "chat").await;
    let mut elsewhere = hello("m-1");
    elsewhere["contextId"] = json!("another-context");
    assert_eq!(
        failure(
            &router,
            "_cleveragents/session/tell",
            json!({ "sessionId": id, "message": elsewhere })
        )
        .await,
        (-32602, "INVALID_PARAMS".to_string())
    );
    assert_eq!(
        failure(
            &router,
            "_cleveragents/session/tell",
            json!({ "sessionId": "nope", "message": hello("m-2") })
        )
        .await,
        (-32001, "NOT_FOUND".to_string())
    );
    let mut unknown_task = hello("m-3");
    unknown_task["taskId"] = json!("no-such-task");
    assert_eq!(
        failure(
            &router,
            "_cleveragents/session/tell",
            json!({ "sessionId": id, "message": unknown_task })
        )
        .await,
        (-32001, "NOT_FOUND".to_string())
    );
}

#[tokio::test]
async fn list_is_newest_first_with_a_cursor_and_filters() {
    let router = Router::new(App::in_memory());
    let mut ids = vec![];
    for title in ["Alpha notes", "beta", "Gamma NOTES"] {
        ids.push(create(&router, title).await);
    }
    let page = ok(&router, "_cleveragents/session/list", json!({ "limit": 2 })).await;
    let titles = |v: &Value| -> Vec<String> {
        v["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|s| s["title"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(titles(&page), ["Gamma NOTES", "beta"]);
    let cursor = page["nextCursor"].as_str().expect("a next page");
    let rest = ok(
        &router,
        "_cleveragents/session/list",
        json!({ "limit": 2, "cursor": cursor }),
    )
    .await;
    assert_eq!(titles(&rest), ["Alpha notes"]);
    assert_eq!(rest.get("nextCursor"), None);
    let notes = ok(
        &router,
        "_cleveragents/session/list",
        json!({ "titleContains": "notes" }),
    )
    .await;
    assert_eq!(titles(&notes), ["Gamma NOTES", "Alpha notes"]);
    let waiting = ok(
        &router,
        "_cleveragents/session/list",
        json!({ "awaitingInput": true }),
    )
    .await;
    assert_eq!(waiting["items"], json!([]));
    assert_eq!(
        failure(
            &router,
            "_cleveragents/session/list",
            json!({ "cursor": "not a cursor" })
        )
        .await,
        (-32602, "INVALID_PARAMS".to_string())
    );
    assert_eq!(
        failure(&router, "_cleveragents/session/list", json!({ "limit": 0 })).await,
        (-32602, "INVALID_PARAMS".to_string())
    );
}

#[tokio::test]
async fn show_and_resume_name_the_plan_and_the_task_that_waits() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let id = create(&router, "Release 2.4.0").await;
    let told = ok(
        &router,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": plan_start("m-start") }),
    )
    .await;
    let task = &told["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let task_id = task["id"].as_str().expect("task id");
    let plan_id = task["metadata"][EXT_DOMAIN]["planId"].as_str().expect("plan id");

    let shown = ok(&router, "_cleveragents/session/show", json!({ "sessionId": id })).await;
    let updated = task["status"]["timestamp"].as_str().expect("timestamp");
    assert_eq!(
        shown["tasks"],
        json!([{ "taskId": task_id, "state": "TASK_STATE_INPUT_REQUIRED", "updatedAt": updated, "planId": plan_id }])
    );
    assert_eq!(
        shown["plans"],
        json!([{ "planId": plan_id, "revision": 1, "taskId": task_id }])
    );
    assert_eq!(shown["session"]["awaitingInput"], true);
    assert_eq!(shown["session"]["taskCount"], 1);
    assert_eq!(shown["session"]["lastActivityAt"], updated);

    let resumed = ok(
        &router,
        "_cleveragents/session/resume",
        json!({ "sessionId": id, "messageLimit": 1 }),
    )
    .await;
    assert_eq!(resumed["pendingTask"]["id"], task_id);
    assert_eq!(resumed["recentMessages"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        resumed["recentMessages"][0]["parts"],
        json!([{ "text": "Write the notes for 2.4.0?" }])
    );
    let waiting = ok(
        &router,
        "_cleveragents/session/list",
        json!({ "awaitingInput": true }),
    )
    .await;
    assert_eq!(waiting["items"][0]["id"], id.as_str());
}

#[tokio::test]
async fn delete_refuses_running_work_unless_forced_and_takes_the_tasks_along() {
    let router = Router::new(App::in_memory());
    setup(&router, manual()).await;
    let id = create(&router, "Release").await;
    let told = ok(
        &router,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": plan_start("m-start") }),
    )
    .await;
    let task_id = told["task"]["id"].as_str().expect("task id").to_string();
    ok(
        &router,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": hello("m-hi") }),
    )
    .await;

    assert_eq!(
        failure(
            &router,
            "_cleveragents/session/delete",
            json!({ "sessionId": id })
        )
        .await,
        (-32004, "INVALID_STATE".to_string())
    );
    assert_eq!(
        ok(&router, "_cleveragents/session/show", json!({ "sessionId": id })).await["session"]["taskCount"],
        2
    );
    let deleted = ok(
        &router,
        "_cleveragents/session/delete",
        json!({ "sessionId": id, "force": true }),
    )
    .await;
    assert_eq!(deleted, json!({ "sessionId": id, "deletedTasks": 2 }));
    assert_eq!(
        failure(&router, "_cleveragents/session/show", json!({ "sessionId": id })).await,
        (-32001, "NOT_FOUND".to_string())
    );
    let gone = call(&router, "GetTask", json!({ "id": task_id }))
        .await
        .expect_err("task deleted");
    assert_eq!(gone.code, -32001);
    assert_eq!(ok(&router, "ListTasks", json!({})).await["totalSize"], 0);
    let events = ok_events(&router, json!({ "sessionId": id })).await;
    assert_eq!(events, Vec::<Value>::new());
}

#[tokio::test]
async fn a_finished_session_is_deleted_without_force() {
    let router = Router::new(App::in_memory());
    let id = create(&router, "chat").await;
    ok(
        &router,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": hello("m-hi") }),
    )
    .await;
    let deleted = ok(
        &router,
        "_cleveragents/session/delete",
        json!({ "sessionId": id }),
    )
    .await;
    assert_eq!(deleted, json!({ "sessionId": id, "deletedTasks": 1 }));
}

#[tokio::test]
async fn an_export_imported_into_another_agent_shows_the_same() {
    let source = Router::new(App::in_memory());
    setup(&source, manual()).await;
    let id = create(&source, "Release 2.4.0").await;
    ok(
        &source,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": hello("m-hi") }),
    )
    .await;
    ok(
        &source,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": plan_start("m-start") }),
    )
    .await;
    let document = ok(
        &source,
        "_cleveragents/session/export",
        json!({ "sessionId": id }),
    )
    .await;
    assert_eq!(document["format"], "urn:cleveragents:session-export");
    assert_eq!(document["formatVersion"], 1);
    assert_eq!(document["tasks"].as_array().map(Vec::len), Some(2));
    assert_eq!(document["tasks"][0]["task"]["history"][0]["messageId"], "m-hi");

    let target = Router::new(App::in_memory());
    let imported = ok(
        &target,
        "_cleveragents/session/import",
        json!({ "document": document }),
    )
    .await;
    let before = ok(&source, "_cleveragents/session/show", json!({ "sessionId": id })).await;
    assert_eq!(imported, before["session"]);
    let after = ok(&target, "_cleveragents/session/show", json!({ "sessionId": id })).await;
    assert_eq!(after, before);
    let task_id = before["tasks"][0]["taskId"].as_str().expect("task");
    assert_eq!(
        ok(&target, "GetTask", json!({ "id": task_id })).await,
        ok(&source, "GetTask", json!({ "id": task_id })).await
    );
    assert_eq!(
        failure(
            &target,
            "_cleveragents/session/import",
            json!({ "document": document })
        )
        .await,
        (-32005, "ALREADY_EXISTS".to_string())
    );
}

#[tokio::test]
async fn a_tampered_export_is_refused_and_creates_nothing() {
    let source = Router::new(App::in_memory());
    let id = create(&source, "chat").await;
    ok(
        &source,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": hello("m-1") }),
    )
    .await;
    ok(
        &source,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": hello("m-2") }),
    )
    .await;
    let document = ok(
        &source,
        "_cleveragents/session/export",
        json!({ "sessionId": id }),
    )
    .await;
    let target = Router::new(App::in_memory());

    let mut task_changed = document.clone();
    task_changed["tasks"][1]["task"]["status"]["state"] = json!("TASK_STATE_FAILED");
    let mut title_changed = document.clone();
    title_changed["session"]["title"] = json!("other");
    let mut version_changed = document.clone();
    version_changed["formatVersion"] = json!(2);
    for tampered in [task_changed, title_changed, version_changed] {
        assert_eq!(
            failure(
                &target,
                "_cleveragents/session/import",
                json!({ "document": tampered })
            )
            .await,
            (-32602, "INVALID_PARAMS".to_string())
        );
    }
    assert_eq!(ok(&target, "ListTasks", json!({})).await["totalSize"], 0);
    assert_eq!(
        ok(&target, "_cleveragents/session/list", json!({})).await["items"],
        json!([])
    );
}

#[tokio::test]
async fn an_import_whose_task_exists_elsewhere_creates_nothing() {
    let router = Router::new(App::in_memory());
    let id = create(&router, "chat").await;
    ok(
        &router,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": hello("m-1") }),
    )
    .await;
    let document = ok(
        &router,
        "_cleveragents/session/export",
        json!({ "sessionId": id }),
    )
    .await;
    // Task ids are unique across namespaces: another namespace cannot take them.
    assert_eq!(
        failure(
            &router,
            "_cleveragents/session/import",
            json!({ "namespace": "team", "document": document })
        )
        .await,
        (-32005, "ALREADY_EXISTS".to_string())
    );
    let listed = ok(
        &router,
        "_cleveragents/session/list",
        json!({ "namespace": "team" }),
    )
    .await;
    assert_eq!(listed["items"], json!([]));
    assert_eq!(
        ok(&router, "ListTasks", json!({ "tenant": "team" })).await["totalSize"],
        0
    );
    // Once the original is gone, the same document is welcome.
    ok(
        &router,
        "_cleveragents/session/delete",
        json!({ "sessionId": id }),
    )
    .await;
    ok(
        &router,
        "_cleveragents/session/import",
        json!({ "document": document }),
    )
    .await;
    assert_eq!(ok(&router, "ListTasks", json!({})).await["totalSize"], 1);
}

#[tokio::test]
async fn session_methods_are_invisible_at_extension_1_1() {
    let router = Router::new(App::in_memory());
    let mut ctx = CallContext::default();
    ctx.set_version(Contract::Cleveragents, Version::parse("1.1").expect("version"));
    for method in ["_cleveragents/session/create", "_cleveragents/events/subscribe"] {
        let outcome = router.dispatch(ctx.clone(), method, Some(json!({}))).await;
        let error = match outcome {
            a2a::rpc::Outcome::Single(r) => r.expect_err("hidden"),
            a2a::rpc::Outcome::Stream(_) => panic!("{method} streamed at 1.1"),
        };
        assert_eq!(error.code, -32601, "{method}");
    }
}

/// The events of a subscription that ends (no `follow`), as JSON.
async fn ok_events(router: &Router<App>, params: Value) -> Vec<Value> {
    use futures_util::StreamExt;
    let outcome = router
        .dispatch(
            CallContext::default(),
            "_cleveragents/events/subscribe",
            Some(params),
        )
        .await;
    let mut stream = match outcome {
        a2a::rpc::Outcome::Stream(s) => s,
        a2a::rpc::Outcome::Single(r) => panic!("expected a stream: {r:?}"),
    };
    let mut out = vec![];
    for _ in 0..500 {
        match stream.next().await {
            Some(event) => out.push(event.expect("event").json()),
            None => return out,
        }
    }
    panic!("the subscription did not end");
}
