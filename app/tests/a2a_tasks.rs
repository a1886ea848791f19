//! A2A task semantics end to end through the generated router: wire values and
//! error codes of send/get/list/cancel/subscribe, push delivery, isolation and
//! durability.

use a2a::rpc::{Access, CallContext, Event, Outcome, Principal};
use a2a::Router;
use app::executor::{ExecRequest, Executor, Start, TaskHandle};
use app::{App, AppConfig, ExecutorKind};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::Notify;

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

async fn stream(
    router: &Router<App>,
    ctx: &CallContext,
    method: &str,
    params: Value,
) -> Result<Vec<Event<Value>>, a2a::Error> {
    match router.dispatch(ctx.clone(), method, Some(params)).await {
        Outcome::Single(r) => Err(r
            .err()
            .unwrap_or_else(|| a2a::Error::new(a2a::ErrorKind::InternalError, "not a stream"))),
        Outcome::Stream(s) => {
            let items: Vec<_> = s.take(50).collect().await;
            items
                .into_iter()
                .map(|item| {
                    item.map(|e| Event {
                        seq: e.seq,
                        data: e.json(),
                    })
                })
                .collect()
        }
    }
}

fn msg(id: &str, text: &str) -> Value {
    json!({ "messageId": id, "role": "ROLE_USER", "parts": [{ "text": text }] })
}

/// Waits for a signal before working and completing, so tests see a live task.
struct Gated(Arc<Notify>);

impl Executor for Gated {
    fn start(&self, _r: &ExecRequest) -> Result<Start, a2a::Error> {
        Ok(Start::Task)
    }
    fn run(&self, _r: ExecRequest, task: TaskHandle) -> a2a::rpc::BoxFuture<'static, ()> {
        let gate = self.0.clone();
        Box::pin(async move {
            // Wait before the first update, so subscribers that join while the task
            // is submitted all see every update as an event (none in a snapshot).
            gate.notified().await;
            let _ = task.status(a2a::types::TaskState::Working, None).await;
            let _ = task.status(a2a::types::TaskState::Completed, Some("done")).await;
        })
    }
}

fn gated() -> (Router<App>, Arc<Notify>) {
    let gate = Arc::new(Notify::new());
    let app = App::with_executor(
        Arc::new(app::store::MemoryStore::new()),
        AppConfig::default(),
        Arc::new(Gated(gate.clone())),
    );
    (Router::new(app), gate)
}

fn code(r: Result<Value, a2a::Error>) -> i64 {
    r.err().map(|e| e.code).unwrap_or(0)
}

#[tokio::test]
async fn blocking_send_returns_the_completed_task() {
    let router = Router::new(App::in_memory());
    let result = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("m1", "hi") }),
    )
    .await
    .expect("send");
    let task = &result["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["status"]["message"]["parts"][0]["text"], "Received: hi");
    assert_eq!(task["status"]["message"]["role"], "ROLE_AGENT");
    assert_eq!(task["history"][0]["messageId"], "m1");
    assert_eq!(task["history"][0]["taskId"], task["id"]);
    assert_eq!(task["history"][0]["contextId"], task["contextId"]);
    // historyLength 0 omits the history entirely.
    let got = call(
        &router,
        &local(),
        "GetTask",
        json!({ "id": task["id"], "historyLength": 0 }),
    )
    .await
    .expect("get");
    assert!(got.get("history").is_none());
    assert_eq!(
        code(
            call(
                &router,
                &local(),
                "GetTask",
                json!({ "id": task["id"], "historyLength": -1 })
            )
            .await
        ),
        -32602
    );
}

#[tokio::test]
async fn fields_the_schema_does_not_name_are_ignored_and_never_stored() {
    let router = Router::new(App::in_memory());
    let mut message = msg("m-extra", "hi");
    message["futureField"] = json!("ignored");
    message["parts"][0]["kind"] = json!("text");
    let result = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": message, "futureParam": 42, "configuration": {"later": true} }),
    )
    .await
    .expect("a request with unknown fields is served");
    let task = &result["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["history"][0]["parts"][0], json!({"text": "hi"}));
    assert!(task["history"][0].get("futureField").is_none());
    // Enums, required fields and the content one-of stay strict.
    let mut wrong_role = msg("m-role", "hi");
    wrong_role["role"] = json!("ROLE_LATER");
    let refused = call(&router, &local(), "SendMessage", json!({ "message": wrong_role })).await;
    assert_eq!(code(refused), -32602);
    let mut two_contents = msg("m-two", "hi");
    two_contents["parts"][0]["url"] = json!("https://example.com/a");
    let refused = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": two_contents }),
    )
    .await;
    assert_eq!(code(refused), -32602);
}

