//! `_cleveragents/events/subscribe`: the namespace's domain events, filtered
//! by plan, session and type, in cursor order, resumable from a cursor with
//! nothing missed or repeated, live with `follow`, on every store (memory,
//! SQLite and PostgreSQL).

// Shared with the plan tests; not every helper is used here.
#[allow(dead_code)]
#[path = "common/execution.rs"]
mod execution;
#[macro_use]
#[path = "common/backends.rs"]
mod backends;

use a2a::rpc::{CallContext, Outcome};
use a2a::Router;
use app::{App, AppConfig};
use backends::{fresh, Backend};
use execution::{events_until, manual, ok, setup};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;

const METHOD: &str = "_cleveragents/events/subscribe";

/// The plan's domain events in task order: the message that opened its task,
/// then what its events' metadata name, before and after the approval.
const LIFECYCLE: [&str; 18] = [
    "session.message",
    "plan.created",
    "plan.phase_changed",
    "tool.invoked",
    "tool.completed",
    "tool.invoked",
    "plan.state_changed",
    "plan.state_changed",
    "plan.decision_made",
    "tool.completed",
    "tool.invoked",
    "tool.completed",
    "tool.invoked",
    "validation.completed",
    "tool.completed",
    "validation.completed",
    "plan.phase_changed",
    "plan.state_changed",
];

async fn subscribe(
    router: &Router<App>,
    ctx: CallContext,
    params: Value,
) -> a2a::rpc::EventStream<a2a::rpc::RawJson> {
    match router.dispatch(ctx, METHOD, Some(params)).await {
        Outcome::Stream(s) => s,
        Outcome::Single(r) => panic!("expected a stream: {r:?}"),
    }
}

/// Every event of a subscription that ends by itself (no `follow`), with its SSE id.
async fn drained(router: &Router<App>, ctx: CallContext, params: Value) -> Vec<(Option<u64>, Value)> {
    let mut stream = subscribe(router, ctx, params).await;
    let mut out = vec![];
    for _ in 0..500 {
        match stream.next().await {
            Some(event) => {
                let event = event.expect("event");
                out.push((event.seq, event.json()));
            }
            None => return out,
        }
    }
    panic!("the subscription did not end");
}

