//! Where a plan's steps run: the runner that drives a RUNNING plan through
//! its steps inside the plan's A2A task, then its validations, REVIEW and
//! (with the profile's autoApply) the apply.
//!
//! A runner holds the plan's lock for one step at a time and stops when it
//! finds the plan no longer RUNNING (waiting for an answer, cancelled) or
//! run by another agent (which took the run over, see [`super::lease`]), so
//! a resumed or answered plan simply gets a new runner. Every change it makes
//! travels with the task event announcing it (`events::emit`).

use super::events::{emit, tool_fields, Out};
use super::field;
use super::lease;
use super::outcome::{step_failed, validate_into, StepEnd};
use super::record::{self, load, PlanRecord};
use super::template::render_value;
use super::tools::{self, Call, Outcome};
use super::workspace::changed_files;
use super::PlanService;
use crate::util;
use a2a::rpc::Error;
use a2a::types::RegistryKind;
use a2a::types::{PlanEventType, PlanPhase, PlanState, PlanStepState, TaskState, ToolKind};
use a2a::ErrorKind;
use serde_json::json;

/// Fails a running plan and its task for an unexpected error.
async fn fail_plan(plans: &PlanService, ns: &str, plan_id: &str, message: &str) {
    let Ok(_guard) = record::guard(plans, plan_id).await else {
        return;
    };
    let Ok((mut rec, mut ver)) = load(plans, ns, plan_id).await else {
        return;
    };
    // Another agent that took the run over (the error may be this runner's
    // write losing to its) keeps it.
    if rec.plan.state != PlanState::Running || plans.run_held_elsewhere(&rec) {
        return;
    }
    rec.fail(message, None);
    // The task may already be terminal (e.g. cancelled): nothing more to say then.
    // The event names no step, with an explicit null as it always has.
    let _ = emit(
        plans,
        ns,
        &mut rec,
        &mut ver,
        Out::Status(TaskState::Failed, Some(message.to_string())),
        PlanEventType::PlanError,
        json!({ "state": PlanState::Failed, "message": message, "stepId": null }),
    )
    .await;
}

/// Drives a RUNNING plan until it waits, fails or completes.
pub(crate) async fn run_plan(plans: &PlanService, ns: &str, plan_id: &str) {
    if let Err(error) = drive(plans, ns, plan_id).await {
        fail_plan(plans, ns, plan_id, &error.message).await;
    }
}

/// Runs [`run_plan`] detached, with its lease kept on a shared store; false
/// (nothing started) when a runner of this agent already drives the plan.
pub(crate) fn spawn_run(plans: &PlanService, ns: String, plan_id: String) -> Result<bool, Error> {
    if !plans.begin_run(&plan_id) {
        return Ok(false);
    }
    let plans = plans.clone();
    tokio::spawn(async move {
        if plans.shared_store {
            let keeper = plans.clone();
            let (ns, plan_id) = (ns.clone(), plan_id.clone());
            tokio::spawn(async move { lease::keep(&keeper, &ns, &plan_id).await });
        }
        run_plan(&plans, &ns, &plan_id).await;
        plans.end_run(&plan_id);
    });
    Ok(true)
}

async fn drive(plans: &PlanService, ns: &str, plan_id: &str) -> Result<(), Error> {
    // Bounded: every iteration finishes a step or stops.
    loop {
        let _guard = record::guard(plans, plan_id).await?;
        let (mut rec, mut ver) = load(plans, ns, plan_id).await?;
        // Stops when the plan waits or ended, or another agent runs it.
        if rec.plan.state != PlanState::Running || plans.run_held_elsewhere(&rec) {
            return Ok(());
        }
        if !rec.exec.started {
            rec.exec.started = true;
            emit(
                plans,
                ns,
                &mut rec,
                &mut ver,
                Out::Status(TaskState::Working, None),
                PlanEventType::PlanPhaseChanged,
                json!({ "phase": PlanPhase::Execute }),
            )
            .await?;
        }
        let i = rec.exec.next_step;
        if i >= rec.steps.len() {
            return finish(plans, ns, &mut rec, &mut ver).await;
        }
        match run_step(plans, ns, &mut rec, &mut ver, i).await? {
            StepEnd::Next => continue,
            StepEnd::Stop => return Ok(()),
        }
    }
}

