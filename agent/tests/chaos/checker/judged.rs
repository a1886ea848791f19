//! The checker's own judgement, on small made-up histories: what it
//! accepts and each guarantee it reports broken.

use super::{check, Final};
use crate::history::{Op, Request};
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
    Op::unary(invoked, returned, request, outcome)
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
        if_generation: None,
    };
    op(invoked, returned, request, outcome)
}

/// The anomalies of `ops` against a task ending as `last` with `log` on two
/// agents, each event's generation its number, the task's the last one's.
fn judge(ops: &[Op], mut last: Value, log: Vec<Value>) -> Vec<String> {
    last["generation"] = json!(log.len());
    let log: Vec<(Option<u64>, Value)> = (1..)
        .zip(log)
        .map(|(n, mut event)| {
            for member in ["task", "statusUpdate"] {
                if let Some(inner) = event.get_mut(member) {
                    inner["generation"] = json!(n);
                }
            }
            (Some(n), event)
        })
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

#[test]
fn two_conditional_messages_taken_at_one_generation_are_an_anomaly() {
    let conditional = |invoked, returned, message: &str| Op {
        request: Request::Continue {
            task: TASK.into(),
            message_id: message.into(),
            if_generation: Some(2),
        },
        ..reply(
            invoked,
            returned,
            message,
            Outcome::Ok(json!({"task": {"generation": 3}})),
        )
    };
    let ops = [
        opened("TASK_STATE_INPUT_REQUIRED"),
        conditional(3, 5, "m2"),
        conditional(4, 6, "m3"),
    ];
    let mut log = waiting_log();
    log.push(status("TASK_STATE_WORKING"));
    log.push(status("TASK_STATE_INPUT_REQUIRED"));
    let found = judge(&ops, task("TASK_STATE_INPUT_REQUIRED", &["m1", "m2", "m3"]), log);
    assert!(
        found
            .iter()
            .any(|a| a.contains("m2 and m3 were both taken at generation 2")),
        "{found:?}"
    );
}

#[test]
fn an_event_whose_generation_is_not_its_number_is_an_anomaly() {
    let ops = [opened("TASK_STATE_INPUT_REQUIRED")];
    let finals = BTreeMap::from([(
        TASK.to_string(),
        Final {
            tasks: vec![
                json!({"id": TASK, "generation": 2, "status": {"state": "TASK_STATE_INPUT_REQUIRED"}, "history": [{"messageId": "m1", "role": "ROLE_USER"}]}),
            ],
            logs: vec![vec![
                (
                    Some(1),
                    json!({"task": {"id": TASK, "generation": 1, "status": {"state": "TASK_STATE_SUBMITTED"}}}),
                ),
                (
                    Some(2),
                    json!({"statusUpdate": {"taskId": TASK, "generation": 3, "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}}),
                ),
            ]],
        },
    )]);
    let listed = BTreeSet::from([TASK.to_string()]);
    let found: Vec<String> = check(&ops, &finals, &listed)
        .into_iter()
        .map(|a| a.what)
        .collect();
    assert!(
        found
            .iter()
            .any(|a| a.contains("event 2 carries the generation Some(3)")),
        "{found:?}"
    );
}
