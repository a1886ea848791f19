//! The steps of the draft cases: each makes the tasks it needs on the
//! session at the draft version, drives them and reads their generations.
//! Where a case needs two calls at once it starts both and awaits both
//! (`tokio::join!`), ordering them by what the agent answered, never by
//! sleeping: a subscription's continuation is sent once the stream has been
//! opened, a long poll's at once (answering it at once is right too, when
//! the task moved first).

use super::Draft;
use crate::card::Applicability;
use crate::check::{check_result, kind_label, read_error};
use crate::scenarios::steps::{equal, field, is_interrupted, is_terminal, text_message};
use crate::session::{unique, Session};
use crate::transport::{describe_error, Answer, BoxFuture, Extra};
use crate::verdict::Violation;
use a2a::capabilities;
use a2a::methods::markers;
use a2a::rpc::Method as _;
use a2a::types::Role;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::sync::oneshot;

/// A step's outcome: its value, or why the case fails.
pub type Step<T> = Result<T, String>;

/// A case's steps.
pub type Play = for<'s, 'a> fn(&'s mut Context<'a>) -> BoxFuture<'s, Step<String>>;

/// The caller's wait limit the timeout case states: short, so the case is.
const WAIT_LIMIT: Duration = Duration::from_secs(1);
/// What the cases' task-making messages start with (the ACTS SUT behaviours).
const MULTI_TURN: &str = "tck-multi-turn";
const STREAM_BASIC: &str = "tck-stream-basic";
const COMPLETE: &str = "tck-complete-task";
/// A continuation of a multi-turn conversation starting with this ends it.
const DONE: &str = "done";

/// What a case works with, and the issues (weaker rules broken) it found.
pub struct Context<'a> {
    pub draft: &'a Draft,
    /// A session at the draft version.
    pub session: &'a Session,
    /// A session at the released version, on the same agent.
    pub released: &'a Session,
    pub app: &'a Applicability,
    pub issues: Vec<Violation>,
}

impl<'a> Context<'a> {
    pub fn new(
        draft: &'a Draft,
        session: &'a Session,
        released: &'a Session,
        app: &'a Applicability,
    ) -> Self {
        Context {
            draft,
            session,
            released,
            app,
            issues: Vec::new(),
        }
    }