/// Starts step `i`: RUNNING with `tool.invoked`, then its tool call with the
/// arguments rendered and checked; `Err` is why the step fails before its
/// tool runs.
async fn prepare_step(
    plans: &PlanService,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
    i: usize,
) -> Result<Result<Call, String>, Error> {
    let step = rec.steps[i].clone();
    rec.steps[i].state = PlanStepState::Running;
    rec.steps[i].started_at = Some(util::now());
    rec.usage.tool_calls += 1;
    emit(
        plans,
        ns,
        rec,
        ver,
        Out::Status(TaskState::Working, None),
        PlanEventType::ToolInvoked,
        tool_fields(&step),
    )
    .await?;
    let Some(tool) = plans.registry.get(ns, RegistryKind::Tool, &step.tool).await? else {
        return Ok(Err(format!("tool `{}` no longer exists", step.tool)));
    };
    let raw = rec.exec.arguments.get(i).cloned().unwrap_or(json!({}));
    let args = match render_value(&raw, &rec.plan.inputs, &rec.exec.outputs) {
        Ok(a) => a,
        Err(why) => return Ok(Err(why)),
    };
    if let Err(why) = tools::check_arguments(&tool, &args) {
        return Ok(Err(why));
    }
    Ok(Ok(Call {
        artifact_id: format!("{}-r{}-{}", rec.plan.id, rec.plan.revision, step.id),
        revision: rec.plan.revision,
        config: tool.get("config").cloned().unwrap_or(json!({})),
        kind: field::<ToolKind>(&tool, "kind")
            .ok_or_else(|| tool["kind"].as_str().unwrap_or_default().to_string()),
        step,
        args,
    }))
}

async fn run_step(
    plans: &PlanService,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
    i: usize,
) -> Result<StepEnd, Error> {
    let call = match prepare_step(plans, ns, rec, ver, i).await? {
        Ok(call) => call,
        Err(why) => return step_failed(plans, ns, rec, ver, i, why).await,
    };
    let tool_fields = tool_fields(&call.step);
    match tools::run(&call, &rec.plan.inputs, &rec.exec.outputs) {
        Outcome::Failed(why) => step_failed(plans, ns, rec, ver, i, why).await,
        Outcome::Produced(produced) => {
            let artifact = produced.artifact.artifact.clone();
            tools::record_output(rec, i, &call.step.id, produced);
            emit(
                plans,
                ns,
                rec,
                ver,
                Out::Artifact(artifact),
                PlanEventType::ToolCompleted,
                tool_fields,
            )
            .await?;
            Ok(StepEnd::Next)
        }
        Outcome::Approval { question } => tools::approval(plans, ns, rec, ver, i, question).await,
        Outcome::Validate(names) => tools::run_validations(plans, ns, rec, ver, i, names).await,
    }
}

/// After the last step: the action's validations, REVIEW, optional auto-apply, COMPLETED.
async fn finish(plans: &PlanService, ns: &str, rec: &mut PlanRecord, ver: &mut u64) -> Result<(), Error> {
    let names = rec.exec.validations.clone();
    if let Err(why) = validate_into(plans, ns, rec, ver, &names, None).await? {
        rec.fail(&why, None);
        return emit(
            plans,
            ns,
            rec,
            ver,
            Out::Status(TaskState::Failed, Some(why.clone())),
            PlanEventType::PlanError,
            json!({ "state": PlanState::Failed, "message": why }),
        )
        .await;
    }
    let (_, current) = plans.registry.project_files(ns, &rec.plan.project, None).await?;
    let (changed, bytes) = changed_files(&current, &rec.exec.workspace);
    rec.usage.files_changed = changed;
    rec.usage.bytes_changed = bytes;
    rec.plan.phase = PlanPhase::Review;
    emit(
        plans,
        ns,
        rec,
        ver,
        Out::Status(TaskState::Working, None),
        PlanEventType::PlanPhaseChanged,
        json!({ "phase": PlanPhase::Review }),
    )
    .await?;
    rec.plan.state = PlanState::Completed;
    let note = if rec.exec.auto_apply {
        auto_apply(plans, ns, rec, ver).await?
    } else {
        None
    };
    let mut fields = json!({ "state": rec.plan.state, "phase": rec.plan.phase });
    if let Some(n) = &note {
        fields["message"] = json!(n);
    }
    emit(
        plans,
        ns,
        rec,
        ver,
        Out::Status(TaskState::Completed, note),
        PlanEventType::PlanStateChanged,
        fields,
    )
    .await
}

/// The automation profile's auto-apply of a COMPLETED plan; a refusal (budget,
/// invariants) leaves it COMPLETED and is the returned note.
async fn auto_apply(
    plans: &PlanService,
    ns: &str,
    rec: &mut PlanRecord,
    ver: &mut u64,
) -> Result<Option<String>, Error> {
    match super::apply::apply(plans, ns, rec, ver, None, None).await {
        Ok(result) => {
            emit(
                plans,
                ns,
                rec,
                ver,
                Out::Status(TaskState::Working, None),
                PlanEventType::PlanApplyCompleted,
                json!({ "state": PlanState::Applied, "phase": PlanPhase::Apply,
                        "projectRevision": result.revision.revision }),
            )
            .await?;
            Ok(None)
        }
        Err(e)
            if matches!(
                e.kind(),
                Some(ErrorKind::ExtBudgetExceeded | ErrorKind::ExtPlanError)
            ) =>
        {
            Ok(Some(format!("Automatic apply refused: {}", e.message)))
        }
        Err(e) => Err(e),
    }
}
