//! Push delivery's promise under faults, judged from what the webhook
//! receiver got (every POST, in arrival order) against each task's final
//! event log. For each task:
//!
//! - what was delivered is the log's: the body of a POST carrying sequence
//!   number `n` is event `n` of its task's log (so nothing follows a
//!   terminal event, and nothing reaches a task without a webhook), in the
//!   released protocol version (a webhook negotiated none: no generation;
//!   its sequence header carries the same number);
//! - in order: the first delivery of each event comes after the first
//!   delivery of every earlier one; a redelivery repeats an event's number;
//! - at least once: the delivered numbers run without a gap, and once the
//!   webhook's creation was acknowledged before a call that appended
//!   events was sent, the log's last event is delivered;
//! - no acknowledged webhook is lost: every agent still has it.

use super::{user_messages, Anomaly, Final};
use crate::common::webhook::Post;
use crate::history::{Op, Request};
use crate::wire::Outcome;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// True when an operation on a task registered its webhook (or tried to).
fn registers(op: &Op) -> bool {
    matches!(
        op.request,
        Request::PushCreate { .. } | Request::Open { hook: true, .. }
    )
}

/// True when the task was opened with its webhook, acknowledged: every
/// event of its log is owed, from the first.
fn opened_with_hook(ops: &[&Op]) -> bool {
    ops.iter()
        .any(|op| matches!(op.request, Request::Open { hook: true, .. }) && op.acknowledged())
}

/// True when the acknowledged operations on a task owe its webhook the
/// log's last event: the task was opened with it, or one that appends
/// events (a message or a cancel) was acknowledged, and sent after the
/// webhook's creation was acknowledged.
fn owes_last_event(ops: &[&Op]) -> bool {
    if opened_with_hook(ops) {
        return true;
    }
    let Some(created) = ops
        .iter()
        .filter(|op| matches!(op.request, Request::PushCreate { .. }) && op.acknowledged())
        .map(|op| op.returned)
        .min()
    else {
        return false;
    };
    ops.iter().any(|op| {
        matches!(op.request, Request::Continue { .. } | Request::Cancel { .. })
            && op.acknowledged()
            && op.invoked > created
    })
}

/// What the push check reads of a run: each task's final log by event
/// number, and the operations on each task, an open counted on the task
/// its message is in whether or not its client was answered (one that
/// was not may still have registered the webhook).
pub struct Tasks<'a> {
    logs: BTreeMap<&'a str, BTreeMap<u64, &'a Value>>,
    ops: BTreeMap<&'a str, Vec<&'a Op>>,
}

impl<'a> Tasks<'a> {
    pub fn new(ops: &'a [Op], finals: &'a BTreeMap<String, Final>) -> Tasks<'a> {
        let opened_in: BTreeMap<String, &str> = finals
            .iter()
            .filter_map(|(id, last)| Some((user_messages(&last.tasks[0]).into_iter().next()?, id.as_str())))
            .collect();
        let mut by_task: BTreeMap<&str, Vec<&Op>> = BTreeMap::new();
        for op in ops {
            let task = match &op.request {
                Request::Open { message_id, .. } => opened_in.get(message_id).copied().or(op.task()),
                _ => op.task(),
            };
            if let Some(task) = task {
                by_task.entry(task).or_default().push(op);
            }
        }
        let logs = finals
            .iter()
            .map(|(id, last)| {
                let log = last.logs[0].iter().filter_map(|(n, event)| Some(((*n)?, event)));
                (id.as_str(), log.collect())
            })
            .collect();
        Tasks { logs, ops: by_task }
    }

    /// The tasks that owe their webhook their last event, with its number.
    pub fn owed(&self) -> Vec<(&'a str, u64)> {
        self.ops
            .iter()
            .filter(|(_, ops)| owes_last_event(ops))
            .filter_map(|(task, _)| Some((*task, *self.logs.get(task)?.keys().last()?)))
            .collect()
    }

    /// The tasks some operation registered (or tried to register) a webhook on.
    pub fn registered(&self) -> Vec<&'a str> {
        self.ops
            .iter()
            .filter(|(_, ops)| ops.iter().any(|op| registers(op)))
            .map(|(task, _)| *task)
            .collect()
    }
}

/// Checks the POSTs received (`posts`, in arrival order) against each
/// task's final log and the webhook each agent still holds at the end
/// (`hooks`: task → one answer per agent).
pub fn check(tasks: &Tasks, posts: &[Post], hooks: &BTreeMap<String, Vec<Value>>) -> Vec<Anomaly> {
    let by_task = &tasks.ops;
    let logs = &tasks.logs;
    let mut delivered: BTreeMap<&str, Vec<&Post>> = BTreeMap::new();
    for post in posts {
        delivered.entry(post.task_id.as_str()).or_default().push(post);
    }
    let mut checked: BTreeSet<&str> = delivered.keys().copied().collect();
    checked.extend(hooks.keys().map(String::as_str));
    let mut anomalies = Vec::new();
    for task in checked {
        let ops = by_task.get(task).cloned().unwrap_or_default();
        let posts = delivered.get(task).cloned().unwrap_or_default();
        let empty = BTreeMap::new();
        let log = logs.get(task).unwrap_or(&empty);
        let held = hooks.get(task).map(Vec::as_slice).unwrap_or_default();
        for what in check_task(&ops, &posts, log, held) {
            anomalies.push(Anomaly {
                task: task.to_string(),
                what,
            });
        }
    }
    anomalies
}

