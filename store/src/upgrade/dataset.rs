//! The data set every upgrade fixture holds: tasks with history, artifacts
//! and event logs in two namespaces, a task that owes push deliveries, and
//! the documents of registry entries, plans, push configurations and
//! sessions, some updated and one deleted. It is plain JSON, commit by
//! commit, so the generator of an older schema version can write it
//! through that version's API whatever its record types were.

use crate::{Commit, DocWrite, EventRow, Expect, Fanout, TaskRow, TaskWrite};
use a2a::types::{Role, TaskState};
use serde_json::{json, Value};

/// The namespaces the data set writes in.
pub const NAMESPACES: &[&str] = &["default", "team"];

/// The document collections the data set writes in (the application's
/// registry kinds, plans, push configurations and sessions).
pub const COLLECTIONS: &[&str] = &["action", "actor", "plan", "push_config", "sessions", "tool"];

/// The collection of push configurations: key `taskId/configId`.
pub const PUSH_COLLECTION: &str = "push_config";

fn message(id: &str, role: Role, task: &str, ctx: &str, text: &str) -> Value {
    json!({ "messageId": id, "role": role, "taskId": task, "contextId": ctx, "parts": [{ "text": text }] })
}

fn status(state: &str, ts: &str) -> Value {
    json!({ "state": state, "timestamp": ts })
}

fn status_event(task: &str, ctx: &str, state: &str, ts: &str) -> Value {
    json!({ "statusUpdate": { "taskId": task, "contextId": ctx, "status": status(state, ts) } })
}

fn event(seq: u64, body: Value) -> Value {
    json!({ "seq": seq, "body": body })
}

fn put(coll: &str, ns: &str, key: &str, expect: Value, value: Value) -> Value {
    json!({ "coll": coll, "namespace": ns, "key": key, "expect": expect, "value": value })
}

/// A task write: the row (its body the task as it stands after the write),
/// whether it creates the task, the log's end it expects, and the events it
/// appends.
fn task_write(row: Value, create: bool, expected_last_seq: u64, events: Vec<Value>) -> Value {
    json!({ "row": row, "create": create, "expected_last_seq": expected_last_seq, "events": events })
}

fn row(ns: &str, id: &str, ctx: &str, state: &str, ts: &str, last_seq: u64, body: Value) -> Value {
    json!({
        "namespace": ns, "id": id, "context_id": ctx, "state": state, "status_ts": ts,
        "last_seq": last_seq, "body": body,
    })
}

