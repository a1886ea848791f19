//! Sessions (`_cleveragents/session/*`, extension 1.2): a session is an A2A
//! context; tell is SendMessage in it; show and resume read its tasks and
//! plans; delete refuses running work unless forced; export and import move
//! it between agents with checksums (tasks, their event logs), creating
//! nothing when a check fails; list pages newest first through the store.
//! Every test runs on memory, SQLite and PostgreSQL.

// Shared with the plan tests; not every helper is used here.
#[allow(dead_code)]
#[path = "common/execution.rs"]
mod execution;
#[macro_use]
#[path = "common/backends.rs"]
mod backends;

use a2a::rpc::{CallContext, Version};
use a2a::{Contract, Router};
use app::App;
use backends::{fresh, Backend};
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

async fn create_returns_a_session_without_tasks_whose_id_is_a_context(backend: Backend) {
    let router = fresh(backend).await;
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

async fn a_title_longer_than_200_characters_is_invalid_params(backend: Backend) {
    let router = fresh(backend).await;
    let long = "x".repeat(201);
    assert_eq!(
        failure(&router, "_cleveragents/session/create", json!({ "title": long })).await,
        (-32602, "INVALID_PARAMS".to_string())
    );
}

async fn tell_is_send_message_in_the_session(backend: Backend) {
    let router = fresh(backend).await;
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

async fn tell_refuses_another_context_an_unknown_session_and_an_unknown_task(backend: Backend) {
    let router = fresh(backend).await;
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

async fn list_is_newest_first_with_a_cursor_and_filters(backend: Backend) {
    let router = fresh(backend).await;
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

/// Titles of every page of `session/list` with `params` and `limit`, following
/// the cursors (bounded).
async fn pages(router: &Router<App>, params: Value, limit: i64) -> Vec<Vec<String>> {
    let mut out = vec![];
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let mut p = params.clone();
        p["limit"] = json!(limit);
        if let Some(c) = &cursor {
            p["cursor"] = json!(c);
        }
        let page = ok(router, "_cleveragents/session/list", p).await;
        out.push(
            page["items"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| s["title"].as_str().unwrap_or("").to_string())
                .collect(),
        );
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => return out,
        }
    }
    panic!("the listing did not end");
}

/// Many sessions page newest first, each once, also when a filter skips
/// most of a page; a session deleted is gone from the listing.
async fn list_pages_through_every_session_once(backend: Backend) {
    let router = fresh(backend).await;
    let mut ids = vec![];
    for i in 0..12 {
        let title = if i % 3 == 0 {
            format!("notes {i}")
        } else {
            format!("chat {i}")
        };
        ids.push(create(&router, &title).await);
    }
    let newest_first: Vec<String> = (0..12)
        .rev()
        .map(|i| {
            if i % 3 == 0 {
                format!("notes {i}")
            } else {
                format!("chat {i}")
            }
        })
        .collect();
    let all = pages(&router, json!({}), 5).await;
    assert_eq!(all.iter().map(Vec::len).collect::<Vec<_>>(), [5, 5, 2]);
    assert_eq!(all.concat(), newest_first);
    let notes = pages(&router, json!({ "titleContains": "NOTES" }), 2).await;
    assert_eq!(notes, [vec!["notes 9", "notes 6"], vec!["notes 3", "notes 0"]]);
    ok(
        &router,
        "_cleveragents/session/delete",
        json!({ "sessionId": ids[11] }),
    )
    .await;
    let after_delete = pages(&router, json!({}), 100).await;
    assert_eq!(after_delete.concat(), newest_first[1..]);
}

/// Sessions stored before the listing documents existed (only their record)
/// are listed too: the first listing fills in what is missing, once.
async fn sessions_stored_before_the_listing_are_listed(backend: Backend) {
    use app::store::{Commit, DocWrite, Expect};
    let router = fresh(backend).await;
    let newer = create(&router, "made here").await;
    let older = json!({ "id": "older-session", "title": "from before", "createdAt": "2025-01-01T00:00:00Z" });
    let commit = Commit {
        docs: vec![DocWrite::put(
            "sessions",
            "default",
            "older-session",
            Expect::Absent,
            older,
        )],
        ..Commit::default()
    };
    router
        .store
        .commit(commit.clone())
        .await
        .expect("an old session record");
    let listed = pages(&router, json!({}), 1).await;
    assert_eq!(
        listed,
        [vec!["made here".to_string()], vec!["from before".to_string()]]
    );
    assert_eq!(
        pages(&router, json!({}), 10).await.concat(),
        ["made here", "from before"]
    );
    let shown = ok(
        &router,
        "_cleveragents/session/show",
        json!({ "sessionId": "older-session" }),
    )
    .await;
    assert_eq!(shown["session"]["title"], "from before");
    ok(
        &router,
        "_cleveragents/session/delete",
        json!({ "sessionId": newer }),
    )
    .await;
    assert_eq!(pages(&router, json!({}), 10).await.concat(), ["from before"]);
}

async fn show_and_resume_name_the_plan_and_the_task_that_waits(backend: Backend) {
    let router = fresh(backend).await;
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

async fn delete_refuses_running_work_unless_forced_and_takes_the_tasks_along(backend: Backend) {
    let router = fresh(backend).await;
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

async fn a_finished_session_is_deleted_without_force(backend: Backend) {
    let router = fresh(backend).await;
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

async fn an_export_imported_into_another_agent_shows_the_same(backend: Backend) {
    let source = fresh(backend).await;
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
    assert_eq!(document["formatVersion"], 2);
    assert_eq!(document["tasks"].as_array().map(Vec::len), Some(2));
    assert_eq!(document["tasks"][0]["task"]["history"][0]["messageId"], "m-hi");
    let task_ids: Vec<String> = document["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["task"]["id"].as_str().unwrap_or_default().to_string())
        .collect();
    for (exported, id) in document["tasks"].as_array().into_iter().flatten().zip(&task_ids) {
        let log = source.store.events_after("default", id, 0).await.expect("log");
        assert!(!log.is_empty());
        assert_eq!(exported["events"].as_array().map(Vec::len), Some(log.len()));
        assert_eq!(exported["events"][0]["seq"], 1);
        assert!(exported["eventsSha256"].as_str().is_some_and(|s| s.len() == 64));
    }

    let target = fresh(backend).await;
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
    // Each task's event log came along: the same events under the same
    // sequence numbers, read by the namespace stream (with this store's cursors).
    for id in &task_ids {
        assert_eq!(
            target.store.events_after("default", id, 0).await,
            source.store.events_after("default", id, 0).await,
            "{id}"
        );
    }
    let stream = |events: Vec<Value>| -> Vec<(Value, Value, Value, Value)> {
        events
            .into_iter()
            .map(|e| {
                (
                    e["type"].clone(),
                    e["taskId"].clone(),
                    e["taskSeq"].clone(),
                    e["event"].clone(),
                )
            })
            .collect()
    };
    let source_events = stream(ok_events(&source, json!({ "sessionId": id })).await);
    assert!(
        source_events.iter().any(|(t, ..)| t == "plan.created"),
        "{source_events:?}"
    );
    let mut target_events = stream(ok_events(&target, json!({ "sessionId": id })).await);
    // Imported oldest task first; within a task in log order, as at the source.
    let order = |events: &mut Vec<(Value, Value, Value, Value)>| {
        events.sort_by_key(|(_, task, seq, _)| (task.to_string(), seq.as_u64()));
    };
    let mut expected = source_events.clone();
    order(&mut expected);
    order(&mut target_events);
    assert_eq!(target_events, expected);
    // The waiting plan task resumes by sequence number on the target as on the source.
    let waiting = before["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["state"] == "TASK_STATE_INPUT_REQUIRED")
        .and_then(|t| t["taskId"].as_str())
        .expect("a task waits for input");
    let log_len = source
        .store
        .events_after("default", waiting, 0)
        .await
        .expect("log")
        .len();
    assert_eq!(
        resumed_after(&target, waiting, 1, log_len - 1).await,
        resumed_after(&source, waiting, 1, log_len - 1).await
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

async fn a_tampered_export_is_refused_and_creates_nothing(backend: Backend) {
    let source = fresh(backend).await;
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
    let target = fresh(backend).await;

    let mut task_changed = document.clone();
    task_changed["tasks"][1]["task"]["status"]["state"] = json!("TASK_STATE_FAILED");
    let mut title_changed = document.clone();
    title_changed["session"]["title"] = json!("other");
    let mut version_changed = document.clone();
    version_changed["formatVersion"] = json!(3);
    let mut event_changed = document.clone();
    event_changed["tasks"][0]["events"][0]["event"]["task"]["status"]["state"] = json!("TASK_STATE_WORKING");
    let mut events_dropped = document.clone();
    events_dropped["tasks"][0]["events"] = json!([]);
    let mut log_checksum_changed = document.clone();
    log_checksum_changed["tasks"][1]["eventsSha256"] = json!("0".repeat(64));
    let mut checksum_missing = document.clone();
    checksum_missing["tasks"][1]
        .as_object_mut()
        .map(|t| t.remove("eventsSha256"));
    let mut renumbered = document.clone();
    renumbered["tasks"][0]["events"][0]["seq"] = json!(2);
    let renumbered_sum = checksum_of(&renumbered["tasks"][0]["events"]);
    renumbered["tasks"][0]["eventsSha256"] = json!(renumbered_sum);
    let mut foreign_event = document.clone();
    foreign_event["tasks"][0]["events"] = document["tasks"][1]["events"].clone();
    foreign_event["tasks"][0]["eventsSha256"] = document["tasks"][1]["eventsSha256"].clone();
    let mut events_in_version_1 = document.clone();
    events_in_version_1["formatVersion"] = json!(1);
    let cases = [
        ("document.tasks[1].taskSha256", task_changed),
        ("document.sessionSha256", title_changed),
        ("document.formatVersion", version_changed),
        ("document.tasks[0].eventsSha256", event_changed),
        ("document.tasks[0].eventsSha256", events_dropped),
        ("document.tasks[1].eventsSha256", log_checksum_changed),
        ("document.tasks[1].eventsSha256", checksum_missing),
        ("document.tasks[0].events[0].seq", renumbered),
        ("document.tasks[0].events[0].event", foreign_event),
        ("document.tasks[0].events", events_in_version_1),
    ];
    for (field, tampered) in cases {
        let error = call(
            &target,
            "_cleveragents/session/import",
            json!({ "document": tampered }),
        )
        .await
        .expect_err("refused");
        let data = error.data.clone().unwrap_or_default();
        let violated = error.field_violations().first().map(|(f, _)| f.clone());
        assert_eq!(
            (error.code, &data[0]["reason"], violated.as_deref()),
            (-32602, &json!("INVALID_PARAMS"), Some(field)),
            "{field}: {}",
            error.message
        );
    }
    assert_eq!(ok(&target, "ListTasks", json!({})).await["totalSize"], 0);
    assert_eq!(
        ok(&target, "_cleveragents/session/list", json!({})).await["items"],
        json!([])
    );
    assert_eq!(ok_events(&target, json!({})).await, Vec::<Value>::new());
    ok(
        &target,
        "_cleveragents/session/import",
        json!({ "document": document }),
    )
    .await;
}

/// A version 1 document (tasks without their logs) still imports: the tasks
/// and their history, with no events.
async fn a_version_1_document_imports_without_events(backend: Backend) {
    let source = fresh(backend).await;
    let id = create(&source, "chat").await;
    ok(
        &source,
        "_cleveragents/session/tell",
        json!({ "sessionId": id, "message": hello("m-1") }),
    )
    .await;
    let mut document = ok(
        &source,
        "_cleveragents/session/export",
        json!({ "sessionId": id }),
    )
    .await;
    document["formatVersion"] = json!(1);
    for task in document["tasks"].as_array_mut().into_iter().flatten() {
        let task = task.as_object_mut().expect("task entry");
        task.remove("events");
        task.remove("eventsSha256");
    }
    let target = fresh(backend).await;
    ok(
        &target,
        "_cleveragents/session/import",
        json!({ "document": document }),
    )
    .await;
    let task_id = document["tasks"][0]["task"]["id"].as_str().expect("task id");
    let mut imported = ok(&target, "GetTask", json!({ "id": task_id })).await;
    let mut original = ok(&source, "GetTask", json!({ "id": task_id })).await;
    // The generation is the task's log position: the source's log holds the
    // task and its status changes, the import has no log, so its generation
    // is 0, which tells an A2A 1.1 client not to rely on it for this task.
    assert_eq!(original["generation"], json!(3));
    assert_eq!(imported["generation"], json!(0));
    imported.as_object_mut().expect("task").remove("generation");
    original.as_object_mut().expect("task").remove("generation");
    assert_eq!(imported, original);
    assert_eq!(target.store.events_after("default", task_id, 0).await, Ok(vec![]));
    assert_eq!(ok_events(&target, json!({})).await, Vec::<Value>::new());
    let shown = ok(&target, "_cleveragents/session/show", json!({ "sessionId": id })).await;
    assert_eq!(shown["session"]["taskCount"], 1);
}

async fn an_import_whose_task_exists_elsewhere_creates_nothing(backend: Backend) {
    let router = fresh(backend).await;
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

async fn session_methods_are_invisible_at_extension_1_1(backend: Backend) {
    let router = fresh(backend).await;
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

/// Lowercase hex SHA-256 of `value` with object keys sorted and no
/// whitespace, as an export document's checksums are.
fn checksum_of(value: &Value) -> String {
    fn canonical(value: &Value) -> String {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let members: Vec<String> = keys
                    .into_iter()
                    .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&map[k])))
                    .collect();
                format!("{{{}}}", members.join(","))
            }
            Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
            scalar => scalar.to_string(),
        }
    }
    use sha2::Digest;
    sha2::Sha256::digest(canonical(value).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The next `n` events of `SubscribeToTask` resumed after `after` (as SSE
/// `Last-Event-ID` does), with their sequence numbers.
async fn resumed_after(
    router: &Router<App>,
    task_id: &str,
    after: u64,
    n: usize,
) -> Vec<(Option<u64>, Value)> {
    use futures_util::StreamExt;
    let ctx = CallContext {
        resume_after: Some(after),
        ..CallContext::default()
    };
    let outcome = router
        .dispatch(ctx, "SubscribeToTask", Some(json!({ "id": task_id })))
        .await;
    let mut stream = match outcome {
        a2a::rpc::Outcome::Stream(s) => s,
        a2a::rpc::Outcome::Single(r) => panic!("expected a stream: {r:?}"),
    };
    let mut out = vec![];
    while out.len() < n {
        // A guard against a hang, not a timing assertion: the events are stored.
        let next = tokio::time::timeout(std::time::Duration::from_secs(30), stream.next()).await;
        match next.expect("the stored events arrive") {
            Some(event) => {
                let event = event.expect("event");
                out.push((event.seq, event.json()));
            }
            None => break,
        }
    }
    out
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

every_backend!(
    create_returns_a_session_without_tasks_whose_id_is_a_context,
    a_title_longer_than_200_characters_is_invalid_params,
    tell_is_send_message_in_the_session,
    tell_refuses_another_context_an_unknown_session_and_an_unknown_task,
    list_is_newest_first_with_a_cursor_and_filters,
    show_and_resume_name_the_plan_and_the_task_that_waits,
    delete_refuses_running_work_unless_forced_and_takes_the_tasks_along,
    a_finished_session_is_deleted_without_force,
    an_export_imported_into_another_agent_shows_the_same,
    a_tampered_export_is_refused_and_creates_nothing,
    an_import_whose_task_exists_elsewhere_creates_nothing,
    a_version_1_document_imports_without_events,
    list_pages_through_every_session_once,
    sessions_stored_before_the_listing_are_listed,
    session_methods_are_invisible_at_extension_1_1,
);