    fn member(&self) -> &'a str {
        self.draft
            .generation
            .as_ref()
            .map_or("generation", |(m, _)| m.as_str())
    }

    /// The generation `value` (a task or an update) carries.
    fn generation_of(&self, value: &Value, what: &str) -> Step<i64> {
        let member = self.member();
        match value.get(member) {
            Some(Value::Number(n)) => n.as_i64(),
            // ProtoJSON may write an int64 as a decimal string.
            Some(Value::String(s)) => s.parse().ok(),
            _ => None,
        }
        .ok_or_else(|| {
            format!(
                "{what} carries no integer `{member}` at A2A {}: {value}",
                self.draft.version
            )
        })
    }

    /// Calls `name` on `session` and requires a valid result.
    async fn ok_on(&mut self, session: &Session, name: &str, params: Value, extra: Extra) -> Step<Value> {
        let d = a2a::find_method(name).ok_or_else(|| format!("the method table lacks {name}"))?;
        let (text, id) = session.request(name, Some(&params));
        match session.transport.exchange_with(text, id, extra).await {
            Answer::Result(v) => {
                check_result(d, &v)?;
                Ok(v)
            }
            Answer::Error(e) => Err(format!(
                "{name}: expected a result, got error {}",
                describe_error(&e)
            )),
            other => Err(format!("{name}: expected a result, got {}", other.summary())),
        }
    }

    /// GetTask at the draft version (long-polling past `seen`, if given): the task and its generation.
    async fn get(&mut self, id: &str, seen: Option<i64>, extra: Extra) -> Step<(Value, i64)> {
        let mut params = json!({"id": id});
        if let (Some(seen), Some(member)) = (seen, &self.draft.long_poll) {
            params[member.as_str()] = json!(seen);
        }
        let task = self
            .ok_on(self.session, markers::GetTask::NAME, params, extra)
            .await?;
        let generation = self.generation_of(&task, "GetTask's task")?;
        Ok((task, generation))
    }

    /// A task waiting for input (`tck-multi-turn`): its id, generation and body.
    async fn multi_turn(&mut self, purpose: &str) -> Step<(String, i64, Value)> {
        let params = json!({"message": text_message(&format!("{MULTI_TURN} conformance: {purpose}"))});
        let sent = self
            .ok_on(self.session, markers::SendMessage::NAME, params, Extra::default())
            .await?;
        let task = sent
            .get("task")
            .cloned()
            .ok_or_else(|| format!("SendMessage `{MULTI_TURN}` answered without a task: {sent}"))?;
        let state = field(&task, "/status/state", "the task")?;
        if !is_interrupted(state) {
            return Err(format!(
                "a `{MULTI_TURN}` task is {state}: the agent does not follow the ACTS SUT behaviour contract the case relies on (it waits for input)"
            ));
        }
        let id = field(&task, "/id", "the task")?.to_string();
        let generation = self.generation_of(&task, "SendMessage's task")?;
        Ok((id, generation, task))
    }

    /// The params continuing task `id` with `text`, conditional on `generation` if given.
    fn continuation(&self, id: &str, text: &str, generation: Option<i64>) -> Value {
        let message = json!({"messageId": unique("conformance-msg"), "role": Role::User, "taskId": id,
                             "parts": [{"text": text}]});
        match (generation, &self.draft.conditional) {
            (Some(n), Some(member)) => json!({"message": message, "configuration": {member.as_str(): n}}),
            _ => json!({"message": message}),
        }
    }

    /// The generations of a task stream's events, checked valid for `d` and gap-free.
    fn stream_generations(&self, name: &str, answer: Answer) -> Step<(Vec<Value>, Vec<i64>)> {
        let d = a2a::find_method(name).ok_or_else(|| format!("the method table lacks {name}"))?;
        let events = match answer {
            Answer::Stream { events, error: None } => events,
            other => return Err(format!("{name}: expected a stream, got {}", other.summary())),
        };
        let keys = self
            .draft
            .generation
            .as_ref()
            .map(|(_, k)| k.clone())
            .unwrap_or_default();
        let mut generations = Vec::new();
        for (i, event) in events.iter().enumerate() {
            check_result(d, event).map_err(|why| format!("event {}: {why}", i + 1))?;
            let payload = keys
                .iter()
                .find_map(|k| event.get(k))
                .ok_or_else(|| format!("{name}: event {} is no task event: {event}", i + 1))?;
            generations.push(self.generation_of(payload, &format!("{name} event {}", i + 1))?);
        }
        for (i, pair) in generations.windows(2).enumerate() {
            if pair[1] != pair[0] + 1 {
                return Err(format!(
                    "{name}: event {} is at generation {} after {}: each event is exactly one more ({generations:?})",
                    i + 2,
                    pair[1],
                    pair[0]
                ));
            }
        }
        if generations.is_empty() {
            return Err(format!("{name}: the stream has no event"));
        }
        Ok((events, generations))
    }

    /// Requires `answer` to be the draft's refusal for task `id` expecting
    /// `expected`; returns the generation the error says the task is at.
    fn refused(&mut self, answer: &Answer, id: &str, expected: i64) -> Step<i64> {
        let want = self.draft.refusal.ok_or("the draft adds no refusal")?;
        let Answer::Error(error) = answer else {
            return Err(format!(
                "SendMessage: expected {}, got {}",
                kind_label(want),
                answer.summary()
            ));
        };
        let read =
            read_error(Some(a2a::Contract::A2a), error).map_err(|v| format!("SendMessage: {}", v.why))?;
        self.issues.extend(read.issues);
        if read.kind != want {
            return Err(format!(
                "SendMessage: expected {}, got {}",
                kind_label(want),
                describe_error(error)
            ));
        }
        let info = error
            .get("data")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|d| d["@type"] == a2a::runtime::ERROR_INFO_TYPE)
            .cloned()
            .unwrap_or(Value::Null);
        let metadata = &info["metadata"];
        equal("ErrorInfo metadata.taskId", &metadata["taskId"], &json!(id))?;
        equal(
            "ErrorInfo metadata.expectedGeneration",
            &metadata["expectedGeneration"],
            &json!(expected.to_string()),
        )?;
        metadata["currentGeneration"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("ErrorInfo metadata.currentGeneration is no decimal string: {info}"))
    }
}

