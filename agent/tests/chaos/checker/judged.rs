//! The checker's own judgement, on small made-up histories: what it
//! accepts and each guarantee it reports broken.

use super::{check, Final};
use crate::history::{Answer, Op, Request};
use crate::wire::Outcome;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

const TASK: &str = "t1";

fn task(state: &str, messages: &[&str]) -> Value {
    let history: Vec<Value> = messages
        .iter()
        .map(|m| json!({"messageId": m, "role": "ROLE_USER", "parts": [{"text": "x"}]}))
        .collect();
    json!({"id": TASK, "contextId": "c1", "status": {"state": state}, "history": history})
}

fn status(state: &str) -> Value {
    json!({"statusUpdate": {"taskId": TASK, "contextId": "c1", "status": {"state": state}}})
}

fn op(invoked: u64, returned: u64, request: Request, outcome: Outcome) -> Op {
    Op {
        client: 1,
        agent: 0,
        invoked,
        returned,
        request,
        answer: Answer::Unary(outcome),
    }
}

fn opened(state: &str) -> Op {
    let request = Request::Open {
        message_id: "m1".into(),
        hook: false,
    };
    op(1, 2, request, Outcome::Ok(json!({"task": task(state, &["m1"])})))
}

fn reply(invoked: u64, returned: u64, message: &str, outcome: Outcome) -> Op {
    let request = Request::Continue {
        task: TASK.into(),
        message_id: message.into(),
    };
    op(invoked, returned, request, outcome)
}

/// The anomalies of `ops` against a task ending as `last` with `log` on two agents.
fn judge(ops: &[Op], last: Value, log: Vec<Value>) -> Vec<String> {
    let log: Vec<(Option<u64>, Value)> = log
        .into_iter()
        .enumerate()
        .map(|(i, event)| (Some(i as u64 + 1), event))
        .collect();
    let finals = BTreeMap::from([(
        TASK.to_string(),
        Final {
            tasks: vec![last.clone(), last],
            logs: vec![log.clone(), log],
        },
    )]);
    let listed = BTreeSet::from([TASK.to_string()]);
    check(ops, &finals, &listed).into_iter().map(|a| a.what).collect()
}

fn waiting_log() -> Vec<Value> {
    vec![
        json!({"task": task("TASK_STATE_SUBMITTED", &["m1"])}),
        status("TASK_STATE_INPUT_REQUIRED"),
    ]
}

#[test]
fn a_history_as_acknowledged_has_no_anomaly() {
    let ops = [
        opened("TASK_STATE_INPUT_REQUIRED"),
        reply(
            3,
            4,
            "m2",
            Outcome::Ok(json!({"task": task("TASK_STATE_INPUT_REQUIRED", &["m1", "m2"])})),
        ),
        reply(5, 6, "m3", Outcome::Unknown("cut".into())),
    ];
    let last = task("TASK_STATE_INPUT_REQUIRED", &["m1", "m2"]);
    assert!(judge(&ops, last, waiting_log()).is_empty());
}

#[test]
fn an_acknowledged_message_lost_or_out_of_order_is_an_anomaly() {
    let ops = [
        opened("TASK_STATE_INPUT_REQUIRED"),
        reply(
            3,
            4,
            "m2",
            Outcome::Ok(json!({"task": task("TASK_STATE_INPUT_REQUIRED", &["m1", "m2"])})),
        ),
        reply(
            5,
            6,
            "m3",
            Outcome::Ok(json!({"task": task("TASK_STATE_INPUT_REQUIRED", &["m1", "m2", "m3"])})),
        ),
    ];
    let lost = judge(
        &ops,
        task("TASK_STATE_INPUT_REQUIRED", &["m1", "m3"]),
        waiting_log(),
    );
    assert!(
        lost.iter()
            .any(|a| a.contains("m2 was acknowledged, and is not in the history")),
        "{lost:?}"
    );
    let reordered = judge(
        &ops,
        task("TASK_STATE_INPUT_REQUIRED", &["m1", "m3", "m2"]),
        waiting_log(),
    );
    assert!(
        reordered.iter().any(|a| a.contains("comes after it")),
        "{reordered:?}"
    );
}

#[test]
fn a_refused_message_in_the_history_is_an_anomaly() {
    let refused = Outcome::Fail {
        code: -32004,
        message: "terminal".into(),
    };
    let ops = [opened("TASK_STATE_INPUT_REQUIRED"), reply(3, 4, "m2", refused)];
    let found = judge(
        &ops,
        task("TASK_STATE_INPUT_REQUIRED", &["m1", "m2"]),
        waiting_log(),
    );
    assert!(found.iter().any(|a| a.contains("m2 was refused")), "{found:?}");
}

#[test]
fn a_state_after_a_terminal_one_is_an_anomaly() {
    let ops = [opened("TASK_STATE_INPUT_REQUIRED")];
    let mut log = waiting_log();
    log.push(status("TASK_STATE_CANCELED"));
    log.push(status("TASK_STATE_FAILED"));
    let found = judge(&ops, task("TASK_STATE_FAILED", &["m1"]), log);
    assert!(
        found.iter().any(|a| a.contains("follows the terminal state")),
        "{found:?}"
    );
}

#[test]
fn an_acknowledged_cancel_that_did_not_cancel_is_an_anomaly() {
    let cancel = op(
        3,
        4,
        Request::Cancel { task: TASK.into() },
        Outcome::Ok(task("TASK_STATE_CANCELED", &["m1"])),
    );
    let ops = [opened("TASK_STATE_INPUT_REQUIRED"), cancel];
    let mut log = waiting_log();
    log.push(status("TASK_STATE_COMPLETED"));
    let found = judge(&ops, task("TASK_STATE_COMPLETED", &["m1"]), log);
    assert!(
        found.iter().any(|a| a.contains("a cancel was acknowledged")),
        "{found:?}"
    );
}
