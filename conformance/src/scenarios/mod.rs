//! Scenarios: multi-step exchanges built from the schemas' examples, each one
//! case of group `scenarios`. They create the state they need (a task, a
//! webhook config, a registry entry) and check what single calls cannot: that
//! a later call sees what an earlier one did, stream order, and the exact
//! error of each error path.
//!
//! A scenario stops at its first failing step; its detail names that step.

use crate::check::{check_result, registry_error};
use crate::report::{observe, CaseResult, Outcome};
use crate::session::{unique, Session};
use crate::transport::{describe_error, Answer};
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::{ActorKind, Role, TaskState};
use a2a::{Contract, ErrorKind};
use serde_json::{json, Value};
use std::time::Instant;

type Step<T> = Result<T, String>;

const A2A: &str = Contract::A2a.error_domain();
const EXT: &str = Contract::Cleveragents.error_domain();

fn kind(domain: &str, reason: &str) -> Step<ErrorKind> {
    ErrorKind::from_reason(domain, reason).ok_or_else(|| format!("the registry lacks {reason}@{domain}"))
}

fn method(name: &str) -> Step<&'static a2a::MethodDescriptor> {
    a2a::find_method(name).ok_or_else(|| format!("the method table lacks {name}"))
}

/// Calls a unary method and requires a valid result.
async fn ok(session: &Session, name: &str, params: Value) -> Step<Value> {
    let d = method(name)?;
    match session.call(name, params).await {
        Answer::Result(v) => {
            check_result(d, &v)?;
            Ok(v)
        }
        other => Err(format!("{name}: expected a result, got {}", other.summary())),
    }
}

/// Calls a method and requires exactly the error `(domain, reason)`.
async fn err(session: &Session, name: &str, params: Value, domain: &str, reason: &str) -> Step<()> {
    let want = kind(domain, reason)?;
    match session.call(name, params).await {
        Answer::Error(e) => {
            let (_, got) = registry_error(&e).map_err(|why| format!("{name}: {why}"))?;
            if got == want {
                Ok(())
            } else {
                Err(format!(
                    "{name}: expected {} {reason}@{domain}, got {}",
                    want.code(),
                    describe_error(&e)
                ))
            }
        }
        other => Err(format!(
            "{name}: expected {} {reason}@{domain}, got {}",
            want.code(),
            other.summary()
        )),
    }
}

/// Calls a method and requires an error the method declares.
async fn declared_err(session: &Session, name: &str, params: Value) -> Step<ErrorKind> {
    let d = method(name)?;
    match session.call(name, params).await {
        Answer::Error(e) => {
            let (_, got) = registry_error(&e).map_err(|why| format!("{name}: {why}"))?;
            if d.errors.contains(&got) {
                Ok(got)
            } else {
                Err(format!(
                    "{name}: {} is not an error the method declares",
                    describe_error(&e)
                ))
            }
        }
        other => Err(format!("{name}: expected an error, got {}", other.summary())),
    }
}

fn text_message(text: &str) -> Value {
    json!({"messageId": unique("conformance-msg"), "role": Role::User, "parts": [{"text": text}]})
}

fn field<'a>(v: &'a Value, pointer: &str, what: &str) -> Step<&'a str> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{what}: no `{pointer}` in {v}"))
}

fn equal(what: &str, got: &Value, want: &Value) -> Step<()> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, expected {want}"))
    }
}

const TERMINAL: [TaskState; 4] = [
    TaskState::Completed,
    TaskState::Failed,
    TaskState::Canceled,
    TaskState::Rejected,
];
const INTERRUPTED: [TaskState; 2] = [TaskState::InputRequired, TaskState::AuthRequired];

/// True when the wire state is a terminal task state.
fn is_terminal(state: &str) -> bool {
    state.parse().is_ok_and(|state| TERMINAL.contains(&state))
}

/// True when the wire state interrupts a task (it waits for the caller).
fn is_interrupted(state: &str) -> bool {
    state.parse().is_ok_and(|state| INTERRUPTED.contains(&state))
}