/// Calls `name` on `session` with `extra`.
async fn call(session: &Session, name: &str, params: Value, extra: Extra) -> Answer {
    let (text, id) = session.request(name, Some(&params));
    session.transport.exchange_with(text, id, extra).await
}

pub async fn stream_generations(c: &mut Context<'_>) -> Step<String> {
    if !c.app.declares(capabilities::STREAMING) {
        return Ok("streaming is not declared: no stream to read".into());
    }
    let name = markers::SendStreamingMessage::NAME;
    let params = json!({"message": text_message(&format!("{STREAM_BASIC} conformance: generations"))});
    let answer = call(c.session, name, params, Extra::default()).await;
    let (events, generations) = c.stream_generations(name, answer)?;
    if generations[0] != 1 {
        return Err(format!(
            "the new task's stream opens at generation {}; a task is 1 when created",
            generations[0]
        ));
    }
    let id = field(&events[0], "/task/id", "the first event (the task)")?.to_string();
    let last = generations[generations.len() - 1];
    let (_, now) = c.get(&id, None, Extra::default()).await?;
    equal("GetTask's generation after the stream", &json!(now), &json!(last))?;
    Ok(format!(
        "{} events at generations 1 to {last}, one each; GetTask answers {now}",
        events.len()
    ))
}

pub async fn subscribe_generations(c: &mut Context<'_>) -> Step<String> {
    if !c.app.declares(capabilities::STREAMING) {
        return Ok("streaming is not declared: no stream to read".into());
    }
    let (id, at, _) = c.multi_turn("subscribe").await?;
    let name = markers::SubscribeToTask::NAME;
    let (opened, open) = oneshot::channel();
    let extra = Extra {
        opened: Some(opened),
        ..Extra::default()
    };
    let session = c.session;
    let subscribed = call(session, name, json!({"id": id}), extra);
    let ending = c.continuation(&id, &format!("{DONE}: conformance ends the conversation"), None);
    // The stream is open (its snapshot taken) before the message moves the task on.
    let ended = async {
        let _ = open.await;
        call(session, markers::SendMessage::NAME, ending, Extra::default()).await
    };
    let (answer, sent) = tokio::join!(subscribed, ended);
    if !matches!(sent, Answer::Result(_)) {
        return Err(format!("the message ending the task: {}", sent.summary()));
    }
    let (events, generations) = c.stream_generations(name, answer)?;
    equal(
        "the subscription's snapshot generation",
        &json!(generations[0]),
        &json!(at),
    )?;
    let last_state = events
        .iter()
        .rev()
        .find_map(|e| e.pointer("/statusUpdate/status/state").and_then(Value::as_str))
        .unwrap_or_default();
    if !is_terminal(last_state) {
        return Err(format!(
            "the subscription ended without a terminal status: {events:?}"
        ));
    }
    let last = generations[generations.len() - 1];
    let (_, now) = c.get(&id, None, Extra::default()).await?;
    equal("GetTask's generation after the stream", &json!(now), &json!(last))?;
    Ok(format!(
        "snapshot at {at}, then {} event(s) one each to {last}; GetTask answers {now}",
        events.len() - 1
    ))
}

