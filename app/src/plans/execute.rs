//! `plan/execute`: arms a CREATED plan (snapshots the action's step
//! arguments, validations and the automation profile's approval mode into
//! the record), creates the plan's task (SUBMITTED; its metadata names the
//! plan under the extension URI; its first plan event is `plan.created`) in
//! the same commit that makes the plan RUNNING, and hands it to a detached runner ([`super::runner`]). Plans left
//! RUNNING by a crash are handed to runners again at start-up
//! ([`crate::App::resume_work`]), and on a shared store, once their run lease has
//! expired, by a periodic sweep.

use super::events::{created, plan_metadata};
use super::field;
use super::record::{self, expect_state, load, no_usage, plan_error, PlanRecord, COLL, FAMILY};
use super::runner::spawn_run;
use super::PlanService;
use crate::store::Internal;
use crate::util::{self, from_json};
use a2a::rpc::Error;
use a2a::types::RegistryKind;
use a2a::types::{
    ApprovalMode, PlanExecuteParams, PlanExecution, PlanState, PlanStepState, Task, TaskState, TaskStatus,
    ToolKind,
};
use serde_json::json;

/// Prepares a CREATED plan for a run: checks the action still matches the
/// plan's steps and every tool is runnable, then snapshots the step
/// arguments, validations and the profile's approval mode and resets the
/// steps, usage and this revision's artifacts. Changes only `rec`.
pub(crate) async fn arm(plans: &PlanService, ns: &str, rec: &mut PlanRecord) -> Result<(), Error> {
    let action = plans
        .registry
        .get(ns, RegistryKind::Action, &rec.plan.action)
        .await?
        .ok_or_else(|| plan_error(format!("Action `{}` no longer exists", rec.plan.action)))?;
    let action_steps = action["steps"].as_array().cloned().unwrap_or_default();
    let same = action_steps.len() == rec.steps.len()
        && action_steps
            .iter()
            .zip(&rec.steps)
            .all(|(a, s)| a["id"] == s.id.as_str() && a["tool"] == s.tool.as_str());
    if !same {
        return Err(plan_error(format!(
            "Action `{}` changed since the plan was drafted; correct the plan first",
            rec.plan.action
        )));
    }
    for step in &rec.steps {
        let tool = plans
            .registry
            .get(ns, RegistryKind::Tool, &step.tool)
            .await?
            .ok_or_else(|| {
                plan_error(format!(
                    "step `{}` uses tool `{}`, which does not exist",
                    step.id, step.tool
                ))
            })?;
        if field(&tool, "kind") == Some(ToolKind::External) {
            return Err(plan_error(format!(
                "step `{}` uses the EXTERNAL tool `{}`, which this server cannot run",
                step.id, step.tool
            )));
        }
    }
    let (mut auto_approve, mut auto_apply) = (false, false);
    if let Some(name) = &rec.plan.automation_profile {
        let profile = plans
            .registry
            .get(ns, RegistryKind::AutomationProfile, name)
            .await?
            .ok_or_else(|| plan_error(format!("Automation profile `{name}` no longer exists")))?;
        auto_approve = field(&profile, "approvalMode") == Some(ApprovalMode::Auto);
        auto_apply = profile["autoApply"].as_bool().unwrap_or(false);
    }
    rec.exec = record::ExecState {
        arguments: action_steps
            .iter()
            .map(|s| s.get("arguments").cloned().unwrap_or(json!({})))
            .collect(),
        validations: action["validations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        auto_approve,
        auto_apply,
        ..Default::default()
    };
    for step in &mut rec.steps {
        step.state = PlanStepState::Pending;
        step.started_at = None;
        step.finished_at = None;
        step.message = None;
    }
    rec.usage = no_usage();
    // Artifacts of an earlier execution of this revision are superseded.
    let revision = rec.plan.revision;
    rec.artifacts.retain(|a| a.revision != revision);
    Ok(())
}

/// `plan/execute`: the plan RUNNING in a new task, handed to a detached runner.
pub(crate) async fn execute(
    plans: &PlanService,
    ns: &str,
    params: PlanExecuteParams,
) -> Result<PlanExecution, Error> {
    let _guard = record::guard(plans, &params.plan_id).await?;
    let (mut rec, ver) = load(plans, ns, &params.plan_id).await?;
    expect_state(&rec, PlanState::Created, "executed")?;
    arm(plans, ns, &mut rec).await?;
    let task_id = util::new_id();
    let now = util::now();
    rec.start_running(&task_id, now.clone());
    plans.stamp_lease(&mut rec);
    let task = Task {
        generation: None,
        id: task_id.clone(),
        context_id: Some(rec.plan.context_id.clone()),
        status: TaskStatus {
            state: TaskState::Submitted,
            message: None,
            timestamp: Some(now),
        },
        artifacts: vec![],
        history: vec![],
        metadata: Some(plan_metadata(&rec.plan.id, rec.plan.revision)),
    };
    let doc = record::put(ns, &rec, ver)?;
    let announced = rec.clone();
    // The plan's runner drives the task from here; nothing waits on its events.
    plans
        .engine
        .create_task_then(ns, task, move |t| created(t, &announced), vec![doc], false)
        .await?;
    spawn_run(plans, ns.to_string(), rec.plan.id.clone())?;
    Ok(PlanExecution {
        context_id: rec.plan.context_id.clone(),
        plan: rec.plan,
        task_id,
    })
}

/// Restarts the runners of plans left RUNNING (by a crash or a shutdown
/// mid-run). A step that was under way runs again from its start. At
/// `start_up` on a store only this process opens, every RUNNING plan is
/// resumed (whoever ran it is gone); otherwise only those whose run lease
/// has expired (see [`super::lease`]). Returns the tasks of the runs resumed.
pub(crate) async fn resume(plans: &PlanService, start_up: bool) -> Result<Vec<String>, Error> {
    let namespaces = plans.db.store().namespaces().await.internal(FAMILY)?;
    let mut resumed = Vec::new();
    for ns in namespaces {
        let n = ns.clone();
        let docs = plans
            .db
            .store()
            .list_docs(COLL, &n, "", None, usize::MAX)
            .await
            .internal(FAMILY)?;
        for doc in docs {
            // An unreadable record is reported by diagnostics, not here.
            let Ok(rec) = from_json::<PlanRecord>(doc.value, FAMILY) else {
                continue;
            };
            let orphaned = (start_up && !plans.shared_store) || plans.run_abandoned(&rec);
            let Some(task_id) = rec.plan.task_id.clone() else {
                continue;
            };
            if rec.plan.state == PlanState::Running
                && orphaned
                && spawn_run(plans, ns.clone(), rec.plan.id.clone())?
            {
                resumed.push(task_id);
            }
        }
    }
    Ok(resumed)
}
