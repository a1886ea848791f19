//! Answers to a waiting plan: `plan/prompt`, and a message replying to the
//! plan's input-required task.
//!
//! APPROVE (plan/prompt, or a reply whose text starts with
//! approve/approved/yes/y/ok/lgtm) emits `plan.state_changed` (RUNNING),
//! `plan.decision_made`, `tool.completed` and the run continues; REJECT
//! (reject/rejected/no/n/deny) fails step and plan (`plan.state_changed`
//! FAILED, task FAILED). Any other reply asks again. A data part
//! `{"decision": "PROMPT_DECISION_…"}` is also understood.

use super::events::{emit, tool_fields, Out};
use super::record::{self, invalid_state, load, state_name, PlanRecord, FAMILY};
use super::runner::{run_plan, spawn_run};
use super::PlanService;
use crate::executor::TaskHandle;
use crate::util;
use a2a::rpc::Error;
use a2a::types::{
    Message, PartContent, Plan, PlanEventType, PlanPrompt, PlanPromptParams, PlanState, PromptDecision,
    TaskState,
};
use a2a::ErrorKind;
use serde_json::json;

/// The decision a reply carries: a data part's `decision`, else its first word.
fn decision_of(message: &Message, text: &str) -> Option<PromptDecision> {
    let data_decision = message.parts.iter().find_map(|p| match &p.content {
        PartContent::Data(d) => serde_json::from_value::<PromptDecision>(d["decision"].clone()).ok(),
        _ => None,
    });
    let word = text
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or_default()
        .to_lowercase();
    data_decision.or(match word.as_str() {
        "approve" | "approved" | "yes" | "y" | "ok" | "lgtm" => Some(PromptDecision::Approve),
        "reject" | "rejected" | "no" | "n" | "deny" => Some(PromptDecision::Reject),
        _ => None,
    })
}

/// The prompt a plan waits on, if `prompt_id` (when given) may answer it.
fn pending_prompt(rec: &PlanRecord, plan_id: &str, prompt_id: Option<&str>) -> Result<PlanPrompt, Error> {
    if let Some(p) = prompt_id {
        if rec.exec.answered.iter().any(|a| a == p) {
            return Err(invalid_state(
                format!("Prompt `{p}` was already answered"),
                rec.plan.state,
            ));
        }
    }
    let pending = match (&rec.exec.pending_prompt, rec.plan.state) {
        (Some(p), PlanState::InputRequired) => p.clone(),
        _ => {
            return Err(invalid_state(
                format!(
                    "Plan `{plan_id}` is {}; only INPUT_REQUIRED plans take an answer",
                    state_name(rec.plan.state)
                ),
                rec.plan.state,
            ))
        }
    };
    if let Some(p) = prompt_id {
        if p != pending.prompt_id {
            return Err(FAMILY.not_found(&format!("Prompt `{p}` of plan `{plan_id}`")));
        }
    }
    Ok(pending)
}