pub async fn long_poll_passed(c: &mut Context<'_>) -> Step<String> {
    let (id, at, _) = c.multi_turn("long poll, passed").await?;
    let (_, got) = c.get(&id, Some(at - 1), Extra::default()).await?;
    equal("the long poll's generation", &json!(got), &json!(at))?;
    Ok(format!("a long poll past {} answers the task at {at}", at - 1))
}

pub async fn long_poll_wake(c: &mut Context<'_>) -> Step<String> {
    let (id, at, _) = c.multi_turn("long poll, woken").await?;
    let member = c.draft.long_poll.clone().unwrap_or_default();
    let session = c.session;
    let poll = call(
        session,
        markers::GetTask::NAME,
        json!({"id": id, member: at}),
        Extra::default(),
    );
    let next = c.continuation(&id, "conformance: one more turn", None);
    let moved = call(session, markers::SendMessage::NAME, next, Extra::default());
    let (polled, sent) = tokio::join!(poll, moved);
    let Answer::Result(sent) = sent else {
        return Err(format!("the message moving the task on: {}", sent.summary()));
    };
    let moved_to = c.generation_of(&sent["task"], "the continuation's task")?;
    let Answer::Result(task) = polled else {
        return Err(format!(
            "the long poll: expected the task, got {}",
            polled.summary()
        ));
    };
    check_result(markers::GetTask::descriptor(), &task)?;
    let got = c.generation_of(&task, "the long poll's task")?;
    if got <= at {
        return Err(format!(
            "the long poll past {at} answered generation {got}: it was not woken by the message that moved the task to {moved_to}"
        ));
    }
    Ok(format!(
        "a long poll past {at}, held while a message moved the task on, answered {got}"
    ))
}

pub async fn long_poll_timeout(c: &mut Context<'_>) -> Step<String> {
    let (id, at, task) = c.multi_turn("long poll, timeout").await?;
    let extra = Extra {
        wait: Some(WAIT_LIMIT),
        ..Extra::default()
    };
    let (got_task, got) = c.get(&id, Some(at), extra).await?;
    equal("the generation after the wait", &json!(got), &json!(at))?;
    equal(
        "the state after the wait",
        &got_task["status"]["state"],
        &task["status"]["state"],
    )?;
    let limit = match c.session.transport.carries_wait_limit() {
        true => format!("the caller's wait limit ({}s)", WAIT_LIMIT.as_secs()),
        false => format!(
            "the agent's own limit (the {} binding carries no caller's)",
            c.session.transport.kind()
        ),
    };
    Ok(format!(
        "a long poll past {at} of a task that stays answered it unchanged at {limit}"
    ))
}

pub async fn mismatch_refused(c: &mut Context<'_>) -> Step<String> {
    let (id, at, task) = c.multi_turn("conditional send, stale").await?;
    let stale = at - 1;
    let params = c.continuation(&id, "conformance: on a stale generation", Some(stale));
    let answer = call(c.session, markers::SendMessage::NAME, params, Extra::default()).await;
    let current = c.refused(&answer, &id, stale)?;
    equal(
        "ErrorInfo metadata.currentGeneration",
        &json!(current),
        &json!(at),
    )?;
    let (after, now) = c.get(&id, None, Extra::default()).await?;
    equal("the generation after the refusal", &json!(now), &json!(at))?;
    equal(
        "the state after the refusal",
        &after["status"]["state"],
        &task["status"]["state"],
    )?;
    let count = |t: &Value| t["history"].as_array().map_or(0, Vec::len);
    equal(
        "the history after the refusal",
        &json!(count(&after)),
        &json!(count(&task)),
    )?;
    Ok(format!(
        "a send on generation {stale} of a task at {at} is refused and leaves it unchanged"
    ))
}

