//! The 0.3 scenarios: multi-step exchanges on a 0.3 session, each one case of
//! group `v0_3`. They create the tasks they need over 0.3 and check what
//! single calls cannot: a later call seeing what an earlier one did, the
//! order and `kind` tags of 0.3 streams, re-subscription and resumption,
//! push-config CRUD (under the 0.3 names and the decision record's aliases),
//! and one task read over both versions, identical after conversion.
//!
//! A scenario stops at its first failing step; its detail names that step.

use super::judge::check_result;
use super::{declared_errors, serving, unary, unsupported_error};
use crate::card::{Applicability, CapabilityUse};
use crate::check::{kind_label, read_error};
use crate::level::{Level, Requirement};
use crate::report::{observe, CaseResult, Subject};
use crate::rules;
use crate::session::{unique, Session};
use crate::transport::{describe_error, Answer, BoxFuture};
use crate::verdict::{Verdict, Violation};
use a2a::methods::markers;
use a2a::rpc::{DialectMethod, Method as _};
use a2a::v0_3::types as v03;
use a2a::{capabilities, Contract, ErrorKind};
use serde_json::{json, Value};
use std::time::Instant;

/// A step's outcome: its value, or why the scenario stops.
type Step<T> = Result<T, String>;

/// A scenario's steps.
type Play = for<'s, 'a> fn(&'s mut Steps<'a>) -> BoxFuture<'s, Step<String>>;

/// One scenario: its id, steps, the capability it needs and its requirement.
struct Entry {
    id: &'static str,
    play: Play,
    capability: Option<&'static str>,
    requirement: Requirement,
}

fn table() -> Vec<Entry> {
    let streaming = Some(capabilities::STREAMING);
    let push = Some(capabilities::PUSH_NOTIFICATIONS);
    let entry = |id, play, capability, requirement| Entry {
        id,
        play,
        capability,
        requirement,
    };
    vec![
        entry(
            "task-lifecycle",
            (|s| Box::pin(task_lifecycle(s))) as Play,
            None,
            rules::v0_3(Level::Must, "7.1, §7.3, §7.4"),
        ),
        entry(
            "stream-order",
            |s| Box::pin(stream_order_play(s)),
            streaming,
            rules::v0_3(Level::Must, "7.2"),
        ),
        entry(
            "resubscribe",
            |s| Box::pin(resubscribe(s)),
            streaming,
            rules::v0_3(Level::Must, "7.9"),
        ),
        // Event ids and `Last-Event-ID` resumption are this project's rule for
        // its SSE streams, in 0.3 as in 1.0.
        entry(
            "resubscribe-resume",
            |s| Box::pin(resume(s)),
            streaming,
            rules::v0_3(Level::Strict, "7.9"),
        ),
        entry(
            "push-config-crud",
            |s| Box::pin(push_config_crud(s)),
            push,
            rules::v0_3(Level::Must, "7.5-7.8"),
        ),
        // One task whichever version reads it: the project's rule for serving
        // both versions on one endpoint (1.0 §3.6.2 lets an agent do so).
        entry(
            "cross-version",
            |s| Box::pin(cross_version(s)),
            None,
            rules::spec(Level::Strict, "3.6.2"),
        ),
    ]
}

impl Entry {
    /// The requirement on this agent (the scenario's own: without the
    /// capability it checks the refusals the same sections define), and the
    /// capability as its card declares it.
    fn applied(&self, app: &Applicability) -> (Requirement, Option<CapabilityUse>) {
        (
            self.requirement.clone(),
            app.dependency(self.capability, Contract::A2a),
        )
    }
}

/// The scenarios with the requirement each holds an agent to (for listing cases).
pub fn listing(app: &Applicability) -> Vec<(String, Requirement)> {
    table()
        .iter()
        .map(|e| (scenario_id(e.id), e.applied(app).0))
        .collect()
}

fn scenario_id(id: &str) -> String {
    format!("{}/scenarios/{id}", crate::cases::V0_3_GROUP)
}