/// An event of the log (read in the draft) as the released version renders
/// it: without the generations.
fn released(event: &Value) -> Value {
    let mut event = event.clone();
    for member in ["task", "statusUpdate", "artifactUpdate"] {
        if let Some(Value::Object(inner)) = event.get_mut(member) {
            inner.remove("generation");
        }
    }
    event
}

/// The violations on one task.
fn check_task(ops: &[&Op], posts: &[&Post], log: &BTreeMap<u64, &Value>, held: &[Value]) -> Vec<String> {
    let mut found = Vec::new();
    if !posts.is_empty() && !ops.iter().any(|op| registers(op)) {
        found.push(format!(
            "{} deliveries, yet nobody registered a webhook",
            posts.len()
        ));
    }
    for post in posts {
        if log.get(&post.seq).map(|event| released(event)) != Some(post.body.clone()) {
            found.push(format!(
                "delivered as event {} {}, the log holds {:?}",
                post.seq,
                post.body,
                log.get(&post.seq)
            ));
        }
    }
    // The first delivery of each event, in arrival order.
    let mut firsts: Vec<u64> = Vec::new();
    for post in posts {
        if !firsts.contains(&post.seq) {
            firsts.push(post.seq);
        }
    }
    for pair in firsts.windows(2) {
        if pair[1] < pair[0] {
            found.push(format!(
                "event {} was first delivered after event {}",
                pair[1], pair[0]
            ));
        }
    }
    let numbers: BTreeSet<u64> = firsts.iter().copied().collect();
    if let (Some(first), Some(last)) = (numbers.first(), numbers.last()) {
        let missing: Vec<u64> = (*first..=*last).filter(|n| !numbers.contains(n)).collect();
        if !missing.is_empty() {
            found.push(format!(
                "events {missing:?} were never delivered, between {first} and {last}"
            ));
        }
    }
    if opened_with_hook(ops) && numbers.first().is_some_and(|first| *first != 1) {
        found.push(format!(
            "the task was opened with its webhook, whose first delivery is event {:?}",
            numbers.first()
        ));
    }
    if owes_last_event(ops) {
        if let Some(last) = log.keys().last() {
            if numbers.last() != Some(last) {
                found.push(format!(
                    "the webhook was owed event {last}, the last delivered is {:?}",
                    numbers.last()
                ));
            }
        }
    }
    let acknowledged = ops.iter().any(|op| registers(op) && op.acknowledged());
    for (agent, hook) in held.iter().enumerate() {
        if acknowledged && hook.get("url").is_none() {
            found.push(format!(
                "the acknowledged webhook is lost on agent {agent}: {hook}"
            ));
        }
    }
    for op in ops {
        if let (Request::PushCreate { .. }, Some(Outcome::Ok(config))) = (&op.request, op.outcome()) {
            if config.get("url").is_none() {
                found.push(format!("a webhook's creation was acknowledged with {config}"));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The checker's judgement of deliveries.
#[cfg(test)]
mod judged {
    use super::check_task;
    use crate::common::webhook::Post;
    use crate::history::{Op, Request};
    use crate::wire::Outcome;
    use serde_json::{json, Value};
    use std::collections::BTreeMap;

    const TASK: &str = "t1";

    fn event(n: u64) -> Value {
        json!({"statusUpdate": {"taskId": TASK, "contextId": "c1", "status": {"state": format!("S{n}")}}})
    }

    fn log(n: u64) -> Vec<Value> {
        (1..=n).map(event).collect()
    }

    fn post(seq: u64) -> Post {
        Post {
            task_id: TASK.into(),
            seq,
            body: event(seq),
            status: 200,
        }
    }

    fn op(invoked: u64, returned: u64, request: Request) -> Op {
        let created = json!({"url": "http://hook", "task": {"id": TASK}});
        Op::unary(invoked, returned, request, Outcome::Ok(created))
    }

    fn history() -> Vec<Op> {
        let create = Request::PushCreate { task: TASK.into() };
        let reply = Request::Continue {
            task: TASK.into(),
            message_id: "m2".into(),
            if_generation: None,
        };
        vec![op(1, 2, create), op(3, 4, reply)]
    }

    fn judge(posts: &[Post], log: &[Value]) -> Vec<String> {
        let log: BTreeMap<u64, &Value> = (1..).zip(log).collect();
        let log = &log;
        let ops = history();
        let ops: Vec<&Op> = ops.iter().collect();
        let posts: Vec<&Post> = posts.iter().collect();
        let hook = json!({"url": "http://hook"});
        check_task(&ops, &posts, log, &[hook.clone(), hook])
    }

    #[test]
    fn every_event_in_order_with_a_redelivery_has_no_anomaly() {
        let posts = [post(2), post(3), post(3), post(4), post(3)];
        assert_eq!(judge(&posts, &log(4)), Vec::<String>::new());
    }

    #[test]
    fn a_gap_a_reordering_or_a_missing_last_event_is_an_anomaly() {
        let gap = judge(&[post(2), post(4)], &log(4));
        assert!(
            gap.iter().any(|a| a.contains("events [3] were never delivered")),
            "{gap:?}"
        );
        let reordered = judge(&[post(3), post(2), post(4)], &log(4));
        assert!(
            reordered
                .iter()
                .any(|a| a.contains("event 2 was first delivered after event 3")),
            "{reordered:?}"
        );
        let short = judge(&[post(2), post(3)], &log(4));
        assert!(short.iter().any(|a| a.contains("owed event 4")), "{short:?}");
    }

    #[test]
    fn a_delivery_the_log_does_not_hold_is_an_anomaly() {
        let found = judge(&[post(2), post(3), post(4), post(5)], &log(4));
        assert!(
            found.iter().any(|a| a.contains("delivered as event 5")),
            "{found:?}"
        );
    }
}