fn types(events: &[(Option<u64>, Value)]) -> Vec<String> {
    events
        .iter()
        .map(|(_, e)| e["type"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// A session whose plan ran to completion: (session id, task id, plan id).
async fn completed_plan(router: &Router<App>, session: &str) -> (String, String) {
    let told = ok(
        router,
        "SendMessage",
        json!({ "message": { "messageId": format!("{session}-start"), "role": "ROLE_USER", "contextId": session,
                "parts": [{ "text": "Please write the release notes." },
                          { "data": { "action": "release-notes", "project": "website",
                                      "inputs": { "version": "2.4.0", "notes": "Faster search." } } }] } }),
    )
    .await;
    let task_id = told["task"]["id"].as_str().expect("task").to_string();
    let plan_id = told["task"]["metadata"][execution::EXT]["planId"]
        .as_str()
        .expect("plan")
        .to_string();
    ok(
        router,
        "SendMessage",
        json!({ "message": { "messageId": format!("{session}-yes"), "role": "ROLE_USER", "taskId": task_id,
                             "parts": [{ "text": "approve" }] } }),
    )
    .await;
    events_until(router, &task_id, "TASK_STATE_COMPLETED").await;
    (task_id, plan_id)
}

async fn a_plan_lifecycle_reads_back_as_its_domain_events_in_order(backend: Backend) {
    let router = fresh(backend).await;
    setup(&router, manual()).await;
    let (task_id, plan_id) = completed_plan(&router, "s1").await;
    let events = drained(&router, CallContext::default(), json!({ "planId": plan_id })).await;
    assert_eq!(types(&events), LIFECYCLE[1..]);
    let seqs: Vec<i64> = events
        .iter()
        .map(|(_, e)| e["taskSeq"].as_i64().unwrap_or(0))
        .collect();
    assert_eq!(seqs, (2..=18).collect::<Vec<_>>());
    for (id, event) in &events {
        assert_eq!(*id, event["cursor"].as_u64(), "the SSE id is the cursor");
        assert_eq!(event["taskId"], task_id.as_str());
        assert_eq!(event["sessionId"], "s1");
        assert_eq!(event["planId"], plan_id.as_str());
    }
    let created = &events[0].1["event"]["statusUpdate"];
    assert_eq!(created["metadata"][execution::EXT]["event"], "plan.created");
    assert_eq!(created["metadata"][execution::EXT]["revision"], 1);
    assert_eq!(created["metadata"][execution::EXT]["seq"], 2);
    let tool = &events[2].1;
    assert_eq!(
        tool["event"]["statusUpdate"]["metadata"][execution::EXT]["event"],
        "tool.invoked"
    );
    assert_eq!(
        tool["event"]["statusUpdate"]["metadata"][execution::EXT]["seq"],
        4
    );
    // The whole session, its opening message included.
    let session = drained(&router, CallContext::default(), json!({ "sessionId": "s1" })).await;
    assert_eq!(types(&session), LIFECYCLE);
    assert_eq!(session[0].1["event"]["task"]["id"], task_id.as_str());
}

async fn types_select_exactly_the_matching_events(backend: Backend) {
    let router = fresh(backend).await;
    setup(&router, manual()).await;
    let (_, plan_id) = completed_plan(&router, "s1").await;
    completed_plan(&router, "s2").await;
    let params = json!({ "planId": plan_id, "types": ["tool.invoked", "plan.error"] });
    let events = drained(&router, CallContext::default(), params).await;
    assert_eq!(types(&events), ["tool.invoked"; 4]);
    let seqs: Vec<i64> = events
        .iter()
        .map(|(_, e)| e["taskSeq"].as_i64().unwrap_or(0))
        .collect();
    assert_eq!(seqs, [4, 6, 11, 13]);
    let all_tools = drained(
        &router,
        CallContext::default(),
        json!({ "types": ["tool.invoked"] }),
    )
    .await;
    assert_eq!(all_tools.len(), 8, "both plans of the namespace");
    let errors = drained(
        &router,
        CallContext::default(),
        json!({ "types": ["plan.error"] }),
    )
    .await;
    assert_eq!(errors, vec![]);
}

async fn a_resumed_subscription_gets_the_rest_exactly_once(backend: Backend) {
    let router = fresh(backend).await;
    setup(&router, manual()).await;
    let (_, plan_id) = completed_plan(&router, "s1").await;
    let all = drained(&router, CallContext::default(), json!({ "planId": plan_id })).await;
    let cut = all[4].0.expect("cursor");
    let by_param = drained(
        &router,
        CallContext::default(),
        json!({ "planId": plan_id, "after": cut }),
    )
    .await;
    assert_eq!(by_param, all[5..].to_vec());
    // Last-Event-ID (SSE) and stdio stream/resume arrive as the context's resume point.
    let ctx = CallContext {
        resume_after: Some(cut),
        ..CallContext::default()
    };
    let by_header = drained(&router, ctx, json!({ "planId": plan_id })).await;
    assert_eq!(by_header, all[5..].to_vec());
    let last = all.last().and_then(|(c, _)| *c).expect("cursor");
    assert_eq!(
        drained(&router, CallContext::default(), json!({ "after": last })).await,
        vec![]
    );
}

async fn a_following_subscription_sees_new_events_as_they_are_committed(backend: Backend) {
    let router = fresh(backend).await;
    let mut stream = subscribe(
        &router,
        CallContext::default(),
        json!({ "sessionId": "live", "follow": true }),
    )
    .await;
    let sent = ok(
        &router,
        "SendMessage",
        json!({ "message": { "messageId": "m1", "role": "ROLE_USER", "contextId": "live", "parts": [{ "text": "hello" }] } }),
    )
    .await;
    let mut seen = vec![];
    while seen.len() < 2 {
        // A guard against a hang, not a timing assertion: the events are already committed.
        let next = tokio::time::timeout(Duration::from_secs(30), stream.next()).await;
        let event = next
            .expect("an event arrives")
            .expect("the stream stays open")
            .expect("event");
        seen.push(event.json());
    }
    assert_eq!(seen[0]["type"], "session.message");
    assert_eq!(seen[0]["event"]["task"]["id"], sent["task"]["id"]);
    assert_eq!(seen[1]["type"], "session.message");
    assert_eq!(
        seen[1]["event"]["statusUpdate"]["status"]["message"]["parts"],
        json!([{ "text": "Received: hello" }])
    );
}

async fn other_namespaces_events_are_not_delivered(backend: Backend) {
    let router = fresh(backend).await;
    ok(
        &router,
        "SendMessage",
        json!({ "tenant": "team", "message": { "messageId": "m1", "role": "ROLE_USER", "parts": [{ "text": "hi" }] } }),
    )
    .await;
    assert_eq!(drained(&router, CallContext::default(), json!({})).await, vec![]);
    let team = drained(&router, CallContext::default(), json!({ "namespace": "team" })).await;
    assert_eq!(types(&team), ["session.message", "session.message"]);
}

/// `plan/execute` gives the plan its task with `plan.created` as the task's
/// second event (after the Task itself), in the task's state then; a plan
/// only drafted has no task and so no event yet.
async fn an_executed_plan_announces_itself_first(backend: Backend) {
    let router = fresh(backend).await;
    setup(&router, manual()).await;
    let inputs = json!({ "version": "2.4.0", "notes": "Faster search." });
    let drafted = ok(
        &router,
        "_cleveragents/plan/use",
        json!({ "action": "release-notes", "project": "website", "inputs": inputs, "contextId": "s1" }),
    )
    .await;
    let only_drafted = ok(
        &router,
        "_cleveragents/plan/use",
        json!({ "action": "release-notes", "project": "website", "inputs": inputs }),
    )
    .await;
    let plan_id = drafted["id"].as_str().expect("plan id");
    let execution = ok(
        &router,
        "_cleveragents/plan/execute",
        json!({ "planId": plan_id }),
    )
    .await;
    let task_id = execution["taskId"].as_str().expect("task id");
    events_until(&router, task_id, "TASK_STATE_INPUT_REQUIRED").await;
    let created = drained(
        &router,
        CallContext::default(),
        json!({ "types": ["plan.created"] }),
    )
    .await;
    assert_eq!(created.len(), 1, "{created:?}");
    let event = &created[0].1;
    assert_eq!(
        (
            &event["planId"],
            &event["taskId"],
            &event["sessionId"],
            &event["taskSeq"]
        ),
        (&json!(plan_id), &json!(task_id), &json!("s1"), &json!(2))
    );
    let update = &event["event"]["statusUpdate"];
    assert_eq!(update["status"]["state"], "TASK_STATE_SUBMITTED");
    assert_eq!(update["metadata"][execution::EXT]["event"], "plan.created");
    assert_eq!(update["metadata"][execution::EXT]["planId"], plan_id);
    assert_eq!(update["metadata"][execution::EXT]["seq"], 2);
    let first = drained(&router, CallContext::default(), json!({ "planId": plan_id })).await;
    assert_eq!(types(&first)[..2], ["plan.created", "plan.phase_changed"]);
    let none = drained(
        &router,
        CallContext::default(),
        json!({ "planId": only_drafted["id"] }),
    )
    .await;
    assert_eq!(none, vec![]);
}

async fn a_negative_cursor_is_invalid_params(backend: Backend) {
    let router = fresh(backend).await;
    let outcome = router
        .dispatch(CallContext::default(), METHOD, Some(json!({ "after": -1 })))
        .await;
    let Outcome::Single(result) = outcome else {
        panic!("a refused subscription is a single error");
    };
    let error = result.expect_err("refused");
    assert_eq!(error.code, -32602);
    assert_eq!(error.data.expect("data")[0]["reason"], "INVALID_PARAMS");
}

#[tokio::test]
async fn on_sqlite_the_events_and_their_cursors_survive_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let open = || {
        App::with_store(
            std::sync::Arc::new(
                store_sqlite::SqliteStore::open(&dir.path().join("store.db")).expect("sqlite app"),
            ),
            AppConfig::default(),
        )
    };
    let (plan_id, before) = {
        let router = Router::new(open());
        setup(&router, manual()).await;
        let (_, plan_id) = completed_plan(&router, "s1").await;
        let events = drained(&router, CallContext::default(), json!({ "planId": plan_id })).await;
        assert_eq!(types(&events), LIFECYCLE[1..]);
        (plan_id, events)
    };
    let router = Router::new(open());
    let after = drained(&router, CallContext::default(), json!({ "planId": plan_id })).await;
    assert_eq!(after, before);
    let cut = before[9].0.expect("cursor");
    let rest = drained(
        &router,
        CallContext::default(),
        json!({ "planId": plan_id, "after": cut }),
    )
    .await;
    assert_eq!(rest, before[10..].to_vec());
}

every_backend!(
    a_plan_lifecycle_reads_back_as_its_domain_events_in_order,
    types_select_exactly_the_matching_events,
    a_resumed_subscription_gets_the_rest_exactly_once,
    a_following_subscription_sees_new_events_as_they_are_committed,
    other_namespaces_events_are_not_delivered,
    a_negative_cursor_is_invalid_params,
    an_executed_plan_announces_itself_first,
);