#[tokio::test]
async fn terminal_and_unknown_tasks_are_refused() {
    let router = Router::new(App::in_memory());
    let done = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("m1", "hi") }),
    )
    .await
    .expect("send");
    let id = done["task"]["id"].clone();
    let mut again = msg("m2", "more");
    again["taskId"] = id.clone();
    let err = call(&router, &local(), "SendMessage", json!({ "message": again }))
        .await
        .expect_err("refused");
    assert_eq!(
        (err.code, err.domain_reason()),
        (-32004, Some(("a2a-protocol.org", "UNSUPPORTED_OPERATION")))
    );
    let mut unknown = msg("m3", "x");
    unknown["taskId"] = json!("no-such-task");
    assert_eq!(
        code(call(&router, &local(), "SendMessage", json!({ "message": unknown })).await),
        -32001
    );
    assert_eq!(
        code(call(&router, &local(), "CancelTask", json!({ "id": id })).await),
        -32002
    );
    let sub = stream(&router, &local(), "SubscribeToTask", json!({ "id": id })).await;
    assert_eq!(sub.err().map(|e| e.code), Some(-32004));
    assert_eq!(
        code(call(&router, &local(), "GetTask", json!({ "id": "nope" })).await),
        -32001
    );
}

#[tokio::test]
async fn context_rules_hold() {
    let (router, gate) = gated();
    let mut first = msg("m1", "a");
    first["contextId"] = json!("ctx-1");
    let sent = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": first, "configuration": { "returnImmediately": true } }),
    )
    .await
    .expect("send");
    assert_eq!(sent["task"]["contextId"], "ctx-1");
    let mut wrong = msg("m2", "b");
    wrong["taskId"] = sent["task"]["id"].clone();
    wrong["contextId"] = json!("other");
    assert_eq!(
        code(call(&router, &local(), "SendMessage", json!({ "message": wrong })).await),
        -32602
    );
    gate.notify_one();
}

#[tokio::test]
async fn return_immediately_then_cancel() {
    let (router, _gate) = gated();
    let sent = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("m1", "a"), "configuration": { "return_immediately": true } }),
    )
    .await
    .expect("send");
    let state = sent["task"]["status"]["state"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        state == "TASK_STATE_SUBMITTED" || state == "TASK_STATE_WORKING",
        "{state}"
    );
    let canceled = call(
        &router,
        &local(),
        "CancelTask",
        json!({ "id": sent["task"]["id"] }),
    )
    .await
    .expect("cancel");
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
    assert_eq!(
        code(
            call(
                &router,
                &local(),
                "CancelTask",
                json!({ "id": sent["task"]["id"] })
            )
            .await
        ),
        -32002
    );
}

#[tokio::test]
async fn list_tasks_paginates_newest_first_with_filters() {
    let router = Router::new(App::in_memory());
    let mut ids = vec![];
    for i in 0..5 {
        let mut m = msg(&format!("m{i}"), "x");
        m["contextId"] = json!(if i % 2 == 0 { "even" } else { "odd" });
        let sent = call(&router, &local(), "SendMessage", json!({ "message": m }))
            .await
            .expect("send");
        ids.push(sent["task"]["id"].clone());
    }
    let page = call(&router, &local(), "ListTasks", json!({ "pageSize": 2 }))
        .await
        .expect("list");
    assert_eq!(page["tasks"].as_array().map(Vec::len), Some(2));
    assert_eq!(page["tasks"][0]["id"], ids[4]);
    assert_eq!(page["tasks"][1]["id"], ids[3]);
    assert_eq!(
        (page["pageSize"].clone(), page["totalSize"].clone()),
        (json!(2), json!(5))
    );
    assert!(page["tasks"][0].get("artifacts").is_none());
    let next = call(
        &router,
        &local(),
        "ListTasks",
        json!({ "pageSize": 2, "pageToken": page["nextPageToken"] }),
    )
    .await
    .expect("list");
    assert_eq!(next["tasks"][0]["id"], ids[2]);
    let last = call(
        &router,
        &local(),
        "ListTasks",
        json!({ "pageSize": 2, "pageToken": next["nextPageToken"] }),
    )
    .await
    .expect("list");
    assert_eq!(last["tasks"][0]["id"], ids[0]);
    assert_eq!(last["nextPageToken"], "");
    let odd = call(&router, &local(), "ListTasks", json!({ "contextId": "odd" }))
        .await
        .expect("list");
    assert_eq!(odd["totalSize"], 2);
    let working = call(
        &router,
        &local(),
        "ListTasks",
        json!({ "status": "TASK_STATE_WORKING" }),
    )
    .await
    .expect("list");
    assert_eq!(working["totalSize"], 0);
    let future = call(
        &router,
        &local(),
        "ListTasks",
        json!({ "statusTimestampAfter": "2999-01-01T00:00:00Z" }),
    )
    .await
    .expect("list");
    assert_eq!(future["totalSize"], 0);
    for bad in [
        json!({ "pageSize": 0 }),
        json!({ "pageSize": 101 }),
        json!({ "pageToken": "zzz" }),
        // Tokens are ranks, which start at 1: no page starts before 0.
        json!({ "pageToken": "0" }),
        json!({ "pageToken": "-3" }),
        json!({ "statusTimestampAfter": "soon" }),
    ] {
        assert_eq!(code(call(&router, &local(), "ListTasks", bad).await), -32602);
    }
}

