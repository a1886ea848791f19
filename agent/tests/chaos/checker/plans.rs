//! Plans under faults, judged from what clients were told against each plan
//! as every agent shows it at the end (`plan/status`). A plan's A2A task is
//! judged with the other tasks (its log, states and generations); here,
//! what is the plan's own:
//!
//! - no acknowledged plan is lost, and every agent shows the same plan;
//! - a plan is executed once: no two executions are acknowledged;
//! - a prompt is answered once: no two answers to it are acknowledged;
//! - a plan never executed (no execution sent that may have taken effect)
//!   is still CREATED, or CANCELLED;
//! - CANCELLED is for good: an acknowledged cancel, or a client shown the
//!   plan CANCELLED, means the plan ends CANCELLED; an acknowledged
//!   rejection means it ends FAILED (or CANCELLED after).

use super::{grouped, judge_each, Anomaly};
use crate::history::{Op, Request};
use crate::wire::Outcome;
use serde_json::Value;
use std::collections::BTreeMap;

const CREATED: &str = "PLAN_STATE_CREATED";
const FAILED: &str = "PLAN_STATE_FAILED";
const CANCELLED: &str = "PLAN_STATE_CANCELLED";

/// The plan an answer carries (execution and status answers wrap it).
fn plan_of(answer: &Value) -> &Value {
    answer.get("plan").unwrap_or(answer)
}

fn state(answer: &Value) -> &str {
    plan_of(answer)["state"].as_str().unwrap_or_default()
}

/// Checks the plan operations of `ops` against each plan as every agent
/// shows it at the end (`finals`: plan id → one status answer per agent,
/// an error as a value).
pub fn check(ops: &[Op], finals: &BTreeMap<String, Vec<Value>>) -> Vec<Anomaly> {
    judge_each(finals, &grouped(ops, Op::plan), |ops, last| check_plan(ops, last))
}

/// The violations on one plan.
fn check_plan(ops: &[&Op], last: &[Value]) -> Vec<String> {
    let mut found = Vec::new();
    for (agent, shown) in last.iter().enumerate() {
        if shown.get("plan").is_none() {
            found.push(format!("the acknowledged plan is lost on agent {agent}: {shown}"));
        } else if agent > 0 && plan_of(shown) != plan_of(&last[0]) {
            found.push(format!(
                "agent {agent} shows the plan as {}, agent 0 as {}",
                plan_of(shown),
                plan_of(&last[0])
            ));
        }
    }
    let Some(last) = last.first().filter(|shown| shown.get("plan").is_some()) else {
        return found;
    };
    let final_state = state(last);
    let acknowledged = |op: &&&Op| matches!(op.outcome(), Some(Outcome::Ok(_)));
    let executions = ops
        .iter()
        .filter(|op| matches!(op.request, Request::PlanExecute { .. }))
        .filter(acknowledged)
        .count();
    if executions > 1 {
        found.push(format!("{executions} executions were acknowledged"));
    }
    let may_have_run = ops.iter().any(|op| {
        matches!(op.request, Request::PlanExecute { .. })
            && !matches!(op.outcome(), Some(Outcome::Fail { .. }))
    });
    if !may_have_run && ![CREATED, CANCELLED].contains(&final_state) {
        found.push(format!("never executed, the plan ends {final_state}"));
    }
    let mut answers: BTreeMap<&str, Vec<bool>> = BTreeMap::new();
    for op in ops.iter().filter(acknowledged) {
        let told = match op.outcome() {
            Some(Outcome::Ok(answer)) => state(answer),
            _ => "",
        };
        if told == CANCELLED && final_state != CANCELLED {
            found.push(format!(
                "a client was shown the plan CANCELLED ({op}), it ends {final_state}"
            ));
        }
        match &op.request {
            Request::PlanCancel { .. } if final_state != CANCELLED => {
                found.push(format!(
                    "a cancel was acknowledged ({op}), the plan ends {final_state}"
                ));
            }
            Request::PlanPrompt { prompt, approve, .. } => {
                answers.entry(prompt).or_default().push(*approve);
                if !approve && ![FAILED, CANCELLED].contains(&final_state) {
                    found.push(format!(
                        "a rejection was acknowledged ({op}), the plan ends {final_state}"
                    ));
                }
            }
            _ => {}
        }
    }
    for (prompt, decisions) in answers {
        if decisions.len() > 1 {
            found.push(format!(
                "prompt {prompt} was answered {} times: {decisions:?}",
                decisions.len()
            ));
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The checker's judgement of plan histories.
#[cfg(test)]
mod judged {
    use super::check_plan;
    use crate::history::{Op, Request};
    use crate::wire::Outcome;
    use serde_json::{json, Value};

    const PLAN: &str = "p1";

    fn plan(state: &str) -> Value {
        json!({"id": PLAN, "state": state})
    }

    fn op(invoked: u64, request: Request, outcome: Outcome) -> Op {
        Op::unary(invoked, invoked + 1, request, outcome)
    }

    fn prompt(invoked: u64, approve: bool) -> Op {
        let request = Request::PlanPrompt {
            plan: PLAN.into(),
            prompt: "q1".into(),
            approve,
        };
        op(invoked, request, Outcome::Ok(plan("PLAN_STATE_RUNNING")))
    }

    fn judge(ops: &[Op], end: &str) -> Vec<String> {
        let ops: Vec<&Op> = ops.iter().collect();
        let status = json!({"plan": plan(end)});
        check_plan(&ops, &[status.clone(), status])
    }

    fn history() -> Vec<Op> {
        let execute = Request::PlanExecute { plan: PLAN.into() };
        vec![
            op(1, Request::PlanUse, Outcome::Ok(plan("PLAN_STATE_CREATED"))),
            op(
                3,
                execute,
                Outcome::Ok(json!({"plan": plan("PLAN_STATE_RUNNING"), "taskId": "t1"})),
            ),
        ]
    }

    #[test]
    fn a_plan_approved_once_and_completed_has_no_anomaly() {
        let mut ops = history();
        ops.push(prompt(5, true));
        assert_eq!(judge(&ops, "PLAN_STATE_COMPLETED"), Vec::<String>::new());
    }

    #[test]
    fn a_prompt_answered_twice_or_a_rejection_that_completed_is_an_anomaly() {
        let mut ops = history();
        ops.push(prompt(5, true));
        ops.push(prompt(7, false));
        let found = judge(&ops, "PLAN_STATE_COMPLETED");
        assert!(
            found.iter().any(|a| a.contains("prompt q1 was answered 2 times")),
            "{found:?}"
        );
        assert!(
            found.iter().any(|a| a.contains("a rejection was acknowledged")),
            "{found:?}"
        );
    }

    #[test]
    fn a_cancelled_plan_that_ends_otherwise_or_a_plan_run_unexecuted_is_an_anomaly() {
        let mut ops = history();
        let cancel = Request::PlanCancel { plan: PLAN.into() };
        ops.push(op(5, cancel, Outcome::Ok(plan("PLAN_STATE_CANCELLED"))));
        let found = judge(&ops, "PLAN_STATE_FAILED");
        assert!(
            found.iter().any(|a| a.contains("a cancel was acknowledged")),
            "{found:?}"
        );
        let found = judge(&ops[..1], "PLAN_STATE_RUNNING");
        assert!(found.iter().any(|a| a.contains("never executed")), "{found:?}");
    }
}