/// Sends a message and returns the task it made (a `{message}` answer has none).
async fn new_task(session: &Session, text: &str) -> Step<Value> {
    let sent = ok(
        session,
        markers::SendMessage::NAME,
        json!({"message": text_message(text)}),
    )
    .await?;
    sent.get("task")
        .cloned()
        .ok_or_else(|| format!("SendMessage answered without a task: {sent}"))
}

async fn task_lifecycle(s: &Session) -> Step<String> {
    let task = new_task(s, "conformance: task lifecycle").await?;
    let id = field(&task, "/id", "SendMessage task")?.to_string();
    let context = field(&task, "/contextId", "SendMessage task")?.to_string();
    let got = ok(s, markers::GetTask::NAME, json!({"id": id})).await?;
    equal("GetTask id", &got["id"], &json!(id))?;
    equal("GetTask contextId", &got["contextId"], &json!(context))?;
    let listed = ok(s, markers::ListTasks::NAME, json!({"contextId": context})).await?;
    let tasks = listed["tasks"].as_array().cloned().unwrap_or_default();
    if !tasks.iter().any(|t| t["id"] == json!(id)) {
        return Err(format!("ListTasks by contextId does not list task {id}"));
    }
    if let Some(other) = tasks.iter().find(|t| t["contextId"] != json!(context)) {
        return Err(format!(
            "ListTasks by contextId lists a task of another context: {other}"
        ));
    }
    // The same context continues: a follow-up message keeps the contextId.
    let follow = ok(
        s,
        markers::SendMessage::NAME,
        json!({"message": {"messageId": unique("conformance-msg"), "role": Role::User, "contextId": context,
                           "parts": [{"text": "conformance: follow-up"}]}}),
    )
    .await?;
    let follow_context = follow
        .pointer("/task/contextId")
        .or_else(|| follow.pointer("/message/contextId"))
        .cloned()
        .unwrap_or(Value::Null);
    equal("follow-up contextId", &follow_context, &json!(context))?;
    let state = field(&got, "/status/state", markers::GetTask::NAME)?;
    if is_terminal(state) {
        err(
            s,
            markers::CancelTask::NAME,
            json!({"id": id}),
            A2A,
            "TASK_NOT_CANCELABLE",
        )
        .await?;
        declared_err(
            s,
            markers::SendMessage::NAME,
            json!({"message": {"messageId": unique("conformance-msg"), "role": Role::User, "taskId": id,
                               "parts": [{"text": "conformance: to a terminal task"}]}}),
        )
        .await?;
    } else {
        let canceled = ok(s, markers::CancelTask::NAME, json!({"id": id})).await?;
        equal(
            "CancelTask state",
            &canceled["status"]["state"],
            &json!(TaskState::Canceled),
        )?;
    }
    Ok(format!(
        "task reached {state}; get, list, follow-up and cancel rules hold"
    ))
}

