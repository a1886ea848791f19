//! Scenarios of sessions and the namespace event stream (extension 1.2):
//! a session exported, deleted and imported again shows the same; a
//! filtered subscription over a whole plan lifecycle gets exactly the
//! matching events, in order; a subscription resumed after a cursor (the
//! `after` param, and SSE `Last-Event-ID` where the binding resumes) gets the
//! rest exactly once.
//!
//! Each works in a session of its own (a fresh `contextId`) and filters by
//! it, so the events of other clients of a long-lived agent never enter
//! what is compared.

use super::steps::{equal, field, text_message, Step, Steps};
use crate::session::unique;
use crate::transport::Answer;
use a2a::methods::markers::{
    self, EventsSubscribe, PlanStatus, RegistryActionsAdd, RegistryAutomationProfilesAdd,
    RegistryProjectsAdd, SessionCreate, SessionDelete, SessionImport, SessionShow, SessionTell,
};
use a2a::rpc::Method;
use a2a::types::{ApprovalMode, DomainEventType, PlanState, Role, TaskState};
use a2a::{Contract, ErrorKind};
use serde_json::{json, Value};
use std::time::Duration;

/// Status polls while a plan finishes (with [`POLL`] between): a bound, not
/// a deadline the scenario is judged by.
const POLLS: usize = 400;
const POLL: Duration = Duration::from_millis(50);

/// The events of a subscription that ends by itself (no `follow`), each
/// validated against the method's result schema.
async fn events(s: &mut Steps<'_>, params: Value) -> Step<Vec<Value>> {
    let d = a2a::find_method(EventsSubscribe::NAME).ok_or("the method table lacks events/subscribe")?;
    match s.session.call(EventsSubscribe::NAME, params).await {
        Answer::Stream { events, error: None } => {
            for event in &events {
                crate::check::check_result(d, event)?;
            }
            Ok(events)
        }
        other => Err(format!(
            "{}: expected a stream that ends, got {}",
            EventsSubscribe::NAME,
            other.summary()
        )),
    }
}

/// A new session's id.
async fn new_session(s: &mut Steps<'_>, title: &str) -> Step<String> {
    let session = s.ok(SessionCreate::NAME, json!({"title": title})).await?;
    Ok(field(&session, "/id", SessionCreate::NAME)?.to_string())
}

/// Says `text` in the session; the task the answer names.
async fn tell(s: &mut Steps<'_>, session: &str, message: Value) -> Step<Value> {
    let told = s
        .ok(
            SessionTell::NAME,
            json!({"sessionId": session, "message": message}),
        )
        .await?;
    told.get("task")
        .cloned()
        .ok_or_else(|| format!("{}: answered without a task: {told}", SessionTell::NAME))
}

fn cursors(events: &[Value]) -> Vec<Value> {
    events.iter().map(|e| e["cursor"].clone()).collect()
}

/// Session → export → delete → import: `show` is the same before and after,
/// a second import is ExtAlreadyExists, a tampered document ExtInvalidParams
/// that changes nothing.
pub async fn export_import(s: &mut Steps<'_>) -> Step<String> {
    let session = new_session(s, "conformance export").await?;
    for text in ["conformance: first", "conformance: second"] {
        tell(s, &session, text_message(text)).await?;
    }
    let shown = s.ok(SessionShow::NAME, json!({"sessionId": session})).await?;
    let document = s
        .ok(markers::SessionExport::NAME, json!({"sessionId": session}))
        .await?;
    let exported = document["tasks"].as_array().map_or(0, Vec::len);
    equal("exported tasks", &json!(exported), &json!(2))?;
    s.ok(SessionDelete::NAME, json!({"sessionId": session, "force": true}))
        .await?;
    s.err(
        SessionShow::NAME,
        json!({"sessionId": session}),
        ErrorKind::ExtNotFound,
    )
    .await?;
    let mut tampered = document.clone();
    tampered["session"]["title"] = json!("changed after export");
    s.err(
        SessionImport::NAME,
        json!({"document": tampered}),
        ErrorKind::ExtInvalidParams,
    )
    .await?;
    s.err(
        SessionShow::NAME,
        json!({"sessionId": session}),
        ErrorKind::ExtNotFound,
    )
    .await?;
    let imported = s.ok(SessionImport::NAME, json!({"document": document})).await?;
    equal("imported session", &imported, &shown["session"])?;
    let again = s.ok(SessionShow::NAME, json!({"sessionId": session})).await?;
    equal("show after import", &again, &shown)?;
    s.err(
        SessionImport::NAME,
        json!({"document": document}),
        ErrorKind::ExtAlreadyExists,
    )
    .await?;
    let replayed = events(s, json!({"sessionId": session})).await?;
    if replayed.is_empty() {
        return Err("the imported session's tasks have no events in the namespace stream".into());
    }
    Ok(format!(
        "export of {exported} tasks, delete, tampered import refused, import: same show, {} events again",
        replayed.len()
    ))
}