/// Runs every scenario on the 0.3 session `v0_3` (and the 1.0 session `main`,
/// when `shared`: both sessions reach the same backend).
pub async fn run_all(v0_3: &Session, main: &Session, shared: bool, app: &Applicability) -> Vec<CaseResult> {
    let mut results = Vec::new();
    for entry in table() {
        let t0 = Instant::now();
        let mut steps = Steps {
            session: v0_3,
            main: shared.then_some(main),
            app,
            issues: Vec::new(),
            stopped: None,
        };
        let outcome = (entry.play)(&mut steps).await;
        let verdict = match (outcome, steps.stopped) {
            (Err(_), Some(stopped)) => Verdict::violated(stopped),
            (outcome, _) => Verdict::of(outcome),
        }
        .with(steps.issues);
        let (requirement, capability) = entry.applied(app);
        let id = scenario_id(entry.id);
        let subject = Subject {
            id: &id,
            group: crate::cases::V0_3_GROUP,
            method: None,
            requirement: &requirement,
            capability: capability.as_ref(),
        };
        let detail = match verdict.violations.first() {
            None => verdict.note.clone(),
            Some(v) => v.why.clone(),
        };
        let observed = observe(&Answer::Result(json!({"outcome": detail})));
        results.push(CaseResult::new(
            subject,
            &verdict,
            observed,
            t0.elapsed().as_millis() as u64,
        ));
    }
    results
}

/// A 0.3 user text message with a fresh id (in context `context`, if given).
pub(crate) fn text_message(text: &str, context: Option<&str>) -> Value {
    let message = v03::Message {
        context_id: context.map(str::to_string),
        extensions: Vec::new(),
        kind: v03::MessageKind::Message,
        message_id: unique("conformance-msg"),
        metadata: None,
        parts: vec![v03::Part::TextPart(v03::TextPart {
            kind: v03::TextPartKind::Text,
            metadata: None,
            text: text.to_string(),
        })],
        reference_task_ids: Vec::new(),
        role: v03::Role::User,
        task_id: None,
    };
    serde_json::to_value(message).unwrap_or(Value::Null)
}

/// One scenario's sessions, what applies to the agent, and the issues found.
struct Steps<'a> {
    session: &'a Session,
    /// A 1.0 session on the same backend, if the connector has one.
    main: Option<&'a Session>,
    app: &'a Applicability,
    /// Violations of weaker rules found along the way (an error's ErrorInfo).
    issues: Vec<Violation>,
    /// The violation a step stopped the scenario with, when it is not the
    /// scenario's own requirement (an error code the registry disowns).
    stopped: Option<Violation>,
}

