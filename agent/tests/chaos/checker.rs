//! The checker: the whole history against what the agents hold once every
//! fault has ended. For each task it proves what the project promises
//! (DESIGN §5 and §6) and reports each violation with the operations on
//! that task, in invocation order: the smallest history that shows it.
//!
//! - every acknowledged message is in its task's history exactly once, in
//!   acknowledged order (a message acknowledged before another was sent
//!   comes first), on every agent; a refused one is nowhere; one with no
//!   answer is there at most once; no message appears that nobody sent;
//! - every history a client read is a prefix of the final one, and holds
//!   every message acknowledged before the read was sent;
//! - every acknowledged task exists, on every agent;
//! - each task's event log numbers its events 1..=n, no gap, no duplicate,
//!   the same on every agent, and each event's generation is its number
//!   (GetTask's the last one's); every event a subscriber saw is the log's
//!   at its id, a live stream skips none, and a resumed one continues right
//!   after the id it resumed from;
//! - a message sent on a generation condition and acknowledged was taken at
//!   that generation: no two are taken at one generation of a task, and
//!   the task it answers with is past it;
//! - no state follows a terminal one; a state a client saw terminal is the
//!   final one; an acknowledged cancel means CANCELED;
//! - registry updates with expected versions are linearizable (`registry.rs`);
//! - push deliveries are the log's, at least once, in order (`push.rs`);
//! - plans are executed once, their prompts answered once, and a cancel
//!   is for good (`plans.rs`).

use crate::history::{Answer, Op, Request};
use crate::wire::Outcome;
use a2a::types::TaskState;
use a2a::ErrorKind;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A task as every agent holds it at the end.
pub struct Final {
    /// GetTask's answer on each agent.
    pub tasks: Vec<Value>,
    /// The event log on each agent, as replayed: (id, event) in order.
    pub logs: Vec<Vec<(Option<u64>, Value)>>,
}

/// One violation: what is wrong, and on which task (or registry entry).
pub struct Anomaly {
    pub task: String,
    pub what: String,
}

/// The operations of a history by what `key` says each is on (a task, a
/// registry entry, a plan), in invocation order.
pub fn grouped<'a>(ops: &'a [Op], key: impl Fn(&'a Op) -> Option<&'a str>) -> BTreeMap<&'a str, Vec<&'a Op>> {
    let mut by: BTreeMap<&str, Vec<&Op>> = BTreeMap::new();
    for op in ops {
        if let Some(subject) = key(op) {
            by.entry(subject).or_default().push(op);
        }
    }
    by
}

/// Each subject's violations, as `check` finds them from its operations
/// (`by`) and what the agents hold of it at the end (`finals`).
pub fn judge_each<T>(
    finals: &BTreeMap<String, T>,
    by: &BTreeMap<&str, Vec<&Op>>,
    check: impl Fn(&[&Op], &T) -> Vec<String>,
) -> Vec<Anomaly> {
    let mut anomalies = Vec::new();
    for (subject, last) in finals {
        let ops = by.get(subject.as_str()).map(Vec::as_slice).unwrap_or_default();
        for what in check(ops, last) {
            anomalies.push(Anomaly {
                task: subject.clone(),
                what,
            });
        }
    }
    anomalies
}