#[tokio::test]
async fn subscribers_see_the_same_events_in_order_and_can_resume() {
    let (router, gate) = gated();
    let sent = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("m1", "a"), "configuration": { "returnImmediately": true } }),
    )
    .await
    .expect("send");
    let id = sent["task"]["id"].clone();
    let mut subs = vec![];
    for _ in 0..3 {
        match router
            .dispatch(local(), "SubscribeToTask", Some(json!({ "id": id })))
            .await
        {
            Outcome::Stream(s) => subs.push(s),
            Outcome::Single(r) => panic!("expected a stream: {r:?}"),
        }
    }
    gate.notify_one();
    let mut seen = vec![];
    for s in subs {
        let events: Vec<_> = s.take(10).collect().await;
        let events: Vec<Event<Value>> = events
            .into_iter()
            .map(|item| {
                item.map(|e| Event {
                    seq: e.seq,
                    data: e.json(),
                })
            })
            .collect::<Result<_, _>>()
            .expect("events");
        assert!(events[0].data.get("task").is_some(), "first event is the Task");
        let last = events
            .last()
            .map(|e| e.data["statusUpdate"]["status"]["state"].clone());
        assert_eq!(last, Some(json!("TASK_STATE_COMPLETED")));
        let seqs: Vec<u64> = events.iter().skip(1).filter_map(|e| e.seq).collect();
        assert!(seqs.windows(2).all(|w| w[0] + 1 == w[1]), "{seqs:?}");
        seen.push(events.iter().skip(1).map(|e| e.data.clone()).collect::<Vec<_>>());
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
    // Resume after seq 1 (the creation event) replays the rest, even though
    // the task is now terminal.
    let ctx = CallContext {
        resume_after: Some(1),
        ..local()
    };
    let replay = stream(&router, &ctx, "SubscribeToTask", json!({ "id": id }))
        .await
        .expect("resume");
    let seqs: Vec<Option<u64>> = replay.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, vec![Some(2), Some(3)]);
    assert_eq!(
        replay[0].data["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
}

#[tokio::test]
async fn namespaces_are_isolated() {
    let router = Router::new(App::in_memory());
    let alice = CallContext {
        principal: Some(Principal {
            subject: "alice".into(),
            namespaces: [("a".to_string(), Access::Writer)].into(),
        }),
        ..local()
    };
    let bob = CallContext {
        principal: Some(Principal {
            subject: "bob".into(),
            namespaces: [("b".to_string(), Access::Writer)].into(),
        }),
        ..local()
    };
    let sent = call(
        &router,
        &alice,
        "SendMessage",
        json!({ "tenant": "a", "message": msg("m1", "x") }),
    )
    .await
    .expect("send");
    let id = sent["task"]["id"].clone();
    assert_eq!(
        code(call(&router, &bob, "GetTask", json!({ "tenant": "a", "id": id })).await),
        -32001
    );
    assert_eq!(
        code(call(&router, &bob, "GetTask", json!({ "tenant": "b", "id": id })).await),
        -32001
    );
    assert_eq!(
        code(call(&router, &bob, "CancelTask", json!({ "tenant": "a", "id": id })).await),
        -32001
    );
    // A namespace the caller holds no role in does not exist for it: listing it
    // is "not found", as over HTTP; its own namespace lists none of a's tasks.
    assert_eq!(
        code(call(&router, &bob, "ListTasks", json!({ "tenant": "a" })).await),
        -32001
    );
    let listed = call(&router, &bob, "ListTasks", json!({ "tenant": "b" }))
        .await
        .expect("list");
    assert_eq!(listed["totalSize"], 0);
    assert!(
        call(&router, &alice, "GetTask", json!({ "tenant": "a", "id": id }))
            .await
            .is_ok()
    );
}

/// The router of an application with the suites' executor, in memory.
fn tck_router() -> Router<App> {
    Router::new(App::with_store(
        std::sync::Arc::new(app::store::MemoryStore::new()),
        AppConfig {
            executor: ExecutorKind::Tck,
            ..Default::default()
        },
    ))
}

#[tokio::test]
async fn tck_executor_scenarios() {
    let router = tck_router();
    let reply = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("tck-message-response-1", "x") }),
    )
    .await
    .expect("send");
    assert_eq!(reply["message"]["parts"][0]["text"], "Direct message response");
    let input = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("tck-input-required-1", "x") }),
    )
    .await
    .expect("send");
    assert_eq!(input["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let done = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("tck-complete-task-1", "x") }),
    )
    .await
    .expect("send");
    assert_eq!(
        done["task"]["status"]["message"]["parts"][0]["text"],
        "Hello from TCK"
    );
    let events = stream(
        &router,
        &local(),
        "SendStreamingMessage",
        json!({ "message": msg("tck-stream-artifact-chunked-1", "x") }),
    )
    .await
    .expect("stream");
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|e| {
            e.data
                .as_object()
                .and_then(|o| o.keys().next())
                .map(String::as_str)
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "task",
            "statusUpdate",
            "artifactUpdate",
            "artifactUpdate",
            "statusUpdate"
        ]
    );
    assert_eq!(events[3].data["artifactUpdate"]["append"], true);
    assert_eq!(events[3].data["artifactUpdate"]["lastChunk"], true);
    assert_eq!(
        events.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![Some(1), Some(2), Some(3), Some(4), Some(5)]
    );
}