async fn streaming_order(s: &Session) -> Step<String> {
    let d = method(markers::SendStreamingMessage::NAME)?;
    let answer = s
        .call(
            markers::SendStreamingMessage::NAME,
            json!({"message": text_message("conformance: streaming order")}),
        )
        .await;
    let Answer::Stream { events, error: None } = answer else {
        return Err(format!(
            "SendStreamingMessage: expected a stream, got {}",
            answer.summary()
        ));
    };
    let first = events.first().ok_or("the stream has no event")?;
    for (i, e) in events.iter().enumerate() {
        check_result(d, e).map_err(|why| format!("event {}: {why}", i + 1))?;
    }
    if first.get("message").is_some() {
        if events.len() != 1 {
            return Err("a stream that answers with a message carries only that message".into());
        }
        return Ok("a single message".into());
    }
    let task_id = field(first, "/task/id", "first event (must be the task)")?.to_string();
    let mut last_state = field(first, "/task/status/state", "first event")?.to_string();
    for (i, e) in events.iter().enumerate().skip(1) {
        if is_terminal(&last_state) {
            return Err(format!("event {} follows the terminal state {last_state}", i + 1));
        }
        let inner = e
            .get("statusUpdate")
            .or_else(|| e.get("artifactUpdate"))
            .or_else(|| e.get("task"))
            .ok_or_else(|| format!("event {} is neither a task nor an update: {e}", i + 1))?;
        let tid = inner.get("taskId").or_else(|| inner.get("id"));
        equal(
            &format!("event {} taskId", i + 1),
            tid.unwrap_or(&Value::Null),
            &json!(task_id),
        )?;
        if let Some(state) = e.pointer("/statusUpdate/status/state").and_then(Value::as_str) {
            last_state = state.to_string();
        }
    }
    if !is_terminal(&last_state) && !is_interrupted(&last_state) {
        return Err(format!("the stream ended in the non-final state {last_state}"));
    }
    let got = ok(s, markers::GetTask::NAME, json!({"id": task_id})).await?;
    equal(
        "GetTask after the stream",
        &got["status"]["state"],
        &json!(last_state),
    )?;
    Ok(format!(
        "{} events, task first, ending {last_state}",
        events.len()
    ))
}

async fn subscribe(s: &Session) -> Step<String> {
    let task = new_task(s, "conformance: subscribe").await?;
    let id = field(&task, "/id", "task")?.to_string();
    let state = field(&task, "/status/state", "task")?.to_string();
    if is_terminal(&state) {
        err(
            s,
            markers::SubscribeToTask::NAME,
            json!({"id": id}),
            A2A,
            "UNSUPPORTED_OPERATION",
        )
        .await?;
    }
    err(
        s,
        markers::SubscribeToTask::NAME,
        json!({"id": unique("conformance-missing")}),
        A2A,
        "TASK_NOT_FOUND",
    )
    .await?;
    Ok(format!(
        "a {state} task refuses subscription; an unknown one is not found"
    ))
}

/// Over a binding that resumes streams (HTTP SSE `Last-Event-ID`): a stream's
/// events carry ids, and subscribing to the (now finished) task after one of
/// them replays exactly the events that followed it, with the same ids.
/// Bindings without resumption (stdio: a new session subscribes afresh) pass
/// with a note.
async fn resume(s: &Session) -> Step<String> {
    let params = json!({"message": text_message("conformance: resume")});
    let (text, id) = s.request(markers::SendStreamingMessage::NAME, Some(&params));
    let Some((answer, ids)) = s.transport.exchange_resumable(text, id, None).await else {
        return Ok(format!(
            "the {} binding has no stream resumption",
            s.transport.kind()
        ));
    };
    let Answer::Stream { events, error: None } = answer else {
        return Err(format!(
            "SendStreamingMessage: expected a stream, got {}",
            answer.summary()
        ));
    };
    if events.len() < 2 {
        return Ok(format!(
            "a stream of {} event(s) leaves nothing to resume",
            events.len()
        ));
    }
    if ids.iter().any(String::is_empty) {
        return Err(format!("every SSE event carries an id: {ids:?}"));
    }
    let task_id = field(&events[0], "/task/id", "first event")?.to_string();
    let params = json!({"id": task_id});
    let (text, id) = s.request(markers::SubscribeToTask::NAME, Some(&params));
    let resumed = s
        .transport
        .exchange_resumable(text, id, Some(ids[0].clone()))
        .await;
    let Some((
        Answer::Stream {
            events: replayed,
            error: None,
        },
        replayed_ids,
    )) = resumed
    else {
        let got = resumed.map(|(a, _)| a.summary()).unwrap_or_default();
        return Err(format!(
            "SubscribeToTask after event {}: expected a stream, got {got}",
            ids[0]
        ));
    };
    equal(
        "events replayed after the first",
        &json!(replayed),
        &json!(events[1..]),
    )?;
    equal(
        "ids of the replayed events",
        &json!(replayed_ids),
        &json!(ids[1..]),
    )?;
    let last = ids.last().cloned().unwrap_or_default();
    let (text, id) = s.request(markers::SubscribeToTask::NAME, Some(&params));
    match s.transport.exchange_resumable(text, id, Some(last.clone())).await {
        Some((Answer::Stream { events, error: None }, _)) if events.is_empty() => {}
        other => {
            let got = other.map(|(a, _)| a.summary()).unwrap_or_default();
            return Err(format!(
                "SubscribeToTask after the last event {last}: expected an empty stream, got {got}"
            ));
        }
    }
    Ok(format!(
        "{} events; resuming after {} replays the other {}",
        events.len(),
        ids[0],
        replayed.len()
    ))
}