/// Registers a project, a manual profile and an action (an approval, then a
/// file write); the action's name and the project's.
async fn plan_fixture(s: &mut Steps<'_>) -> Step<(String, String)> {
    let project = unique("conformance-project");
    let profile = unique("conformance-profile");
    let action = unique("conformance-action");
    s.ok(
        RegistryProjectsAdd::NAME,
        json!({"project": {"name": project, "files": [
            {"path": "README.md", "mediaType": "text/markdown", "text": "# Conformance\n"}]}}),
    )
    .await?;
    s.ok(
        RegistryAutomationProfilesAdd::NAME,
        json!({"automationProfile": {"name": profile, "approvalMode": ApprovalMode::Manual,
                                    "budget": {"maxFilesChanged": 5}}}),
    )
    .await?;
    s.ok(
        RegistryActionsAdd::NAME,
        json!({"action": {"name": action, "automationProfile": profile, "steps": [
            {"id": "approve", "name": "Approve", "tool": "approval",
             "arguments": {"question": "Write the notes?"}},
            {"id": "write", "name": "Write", "tool": "write-file",
             "arguments": {"path": "NOTES.md", "content": "Notes\n"}}]}}),
    )
    .await?;
    Ok((action, project))
}

/// Waits (bounded) until the plan is in `state`.
async fn plan_reaches(s: &mut Steps<'_>, plan: &str, state: PlanState) -> Step<()> {
    let want = json!(state);
    let mut last = Value::Null;
    for _ in 0..POLLS {
        let status = s.ok(PlanStatus::NAME, json!({"planId": plan})).await?;
        last = status.pointer("/plan/state").cloned().unwrap_or(Value::Null);
        if last == want {
            return Ok(());
        }
        tokio::time::sleep(POLL).await;
    }
    Err(format!("plan {plan} did not reach {want} (last {last})"))
}

