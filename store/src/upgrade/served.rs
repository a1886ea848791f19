//! What a store serves of the data set, as one JSON value: every task as
//! GetTask finds it with its whole event log, each namespace's listing
//! (order, totals by context and state), every document of the data set's
//! collections, the namespace event stream with its positions, the
//! deliveries still owed, and the integrity check. A fixture's expectations
//! file is this value as the version that wrote the fixture served it.

use super::dataset::{COLLECTIONS, NAMESPACES};
use crate::{Store, TaskQuery, TaskRow};
use a2a::types::{StreamResponse, Task, TaskState};
use serde_json::{json, Map, Value};

/// The task states a listing's totals are taken in.
const STATES: &[TaskState] = &[
    TaskState::Submitted,
    TaskState::Working,
    TaskState::InputRequired,
    TaskState::Completed,
    TaskState::Canceled,
];

fn encode<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("a stored value encodes")
}

fn row_json(row: &TaskRow) -> Value {
    json!({
        "id": row.id, "namespace": row.namespace, "context_id": row.context_id,
        "state": row.state, "status_ts": row.status_ts, "last_seq": row.last_seq,
        "rank": row.rank, "body": encode(&row.body),
    })
}

/// The total of a listing of `ns` filtered by `context` and `state`.
async fn total(store: &dyn Store, ns: &str, context: Option<&str>, state: Option<&str>) -> u64 {
    let query = TaskQuery {
        namespace: ns.into(),
        context_id: context.map(str::to_string),
        state: state.map(str::to_string),
        limit: 1,
        ..Default::default()
    };
    store.list_tasks(&query).await.expect("list tasks").total
}

/// Everything `store` serves of the data set (see the module doc).
pub async fn served(store: &dyn Store) -> Value {
    let mut tasks = Map::new();
    let mut listings = Map::new();
    let mut docs = Map::new();
    let mut stream = Map::new();
    let mut deliveries = Map::new();
    for &ns in NAMESPACES {
        let query = TaskQuery {
            namespace: ns.into(),
            limit: 100,
            ..Default::default()
        };
        let page = store.list_tasks(&query).await.expect("list tasks");
        let mut contexts: Vec<String> = page.rows.iter().map(|r| r.context_id.clone()).collect();
        contexts.sort();
        contexts.dedup();
        let mut totals = Map::new();
        totals.insert("all".into(), json!(page.total));
        for state in STATES {
            totals.insert(
                state.to_string(),
                json!(total(store, ns, None, Some(&state.to_string())).await),
            );
        }
        for ctx in &contexts {
            totals.insert(ctx.clone(), json!(total(store, ns, Some(ctx), None).await));
            for state in STATES {
                let state = state.to_string();
                let n = total(store, ns, Some(ctx), Some(&state)).await;
                totals.insert(format!("{ctx}/{state}"), json!(n));
            }
        }
        listings.insert(
            ns.into(),
            json!({ "order": page.rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>(), "totals": totals }),
        );
        for listed in &page.rows {
            let row = store
                .get_task(ns, &listed.id)
                .await
                .expect("get task")
                .expect("a listed task is found");
            let events = store.events_after(ns, &row.id, 0).await.expect("events");
            let events: Vec<Value> = events
                .iter()
                .map(|e| json!({ "seq": e.seq, "body": encode(&e.body) }))
                .collect();
            let mut entry = row_json(&row);
            entry["listed"] = row_json(listed);
            entry["events"] = json!(events);
            tasks.insert(format!("{ns}/{}", row.id), entry);
            let owed = store
                .pending_deliveries(ns, &row.id)
                .await
                .expect("pending deliveries");
            if !owed.is_empty() {
                let owed: Vec<Value> = owed
                    .iter()
                    .map(|d| {
                        json!({ "config_id": d.key.config_id, "seq": d.key.seq, "attempts": d.attempts,
                                "next_attempt_ms": d.next_attempt_ms, "body": encode(&d.body) })
                    })
                    .collect();
                deliveries.insert(format!("{ns}/{}", row.id), json!(owed));
            }
        }
        for &coll in COLLECTIONS {
            let found = store.list_docs(coll, ns, "", None, 100).await.expect("list docs");
            let found: Vec<Value> = found
                .iter()
                .map(|d| json!({ "key": d.key, "version": d.version, "value": d.value }))
                .collect();
            docs.insert(format!("{coll}/{ns}"), json!(found));
        }
        let events = store
            .namespace_events_after(ns, 0, 100)
            .await
            .expect("namespace events");
        let events: Vec<Value> = events
            .iter()
            .map(|e| json!({ "position": e.position, "task_id": e.task_id, "context_id": e.context_id, "seq": e.event.seq }))
            .collect();
        stream.insert(ns.into(), json!(events));
    }
    let integrity = store.check_integrity(true).await.expect("integrity");
    json!({
        "namespaces": store.namespaces().await.expect("namespaces"),
        "tasks": tasks,
        "listings": listings,
        "docs": docs,
        "namespace_events": stream,
        "deliveries": deliveries,
        "integrity": { "checked_objects": integrity.checked_objects, "problems": integrity.problems },
    })
}

/// `value` with every task and event body decoded and encoded again by
/// today's types, so an older version's encoding of the same value (a field
/// it wrote that is now optional and left out, say) compares equal.
pub fn normalized(mut value: Value) -> Value {
    fn again<T: serde::de::DeserializeOwned + serde::Serialize>(body: &mut Value) {
        let decoded: T = serde_json::from_value(body.clone())
            .unwrap_or_else(|e| panic!("a served body decodes today: {e}: {body}"));
        *body = encode(&decoded);
    }
    if let Some(tasks) = value.get_mut("tasks").and_then(Value::as_object_mut) {
        for task in tasks.values_mut() {
            again::<Task>(&mut task["body"]);
            if let Some(listed) = task.get_mut("listed") {
                again::<Task>(&mut listed["body"]);
            }
            for event in task["events"].as_array_mut().into_iter().flatten() {
                again::<StreamResponse>(&mut event["body"]);
            }
        }
    }
    if let Some(owed) = value.get_mut("deliveries").and_then(Value::as_object_mut) {
        for rows in owed.values_mut() {
            for row in rows.as_array_mut().into_iter().flatten() {
                again::<StreamResponse>(&mut row["body"]);
            }
        }
    }
    value
}