async fn push_config_crud(s: &Session) -> Step<String> {
    let task = new_task(s, "conformance: push config").await?;
    let task_id = field(&task, "/id", "task")?.to_string();
    let created = ok(
        s,
        markers::CreateTaskPushNotificationConfig::NAME,
        json!({"taskId": task_id, "url": "https://push.example.com/conformance", "token": "conformance-token"}),
    )
    .await?;
    let config_id = field(&created, "/id", "created config")?.to_string();
    equal("created taskId", &created["taskId"], &json!(task_id))?;
    let got = ok(
        s,
        markers::GetTaskPushNotificationConfig::NAME,
        json!({"taskId": task_id, "id": config_id}),
    )
    .await?;
    equal(markers::GetTaskPushNotificationConfig::NAME, &got, &created)?;
    let listed = ok(
        s,
        markers::ListTaskPushNotificationConfigs::NAME,
        json!({"taskId": task_id}),
    )
    .await?;
    let configs = listed["configs"].as_array().cloned().unwrap_or_default();
    if !configs.iter().any(|c| c["id"] == json!(config_id)) {
        return Err(format!(
            "ListTaskPushNotificationConfigs does not list {config_id}"
        ));
    }
    let deleted = ok(
        s,
        markers::DeleteTaskPushNotificationConfig::NAME,
        json!({"taskId": task_id, "id": config_id}),
    )
    .await?;
    equal(
        markers::DeleteTaskPushNotificationConfig::NAME,
        &deleted,
        &json!({}),
    )?;
    let after = declared_err(
        s,
        markers::GetTaskPushNotificationConfig::NAME,
        json!({"taskId": task_id, "id": config_id}),
    )
    .await?;
    err(
        s,
        markers::CreateTaskPushNotificationConfig::NAME,
        json!({"taskId": unique("conformance-missing"), "url": "https://push.example.com/x"}),
        A2A,
        "TASK_NOT_FOUND",
    )
    .await?;
    Ok(format!(
        "create, get, list, delete; a deleted config answers {}",
        after.reason()
    ))
}

