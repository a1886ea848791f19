//! Scenarios of the A2A task operations: a task's lifecycle over get, list,
//! follow-up and cancel; the order of a stream; subscribing; resuming a stream
//! (a rule of this project's HTTP binding); and the not-found error paths.
//! Where the card does not declare streaming, the streaming scenarios check
//! that the methods answer the "not supported" error instead.

use super::steps::{equal, field, is_interrupted, is_terminal, text_message, Step, Steps};
use crate::check::check_result;
use crate::session::unique;
use crate::transport::Answer;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::{Role, TaskState};
use a2a::{capabilities, ErrorKind};
use serde_json::{json, Value};

pub async fn task_lifecycle(s: &mut Steps<'_>) -> Step<String> {
    let task = s.new_task("conformance: task lifecycle").await?;
    let id = field(&task, "/id", "SendMessage task")?.to_string();
    let context = field(&task, "/contextId", "SendMessage task")?.to_string();
    let got = s.ok(markers::GetTask::NAME, json!({"id": id})).await?;
    equal("GetTask id", &got["id"], &json!(id))?;
    equal("GetTask contextId", &got["contextId"], &json!(context))?;
    let listed = s
        .ok(markers::ListTasks::NAME, json!({"contextId": context}))
        .await?;
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
    let follow = s
        .ok(
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
        s.err(
            markers::CancelTask::NAME,
            json!({"id": id}),
            ErrorKind::TaskNotCancelable,
        )
        .await?;
        s.declared_err(
            markers::SendMessage::NAME,
            json!({"message": {"messageId": unique("conformance-msg"), "role": Role::User, "taskId": id,
                               "parts": [{"text": "conformance: to a terminal task"}]}}),
        )
        .await?;
    } else {
        let canceled = s.ok(markers::CancelTask::NAME, json!({"id": id})).await?;
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

pub async fn streaming_order(s: &mut Steps<'_>) -> Step<String> {
    let name = markers::SendStreamingMessage::NAME;
    let params = json!({"message": text_message("conformance: streaming order")});
    if !s.offers(capabilities::STREAMING) {
        return streaming_refused(s, name, params).await;
    }
    let answer = s.session.call(name, params).await;
    let Answer::Stream { events, error: None } = answer else {
        return Err(format!("{name}: expected a stream, got {}", answer.summary()));
    };
    let last_state = stream_order(&events)?;
    let Some(last_state) = last_state else {
        return Ok("a single message".into());
    };
    let task_id = field(&events[0], "/task/id", "first event")?.to_string();
    let got = s.ok(markers::GetTask::NAME, json!({"id": task_id})).await?;
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

/// Streaming not declared: streaming method `name` answers the capability's error.
async fn streaming_refused(s: &mut Steps<'_>, name: &str, params: Value) -> Step<String> {
    let kind = s.unsupported(name, params).await?;
    Ok(format!(
        "streaming is not declared: {name} answers {}",
        kind.reason()
    ))
}

/// Checks a stream's events (§3.1.2): each valid; a message alone, or the task
/// first, then updates of that task, nothing after a terminal state, and a
/// final (terminal or interrupted) state at the end — which it returns (`None`
/// for a message).
fn stream_order(events: &[Value]) -> Step<Option<String>> {
    let d = markers::SendStreamingMessage::descriptor();
    let first = events.first().ok_or("the stream has no event")?;
    for (i, e) in events.iter().enumerate() {
        check_result(d, e).map_err(|why| format!("event {}: {why}", i + 1))?;
    }
    if first.get("message").is_some() {
        if events.len() != 1 {
            return Err("a stream that answers with a message carries only that message".into());
        }
        return Ok(None);
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
    Ok(Some(last_state))
}

pub async fn subscribe(s: &mut Steps<'_>) -> Step<String> {
    let name = markers::SubscribeToTask::NAME;
    let task = s.new_task("conformance: subscribe").await?;
    let id = field(&task, "/id", "task")?.to_string();
    if !s.offers(capabilities::STREAMING) {
        return streaming_refused(s, name, json!({"id": id})).await;
    }
    let state = field(&task, "/status/state", "task")?.to_string();
    if is_terminal(&state) {
        s.err(name, json!({"id": id}), ErrorKind::UnsupportedOperation)
            .await?;
    }
    s.err(
        name,
        json!({"id": unique("conformance-missing")}),
        ErrorKind::TaskNotFound,
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
/// with a note. The specification asks for neither: this is the project's rule.
pub async fn resume(s: &mut Steps<'_>) -> Step<String> {
    if !s.offers(capabilities::STREAMING) {
        return Ok("streaming is not declared: no stream to resume".into());
    }
    let session = s.session;
    let params = json!({"message": text_message("conformance: resume")});
    let (text, id) = session.request(markers::SendStreamingMessage::NAME, Some(&params));
    let Some((answer, ids)) = session.transport.exchange_resumable(text, id, None).await else {
        return Ok(format!(
            "the {} binding has no stream resumption",
            session.transport.kind()
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
    let subscribe = |after: String| {
        let (text, id) = session.request(markers::SubscribeToTask::NAME, Some(&params));
        session.transport.exchange_resumable(text, id, Some(after))
    };
    let resumed = subscribe(ids[0].clone()).await;
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
    match subscribe(last.clone()).await {
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

/// Unknown tasks are not found, with exact codes — for the push-config list
/// too, unless the card does not declare push notifications (then it is the
/// capability's error).
pub async fn error_paths(s: &mut Steps<'_>) -> Step<String> {
    let missing = unique("conformance-missing");
    s.err(
        markers::GetTask::NAME,
        json!({"id": missing}),
        ErrorKind::TaskNotFound,
    )
    .await?;
    s.err(
        markers::CancelTask::NAME,
        json!({"id": missing}),
        ErrorKind::TaskNotFound,
    )
    .await?;
    let list = markers::ListTaskPushNotificationConfigs::NAME;
    if s.offers(capabilities::PUSH_NOTIFICATIONS) {
        s.err(list, json!({"taskId": missing}), ErrorKind::TaskNotFound)
            .await?;
    } else {
        s.unsupported(list, json!({"taskId": missing})).await?;
    }
    Ok("unknown tasks are not found, with exact codes".into())
}