pub async fn match_one_wins(c: &mut Context<'_>) -> Step<String> {
    let (id, at, _) = c.multi_turn("conditional sends, one wins").await?;
    let first = c.continuation(&id, "conformance: first on the generation", Some(at));
    let second = c.continuation(&id, "conformance: second on the generation", Some(at));
    let session = c.session;
    let name = markers::SendMessage::NAME;
    let (a, b) = tokio::join!(
        call(session, name, first, Extra::default()),
        call(session, name, second, Extra::default())
    );
    let (won, lost) = match (&a, &b) {
        (Answer::Result(won), lost) | (lost, Answer::Result(won)) => (won.clone(), lost),
        _ => {
            return Err(format!(
                "two sends on generation {at}: neither was taken ({} / {})",
                a.summary(),
                b.summary()
            ))
        }
    };
    check_result(markers::SendMessage::descriptor(), &won)?;
    let current = c.refused(lost, &id, at)?;
    let moved_to = c.generation_of(&won["task"], "the winning send's task")?;
    if moved_to <= at || current <= at {
        return Err(format!(
            "the send taken on generation {at} left the task at {moved_to} (the refusal says {current}): taking it moves the task on"
        ));
    }
    Ok(format!(
        "of two sends on generation {at} one was taken (task at {moved_to}), the other refused"
    ))
}

pub async fn create_ignores_match(c: &mut Context<'_>) -> Step<String> {
    let member = c.draft.conditional.clone().unwrap_or_default();
    let params = json!({"message": text_message(&format!("{COMPLETE} conformance: a new task")),
                        "configuration": {member.as_str(): 7}});
    let sent = c
        .ok_on(c.session, markers::SendMessage::NAME, params, Extra::default())
        .await?;
    if let Some(task) = sent.get("task") {
        c.generation_of(task, "SendMessage's task")?;
    }
    Ok(format!(
        "a message creating a task is taken whatever its {member}"
    ))
}

/// The draft's answer members anywhere in `value`.
fn draft_members(value: &Value, members: &[&str], out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if members.contains(&k.as_str()) {
                    out.push(k.clone());
                }
                draft_members(v, members, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| draft_members(v, members, out)),
        _ => {}
    }
}

pub async fn released_projection(c: &mut Context<'_>) -> Step<String> {
    let released = c.released;
    let members = c.draft.answer_members();
    let mut answers = Vec::new();
    let opening =
        json!({"message": text_message(&format!("{MULTI_TURN} conformance: at the released version"))});
    let sent = c
        .ok_on(released, markers::SendMessage::NAME, opening, Extra::default())
        .await?;
    let id = field(&sent, "/task/id", "SendMessage's task")?.to_string();
    answers.push(sent);
    // What the draft adds to params is ignored at the released version, as any unknown member.
    let mut get = json!({"id": id});
    if let Some(member) = &c.draft.long_poll {
        get[member.as_str()] = json!(i64::MAX);
    }
    answers.push(
        c.ok_on(released, markers::GetTask::NAME, get, Extra::default())
            .await?,
    );
    let next = c.continuation(
        &id,
        &format!("{DONE}: conformance at the released version"),
        Some(i64::MAX),
    );
    answers.push(
        c.ok_on(released, markers::SendMessage::NAME, next, Extra::default())
            .await?,
    );
    if c.app.declares(capabilities::STREAMING) {
        let name = markers::SendStreamingMessage::NAME;
        let params = json!({"message": text_message(&format!("{STREAM_BASIC} conformance: released"))});
        match call(released, name, params, Extra::default()).await {
            Answer::Stream { events, error: None } => answers.extend(events),
            other => return Err(format!("{name}: expected a stream, got {}", other.summary())),
        }
    }
    let mut seen = Vec::new();
    draft_members(&json!(answers), &members, &mut seen);
    if !seen.is_empty() {
        return Err(format!(
            "a caller at the released version sees what A2A {} adds: {seen:?}",
            c.draft.version
        ));
    }
    Ok(format!(
        "{} answers at the released version carry none of {members:?}; its sends ignore the draft's params",
        answers.len()
    ))
}