/// Answers the pending prompt; true when the plan runs on.
async fn answer_prompt(
    plans: &PlanService,
    ns: &str,
    plan_id: &str,
    prompt_id: Option<&str>,
    decision: PromptDecision,
    text: Option<String>,
) -> Result<(Plan, bool), Error> {
    let _guard = record::guard(plans, plan_id).await?;
    let (mut rec, mut ver) = load(plans, ns, plan_id).await?;
    let pending = pending_prompt(&rec, plan_id, prompt_id)?;
    if decision == PromptDecision::Answer {
        return Err(FAMILY.invalid_params("decision", "an APPROVAL prompt takes APPROVE or REJECT"));
    }
    let i = rec
        .steps
        .iter()
        .position(|s| s.id == pending.step_id)
        .ok_or_else(|| FAMILY.internal("the prompt's step is missing"))?;
    let step = rec.steps[i].clone();
    rec.exec.pending_prompt = None;
    rec.exec.answered.push(pending.prompt_id.clone());
    let comment = text.filter(|t| !t.trim().is_empty());
    let with_comment = |verdict: &str| match &comment {
        Some(c) => format!("{verdict}: {c}"),
        None => verdict.to_string(),
    };
    let now = util::now();
    if decision == PromptDecision::Reject {
        let message = with_comment("Rejected");
        rec.step_failed(i, &message, now);
        rec.fail(&message, Some(step.id.clone()));
        emit(
            plans,
            ns,
            &mut rec,
            &mut ver,
            Out::Status(TaskState::Failed, Some(message.clone())),
            PlanEventType::PlanStateChanged,
            json!({ "state": PlanState::Failed, "stepId": step.id, "message": message }),
        )
        .await?;
        return Ok((rec.plan, false));
    }
    let message = with_comment("Approved");
    rec.step_succeeded(i, message.clone(), now);
    rec.plan.state = PlanState::Running;
    let events = [
        (
            PlanEventType::PlanStateChanged,
            json!({ "state": PlanState::Running, "stepId": step.id }),
        ),
        (
            PlanEventType::PlanDecisionMade,
            json!({ "stepId": step.id, "nodeId": format!("n-{}", step.id), "message": message }),
        ),
        (PlanEventType::ToolCompleted, tool_fields(&step)),
    ];
    for (event, fields) in events {
        emit(
            plans,
            ns,
            &mut rec,
            &mut ver,
            Out::Status(TaskState::Working, None),
            event,
            fields,
        )
        .await?;
    }
    Ok((rec.plan, true))
}

/// A reply that is no answer: the plan asks again, so the caller is not left waiting.
async fn ask_again(plans: &PlanService, ns: &str, plan_id: &str) -> Result<(), Error> {
    let _guard = record::guard(plans, plan_id).await?;
    let (mut rec, mut ver) = load(plans, ns, plan_id).await?;
    let step_id = rec.exec.pending_prompt.as_ref().map(|p| p.step_id.clone());
    let question = rec
        .exec
        .pending_prompt
        .as_ref()
        .map(|p| format!("Reply `approve` or `reject`. {}", p.question))
        .unwrap_or_else(|| "Reply `approve` or `reject`.".into());
    let fields = json!({ "state": rec.plan.state, "stepId": step_id });
    emit(
        plans,
        ns,
        &mut rec,
        &mut ver,
        Out::Status(TaskState::InputRequired, Some(question)),
        PlanEventType::PlanStateChanged,
        fields,
    )
    .await
}

/// `plan/prompt`: answers the pending prompt; an approved plan runs on detached.
pub(crate) async fn answer(plans: &PlanService, ns: &str, params: PlanPromptParams) -> Result<Plan, Error> {
    let (plan, resume) = answer_prompt(
        plans,
        ns,
        &params.plan_id,
        Some(&params.prompt_id),
        params.decision,
        params.text.clone(),
    )
    .await?;
    if resume {
        spawn_run(plans, ns.to_string(), plan.id.clone())?;
    }
    Ok(plan)
}

/// A message replying to a plan's input-required task answers its prompt.
pub(crate) async fn reply(
    plans: &PlanService,
    task: &TaskHandle,
    plan_id: &str,
    message: &Message,
) -> Result<(), Error> {
    let ns = task.namespace.clone();
    let text = crate::executor::message_text(message);
    let decision = decision_of(message, &text);
    {
        // A message while the plan is not waiting (e.g. still running) is
        // only recorded in the task's history; the run goes on.
        let _guard = record::guard(plans, plan_id).await?;
        let (rec, _) = load(plans, &ns, plan_id).await?;
        if rec.plan.state != PlanState::InputRequired {
            return Ok(());
        }
    }
    let Some(decision) = decision else {
        return ask_again(plans, &ns, plan_id).await;
    };
    let text = Some(text).filter(|t| !t.is_empty());
    let (plan, resume) = match answer_prompt(plans, &ns, plan_id, None, decision, text).await {
        Ok(answered) => answered,
        // Answered or cancelled meanwhile (plan/prompt, plan/cancel): the
        // message stays in the history and the task is left as it is.
        Err(e) if e.kind() == Some(ErrorKind::ExtInvalidState) => return Ok(()),
        Err(e) => return Err(e),
    };
    if resume {
        run_plan(plans, &ns, &plan.id).await;
    }
    Ok(())
}