impl Steps<'_> {
    fn offers(&self, capability: &str) -> bool {
        self.app.declares(capability)
    }

    /// Reads an error of 0.3 method `wire`, keeping its issues.
    fn read(&mut self, wire: &str, error: &Value) -> Step<ErrorKind> {
        match read_error(Some(Contract::A2a), error) {
            Ok(read) => {
                for issue in read.issues {
                    let why = format!("{wire}: {}", issue.why);
                    if !self.issues.iter().any(|i| i.why == why) {
                        self.issues.push(Violation { why, ..issue });
                    }
                }
                Ok(read.kind)
            }
            Err(violation) => {
                let why = format!("{wire}: {}", violation.why);
                self.stopped = Some(Violation {
                    why: why.clone(),
                    ..violation
                });
                Err(why)
            }
        }
    }

    /// Calls 0.3 method `m` under wire name `wire`.
    async fn call(&self, m: &DialectMethod, wire: &str, params: Value) -> Answer {
        unary(Some(m), self.session.call(wire, params).await)
    }

    /// Calls unary `m` by its name and requires a valid 0.3 result.
    async fn ok(&mut self, m: &DialectMethod, params: Value) -> Step<Value> {
        self.ok_as(m, m.name, params).await
    }

    /// Calls unary `m` under `wire` (its name or an alias) and requires a valid 0.3 result.
    async fn ok_as(&mut self, m: &DialectMethod, wire: &str, params: Value) -> Step<Value> {
        match self.call(m, wire, params).await {
            Answer::Result(v) => {
                check_result(m, &v)?;
                Ok(v)
            }
            Answer::Error(e) => {
                self.read(wire, &e)?;
                Err(format!(
                    "{wire}: expected a result, got error {}",
                    describe_error(&e)
                ))
            }
            other => Err(format!("{wire}: expected a result, got {}", other.summary())),
        }
    }

    /// Calls `m` under `wire` and requires exactly the error `want`.
    async fn err(&mut self, m: &DialectMethod, wire: &str, params: Value, want: ErrorKind) -> Step<()> {
        match self.call(m, wire, params).await {
            Answer::Error(e) => {
                let got = self.read(wire, &e)?;
                if got == want {
                    Ok(())
                } else {
                    Err(format!(
                        "{wire}: expected {}, got {}",
                        kind_label(want),
                        describe_error(&e)
                    ))
                }
            }
            other => Err(format!(
                "{wire}: expected {}, got {}",
                kind_label(want),
                other.summary()
            )),
        }
    }

    /// Calls `m` and requires an error the 0.3 method declares.
    async fn declared_err(&mut self, m: &DialectMethod, params: Value) -> Step<ErrorKind> {
        match self.call(m, m.name, params).await {
            Answer::Error(e) => {
                let got = self.read(m.name, &e)?;
                if declared_errors(m).contains(&got) {
                    Ok(got)
                } else {
                    Err(format!(
                        "{}: {} is not an error the 0.3 method declares",
                        m.name,
                        describe_error(&e)
                    ))
                }
            }
            other => Err(format!("{}: expected an error, got {}", m.name, other.summary())),
        }
    }

    /// Calls `m`, whose capability the card does not declare, and requires the
    /// 0.3 schema's "not supported" error for it.
    async fn unsupported(&mut self, m: &DialectMethod, params: Value, capability: &str) -> Step<ErrorKind> {
        let want = unsupported_error(capability);
        self.err(m, m.name, params, want).await.map(|_| want)
    }

    /// Sends a 0.3 text message and returns the task it made.
    async fn new_task(&mut self, text: &str) -> Step<v03::Task> {
        let send = serving(markers::SendMessage::NAME)?;
        let sent = self
            .ok(send, json!({"message": text_message(text, None)}))
            .await?;
        match serde_json::from_value::<v03::SendMessageResult>(sent.clone()) {
            Ok(v03::SendMessageResult::Task(task)) => Ok(task),
            _ => Err(format!("{}: answered without a task: {sent}", send.name)),
        }
    }
}

/// Requires `got == want`.
fn equal(what: &str, got: &Value, want: &Value) -> Step<()> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, expected {want}"))
    }
}

fn is_terminal(state: v03::TaskState) -> bool {
    use v03::TaskState::*;
    matches!(state, Completed | Canceled | Failed | Rejected)
}

fn is_interrupted(state: v03::TaskState) -> bool {
    matches!(
        state,
        v03::TaskState::InputRequired | v03::TaskState::AuthRequired
    )
}

/// A task's lifecycle over 0.3: get, list by context, a follow-up in the same
/// context, and the cancel rules.
async fn task_lifecycle(s: &mut Steps<'_>) -> Step<String> {
    let task = s.new_task("conformance: 0.3 task lifecycle").await?;
    let get = serving(markers::GetTask::NAME)?;
    let got = s.ok(get, json!({"id": task.id})).await?;
    equal("tasks/get id", &got["id"], &json!(task.id))?;
    equal("tasks/get contextId", &got["contextId"], &json!(task.context_id))?;
    let list = serving(markers::ListTasks::NAME)?;
    let listed = s.ok(list, json!({"contextId": task.context_id})).await?;
    let tasks = listed["tasks"].as_array().cloned().unwrap_or_default();
    if !tasks.iter().any(|t| t["id"] == json!(task.id)) {
        return Err(format!(
            "{} by contextId does not list task {}",
            list.name, task.id
        ));
    }
    let send = serving(markers::SendMessage::NAME)?;
    let follow = s
        .ok(
            send,
            json!({"message": text_message("conformance: 0.3 follow-up", Some(&task.context_id))}),
        )
        .await?;
    equal(
        "follow-up contextId",
        &follow["contextId"],
        &json!(task.context_id),
    )?;
    let cancel = serving(markers::CancelTask::NAME)?;
    let state = task.status.state;
    if is_terminal(state) {
        s.err(
            cancel,
            cancel.name,
            json!({"id": task.id}),
            ErrorKind::TaskNotCancelable,
        )
        .await?;
    } else {
        let canceled = s.ok(cancel, json!({"id": task.id})).await?;
        equal(
            "canceled state",
            &canceled["status"]["state"],
            &json!(v03::TaskState::Canceled),
        )?;
    }
    Ok(format!(
        "task reached {state}; get, list, follow-up and cancel rules hold"
    ))
}