/// A message naming no suite behaviour gets the default executor's answer
/// from the suites' executor: the echo, not the TCK's greeting.
#[tokio::test]
async fn tck_executor_leaves_other_messages_to_the_default_executor() {
    let router = tck_router();
    let plain = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("m-1", "hello") }),
    )
    .await
    .expect("send");
    assert_eq!(plain["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        plain["task"]["status"]["message"]["parts"][0]["text"],
        "Received: hello"
    );
    // A behaviour named by the text (as ACTS names it) is still the suite's.
    let named = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("m-2", "tck-input-required please") }),
    )
    .await
    .expect("send");
    assert_eq!(named["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
}

/// A part naming a media type outside the agent's input modes is refused with
/// ContentTypeNotSupportedError (-32005) and nothing is stored; a part naming
/// an accepted one, or none, is taken.
#[tokio::test]
async fn a_part_of_a_media_type_the_agent_does_not_take_is_refused() {
    let app = App::with_store(
        std::sync::Arc::new(app::store::MemoryStore::new()),
        AppConfig {
            input_modes: app::tasks::InputModes::new(["text/plain", "application/json", "image/*"]),
            ..Default::default()
        },
    );
    let router = Router::new(app);
    let part = |media: &str| json!({ "text": "x", "mediaType": media });
    for method in ["SendMessage", "SendStreamingMessage"] {
        let mut message = msg("bad-media", "x");
        message["parts"] = json!([part("text/plain"), part("application/x-unsupported-type-12345")]);
        let error = match router
            .dispatch(local(), method, Some(json!({ "message": message })))
            .await
        {
            Outcome::Single(reply) => reply.expect_err("refused"),
            Outcome::Stream(_) => panic!("{method}: a stream, not a refusal"),
        };
        assert_eq!(error.code, -32005, "{method}");
        assert_eq!(
            error.data.as_ref().unwrap()[0]["reason"],
            "CONTENT_TYPE_NOT_SUPPORTED"
        );
        assert_eq!(
            error.message,
            "message.parts[1].mediaType `application/x-unsupported-type-12345` is not accepted by this agent (it accepts text/plain, application/json, image/*)"
        );
    }
    // The ACTS corpus names the type in the part's metadata.
    let mut message = msg("bad-media-metadata", "x");
    message["parts"] = json!([{ "data": { "value": "unsupported" },
                                "metadata": { "contentType": "application/x-unsupported-type-12345" } }]);
    let error = call(&router, &local(), "SendMessage", json!({ "message": message }))
        .await
        .expect_err("refused");
    assert_eq!(error.code, -32005);
    assert_eq!(
        error.message,
        "message.parts[0].metadata.contentType `application/x-unsupported-type-12345` is not accepted by this agent (it accepts text/plain, application/json, image/*)"
    );
    let listed = call(&router, &local(), "ListTasks", json!({}))
        .await
        .expect("list");
    assert_eq!(listed["totalSize"], 0, "nothing stored");
    let mut message = msg("good-media", "x");
    message["parts"] = json!([
        part("TEXT/PLAIN; charset=utf-8"),
        part("image/png"),
        { "data": { "a": 1 } }
    ]);
    let sent = call(&router, &local(), "SendMessage", json!({ "message": message }))
        .await
        .expect("accepted");
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}

/// A task's history reads in the order the messages were sent: each of the
/// agent's questions before the reply that answers it, and each once, while
/// the question stays the status's message until the next status.
#[tokio::test]
async fn a_continued_tasks_history_is_in_the_order_sent() {
    let router = tck_router();
    let opened = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("tck-multi-turn-1", "tck-multi-turn first") }),
    )
    .await
    .expect("send");
    let id = opened["task"]["id"].as_str().expect("id").to_string();
    let mut questions = vec![opened["task"]["status"]["message"]["messageId"].clone()];
    for (n, text) in [(2, "second"), (3, "done")] {
        let mut reply = msg(&format!("reply-{n}"), text);
        reply["taskId"] = json!(id);
        let replied = call(&router, &local(), "SendMessage", json!({ "message": reply }))
            .await
            .expect("reply");
        questions.push(replied["task"]["status"]["message"]["messageId"].clone());
    }
    let task = call(&router, &local(), "GetTask", json!({ "id": id }))
        .await
        .expect("get");
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    let ids: Vec<Value> = task["history"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["messageId"].clone())
        .collect();
    assert_eq!(
        ids,
        vec![
            json!("tck-multi-turn-1"),
            questions[0].clone(),
            json!("reply-2"),
            questions[1].clone(),
            json!("reply-3"),
        ]
    );
    assert_eq!(task["status"]["message"]["messageId"], questions[2]);
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "Conversation complete"
    );
}

