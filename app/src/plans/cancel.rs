//! Cancelling a plan: `plan/cancel`, and following its task when the task is
//! cancelled through A2A.

use super::record::{self, can_cancel, load, state_name};
use super::PlanService;
use crate::store::Commit;
use crate::tasks::changes::cancel_change;
use crate::util;
use a2a::rpc::Error;
use a2a::types::{Plan, PlanCancelParams, PlanState};
use a2a::ErrorKind;

/// `plan/cancel`; a running plan's task is cancelled after the plan.
pub(crate) async fn cancel(plans: &PlanService, ns: &str, params: PlanCancelParams) -> Result<Plan, Error> {
    let guard = record::guard(plans, &params.plan_id).await?;
    let (mut record, version) = load(plans, ns, &params.plan_id).await?;
    if !can_cancel(record.plan.state) {
        return Err(Error::new(
            ErrorKind::ExtInvalidState,
            format!(
                "Plan `{}` is {}; only CREATED, RUNNING, INPUT_REQUIRED, COMPLETED or FAILED plans can be cancelled",
                params.plan_id,
                state_name(record.plan.state)
            ),
        )
        .with_metadata("state", state_name(record.plan.state)));
    }
    let running = matches!(record.plan.state, PlanState::Running | PlanState::InputRequired);
    record.cancel(params.reason.clone().filter(|r| !r.is_empty()), util::now());
    record::save(plans, ns, &record, version).await?;
    drop(guard);
    if let (true, Some(task_id)) = (running, record.plan.task_id.clone()) {
        // The plan is cancelled; its task follows. A task that ended
        // meanwhile needs nothing more.
        let _ = plans
            .engine
            .mutate(ns, &task_id, |task| cancel_change(task, None))
            .await;
    }
    Ok(record.plan)
}

/// The plan's task was cancelled through A2A: the plan follows.
pub(crate) async fn task_cancelled(plans: &PlanService, ns: &str, plan_id: &str) {
    let Ok(_guard) = record::guard(plans, plan_id).await else {
        return;
    };
    let Ok((mut rec, ver)) = load(plans, ns, plan_id).await else {
        return;
    };
    if matches!(rec.plan.state, PlanState::Running | PlanState::InputRequired) {
        rec.cancel(Some("The plan's task was cancelled.".into()), util::now());
        let Ok(doc) = record::put(ns, &rec, ver) else {
            return;
        };
        let commit = Commit {
            task: None,
            docs: vec![doc],
            ..Commit::default()
        };
        let _ = record::commit(plans, commit, plan_id).await;
    }
}