/// The events of a 0.3 stream, decoded: each valid and `kind`-tagged; a
/// message alone, or the task first, then updates of that task, the final
/// status update (`final: true`) last; the last state is final (terminal or
/// interrupted). Returns the task id and last state (`None` for a message).
fn stream_order(events: &[Value]) -> Step<Option<(String, v03::TaskState)>> {
    let stream = serving(markers::SendStreamingMessage::NAME)?;
    let mut decoded = Vec::new();
    for (i, e) in events.iter().enumerate() {
        check_result(stream, e).map_err(|why| format!("event {}: {why}", i + 1))?;
        let event: v03::StreamEvent =
            serde_json::from_value(e.clone()).map_err(|why| format!("event {}: {why}", i + 1))?;
        decoded.push(event);
    }
    let (task_id, mut state) = match decoded.first() {
        None => return Err("the stream has no event".into()),
        Some(v03::StreamEvent::Message(_)) if decoded.len() == 1 => return Ok(None),
        Some(v03::StreamEvent::Message(_)) => {
            return Err("a stream that answers with a message carries only that message".into())
        }
        Some(v03::StreamEvent::Task(task)) => (task.id.clone(), task.status.state),
        Some(other) => return Err(format!("the first event is not the task: {other:?}")),
    };
    let mut finished = false;
    for (i, event) in decoded.iter().enumerate().skip(1) {
        let n = i + 1;
        if finished {
            return Err(format!("event {n} follows the final status update"));
        }
        let of = match event {
            v03::StreamEvent::TaskStatusUpdateEvent(update) => {
                state = update.status.state;
                finished = update.final_;
                &update.task_id
            }
            v03::StreamEvent::TaskArtifactUpdateEvent(update) => &update.task_id,
            v03::StreamEvent::Task(task) => &task.id,
            v03::StreamEvent::Message(_) => {
                return Err(format!("event {n} is a message inside a task's stream"))
            }
        };
        equal(&format!("event {n} taskId"), &json!(of), &json!(task_id))?;
    }
    if !is_terminal(state) && !is_interrupted(state) {
        return Err(format!("the stream ended in the non-final state {state}"));
    }
    if events.len() > 1 && !finished {
        return Err("the stream's last status update is not marked final".into());
    }
    Ok(Some((task_id, state)))
}

/// `message/stream`: the events in order, then `tasks/get` agrees with the last state.
async fn stream_order_play(s: &mut Steps<'_>) -> Step<String> {
    let stream = serving(markers::SendStreamingMessage::NAME)?;
    let params = json!({"message": text_message("conformance: 0.3 streaming order", None)});
    if !s.offers(capabilities::STREAMING) {
        let kind = s.unsupported(stream, params, capabilities::STREAMING).await?;
        return Ok(format!(
            "streaming is not declared: {} answers {}",
            stream.name,
            kind.reason()
        ));
    }
    let answer = s.call(stream, stream.name, params).await;
    let Answer::Stream { events, error: None } = answer else {
        return Err(format!(
            "{}: expected a stream, got {}",
            stream.name,
            answer.summary()
        ));
    };
    let Some((task_id, state)) = stream_order(&events)? else {
        return Ok("a single message".into());
    };
    let get = serving(markers::GetTask::NAME)?;
    let got = s.ok(get, json!({"id": task_id})).await?;
    equal(
        "tasks/get after the stream",
        &got["status"]["state"],
        &json!(state),
    )?;
    Ok(format!(
        "{} kind-tagged events, task first, ending {state}",
        events.len()
    ))
}