/// The v0.3 a2a-tck numbers its messages `<purpose>-message-id-<uuid>` and
/// expects the task to stay open: continued, read with its history, cancelled.
#[tokio::test]
async fn tck_executor_keeps_a_task_the_0_3_tck_opens_waiting_for_input() {
    let router = tck_router();
    let opened = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("test-history-create-message-id-4d1c", "Initial message for history test") }),
    )
    .await
    .expect("send");
    assert_eq!(opened["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let id = opened["task"]["id"].as_str().expect("id").to_string();
    for n in 1..=3 {
        let mut follow_up = msg(&format!("test-history-message-{n}-9a7e"), "Follow-up");
        follow_up["taskId"] = json!(id);
        let continued = call(&router, &local(), "SendMessage", json!({ "message": follow_up }))
            .await
            .expect("continue");
        assert_eq!(continued["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    }
    let read = call(
        &router,
        &local(),
        "GetTask",
        json!({ "id": id, "historyLength": 2 }),
    )
    .await
    .expect("get");
    assert_eq!(read["history"].as_array().map(Vec::len), Some(2));
    let cancelled = call(&router, &local(), "CancelTask", json!({ "id": id }))
        .await
        .expect("cancel");
    assert_eq!(cancelled["status"]["state"], "TASK_STATE_CANCELED");
    // A message numbered otherwise still completes at once, as the 1.0 TCK expects.
    let plain = call(
        &router,
        &local(),
        "SendMessage",
        json!({ "message": msg("m-1", "x") }),
    )
    .await
    .expect("send");
    assert_eq!(plain["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn tasks_survive_a_restart_on_sqlite() {
    let dir = tempfile::tempdir().expect("dir");
    let id = {
        let app = App::with_store(
            std::sync::Arc::new(store_sqlite::SqliteStore::open(&dir.path().join("store.db")).expect("open")),
            AppConfig::default(),
        );
        let router = Router::new(app);
        let sent = call(
            &router,
            &local(),
            "SendMessage",
            json!({ "message": msg("m1", "keep me") }),
        )
        .await
        .expect("send");
        sent["task"]["id"].clone()
    };
    let app = App::with_store(
        std::sync::Arc::new(store_sqlite::SqliteStore::open(&dir.path().join("store.db")).expect("reopen")),
        AppConfig::default(),
    );
    let router = Router::new(app);
    let got = call(&router, &local(), "GetTask", json!({ "id": id }))
        .await
        .expect("get");
    assert_eq!(got["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(got["history"][0]["parts"][0]["text"], "keep me");
}