/// A plan run in a session from start to end: a subscription filtered by
/// plan and types gets exactly the events of the session's stream that
/// match, in cursor order, each typed as its event's metadata names it;
/// the plan's part starts with `plan.created` and ends COMPLETED.
pub async fn filtered_plan_lifecycle(s: &mut Steps<'_>) -> Step<String> {
    let (action, project) = plan_fixture(s).await?;
    let session = new_session(s, "conformance plan").await?;
    let start = json!({"messageId": unique("conformance-msg"), "role": Role::User, "parts": [
        {"text": "conformance: run the action"},
        {"data": {"action": action, "project": project}}]});
    let task = tell(s, &session, start).await?;
    let task_id = field(&task, "/id", "the plan's task")?.to_string();
    let uri = Contract::Cleveragents
        .extension_uri()
        .ok_or("the extension declares no URI")?;
    let plan = task["metadata"][uri]["planId"]
        .as_str()
        .ok_or_else(|| format!("the plan's task names no plan under {uri}: {task}"))?
        .to_string();
    plan_reaches(s, &plan, PlanState::InputRequired).await?;
    let approve = json!({"messageId": unique("conformance-msg"), "role": Role::User, "taskId": task_id,
                         "parts": [{"text": "approve"}]});
    tell(s, &session, approve).await?;
    plan_reaches(s, &plan, PlanState::Completed).await?;

    let kinds = [
        DomainEventType::PlanCreated,
        DomainEventType::ToolInvoked,
        DomainEventType::ToolCompleted,
        DomainEventType::PlanStateChanged,
    ];
    let wanted: Vec<Value> = kinds.iter().map(|k| json!(k)).collect();
    let all = events(s, json!({"sessionId": session})).await?;
    let filtered = events(s, json!({"planId": plan, "types": wanted})).await?;
    let expected: Vec<Value> = all
        .iter()
        .filter(|e| e["planId"] == json!(plan) && wanted.contains(&e["type"]))
        .cloned()
        .collect();
    equal("the filtered events", &json!(filtered), &json!(expected))?;
    let cs = cursors(&all);
    if cs.windows(2).any(|w| w[0].as_i64() >= w[1].as_i64()) {
        return Err(format!("cursors grow along the stream: {cs:?}"));
    }
    let seqs: Vec<i64> = all
        .iter()
        .filter(|e| e["taskId"] == json!(task_id))
        .filter_map(|e| e["taskSeq"].as_i64())
        .collect();
    if seqs.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!("a task's events come in its order: {seqs:?}"));
    }
    for event in &all {
        let named = ["statusUpdate", "artifactUpdate"]
            .iter()
            .find_map(|k| event["event"][k]["metadata"][uri]["event"].as_str());
        if let Some(name) = named {
            equal("an event's type and its metadata", &event["type"], &json!(name))?;
        }
    }
    let plan_types: Vec<&Value> = all
        .iter()
        .filter(|e| e["planId"] == json!(plan))
        .map(|e| &e["type"])
        .collect();
    equal(
        "the plan's first event",
        plan_types.first().copied().unwrap_or(&Value::Null),
        &json!(DomainEventType::PlanCreated),
    )?;
    let last = filtered.last().cloned().unwrap_or(Value::Null);
    equal(
        "the last filtered event",
        &json!([&last["type"], &last["event"]["statusUpdate"]["status"]["state"]]),
        &json!([DomainEventType::PlanStateChanged, TaskState::Completed]),
    )?;
    Ok(format!(
        "{} of the session's {} events matched the plan and types, in order",
        filtered.len(),
        all.len()
    ))
}

/// A session's events read again after a cursor, as a client whose
/// connection dropped does: by `after`, and over SSE by `Last-Event-ID`.
pub async fn events_resume(s: &mut Steps<'_>) -> Step<String> {
    let session = new_session(s, "conformance resume").await?;
    for text in ["conformance: one", "conformance: two"] {
        tell(s, &session, text_message(text)).await?;
    }
    let params = json!({"sessionId": session});
    let all = events(s, params.clone()).await?;
    if all.len() < 3 {
        return Err(format!(
            "two messages in a session make at least 3 events, got {}",
            all.len()
        ));
    }
    let cut = 1;
    let mut after = params.clone();
    after["after"] = all[cut]["cursor"].clone();
    let rest = events(s, after).await?;
    equal("the events after a cursor", &json!(rest), &json!(all[cut + 1..]))?;
    let mut past_end = params.clone();
    past_end["after"] = all[all.len() - 1]["cursor"].clone();
    equal(
        "the events after the last cursor",
        &json!(events(s, past_end).await?),
        &json!([]),
    )?;
    let session_ref = s.session;
    let (text, id) = session_ref.request(EventsSubscribe::NAME, Some(&params));
    let by_id = session_ref
        .transport
        .exchange_resumable(text, id, Some(all[cut]["cursor"].to_string()))
        .await;
    let Some((answer, ids)) = by_id else {
        return Ok(format!(
            "resumed by cursor; the {} binding has no Last-Event-ID",
            session_ref.transport.kind()
        ));
    };
    let Answer::Stream {
        events: replayed,
        error: None,
    } = answer
    else {
        return Err(format!(
            "{} with Last-Event-ID: expected a stream, got {}",
            EventsSubscribe::NAME,
            answer.summary()
        ));
    };
    equal(
        "the events after Last-Event-ID",
        &json!(replayed),
        &json!(all[cut + 1..]),
    )?;
    let want_ids: Vec<String> = all[cut + 1..].iter().map(|e| e["cursor"].to_string()).collect();
    equal("the SSE ids (the cursors)", &json!(ids), &json!(want_ids))?;
    Ok(format!(
        "{} events; resumed after the second by cursor and by Last-Event-ID",
        all.len()
    ))
}