/// `tasks/resubscribe` (and each alias): a finished task refuses it, an
/// unknown one is not found.
async fn resubscribe(s: &mut Steps<'_>) -> Step<String> {
    let subscribe = serving(markers::SubscribeToTask::NAME)?;
    let task = s.new_task("conformance: 0.3 resubscribe").await?;
    if !s.offers(capabilities::STREAMING) {
        let kind = s
            .unsupported(subscribe, json!({"id": task.id}), capabilities::STREAMING)
            .await?;
        return Ok(format!(
            "streaming is not declared: {} answers {}",
            subscribe.name,
            kind.reason()
        ));
    }
    let names: Vec<&str> = std::iter::once(subscribe.name)
        .chain(subscribe.aliases.iter().copied())
        .collect();
    for wire in &names {
        if is_terminal(task.status.state) {
            s.err(
                subscribe,
                wire,
                json!({"id": task.id}),
                ErrorKind::UnsupportedOperation,
            )
            .await?;
        }
        s.err(
            subscribe,
            wire,
            json!({"id": unique("conformance-missing")}),
            ErrorKind::TaskNotFound,
        )
        .await?;
    }
    Ok(format!(
        "{}: a {} task refuses re-subscription, an unknown one is not found",
        names.join(", "),
        task.status.state
    ))
}