/// The data set, as the commits that write it, in order. Each commit is
/// `{ task?, fanout?, docs }`: `fanout` names the prefix of the task's push
/// configurations (used only by stores that have a push outbox).
pub fn dataset() -> Vec<Value> {
    let ts = |s: u32| format!("2026-11-30T10:00:{s:02}.000Z");
    let ask = message("m-1", Role::User, "t-done", "ctx-a", "Summarise the design notes");
    let answer = message(
        "m-2",
        Role::Agent,
        "t-done",
        "ctx-a",
        "Three decisions, one open question.",
    );
    let artifact = json!({
        "artifactId": "a-1", "name": "summary.md",
        "parts": [{ "text": "# Summary\n- one store API\n" }, { "data": { "words": 6 } }],
    });
    let submitted = json!({ "id": "t-done", "contextId": "ctx-a", "status": status(&TaskState::Submitted.to_string(), &ts(1)), "history": [ask] });
    let done = json!({
        "id": "t-done", "contextId": "ctx-a", "status": status(&TaskState::Completed.to_string(), &ts(4)),
        "history": [ask, answer], "artifacts": [artifact], "metadata": { "origin": "fixture" },
    });
    let approve = message("m-3", Role::Agent, "t-input", "ctx-a", "Approve the plan p-1?");
    let waiting = json!({
        "id": "t-input", "contextId": "ctx-a",
        "status": { "state": &TaskState::InputRequired.to_string(), "timestamp": ts(6), "message": approve },
        "history": [message("m-4", Role::User, "t-input", "ctx-a", "Run plan p-1")],
    });
    let working = json!({ "id": "t-work", "contextId": "ctx-b", "status": status(&TaskState::Working.to_string(), &ts(8)) });
    let canceled = json!({ "id": "t-team", "contextId": "ctx-c", "status": status(&TaskState::Canceled.to_string(), &ts(10)) });
    vec![
        json!({ "docs": [
            put("actor", "default", "reviewer", json!("absent"), json!({ "name": "reviewer", "model": "echo" })),
            put("tool", "default", "template", json!("absent"), json!({ "name": "template", "builtin": true })),
            put("action", "default", "summarise", json!("absent"), json!({ "name": "summarise", "steps": ["template", "approve"] })),
            put("actor", "team", "reviewer", json!("absent"), json!({ "name": "reviewer", "model": "team-echo" })),
            put("actor", "default", "retired", json!("absent"), json!({ "name": "retired" })),
        ] }),
        // A registry update with its expected version; a removal.
        json!({ "docs": [
            put("actor", "default", "reviewer", json!({ "version": 1 }), json!({ "name": "reviewer", "model": "echo-2" })),
            put("actor", "default", "retired", json!({ "version": 1 }), Value::Null),
        ] }),
        json!({
            "task": task_write(row("default", "t-done", "ctx-a", &TaskState::Submitted.to_string(), &ts(1), 1, submitted.clone()), true, 0,
                vec![event(1, json!({ "task": submitted }))]),
            "docs": [put("sessions", "default", "ctx-a", json!("absent"), json!({ "contextId": "ctx-a", "tasks": 1 }))],
        }),
        json!({ "task": task_write(row("default", "t-done", "ctx-a", &TaskState::Completed.to_string(), &ts(4), 4, done), false, 1, vec![
            event(2, status_event("t-done", "ctx-a", &TaskState::Working.to_string(), &ts(2))),
            event(3, json!({ "artifactUpdate": { "taskId": "t-done", "contextId": "ctx-a", "artifact": artifact, "lastChunk": true } })),
            event(4, status_event("t-done", "ctx-a", &TaskState::Completed.to_string(), &ts(4))),
        ]) }),
        json!({
            "task": task_write(row("default", "t-input", "ctx-a", &TaskState::InputRequired.to_string(), &ts(6), 2, waiting.clone()), true, 0, vec![
                event(1, json!({ "task": waiting })),
                event(2, json!({ "statusUpdate": { "taskId": "t-input", "contextId": "ctx-a",
                    "status": { "state": &TaskState::InputRequired.to_string(), "timestamp": ts(6), "message": approve },
                    "metadata": { "urn:cleveragents:extensions:v1": { "event": "plan.phase_changed" } } } })),
            ]),
            "docs": [
                put("plan", "default", "p-1", json!("absent"), json!({ "id": "p-1", "action": "summarise", "phase": "strategize", "taskId": "t-input" })),
                put("sessions", "default", "ctx-a", json!({ "version": 1 }), json!({ "contextId": "ctx-a", "tasks": 2 })),
            ],
        }),
        json!({ "docs": [
            put("plan", "default", "p-1", json!({ "version": 1 }), json!({ "id": "p-1", "action": "summarise", "phase": "execute", "taskId": "t-input", "awaiting": "approve" })),
        ] }),
        // The push configurations of t-work, written with the task: its
        // events owe deliveries to both.
        json!({
            "task": task_write(row("default", "t-work", "ctx-b", &TaskState::Working.to_string(), &ts(8), 2, working.clone()), true, 0, vec![
                event(1, json!({ "task": working })),
                event(2, status_event("t-work", "ctx-b", &TaskState::Working.to_string(), &ts(8))),
            ]),
            "fanout": "t-work/",
            "docs": [
                put(PUSH_COLLECTION, "default", "t-work/hook-1", json!("absent"), json!({ "id": "hook-1", "taskId": "t-work", "url": "https://hooks.example/one", "token": "secret-1" })),
                put(PUSH_COLLECTION, "default", "t-work/hook-2", json!("absent"), json!({ "id": "hook-2", "taskId": "t-work", "url": "https://hooks.example/two" })),
            ],
        }),
        json!({ "task": task_write(row("team", "t-team", "ctx-c", &TaskState::Canceled.to_string(), &ts(10), 2, canceled.clone()), true, 0, vec![
            event(1, json!({ "task": canceled })),
            event(2, status_event("t-team", "ctx-c", &TaskState::Canceled.to_string(), &ts(10))),
        ]) }),
    ]
}

/// A typed value from the data set's JSON.
fn typed<T: serde::de::DeserializeOwned>(value: &Value) -> T {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("the data set's {value}: {e}"))
}

fn text(value: &Value) -> String {
    value.as_str().map(str::to_string).unwrap_or_default()
}

/// One commit of the data set in this version's record types.
pub fn commit(spec: &Value) -> Commit {
    let task = spec.get("task").map(|tw| {
        let r = &tw["row"];
        TaskWrite {
            row: TaskRow {
                id: text(&r["id"]),
                namespace: text(&r["namespace"]),
                context_id: text(&r["context_id"]),
                state: text(&r["state"]),
                status_ts: text(&r["status_ts"]),
                last_seq: r["last_seq"].as_u64().unwrap_or_default(),
                rank: 0,
                body: typed(&r["body"]),
            },
            create: tw["create"].as_bool().unwrap_or_default(),
            expected_last_seq: tw["expected_last_seq"].as_u64().unwrap_or_default(),
            expected_rank: None,
            events: tw["events"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| EventRow {
                    seq: e["seq"].as_u64().unwrap_or_default(),
                    body: typed(&e["body"]),
                })
                .collect(),
        }
    });
    let docs = spec["docs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            let expect = match &d["expect"] {
                Value::String(s) if s == "absent" => Expect::Absent,
                Value::Object(o) => Expect::Version(o["version"].as_u64().unwrap_or_default()),
                _ => Expect::Any,
            };
            let (coll, ns, key) = (text(&d["coll"]), text(&d["namespace"]), text(&d["key"]));
            match &d["value"] {
                Value::Null => DocWrite::delete(&coll, &ns, &key, expect),
                value => DocWrite::put(&coll, &ns, &key, expect, value.clone()),
            }
        })
        .collect();
    Commit {
        task,
        fanout: spec.get("fanout").map(|prefix| Fanout {
            coll: PUSH_COLLECTION.into(),
            prefix: text(prefix),
        }),
        docs,
        ..Commit::default()
    }
}