async fn registry_crud(s: &Session) -> Step<String> {
    let p = "_cleveragents/registry/actors";
    let name = unique("conformance-actor");
    let actor = json!({"name": name, "kind": ActorKind::Agent, "description": "conformance actor",
                       "instructions": "Say hello."});
    let added = ok(s, &format!("{p}/add"), json!({"actor": actor})).await?;
    equal("added version", &added["version"], &json!(1))?;
    let shown = ok(s, &format!("{p}/show"), json!({"name": name})).await?;
    equal("show after add", &shown, &added)?;
    err(
        s,
        &format!("{p}/add"),
        json!({"actor": actor}),
        EXT,
        "ALREADY_EXISTS",
    )
    .await?;
    let mut changed = actor.clone();
    changed["instructions"] = json!("Say goodbye.");
    let updated = ok(
        s,
        &format!("{p}/update"),
        json!({"expectedVersion": 1, "actor": changed}),
    )
    .await?;
    equal("updated version", &updated["version"], &json!(2))?;
    equal(
        "updated instructions",
        &updated["instructions"],
        &json!("Say goodbye."),
    )?;
    err(
        s,
        &format!("{p}/update"),
        json!({"expectedVersion": 1, "actor": changed}),
        EXT,
        "INVALID_STATE",
    )
    .await?;
    let mut found = false;
    let mut cursor: Option<String> = None;
    // Pages are bounded: the list is walked at most 100 pages deep.
    for _ in 0..100 {
        let mut params = json!({"limit": 50});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let page = ok(s, &format!("{p}/list"), params).await?;
        found |= page["items"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|a| a["name"] == json!(name));
        cursor = page["nextCursor"]
            .as_str()
            .filter(|c| !c.is_empty())
            .map(str::to_string);
        if found || cursor.is_none() {
            break;
        }
    }
    if !found {
        return Err(format!("{p}/list does not list {name}"));
    }
    let removed = ok(
        s,
        &format!("{p}/remove"),
        json!({"name": name, "expectedVersion": 2}),
    )
    .await?;
    equal("removedVersion", &removed["removedVersion"], &json!(2))?;
    err(s, &format!("{p}/show"), json!({"name": name}), EXT, "NOT_FOUND").await?;
    Ok("add, show, duplicate, update, stale update, list, remove, show".into())
}

async fn error_paths(s: &Session) -> Step<String> {
    let missing = unique("conformance-missing");
    err(
        s,
        markers::GetTask::NAME,
        json!({"id": missing}),
        A2A,
        "TASK_NOT_FOUND",
    )
    .await?;
    err(
        s,
        markers::CancelTask::NAME,
        json!({"id": missing}),
        A2A,
        "TASK_NOT_FOUND",
    )
    .await?;
    err(
        s,
        markers::ListTaskPushNotificationConfigs::NAME,
        json!({"taskId": missing}),
        A2A,
        "TASK_NOT_FOUND",
    )
    .await?;
    err(
        s,
        markers::RegistryToolsShow::NAME,
        json!({"name": missing}),
        EXT,
        "NOT_FOUND",
    )
    .await?;
    err(
        s,
        markers::RegistryToolsRemove::NAME,
        json!({"name": missing, "expectedVersion": 1}),
        EXT,
        "NOT_FOUND",
    )
    .await?;
    Ok("unknown tasks and entities are not found, with exact codes".into())
}

async fn plan_errors(s: &Session) -> Step<String> {
    let missing = unique("conformance-missing");
    err(
        s,
        markers::PlanStatus::NAME,
        json!({"planId": missing}),
        EXT,
        "NOT_FOUND",
    )
    .await?;
    err(
        s,
        markers::PlanCancel::NAME,
        json!({"planId": missing}),
        EXT,
        "NOT_FOUND",
    )
    .await?;
    Ok("an unknown plan is not found".into())
}

/// Runs every scenario on one session.
pub async fn run_all(session: &Session) -> Vec<CaseResult> {
    let mut results = Vec::new();
    macro_rules! scenario {
        ($id:literal, $f:expr) => {{
            let t0 = Instant::now();
            let verdict: Step<String> = $f.await;
            let (outcome, detail) = match verdict {
                Ok(note) => (Outcome::Pass, note),
                Err(why) => (Outcome::Fail, why),
            };
            results.push(CaseResult::new(
                concat!("scenarios/", $id),
                "scenarios",
                None,
                outcome,
                detail.clone(),
                observe(&Answer::Result(json!({"outcome": detail}))),
                t0.elapsed().as_millis() as u64,
            ));
        }};
    }
    scenario!("task-lifecycle", task_lifecycle(session));
    scenario!("streaming-order", streaming_order(session));
    scenario!("subscribe", subscribe(session));
    scenario!("subscribe-resume", resume(session));
    scenario!("push-config-crud", push_config_crud(session));
    scenario!("registry-crud", registry_crud(session));
    scenario!("error-paths", error_paths(session));
    scenario!("plan-errors", plan_errors(session));
    results
}