/// Over HTTP (SSE `Last-Event-ID`): a 0.3 stream's events carry ids, and
/// re-subscribing after the first replays exactly the events that followed
/// it, with the same ids, still in the 0.3 form. Bindings without resumption
/// pass with a note.
async fn resume(s: &mut Steps<'_>) -> Step<String> {
    if !s.offers(capabilities::STREAMING) {
        return Ok("streaming is not declared: no stream to resume".into());
    }
    let stream = serving(markers::SendStreamingMessage::NAME)?;
    let subscribe = serving(markers::SubscribeToTask::NAME)?;
    let session = s.session;
    let params = json!({"message": text_message("conformance: 0.3 resume", None)});
    let (text, id) = session.request(stream.name, Some(&params));
    let Some((answer, ids)) = session.transport.exchange_resumable(text, id, None).await else {
        return Ok(format!(
            "the {} binding has no stream resumption",
            session.transport.kind()
        ));
    };
    let Answer::Stream { events, error: None } = answer else {
        return Err(format!(
            "{}: expected a stream, got {}",
            stream.name,
            answer.summary()
        ));
    };
    let Some((task_id, _)) = stream_order(&events)? else {
        return Ok("a single message leaves nothing to resume".into());
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
    let params = json!({"id": task_id});
    let (text, id) = session.request(subscribe.name, Some(&params));
    let resumed = session
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
            "{} after event {}: expected a stream, got {got}",
            subscribe.name, ids[0]
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
    Ok(format!(
        "{} events; resuming after {} replays the other {}",
        events.len(),
        ids[0],
        replayed.len()
    ))
}

/// Push-config CRUD over 0.3 with exact values: set, get, list, delete, and
/// the errors after; the same config set and read under the decision
/// record's aliases.
async fn push_config_crud(s: &mut Steps<'_>) -> Step<String> {
    let set = serving(markers::CreateTaskPushNotificationConfig::NAME)?;
    let get = serving(markers::GetTaskPushNotificationConfig::NAME)?;
    let list = serving(markers::ListTaskPushNotificationConfigs::NAME)?;
    let delete = serving(markers::DeleteTaskPushNotificationConfig::NAME)?;
    let task = s.new_task("conformance: 0.3 push config").await?;
    if !s.offers(capabilities::PUSH_NOTIFICATIONS) {
        let by_id = json!({"id": task.id, "pushNotificationConfigId": "conformance-config"});
        let calls = [
            (
                set,
                json!({"taskId": task.id, "pushNotificationConfig": {"url": "https://push.example.com/conformance"}}),
            ),
            (get, by_id.clone()),
            (list, json!({"id": task.id})),
            (delete, by_id),
        ];
        let mut answered = None;
        for (m, params) in calls {
            answered = Some(s.unsupported(m, params, capabilities::PUSH_NOTIFICATIONS).await?);
        }
        let kind = answered.map(|k| format!("{} {}", k.code(), k.reason()));
        return Ok(format!(
            "push notifications are not declared: set, get, list and delete answer {}",
            kind.unwrap_or_default()
        ));
    }
    let config_id = unique("conformance-config");
    let config = json!({"taskId": task.id, "pushNotificationConfig": {
        "id": config_id, "url": "https://push.example.com/conformance-v0-3",
        "token": "conformance-token", "authentication": {"schemes": ["Bearer"]}}});
    let created = s.ok(set, config.clone()).await?;
    equal(set.name, &created, &config)?;
    let by_id = json!({"id": task.id, "pushNotificationConfigId": config_id});
    let got = s.ok(get, by_id.clone()).await?;
    equal(get.name, &got, &config)?;
    let listed = s.ok(list, json!({"id": task.id})).await?;
    equal(list.name, &listed, &json!([config]))?;
    // The decision record's names reach the same methods.
    let (Some(create_alias), Some(get_alias)) = (set.aliases.first(), get.aliases.first()) else {
        return Err("the 0.3 schema declares no alias of the push-config methods".into());
    };
    let second_id = unique("conformance-config");
    let second = json!({"taskId": task.id, "pushNotificationConfig": {
        "id": second_id, "url": "https://push.example.com/conformance-alias"}});
    let created = s.ok_as(set, create_alias, second.clone()).await?;
    equal(create_alias, &created, &second)?;
    let got = s
        .ok_as(
            get,
            get_alias,
            json!({"id": task.id, "pushNotificationConfigId": second_id}),
        )
        .await?;
    equal(get_alias, &got, &second)?;
    let deleted = s.ok(delete, by_id.clone()).await?;
    equal(delete.name, &deleted, &Value::Null)?;
    let after = s.declared_err(get, by_id).await?;
    let listed = s.ok(list, json!({"id": task.id})).await?;
    equal(
        &format!("{} after the delete", list.name),
        &listed,
        &json!([second]),
    )?;
    s.err(
        set,
        set.name,
        json!({"taskId": unique("conformance-missing"), "pushNotificationConfig": {"url": "https://push.example.com/x"}}),
        ErrorKind::TaskNotFound,
    )
    .await?;
    Ok(format!(
        "set, get, list, delete (and {create_alias}, {get_alias}); a deleted config answers {}",
        after.reason()
    ))
}

/// A task made over 0.3 read with 1.0 `GetTask`, and one made over 1.0 read
/// with 0.3 `tasks/get`: each answer is the other's, converted.
async fn cross_version(s: &mut Steps<'_>) -> Step<String> {
    let Some(main) = s.main else {
        return Ok(format!(
            "the {} sessions may be agents of their own (a process each): no task to read across versions",
            s.session.transport.kind()
        ));
    };
    let get = serving(markers::GetTask::NAME)?;
    let current = markers::GetTask::descriptor();
    let task = s.new_task("conformance: 0.3 task read over 1.0").await?;
    let over_v0_3 = s.ok(get, json!({"id": task.id})).await?;
    let over_v1_0 = match main.call(current.name, json!({"id": task.id})).await {
        Answer::Result(v) => v,
        other => return Err(format!("{} over 1.0: {}", current.name, other.summary())),
    };
    crate::check::check_result(current, &over_v1_0)?;
    let downgraded =
        (get.downgrade_result)(over_v1_0.clone()).map_err(|e| format!("downgrade: {}", e.message))?;
    equal("the 1.0 task converted to 0.3", &downgraded, &over_v0_3)?;
    let upgraded = (get.upgrade_result)(over_v0_3).map_err(|e| format!("upgrade: {}", e.message))?;
    equal("the 0.3 task converted to 1.0", &upgraded, &over_v1_0)?;
    // And the other way: a task made over 1.0, read over 0.3.
    let send = markers::SendMessage::descriptor();
    let message = json!({"messageId": unique("conformance-msg"), "role": a2a::types::Role::User,
                         "parts": [{"text": "conformance: 1.0 task read over 0.3"}]});
    let made = match main.call(send.name, json!({"message": message})).await {
        Answer::Result(v) => v,
        other => return Err(format!("{} over 1.0: {}", send.name, other.summary())),
    };
    let id = made
        .pointer("/task/id")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{} over 1.0 answered without a task: {made}", send.name))?
        .to_string();
    let over_v1_0 = match main.call(current.name, json!({"id": id})).await {
        Answer::Result(v) => v,
        other => return Err(format!("{} over 1.0: {}", current.name, other.summary())),
    };
    let over_v0_3 = s.ok(get, json!({"id": id})).await?;
    let downgraded = (get.downgrade_result)(over_v1_0).map_err(|e| format!("downgrade: {}", e.message))?;
    equal("the 1.0-made task over 0.3", &over_v0_3, &downgraded)?;
    Ok(format!(
        "a task made over 0.3 reads over 1.0 as {} and back; one made over 1.0 reads over 0.3",
        current.name
    ))
}