/// The state an event announces, if it announces one.
pub fn state_of(event: &Value) -> Option<String> {
    event
        .pointer("/statusUpdate/status/state")
        .or_else(|| event.pointer("/task/status/state"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

pub fn is_terminal(state: &str) -> bool {
    [
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::Rejected,
    ]
    .iter()
    .any(|s| s.to_string() == state)
}

/// The generation an event (or a task) carries.
pub fn generation_of(event: &Value) -> Option<u64> {
    [
        "/task/generation",
        "/statusUpdate/generation",
        "/artifactUpdate/generation",
        "/generation",
    ]
    .iter()
    .find_map(|pointer| event.pointer(pointer)?.as_u64())
}

/// The ids of a task's user messages, in history order.
pub fn user_messages(task: &Value) -> Vec<String> {
    task["history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "ROLE_USER")
        .filter_map(|m| m["messageId"].as_str().map(str::to_string))
        .collect()
}

/// The task a unary answer carries (SendMessage wraps it, GetTask is it).
fn answered_task(op: &Op) -> Option<&Value> {
    match op.outcome()? {
        Outcome::Ok(result) => match op.request {
            Request::Get { .. } => Some(result),
            Request::Open { .. } | Request::Continue { .. } => result.get("task"),
            _ => None,
        },
        _ => None,
    }
}

fn state(task: &Value) -> &str {
    task.pointer("/status/state")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// True for the errors that refuse a call because the task has ended.
fn claims_ended(code: i64) -> bool {
    code == ErrorKind::UnsupportedOperation.code() || code == ErrorKind::TaskNotCancelable.code()
}

/// Checks the whole history against the final tasks (by id); `listed`
/// holds every task id the agents list.
pub fn check(ops: &[Op], finals: &BTreeMap<String, Final>, listed: &BTreeSet<String>) -> Vec<Anomaly> {
    let mut anomalies = Vec::new();
    let by_task = grouped(ops, Op::task);
    // Where each message ended up, across every task.
    let mut placed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (id, last) in finals {
        for message in user_messages(&last.tasks[0]) {
            placed.entry(message).or_default().push(id.clone());
        }
    }
    let sent: BTreeMap<&str, &Op> = ops.iter().filter_map(|op| Some((op.message_id()?, op))).collect();
    for (message, tasks) in &placed {
        let task = tasks[0].clone();
        match sent.get(message.as_str()) {
            None => anomalies.push(Anomaly {
                task,
                what: format!("message {message} is in the history, yet nobody sent it"),
            }),
            Some(op) => {
                if let Some(Outcome::Fail { code, .. }) = op.outcome() {
                    anomalies.push(Anomaly {
                        task: task.clone(),
                        what: format!(
                            "message {message} was refused (error {code}), yet it is in the history"
                        ),
                    });
                }
                if let Request::Continue { task: named, .. } = &op.request {
                    if tasks.iter().any(|t| t != named) {
                        anomalies.push(Anomaly {
                            task: task.clone(),
                            what: format!("message {message} continued task {named}, yet it is in {tasks:?}"),
                        });
                    }
                }
                if tasks.len() > 1 && !tasks.iter().skip(1).all(|t| *t == tasks[0]) {
                    anomalies.push(Anomaly {
                        task,
                        what: format!("message {message} is in several tasks: {tasks:?}"),
                    });
                }
            }
        }
    }
    for op in ops {
        if let (Request::Open { message_id, .. }, true) = (&op.request, op.acknowledged()) {
            let task = op.task().unwrap_or_default().to_string();
            if !listed.contains(&task) || !finals.contains_key(&task) {
                anomalies.push(Anomaly {
                    task,
                    what: format!("the task {message_id} opened was acknowledged, and is lost"),
                });
            }
        }
    }
    anomalies.extend(judge_each(finals, &by_task, check_task));
    anomalies
}

/// The violations on one task.
fn check_task(ops: &[&Op], last: &Final) -> Vec<String> {
    let mut found = Vec::new();
    let final_task = &last.tasks[0];
    let final_state = state(final_task).to_string();
    // Every agent holds the same task and the same log.
    for (agent, task) in last.tasks.iter().enumerate().skip(1) {
        if task != final_task {
            found.push(format!("agent {agent} answers GetTask differently from agent 0"));
        }
    }
    for (agent, log) in last.logs.iter().enumerate() {
        let ids: Vec<Option<u64>> = log.iter().map(|(id, _)| *id).collect();
        let expected: Vec<Option<u64>> = (1..=log.len() as u64).map(Some).collect();
        if ids != expected {
            found.push(format!(
                "agent {agent}: the event log's ids are {ids:?}, not 1..={}",
                log.len()
            ));
        }
        if agent > 0 && *log != last.logs[0] {
            found.push(format!("agent {agent}: the event log differs from agent 0's"));
        }
    }
    let log: BTreeMap<u64, &Value> = last.logs[0]
        .iter()
        .filter_map(|(id, event)| Some(((*id)?, event)))
        .collect();
    // Generations: each event's is its place in the log.
    for (id, event) in &log {
        if generation_of(event) != Some(*id) {
            found.push(format!(
                "event {id} carries the generation {:?}",
                generation_of(event)
            ));
        }
    }
    if let Some(last_id) = log.keys().last() {
        if generation_of(final_task) != Some(*last_id) {
            found.push(format!(
                "GetTask says generation {:?}, the log ends at event {last_id}",
                generation_of(final_task)
            ));
        }
    }
    // Conditional messages: one taken per generation, each moving the task on.
    let mut taken: BTreeMap<u64, &str> = BTreeMap::new();
    for op in ops {
        let Request::Continue {
            message_id,
            if_generation: Some(generation),
            ..
        } = &op.request
        else {
            continue;
        };
        let Some(Outcome::Ok(result)) = op.outcome() else {
            continue;
        };
        if let Some(other) = taken.insert(*generation, message_id) {
            found.push(format!(
                "messages {other} and {message_id} were both taken at generation {generation}"
            ));
        }
        let answered = result.get("task").and_then(generation_of);
        if answered.is_none_or(|answered| answered <= *generation) {
            found.push(format!(
                "message {message_id}, taken at generation {generation}, was answered at generation {answered:?}"
            ));
        }
    }
    // States: none after a terminal one; the last is GetTask's.
    let mut states: Vec<(u64, String)> = Vec::new();
    for (id, event) in &log {
        let terminal_before = states.last().is_some_and(|(_, s)| is_terminal(s));
        if terminal_before && (event.get("statusUpdate").is_some() || event.get("artifactUpdate").is_some()) {
            found.push(format!(
                "event {id} follows the terminal state {}: {event}",
                states.last().map(|(_, s)| s.as_str()).unwrap_or_default()
            ));
        }
        if let Some(state) = state_of(event) {
            states.push((*id, state));
        }
    }
    if let Some((id, logged)) = states.last() {
        if *logged != final_state {
            found.push(format!(
                "the log ends in {logged} (event {id}), GetTask says {final_state}"
            ));
        }
    }
    let state_at = |at: u64| {
        states
            .iter()
            .take_while(|(id, _)| *id <= at)
            .last()
            .map(|(_, s)| s.clone())
    };
    // Messages: once each, in acknowledged order; refused ones absent.
    let history = user_messages(final_task);
    let position = |message: &str| history.iter().position(|m| m == message);
    let mut counted: BTreeMap<&str, usize> = BTreeMap::new();
    for message in &history {
        *counted.entry(message).or_default() += 1;
    }
    for (message, n) in &counted {
        if *n > 1 {
            found.push(format!("message {message} is in the history {n} times"));
        }
    }
    let acked: Vec<&Op> = ops
        .iter()
        .copied()
        .filter(|op| op.message_id().is_some() && op.acknowledged())
        .collect();
    for op in &acked {
        let message = op.message_id().unwrap_or_default();
        if position(message).is_none() {
            found.push(format!(
                "message {message} was acknowledged, and is not in the history"
            ));
        }
    }
    for a in &acked {
        for b in &acked {
            if a.returned < b.invoked {
                let (ma, mb) = (
                    a.message_id().unwrap_or_default(),
                    b.message_id().unwrap_or_default(),
                );
                if let (Some(pa), Some(pb)) = (position(ma), position(mb)) {
                    if pa > pb {
                        found.push(format!(
                            "message {ma} was acknowledged before {mb} was sent, yet comes after it"
                        ));
                    }
                }
            }
        }
    }
    // What clients read: a prefix of the final history, holding what was
    // acknowledged before; a terminal state for good.
    for op in ops {
        if let Some(task) = answered_task(op) {
            let seen = user_messages(task);
            if !history.starts_with(&seen) {
                found.push(format!(
                    "a client read the history {seen:?}, which the final history {history:?} does not start with"
                ));
            }
            for earlier in &acked {
                let message = earlier.message_id().unwrap_or_default();
                if earlier.returned < op.invoked && !seen.iter().any(|m| m == message) {
                    found.push(format!(
                        "message {message} was acknowledged before a read that does not hold it"
                    ));
                }
            }
            let read = state(task);
            if is_terminal(read) && read != final_state {
                found.push(format!(
                    "a client read the terminal state {read}, the task is now {final_state}"
                ));
            }
        }
        match (&op.request, op.outcome()) {
            (Request::Cancel { .. }, Some(Outcome::Ok(result))) => {
                let canceled = TaskState::Canceled.to_string();
                if final_state != canceled {
                    found.push(format!("a cancel was acknowledged, the task is {final_state}"));
                }
                if state(result) != canceled {
                    found.push(format!(
                        "a cancel was acknowledged with the state {}",
                        state(result)
                    ));
                }
            }
            (_, Some(Outcome::Fail { code, message })) if *code == ErrorKind::TaskNotFound.code() => {
                found.push(format!("an acknowledged task was not found ({message})"));
            }
            (Request::Continue { .. }, Some(Outcome::Fail { code, .. }))
            | (Request::Cancel { .. }, Some(Outcome::Fail { code, .. }))
                if claims_ended(*code) && !is_terminal(&final_state) =>
            {
                found.push(format!(
                    "refused with error {code} as if the task had ended, yet it is {final_state}"
                ));
            }
            _ => {}
        }
        if let Answer::Stream(stream) = &op.answer {
            if let Some((code, message)) = &stream.refused {
                if *code == ErrorKind::TaskNotFound.code() {
                    found.push(format!("an acknowledged task was not found ({message})"));
                } else if claims_ended(*code) && !is_terminal(&final_state) {
                    found.push(format!(
                        "a subscription was refused ({code} {message}), yet the task is {final_state}"
                    ));
                }
            }
            let after = match op.request {
                Request::Subscribe { after, .. } => after,
                _ => None,
            };
            let mut previous: Option<u64> = after;
            for (index, (id, event)) in stream.events.iter().enumerate() {
                let Some(id) = *id else {
                    found.push(format!("a stream event without an id: {event}"));
                    break;
                };
                let snapshot = index == 0 && after.is_none();
                if let Some(previous) = previous {
                    if id != previous + 1 {
                        found.push(format!(
                            "a stream delivered event {id} right after event {previous}"
                        ));
                    }
                }
                previous = Some(id);
                if snapshot {
                    let Some(task) = event.get("task") else {
                        found.push(format!("a stream opened without the task: {event}"));
                        continue;
                    };
                    if state_at(id).as_deref() != Some(state(task)) {
                        found.push(format!(
                            "a stream's snapshot at event {id} is {}, the log's state there is {:?}",
                            state(task),
                            state_at(id)
                        ));
                    }
                    if !history.starts_with(&user_messages(task)) {
                        found.push(
                            "a stream's snapshot holds a history the final one does not start with".into(),
                        );
                    }
                } else if log.get(&id).copied() != Some(event) {
                    found.push(format!(
                        "a stream delivered as event {id} {event}, the log holds {:?}",
                        log.get(&id)
                    ));
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The checker's own judgement, on small made-up histories.
mod judged;
pub mod plans;
pub mod push;
pub mod registry;
